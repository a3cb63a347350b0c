"""`regressions/releases.py`: the last patch of each minor, the requirement set of each engine's release, a model
a release cannot compile reported as not run, and the table's verdicts (nothing installed here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "regressions" / "releases.py"


@pytest.fixture(scope="module")
def releases():
    spec = importlib.util.spec_from_file_location("releases_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_the_last_patch_of_each_minor(releases, monkeypatch) -> None:
    monkeypatch.setattr(releases, "available", lambda package: ["4.0.1", "4.0.0", "3.10.0.3", "3.10.0", "3.9.0rc1",
                                                                 "3.3.10", "3.3.9", "3.3.7"])
    assert releases.last_patches("mujoco", [(3, 3), (3, 9), (3, 10), (4, 0)]) == {
        (3, 3): "3.3.10", (3, 9): None, (3, 10): "3.10.0.3", (4, 0): "4.0.1"}


def test_each_engine_brings_the_mujoco_of_its_release(releases) -> None:
    assert releases.requirement_set("mujoco", "3.10.0") == ("mujoco==3.10.0",)
    assert releases.requirement_set("warp", "3.10.0.3") == ("mujoco-warp==3.10.0.3", "mujoco==3.10.0")
    assert releases.requirement_set("mjx", "3.1.6") == ("mujoco-mjx==3.1.6", "mujoco==3.1.6", "jax==0.4.30",
                                                        "jaxlib==0.4.30")
    assert releases.requirement_set("mjx", "3.17.0") == ("mujoco-mjx==3.17.0", "mujoco==3.17.0")
    assert releases.requirement_set("newton", "1.8.0") == ("newton[sim]==1.8.0",)


def test_a_model_the_release_cannot_compile_is_not_run_and_the_rest_are(releases, monkeypatch, tmp_path) -> None:
    good, bad = (releases.Model("arm", "repo", "a.xml"), tmp_path / "a.xml"), (
        releases.Model("muscles", "repo", "m.xml"), tmp_path / "m.xml")
    calls = []

    def run_side(side, paths, options, suite, work):
        calls.append(paths)
        if str(bad[1]) in paths:
            return tmp_path / "none.json", 2, (f"not checked (errors):\n  {bad[1]}  collection error: MuJoCo 3.0.1 "
                                               f"cannot compile this model: Error: did not converge\nERROR {bad[1]}\n")
        report = tmp_path / "r.json"
        report.write_text("{}")
        return report, 0, ""
    monkeypatch.setattr(releases.upgrade, "run_side", run_side)
    monkeypatch.setattr(releases, "outcomes", lambda report: {str(good[1]): {
        "passed": 3, "failed": 0, "skipped": 1, "error": 0, "failed_laws": [], "errors": []}})
    results = releases.check_models(None, [good, bad], [], tmp_path)
    assert calls == [[str(good[1]), str(bad[1])], [str(good[1])]]
    assert results["arm"]["ran"] and results["arm"]["passed"] == 3
    assert not results["muscles"]["ran"] and "did not converge" in results["muscles"]["why"]


def test_the_table_says_ran_skipped_or_errored(releases) -> None:
    ran = {"engine": "mujoco", "minor": "3.10", "release": "3.10.0", "status": "errored", "why": "",
           "models": {"arm": {"ran": True, "passed": 2, "failed": 1, "skipped": 0, "error": 3,
                              "failed_laws": ["model-x"], "errors": ["model-y"] * 3,
                              "error_messages": ["TypeError: mj_fullM(): incompatible function arguments"]}}}
    skipped = {"engine": "mjx", "minor": "3.1", "release": "3.1.6", "status": "skipped",
               "why": "no wheel or source pip can install for Python 3.11: ..."}
    table = releases.markdown([ran, skipped])
    assert "| mujoco 3.10 | 3.10.0 | errored | 2 / 1 / 0 (1 of 1) | arm: model-x |" in table
    assert "model-y (3 cases: TypeError: mj_fullM(): incompatible" in table
    assert "| mjx 3.1 | 3.1.6 | skipped |" in table and "no wheel" in table
