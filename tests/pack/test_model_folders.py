"""`--physlaw-model` on a folder: its MJCF files found by their root element (no MuJoCo), fragments and
files that do not compile on their own left out and listed, a file given twice checked once; the
per-model summary serial and under -n 2, in pytest-html, in the report's `run.models`, which
`pytest-physlaw show`, `merge` and `compare` read (and reports without it, as before)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pytest_physlaw import cli, model_files, reportfile
from pytest_physlaw.session import LawSession, law_session
from tests.pack.test_check_command import CART_POLE, FRAGMENT, NOT_ON_ITS_OWN, SCENE

NO_MUJOCO = """
import sys

def test_plugin_imports_no_mujoco(law):
    law.check("mujoco_modules", sum(name.split(".")[0] == "mujoco" for name in sys.modules), near=0, abs=0)
"""


def robots(root: Path) -> Path:
    folder = root / "robots"
    (folder / "parts").mkdir(parents=True)
    (folder / "robot.xml").write_text(CART_POLE.format(mass=1))
    (folder / "scene.xml").write_text(SCENE)
    (folder / "parts" / "arm.xml").write_text(FRAGMENT)
    (folder / "part.xml").write_text(NOT_ON_ITS_OWN)
    return folder


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*args, "--physlaw-models-only", "-p", "no:cacheprovider",
                                        "-o", "physlaw_model_steps=100")


def test_the_scan_reads_root_elements_and_skips_folders_without_models(tmp_path: Path) -> None:
    folder = robots(tmp_path)
    (folder / "notes.xml").write_text("<?xml version='1.0'?>\n<!-- a comment --><config/>")
    (folder / "broken.xml").write_text("<mujoco><worldbody>")  # its root is read: a candidate
    (folder / "text.xml").write_text("not XML at all")
    (folder / "README.md").write_text("<mujoco/>")  # not .xml: not read
    for skipped in (".git", "__pycache__", "node_modules", "pkg.egg-info", "env"):
        (folder / skipped).mkdir()
        (folder / skipped / "x.xml").write_text("<mujoco/>")
    (folder / "env" / "pyvenv.cfg").write_text("")
    (folder / "big.xml").write_bytes(b"<mujoco>" + b"<!-- " + b"x" * 5_000_000)  # never closed: read no further
    found, left_out = model_files.scan(folder)
    assert [p.name for p in found] == ["big.xml", "broken.xml", "part.xml", "robot.xml", "scene.xml"]
    assert {p.relative_to(folder).as_posix(): why for p, why in left_out.items()} == {
        "notes.xml": "not MJCF (root <config>)", "text.xml": "not XML (or not well-formed)",
        "parts/arm.xml": "an include fragment (root <mujocoinclude>)"}


def test_a_file_given_by_name_and_through_its_folder_is_one_model_as_named(pytester: pytest.Pytester, law_records) -> None:
    folder = robots(pytester.path)
    result = run(pytester, f"--physlaw-model={folder}", "--physlaw-model=robots/robot.xml", "-k", "figures")
    assert result.ret == 0, result.stdout.str()
    assert sorted(law_records(pytester)) == ["robots/robot.xml::test_model_figures[robots/robot.xml]",
                                             "robots/scene.xml::test_model_figures[robots/scene.xml]"]
    result = run(pytester, "--physlaw-model=robots", "--physlaw-model=robots/part.xml")  # named: it must compile
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*robots/part.xml: MuJoCo * cannot compile this model*"])


def test_a_folder_of_fragments_imports_no_mujoco(pytester: pytest.Pytester) -> None:
    (pytester.path / "parts").mkdir()
    (pytester.path / "parts" / "arm.xml").write_text(FRAGMENT)
    pytester.makepyfile(test_clean=NO_MUJOCO)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--physlaw-model=parts")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= models =*", "0 models checked*1 file left out (not models)", "",
                                 "left out (not models):", "  parts/arm.xml  an include fragment (root <mujocoinclude>)"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_summary_is_the_same_under_xdist(pytester: pytest.Pytester, law_state, workers: list[str]) -> None:
    pytest.importorskip("xdist")
    robots(pytester.path)
    result = run(pytester, "--physlaw-model=robots", "-k", "figures or settled", *workers)
    assert result.ret == 0, result.stdout.str()
    state = law_state(result)
    assert {p: m["status"] for p, m in state.models.items()} == {
        "robots/robot.xml": "model", "robots/scene.xml": "model", "robots/part.xml": "not a model",
        "robots/parts/arm.xml": "not a model"}
    assert "cannot compile this file on its own" in state.models["robots/part.xml"]["why"]
    assert set(state.model_seconds) == {"robots/robot.xml", "robots/scene.xml"}
    assert all(s > 0 for s in state.model_seconds.values())
    result.stdout.fnmatch_lines(["model * laws  passed  failed  skipped  xfailed   time",
                                 "robots/robot.xml *2 *2 *0 *0 *0 * s",
                                 "robots/scene.xml *2 *2 *0 *0 *0 * s",
                                 "2 models checked (2 passed, 0 with findings); 2 files left out (not models); * s in *"])


def test_the_html_summary_lists_the_models(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_html")
    robots(pytester.path)
    run(pytester, "--physlaw-model=robots", "-k", "figures", "--html=r.html", "--self-contained-html")
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "Physics laws: models" in page and "robots/scene.xml" in page
    assert "robots/parts/arm.xml" in page and "an include fragment (root &lt;mujocoinclude&gt;)" in page


def test_show_merge_and_compare_read_reports_with_and_without_models(pytester: pytest.Pytester) -> None:
    robots(pytester.path)
    run(pytester, "--physlaw-model=robots", "-k", "figures", "--law-report=a.json")
    run(pytester, "--physlaw-model=robots", "-k", "settled", "--law-report=b.json")
    out = io.StringIO()
    assert cli.main(["show", str(pytester.path / "a.json")], out) == 0
    assert "robots/robot.xml" in out.getvalue() and "left out (not models):" in out.getvalue()
    assert cli.main(["merge", str(pytester.path / "a.json"), str(pytester.path / "b.json"), "-o",
                     str(pytester.path / "all.json")], io.StringIO()) == 0
    merged = reportfile.read(pytester.path / "all.json", "merged")
    assert len(merged["laws"]) == 4 and len(merged["run"]["models"]) == 4
    old = json.loads((pytester.path / "a.json").read_text())
    del old["run"]["models"]  # a report written before run.models
    (pytester.path / "old.json").write_text(json.dumps(old))
    out = io.StringIO()
    assert cli.main(["show", str(pytester.path / "old.json")], out) == 0 and "= models =" not in out.getvalue()
    assert cli.main(["compare", str(pytester.path / "old.json"), str(pytester.path / "a.json")], io.StringIO()) == 0
    old["run"]["models"] = [{"path": "robots/robot.xml", "status": "fine"}]
    with pytest.raises(reportfile.ReportError, match=r"run.models\[0\].status is 'fine'"):
        reportfile.validate(old, "bad.json")


def test_the_gate_fails_a_folder_model_that_no_longer_compiles(pytester: pytest.Pytester) -> None:
    folder = robots(pytester.path)
    assert run(pytester, "--physlaw-model=robots", "-k", "figures", "--law-save-baseline=base.json").ret == 0
    (folder / "scene.xml").write_text('<mujoco><include file="gone.xml"/></mujoco>')
    result = run(pytester, "--physlaw-model=robots", "-k", "figures", "--law-baseline=base.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*robots/scene.xml::test_model_figures*in the baseline but no longer collected*"])


@pytest.fixture
def law_state():
    """The LawSession of an in-process run (serial, or the xdist controller's)."""
    def state(result: pytest.RunResult) -> LawSession:
        return law_session(result.reprec.getcall("pytest_sessionfinish").session.config)
    return state


@pytest.fixture
def law_records():
    def records(pytester: pytest.Pytester) -> dict[str, dict]:
        report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
        return {r["nodeid"]: r for r in report["laws"]}
    return records
