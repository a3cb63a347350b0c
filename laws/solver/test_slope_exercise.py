"""The lesson's exercise: the slope with elliptic friction cones and with impratio 10.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", exercise; pinned figures in laws/solver/slope_exercise_3_14_0.json.

The box of `test_slope.py` (20 degrees, friction 0.5, 5 s) again, with cone="elliptic", with
impratio=10 (friction constraints 10 times stiffer than the normal one), and with both. Per
variant: how far the converged box creeps (Newton, 100 iterations), and how many iterations PGS
and CG need to hold the box (fewest k from which on every larger k in 1, 2, 3, 5, 8, 12, 20,
30, 50, 100 moves the box at most twice the converged creep). Laws on any MuJoCo: every
variant holds the box; the creep scales as 1/impratio (measured 0.100 pyramidal, 0.108
elliptic); the elliptic cone creeps about half as far as the pyramidal (0.547); CG holds within
2 iterations, PGS needs more than CG everywhere. Pinned with MuJoCo 3.14.0 (the lesson gives no
answer): creep 8.991 / 4.920 / 0.899 / 0.533 mm (pyramidal / elliptic / impratio 10 / both); PGS
holds from 12 / 5 / 30 / 5 iterations, CG from 2 / 1 / 2 / 1.

Measured:
MuJoCo 4.0.0 measures the same (`pytest laws/solver/test_slope_exercise.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.solver.options import SOLVERS
from fixtures.solver.slope_runs import iterations_to_hold
from laws.solver.lesson import require_lesson_mujoco

SOURCE = "Lesson 20.2, exercise"
PINNED = Path(__file__).with_name("slope_exercise_3_14_0.json")
KS = (1, 2, 3, 5, 8, 12, 20, 30, 50, 100)
VARIANTS: dict[str, dict[str, Any]] = {
    "pyramidal": {},
    "elliptic": {"cone": "elliptic"},
    "impratio10": {"impratio": 10.0},
    "elliptic_impratio10": {"cone": "elliptic", "impratio": 10.0},
}


def exercise_answers(slope_run) -> dict[str, dict[str, Any]]:
    """Per variant: converged creep (mm), the iterations PGS and CG need to hold the box, creep at 100."""
    out = {}
    for name, options in VARIANTS.items():
        creep = slope_run("Newton", 100, **options).creep_mm
        out[name] = {"creep_mm": creep, **{
            solver: iterations_to_hold(lambda k: slope_run(solver, k, **options), KS, creep)  # noqa: B023
            for solver in ("PGS", "CG")}}
        out[name]["creep_at_100_mm"] = [slope_run(s, 100, **options).creep_mm for s in SOLVERS]
    return out


@pytest.fixture(scope="module")
def exercise(slope_run) -> dict[str, dict[str, Any]]:
    """The exercise's answers, measured once for the module."""
    return exercise_answers(slope_run)


@pytest.mark.law("slope-exercise-holds", source=SOURCE)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_cone_and_impratio_holds_the_converged_box(law, exercise, variant: str) -> None:
    """Converged, every variant holds the box; PGS, CG and Newton at 100 iterations agree on its creep."""
    row = exercise[variant]
    law.check("creep_mm", row["creep_mm"], gt=0.0, le=20.0, unit="mm",
              why="static friction holds (tan 20 = 0.36 < 0.5); measured 0.53 to 8.99 mm, a slide is >= 150 mm")
    law.check("creep_spread_at_100_mm", max(row["creep_at_100_mm"]) - min(row["creep_at_100_mm"]), le=0.05,
              unit="mm", why="converged solves are the same physics: measured spread <= 0.001 mm")


@pytest.mark.law("slope-exercise-impratio", source=SOURCE)
@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_creep_scales_as_one_over_impratio(law, exercise, cone: str) -> None:
    """impratio 10 makes the friction rows 10 times stiffer: the box creeps about 10 times less."""
    stiff = exercise["impratio10" if cone == "pyramidal" else "elliptic_impratio10"]["creep_mm"]
    law.check("creep_ratio", stiff / exercise[cone]["creep_mm"], near=0.1, rel=0.2,
              why="friction regulariser / impratio: measured 0.100 (pyramidal) and 0.108 (elliptic)")


@pytest.mark.law("slope-exercise-elliptic", source=SOURCE)
def test_elliptic_cone_creeps_about_half_as_far(law, exercise) -> None:
    """The elliptic cone lets the held box creep about half as far as the pyramidal cone."""
    law.check("elliptic_over_pyramidal", exercise["elliptic"]["creep_mm"] / exercise["pyramidal"]["creep_mm"],
              ge=0.3, le=0.8, why="measured 0.547 at impratio 1 (0.593 at impratio 10)")


@pytest.mark.law("slope-exercise-iterations", source=SOURCE)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pgs_needs_more_iterations_than_cg_to_hold(law, exercise, variant: str) -> None:
    """CG holds the box within 2 iterations a step, PGS needs more, and within 100."""
    row = exercise[variant]
    cg, pgs = row["CG"] or 1000, row["PGS"] or 1000  # None: not even 100 holds
    law.check("cg_iterations_to_hold", cg, le=2, why="measured 1 or 2 in every variant")
    law.check("pgs_iterations_to_hold", pgs, le=100, why="measured 5 to 30")
    law.check("pgs_over_cg_iterations", pgs / cg, gt=1.0, why="measured 5 to 15 times as many")


@pytest.mark.law("slope-exercise-pinned", source=SOURCE)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_exercise_answers_are_the_pinned_ones(law, exercise, variant: str) -> None:
    """Reference: creep within 0.01 mm and the iteration counts exactly, as measured on MuJoCo 3.14.0."""
    require_lesson_mujoco("slope exercise")
    pinned = json.loads(PINNED.read_text())["variants"][variant]
    row = exercise[variant]
    law.check("creep_mm", row["creep_mm"], near=pinned["creep_mm"], abs=0.01, unit="mm",
              why="pinned on MuJoCo 3.14.0; 0.01 mm as for the lesson's creep")
    for solver in ("PGS", "CG"):
        law.check(f"{solver.lower()}_iterations_to_hold", row[solver], near=pinned[solver], abs=0,
                  why="pinned on MuJoCo 3.14.0: a count, exact")
