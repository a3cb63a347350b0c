"""`law.follows(premise, why)`: a law whose failure follows from another law's failed premise ends xfailed,
"consequence of PREMISE", and counts once: the run's exit status, the JSON record's `follows` and the
model table's "follows" line say so; checks that pass pass as ever; misuse is a clear error."""

from __future__ import annotations

import json
import textwrap

import pytest

LAWS = """
    import pytest

    @pytest.mark.law("resolved-step")
    def test_premise(law):
        law.check("half_step_shift", 0.3, le=0.1, why="the timestep does not resolve the motion")

    @pytest.mark.law("resting-depth")
    def test_downstream(law):
        law.follows("resolved-step", "at half the step the contact uses 0.4 of its allowance")
        law.check("depth_over_allowed", 1.007, le=1.0)

    @pytest.mark.law("resting-depth-kept")
    def test_downstream_that_holds(law):
        law.follows("resolved-step", "would follow")
        law.check("depth_over_allowed", 0.5, le=1.0)
"""


def _report(pytester: pytest.Pytester) -> dict[str, dict]:
    data = json.loads((pytester.path / "report.json").read_text())
    return {r["nodeid"].rpartition("::")[2]: r for r in data["laws"]}


def test_a_failure_that_follows_from_a_failed_premise_is_its_consequence(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    result = pytester.runpytest("--law-report=report.json", "-rx")
    result.assert_outcomes(failed=1, passed=1, xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_downstream*consequence of resolved-step: at half the step*"
                                 "(depth_over_allowed failed)*"])
    laws = _report(pytester)
    assert laws["test_downstream"]["outcome"] == "xfailed"
    assert laws["test_downstream"]["follows"] == "resolved-step"
    assert [c["passed"] for c in laws["test_downstream"]["checks"]] == [False]  # the measurement is kept
    assert laws["test_downstream_that_holds"]["outcome"] == "passed"
    assert "follows" not in laws["test_downstream_that_holds"] and "follows" not in laws["test_premise"]


def test_without_the_premise_the_same_failure_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS.replace('        law.follows("resolved-step", "at half', '        ("at half')))
    result = pytester.runpytest()
    result.assert_outcomes(failed=2, passed=1)


@pytest.mark.parametrize("call", ['law.follows("", "why")', 'law.follows("resolved-step", " ")', "law.follows(1, 'x')"])
def test_follows_without_a_premise_or_a_reason_is_an_error(pytester: pytest.Pytester, call: str) -> None:
    pytester.makepyfile(test_bad=f"""
        def test_bad(law):
            {call}
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ValueError: law.follows(premise=*both must be non-empty strings*"])
