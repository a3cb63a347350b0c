"""`regressions/releases.py`: the last patch of each minor, the requirement set of each engine's release and its
period's caps, a model a release cannot compile reported as not run, and the table's verdicts and the versions each
release ran with (nothing installed here, nothing asked of PyPI)."""

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
    assert releases.requirement_set("mjx", "3.17.0") == ("mujoco-mjx==3.17.0", "mujoco==3.17.0")
    assert releases.requirement_set("newton", "1.8.0") == ("newton[sim]==1.8.0",)


def test_the_period_caps_follow_the_pinned_requirements_and_never_repin_them(releases) -> None:
    caps = {"jax": "0.4.28", "jaxlib": "0.4.28", "numpy": "1.26.4", "mujoco": "3.2.0"}
    assert releases.requirement_set("mjx", "3.1.6", caps) == (
        "mujoco-mjx==3.1.6", "mujoco==3.1.6", "jax<=0.4.28", "jaxlib<=0.4.28", "numpy<=1.26.4")
    assert releases.requirement_set("newton", "1.0.0", {"warp-lang": "1.12.0", "mujoco": "3.5.0"}) == (
        "newton[sim]==1.0.0", "warp-lang<=1.12.0", "mujoco<=3.5.0")


# PyPI's JSON API answer, cut down: upload times of each release's files
INDEX = {"releases": {
    "1.11.1": [{"upload_time_iso_8601": "2026-02-03T10:00:00.000000Z"}],
    "1.12.0": [{"upload_time_iso_8601": "2026-03-06T09:00:00.000000Z"},
               {"upload_time_iso_8601": "2026-03-06T08:00:00.000000Z"}],
    "1.12.0rc2": [{"upload_time_iso_8601": "2026-02-27T10:00:00.000000Z"}],
    "1.13.0.dev20260302": [{"upload_time_iso_8601": "2026-03-02T10:00:00.000000Z"}],
    "1.12.1": [{"upload_time_iso_8601": "2026-04-06T10:00:00.000000Z"}],
    "1.12.2": [{"upload_time_iso_8601": "2026-03-08T10:00:00.000000Z", "yanked": True}],
    "0.9.9": [{"upload_time_iso_8601": "2026-03-09T10:00:00.000000Z"}],  # a late patch of an old line
    "1.19.0": [{"upload_time_iso_8601": "2026-11-02T10:00:00.000000Z"}],
    "2.0.0": []}}


def test_the_period_cap_is_the_newest_final_release_uploaded_before(releases) -> None:
    uploads = releases.first_uploads(INDEX)
    assert uploads["1.12.0"] == "2026-03-06T08:00:00.000000Z"  # a release's first file
    assert "2.0.0" not in uploads and "1.12.2" not in uploads  # no file, all files yanked
    # newton 1.0.0, uploaded 2026-03-10: warp-lang 1.12.0, not the rc, the dev build, nor what came after
    assert releases.period_cap(uploads, "2026-03-10T12:00:00.000000Z") == "1.12.0"
    assert releases.period_cap(uploads, "2026-03-06T08:00:00.000000Z") == "1.12.0"  # the same instant counts
    assert releases.period_cap(uploads, "2026-03-06T07:59:59.000000Z") == "1.11.1"
    assert releases.period_cap(uploads, "2026-04-14T00:00:00.000000Z") == "1.12.1"
    assert releases.period_cap(uploads, "2025-01-01T00:00:00.000000Z") is None


def test_the_period_of_a_release_caps_each_dependency_of_its_engine(releases, monkeypatch) -> None:
    times = {"newton": {"1.0.0": "2026-03-10T12:00:00.000000Z"}, "warp-lang": releases.first_uploads(INDEX),
             "mujoco-warp": {"3.5.0.2": "2026-02-26T00:00:00Z", "3.6.0": "2026-03-11T00:00:00Z"},
             "mujoco": {"3.5.0": "2026-02-13T00:00:00Z", "3.6.0": "2026-03-11T00:00:00Z"}, "numpy": {}}
    monkeypatch.setattr(releases, "upload_times", lambda name: times[name])
    assert releases.period("newton", "1.0.0") == {
        "released": "2026-03-10T12:00:00.000000Z", "source": "PyPI JSON API (first upload of each release)",
        "caps": {"warp-lang": "1.12.0", "mujoco-warp": "3.5.0.2", "mujoco": "3.5.0"}}
    assert releases.period("mujoco", "3.10.0") == {}

    def unreachable(name):
        raise OSError("no route")
    monkeypatch.setattr(releases, "upload_times", unreachable)
    assert releases.period("newton", "1.0.0")["caps"] == {}
    assert "uncapped" in releases.period("newton", "1.0.0")["why"]


