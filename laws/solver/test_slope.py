"""A box on a slope: an under-converged solve is a different physics.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 3.

A 5 cm, 0.1 kg box rests on a plane tilted 20 degrees, friction 0.5 on both: tan 20 = 0.36 < 0.5,
so Coulomb friction holds it. In 5 s every converged solve lets it creep the same 8.99 mm (soft
contact: the friction constraint yields a little, Lesson 9.3), whatever the solver: PGS with
20 or 100 iterations, CG with 2, 5 or 100, Newton with 1 or 100. PGS cut to 2 or 5 iterations per
step never reaches static friction and slides 465 mm and 156 mm: the iteration limit stops its
solve unconverged on nearly every step. Newton cut to 1 iteration runs to its limit on a fifth of
the steps, but converges on that one iteration (MuJoCo's own stopping test, `capped_share`).

Measured:
This suite measures the lesson's table to the micrometre on MuJoCo 3.14.0
(`pytest laws/solver/test_slope.py`). Share of the 2500 steps at the iteration limit / stopped
there unconverged: PGS 2 it. 0.9980 / 0.9972, PGS 5 it. 0.9976 / 0.9976, Newton 1 it. 0.1855 /
0.0004 (one step), Newton 100 it. 0 / 0.
"""

from __future__ import annotations

from typing import Any

import pytest

from laws.solver.lesson import require_lesson_mujoco

SOURCE = "Lesson 20.2, part 3"
CONVERGED = [("PGS", 20), ("PGS", 100), ("CG", 2), ("CG", 5), ("CG", 100), ("Newton", 1), ("Newton", 100)]
UNDER_CONVERGED = [("PGS", 2), ("PGS", 5)]


@pytest.mark.law("slope-converged-creep", source=SOURCE)
def test_converged_solves_creep_the_same_few_millimetres(law, slope_run) -> None:
    """Every converged solve holds the box: it creeps a few mm in 5 s, the same for every solver."""
    creeps = [slope_run(solver, iterations).creep_mm for solver, iterations in CONVERGED]
    law.check("creep_mm", creeps, ge=1.0, le=20.0, unit="mm",
              why="held, not slid: soft-contact creep of 8.99 mm measured; a slide covers >= 150 mm")
    law.check("creep_spread_mm", max(creeps) - min(creeps), le=0.1, unit="mm",
              why="the same physics whatever the solver: measured spread 0.006 mm (CG 2 at 8.995)")
    reference = slope_run("Newton", 100)
    law.check("newton_limit_share", reference.limit_share, le=0.0,
              why="the reference is converged: Newton never hits its 100-iteration limit")
    law.check("newton_1_capped_share", slope_run("Newton", 1).capped_share, le=0.01, drift_abs=0.002,
              why="Newton cut to 1 iteration converges on it: runs to the limit on 19 % of the steps, "
                  "stopped there unconverged on 1 of 2500 (0.0004); a few steps more or less is not physics")


@pytest.mark.law("slope-under-converged-slides", source=SOURCE)
@pytest.mark.parametrize("solver,iterations", UNDER_CONVERGED)
def test_pgs_cut_to_a_few_iterations_slides_far(law, slope_run, solver: str, iterations: int) -> None:
    """PGS limited to 2 or 5 iterations a step lets the box slide far: static friction is never reached."""
    run = slope_run(solver, iterations)
    converged = slope_run("Newton", 100).creep_mm
    law.check("creep_over_converged", run.creep_mm / converged, ge=5.0,
              why="measured 52x (2 iterations) and 17x (5): a slide, not a creep")
    law.check("limit_share", run.limit_share, ge=0.9,
              why="the solve stops at its limit on (nearly) every step: measured 1.00")
    law.check("capped_share", run.capped_share, ge=0.9,
              why="and the limit stops it unconverged (MuJoCo's stopping test unmet): measured 0.997 (2 it.), 0.998 (5)")


@pytest.mark.law("slope-creep-lesson", source=SOURCE)
@pytest.mark.parametrize("solver,iterations", UNDER_CONVERGED + CONVERGED)
def test_slope_distances_are_the_lessons(law, slope_run, solver: str, iterations: int,
                                         lesson_20_2: dict[str, Any]) -> None:
    """Reference: the distance slid in 5 s, as the lesson printed it (converged within 0.01 mm)."""
    require_lesson_mujoco("slope distances")
    table = {(row["solver"], row["iterations"]): row["creep_mm"] for row in lesson_20_2["slope"]["creep_mm"]}
    measured = slope_run(solver, iterations).creep_mm
    if (solver, iterations) in CONVERGED:
        law.check("creep_mm", measured, near=table[solver, iterations], abs=0.01, unit="mm",
                  why="Lesson 20.2, MuJoCo 3.14.0, printed to 1 um; 0.01 mm as the issue asks")
    else:
        law.check("slide_mm", measured, near=table[solver, iterations], rel=0.01, unit="mm",
                  why="Lesson 20.2, MuJoCo 3.14.0; an under-converged slide amplifies roundoff, so 1 %")
