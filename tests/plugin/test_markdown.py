"""--law-markdown writes the law table and the gate's regressions as Markdown, and appends the same
text to $GITHUB_STEP_SUMMARY when that is set."""

from __future__ import annotations

import textwrap

import pytest

from pytest_physlaw.gate import Finding, GateResult
from pytest_physlaw.markdown import cell, render
from pytest_physlaw.record import CheckRecord, LawRecord
from pytest_physlaw.session import LawSession


def test_cells_escape_pipes_and_newlines():
    assert cell("a|b\nc") == "a\\|b c"
    assert cell("") == ""


def test_render_puts_problems_and_regressions_first_then_laws_gaps_and_notes():
    run = LawSession()
    check = CheckRecord("x", 2.0, "<= 1", {"le": 1.0}, -1.0, False, unit="m")
    run.records["a.py::test_x"] = LawRecord("a.py::test_x", "a.py", outcome="xfailed", known_gap="g.md", checks=[check])
    run.gap_pages["g.md"] = ["a.py::test_x"]
    gate = GateResult(regressions=[Finding("drift", "a.py::test_x", "margin moved", "x")],
                      notes=[Finding("new-law", "a.py::test_y", "new law")])
    run.problems.append("docs/known_gaps/orphan.md: no collected test keeps this page")
    text = render(run, gate)
    order = [text.index(s) for s in ("## Physics laws", "### Law problems", "### Law regressions", "| law |", "### Known gaps",
                                     "### Baseline notes")]
    assert order == sorted(order)
    assert "- a.py::test_x [x]: margin moved" in text
    assert "| `a.py::test_x` |  | x | 2 m | <= 1 | -1 | gap, DRIFT |" in text
    assert "| g.md | `a.py::test_x` | open |" in text


LAWS = """
    def test_x(law):
        "x is small"
        law.check("x", 5.0, le=10.0, unit="m")
"""


def test_the_option_writes_markdown_and_appends_to_the_step_summary(pytester, monkeypatch):
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    summary = pytester.path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("--law-markdown", "out/table.md")
    assert result.ret == 0
    text = (pytester.path / "out" / "table.md").read_text()
    assert text.startswith("## Physics laws")
    assert "| `test_laws.py::test_x` |  | x | 5 m | <= 10 | 0.5 | pass |" in text
    assert summary.read_text() == "earlier step\n" + text + "\n"


def test_the_markdown_lists_the_regressions(pytester, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    assert pytester.runpytest("--law-save-baseline", "base.json").ret == 0
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS).replace("5.0", "9.0"))
    result = pytester.runpytest("--law-baseline", "base.json", "--law-markdown", "table.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = (pytester.path / "table.md").read_text()
    assert "### Law regressions" in text and "test_laws.py::test_x [x]: value 5 m -> 9 m (+80%) moved more" in text


def test_without_the_option_nothing_is_appended(pytester, monkeypatch):
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert pytester.runpytest().ret == 0
    assert not summary.exists()
