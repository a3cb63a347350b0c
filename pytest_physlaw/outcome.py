"""The final outcome of a law test from its setup, call and teardown reports.

One of passed, failed, crashed, error, skipped, xfailed, xpassed. A known gap whose test passed (a
strict XPASS, which pytest reports as failed) is "xpassed": the gap closed. A call phase that raised
something other than an assertion (a LawViolation, an `assert`, `pytest.fail`) is "crashed": a crash
or a misused check is a broken test, not a law that failed; pytest counts it as failed, and so does
the law summary ("2 failed, 1 of them crashed"). "error" is pytest's: a setup or teardown that raised.
"""

from __future__ import annotations

import pytest

OUTCOMES = ("passed", "failed", "crashed", "error", "skipped", "xfailed", "xpassed")


def crashed(excinfo: pytest.ExceptionInfo | None) -> bool:
    """Whether a phase raised something other than a failed assertion."""
    return excinfo is not None and not excinfo.errisinstance((AssertionError, pytest.fail.Exception,
                                                              pytest.skip.Exception, pytest.xfail.Exception))


def phase_outcome(report: pytest.TestReport, *, gap_closed: bool = False, crash: bool = False) -> str:
    """The outcome one phase's report says, in the terms of OUTCOMES (error for setup/teardown)."""
    xfail = hasattr(report, "wasxfail")
    if report.when != "call":
        if report.failed:
            return "error"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "passed"
    if report.failed:
        return "xpassed" if gap_closed else ("crashed" if crash else "failed")
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return "xpassed" if xfail else "passed"


def final_outcome(phases: dict[str, str]) -> str:
    """Combine the phases' outcomes: setup decides if it did not pass, then call, then teardown."""
    setup = phases.get("setup", "passed")
    if setup != "passed":
        return setup
    call = phases.get("call", "passed")
    if phases.get("teardown") == "error" and call in ("passed", "xpassed"):
        return "error"
    return call
