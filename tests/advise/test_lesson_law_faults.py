"""The suite law `advise-lesson-slope` fails when advise is broken: a planner whose only cap is 100 (it never
looks below) cannot find the lesson's PGS cap, and one whose tolerance ignores creep passes PGS at 2 iterations."""

from __future__ import annotations

from pathlib import Path

import pytest

LAW = Path(__file__).resolve().parents[2] / "laws" / "solver" / "test_advise_lesson.py"

FAULTS = {
    "no_small_caps": "from pytest_physlaw.advise import planner\nplanner.CAPS = (100,)\n",
    "creep_unbounded": ("from pytest_physlaw.advise import distance\n"
                        "distance.DEFAULT_BOUNDS.update(creep_mm=1e9, pose_mm=1e9, capped_share=1e9)\n"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_lesson_law_fails_under_an_injected_fault(pytester: pytest.Pytester, fault: str) -> None:
    pytester.makepyfile(**{f"fault_{fault}": FAULTS[fault]})
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess(str(LAW), "-m", "law", "-p", f"fault_{fault}", "-p", "no:cacheprovider",
                                           "-k", "box_slide", f"--rootdir={LAW.parents[2]}")
    result.assert_outcomes(failed=1)