def test_what_a_release_ran_with_is_read_from_its_environment(releases) -> None:
    freeze = ["jax==0.4.28", "jaxlib==0.4.28", "mujoco==3.1.6", "mujoco-mjx==3.1.6", "numpy==1.26.4",
              "scipy==1.13.1", "-e file:///work/checkout"]
    assert releases.ran_with(freeze, "mjx") == {"mujoco": "3.1.6", "jax": "0.4.28", "jaxlib": "0.4.28",
                                                "numpy": "1.26.4"}


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
           "models": {"arm": {"ran": True, "passed": 2, "failed": 1, "xfailed": 1, "skipped": 0, "error": 3,
                              "failed_laws": ["model-x"], "xfailed_laws": ["model-known"], "errors": ["model-y"] * 3,
                              "error_messages": ["TypeError: mj_fullM(): incompatible function arguments"]}}}
    skipped = {"engine": "mjx", "minor": "3.1", "release": "3.1.6", "status": "skipped",
               "why": "no wheel or source pip can install for Python 3.11: ..."}
    table = releases.markdown([ran, skipped])
    assert "| mujoco 3.10 | 3.10.0 | errored | 2 / 1 / 1 / 0 (1 of 1) | arm: model-x | arm: model-known |" in table
    assert "model-y (3 cases: TypeError: mj_fullM(): incompatible" in table
    assert "| mjx 3.1 | 3.1.6 | skipped |" in table and "no wheel" in table


def test_the_table_names_what_a_route_ran_with_and_its_note(releases) -> None:
    row = {"engine": "warp", "minor": "3.7", "release": "3.7.0.1", "status": "ran", "why": "",
           "note": "errored before with warp-lang 1.19.0, from after the release",
           "period": {"released": "2026-04-14T10:00:00Z", "caps": {"warp-lang": "1.12.1"}},
           "ran_with": {"mujoco": "3.7.0", "warp-lang": "1.12.1"},
           "models": {"box": {"ran": True, "passed": 5, "failed": 0, "skipped": 1, "error": 0,
                              "failed_laws": [], "errors": []}}}
    table = releases.markdown([row])
    assert "| warp 3.7 | 3.7.0.1 (mujoco 3.7.0, warp-lang 1.12.1; capped at 2026-04-14) | ran | 5 / 0 / 0 / 1 (1 of 1) |" \
        in table
    assert "note: errored before with warp-lang 1.19.0" in table
    uncapped = {**row, "period": {"released": None, "caps": {}, "why": "uncapped: no answer"}, "ran_with": {}}
    assert "| 3.7.0.1 (uncapped: no answer) |" in releases.markdown([uncapped])


def test_a_reports_xfails_are_counted_apart_from_its_skips(releases, pytester: pytest.Pytester) -> None:
    """A release's known defects end xfailed: the outcomes count them, with their laws, apart from the skips."""
    pytester.makepyfile(test_laws="""
        import pytest

        @pytest.mark.law("law-passes")
        def test_passes(law):
            law.check("x", 0.0, le=1.0)

        @pytest.mark.law("law-known")
        def test_known(law):
            law.follows("a known defect of this release", "beside the step")
            law.check("x", 2.0, le=1.0)

        @pytest.mark.law("law-skips")
        def test_skips(law):
            pytest.skip("nothing to judge")
    """)
    report = pytester.path / "report.json"
    pytester.runpytest_inprocess(f"--law-report={report}", "-p", "no:cacheprovider")
    (entry,) = releases.outcomes(report).values()
    assert (entry["passed"], entry["xfailed"], entry["skipped"], entry["failed"]) == (1, 1, 1, 0), entry
    assert entry["xfailed_laws"] == ["law-known"], entry
