"""`pytest-physlaw new-gap PAGE --test NODEID`: a page with the five sections that names the test's
file, accepted as it is by a run that collects the test marked with it; an existing page is kept."""

from __future__ import annotations

import io

import pytest

from pytest_physlaw.cli import main
from pytest_physlaw.new_gap import SECTIONS

PAGE = "docs/known_gaps/scalar-proxy-mass.md"
# Not the repo's laws/ package: an in-process run of the whole suite has imported that one.
NODEID = "robot_laws/test_gripper_gap.py::test_scalar_proxy_answers[slider]"
GAP_LAW = f"""
import pytest

@pytest.mark.known_gap({PAGE!r})
@pytest.mark.parametrize("body", ["slider"])
def test_scalar_proxy_answers(law, body):
    law.check("answer_ratio", 3.0, near=1.0, rel=0.1)
"""


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_the_page_has_its_sections_and_names_the_test_file(pytester, monkeypatch):
    monkeypatch.chdir(pytester.path)
    code, out = run("new-gap", PAGE, "--test", NODEID)
    assert code == 0 and out.startswith(f"{PAGE}: a known-gap page for {NODEID}")
    assert f"@pytest.mark.known_gap({PAGE!r})" in out
    text = (pytester.path / PAGE).read_text()
    assert text.startswith("# Known gap: scalar proxy mass\n")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == list(SECTIONS)
    assert "`robot_laws/test_gripper_gap.py`" in text


def test_a_run_with_the_known_gap_test_accepts_the_page(pytester, monkeypatch):
    monkeypatch.chdir(pytester.path)
    (pytester.path / "robot_laws").mkdir()
    (pytester.path / "robot_laws/test_gripper_gap.py").write_text(GAP_LAW)
    assert run("new-gap", PAGE, "--test", NODEID)[0] == 0
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(xfailed=1)
    assert result.ret == 0
    result.stdout.no_fnmatch_line("*known-gap page*")
    # the check is real: the same run with a page that does not name the file fails the session
    (pytester.path / PAGE).write_text("# Known gap\n\nNames no test file.\n")
    failed = pytester.runpytest("-p", "no:cacheprovider")
    assert failed.ret != 0
    failed.stdout.fnmatch_lines([f"*known-gap page {PAGE} does not name robot_laws/test_gripper_gap.py*"])


def test_an_existing_page_is_never_overwritten(pytester, monkeypatch, capsys):
    monkeypatch.chdir(pytester.path)
    (pytester.path / "docs/known_gaps").mkdir(parents=True)
    (pytester.path / PAGE).write_text("kept\n")
    code, _ = run("new-gap", PAGE, "--test", NODEID)
    assert code == 2 and f"{PAGE} exists; new-gap never overwrites a page" in capsys.readouterr().err
    assert (pytester.path / PAGE).read_text() == "kept\n"


@pytest.mark.parametrize("page, nodeid, message", [
    (PAGE, "test_gripper_gap", "--test 'test_gripper_gap' is not a test's node id"),
    (PAGE, "robot_laws/test_gripper_gap.py", "is not a test's node id"),
    ("docs/known_gaps/gap.txt", NODEID, "a known-gap page is a Markdown file (.md)"),
    ("docs/known_gaps/README.md", NODEID, "other than README.md or index.md"),
])
def test_a_bad_page_or_node_id_is_refused(pytester, monkeypatch, capsys, page, nodeid, message):
    monkeypatch.chdir(pytester.path)
    code, _ = run("new-gap", page, "--test", nodeid)
    assert code == 2 and message in capsys.readouterr().err
    assert not (pytester.path / "docs").exists()
