"""`pytest-physlaw upgrade`: the version sets it reads, its kept environments, each side's verdicts and the gate
across them, and its exit status (0 held, 1 regressions, 2 a set that cannot be had or a bad argument). The
environments here are kept ones made beside the test (this interpreter behind both), so nothing is installed."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from pytest_physlaw import cli, upgrade
from pytest_physlaw.session import LawSession

MODEL = Path(__file__).resolve().parents[2] / "regressions" / "models" / "mujoco_2179_fourbar_anchor.xml"


def test_a_version_set_is_pip_requirements_split_on_spaces_or_commas() -> None:
    assert upgrade.requirements(" mujoco==3.4.0, mujoco-mjx==3.4.0 jax") == ("mujoco==3.4.0", "mujoco-mjx==3.4.0", "jax")
    with pytest.raises(upgrade.UpgradeError, match="names no requirement"):
        upgrade.requirements(" , ")


def test_pytest_options_follow_a_double_dash() -> None:
    assert upgrade.split_options(["upgrade", "--from", "a", "m.xml", "--", "-k", "x"]) == (
        ["upgrade", "--from", "a", "m.xml"], ["-k", "x"])
    assert upgrade.split_options(["upgrade", "m.xml"]) == (["upgrade", "m.xml"], [])


def test_each_version_set_has_an_environment_of_its_own(tmp_path: Path) -> None:
    a, b = upgrade.env_dir(tmp_path, ("mujoco==3.4.0",)), upgrade.env_dir(tmp_path, ("mujoco==3.5.0",))
    assert a != b and a.parent == tmp_path and a.name.startswith("mujoco3.4.0-")
    assert upgrade.env_dir(tmp_path, ("numpy", "mujoco==3.4.0")) == upgrade.env_dir(tmp_path, ("mujoco==3.4.0", "numpy"))


def _kept(envs: Path, spec: str) -> None:
    """A kept environment for `spec` whose python is this interpreter (a wrapper: a symlink would lose its venv)."""
    env = upgrade.env_dir(envs, upgrade.requirements(spec))
    (env / "bin").mkdir(parents=True)
    python = env / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    (env / upgrade.MARK).write_text(json.dumps({"requirements": [spec]}))


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell wrapper stands for the kept environment's python")
def test_an_upgrade_that_changes_nothing_exits_0_with_both_sides_tables(tmp_path: Path) -> None:
    envs = tmp_path / "envs"
    _kept(envs, "mujoco==0.0.1")
    _kept(envs, "mujoco==0.0.2")
    out = io.StringIO()
    status = cli.main(["upgrade", "--from", "mujoco==0.0.1", "--to", "mujoco==0.0.2", "--envs", str(envs),
                       "--work", str(tmp_path / "work"), str(MODEL), "--", "-k", "wrenches or inverse"], out)
    text = out.getvalue()
    assert status == 0, text
    assert "[from] mujoco==0.0.1: pytest exit 0" in text and "(kept environment)" in text
    assert "[to] mujoco==0.0.2: pytest exit 0" in text
    assert "no law fails on either version set" in text
    assert "law gate: mujoco==0.0.1 -> mujoco==0.0.2: 0 regressions" in text
    assert (tmp_path / "work" / "from.json").is_file() and (tmp_path / "work" / "to.log").is_file()


def test_a_missing_model_or_no_model_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["upgrade", "--from", "mujoco==3.4.0", "--to", "mujoco==3.5.0", "--envs", str(tmp_path)]
    assert cli.main([*args, str(tmp_path / "absent.xml")]) == 2
    assert "no such path" in capsys.readouterr().err
    assert cli.main(args) == 2
    assert "name the models to check" in capsys.readouterr().err


def test_a_version_set_pip_cannot_install_says_so_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(cmd, what):  # what pip answers for a release that does not exist, without asking an index
        if "pip" in cmd:
            raise upgrade.UpgradeError(f"{what} failed (exit 1):\n  ERROR: No matching distribution found")
    monkeypatch.setattr(upgrade, "_run", refuse)
    status = cli.main(["upgrade", "--from", "mujoco==0.0.0", "--to", "mujoco==3.5.0", "--envs", str(tmp_path / "e"),
                       "--work", str(tmp_path / "w"), str(MODEL)])
    assert status == 2
    assert "from: pip install mujoco==0.0.0 failed" in capsys.readouterr().err
    assert not any((tmp_path / "e").glob(f"*/{upgrade.MARK}"))  # a failed build is not kept


def _session(outcomes: dict[str, str]) -> LawSession:
    laws = [{"nodeid": n, "path": "m.xml", "law": n.split("::")[1], "outcome": o,
             "checks": [{"quantity": "q", "value": 1.0, "bound": "<= 0", "bounds": {"le": 0.0}, "margin": -1.0,
                         "passed": o != "failed"}]} for n, o in outcomes.items()]
    return LawSession.from_report({"schema_version": 1, "complete": True, "environment": {}, "run": {}, "laws": laws,
                                   "gaps": []})


def test_the_verdicts_name_what_each_side_failed_found_and_fixed() -> None:
    before = _session({"m.xml::a": "failed", "m.xml::b": "passed", "m.xml::c": "failed", "m.xml::d": "passed"})
    after = _session({"m.xml::a": "passed", "m.xml::b": "failed", "m.xml::c": "failed", "m.xml::d": "passed"})
    rows = {line.split()[0]: line for line in upgrade.verdicts(before, after).splitlines()[2:]}
    assert rows["m.xml::a"].endswith("fixed") and "failed: q" in rows["m.xml::a"]
    assert rows["m.xml::b"].endswith("new finding")
    assert rows["m.xml::c"].endswith("fails on both")
    assert "m.xml::d" not in rows
    assert upgrade.verdicts(after, after).count("\n") > 1
    assert upgrade.verdicts(_session({"m.xml::d": "passed"}), _session({"m.xml::d": "passed"})) == \
        "no law fails on either version set\n"
