"""Solver statistics: what `solver_niter` and `mjData.solver` say about a solve, and when it stops.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 1; MuJoCo's documentation of `opt.tolerance` (XML reference, "option").

Each island's solve records one entry per iteration in `mjData.solver` (improvement: the
scaled fall of the cost; gradient: the scaled gradient norm), `solver_niter` entries in all. A
solve stops at `opt.iterations` or earlier, once the improvement (PGS) or the smaller of
improvement and gradient (CG, Newton) falls below `opt.tolerance`. At the default tolerance
1e-8, cold from the settled tower: Newton stops after 1 iteration with improvement 111 and
gradient 1.7e-14 (the lesson printed 1.1e+02 and 1.7e-14); CG after 11, PGS after 78.

Measured:
`pytest laws/solver/test_solver_statistics.py`, MuJoCo 3.14.0 and 4.0.0 alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures.settled import SettledState
from fixtures.solver.convergence import ColdSolve, cold_solve
from fixtures.solver.options import SOLVERS, SolverOptions
from laws.solver.lesson import require_lesson_mujoco

SOURCE = "Lesson 20.2, part 1"
DEFAULT = SolverOptions()


@pytest.fixture(scope="module")
def default_solves(settled_tower: SettledState) -> dict[str, ColdSolve]:
    """Each solver, cold, at the default iterations (100) and tolerance (1e-8), on the settled tower."""
    return {name: cold_solve(settled_tower, name, DEFAULT.iterations, DEFAULT.tolerance)
            for name in SOLVERS}


@pytest.mark.law("newton-stops-after-one", source=SOURCE)
def test_newton_stops_after_one_iteration_at_default_tolerance(law, default_solves: dict[str, ColdSolve]) -> None:
    """Newton at tolerance 1e-8 stops after one iteration, its gradient at machine precision."""
    newton = default_solves["Newton"]
    law.check("niter", newton.niter, near=1, abs=0, why="one Newton step solves the quadratic cost exactly")
    law.check("gradient", newton.gradient[-1], le=1e-12, drift_abs=1e-12,
              why="measured 1.7e-14: the step lands on the minimum (machine precision, margin 60x)")
    law.check("improvement", newton.improvement[0], gt=0.0, why="the one step lowers the cost (measured 111)")


@pytest.mark.law("solvers-stop-on-tolerance", source=SOURCE)
@pytest.mark.parametrize("solver", SOLVERS)
def test_solvers_stop_before_the_limit_once_below_tolerance(law, default_solves: dict[str, ColdSolve],
                                                            solver: str) -> None:
    """Each solver stops before 100 iterations, on its last entry's stopping figure below tolerance."""
    solve = default_solves[solver]
    law.check("niter", solve.niter, ge=1, lt=DEFAULT.iterations,
              why="converges within the default limit (measured PGS 78, CG 11, Newton 1)")
    law.check("recorded_entries", len(solve.improvement), near=solve.niter, abs=0,
              why="mjData.solver holds one entry per iteration (niter < mjNSOLVER = 200)")
    last = solve.improvement[-1] if solver == "PGS" else min(solve.improvement[-1], solve.gradient[-1])
    law.check("stop_figure", last, le=DEFAULT.tolerance,
              why="PGS stops on improvement, CG/Newton on min(improvement, gradient) < tolerance",
              drift=None)  # where the last iteration lands below tolerance is not physics
    if solve.niter > 1:
        earlier = solve.improvement[:-1] if solver == "PGS" else [
            min(i, g) for i, g in zip(solve.improvement[:-1], solve.gradient[:-1])]
        law.check("stop_figure_before_last", earlier, gt=DEFAULT.tolerance,
                  why="it did not stop earlier: every earlier entry was still above tolerance", drift=None)
    law.check("improvement_sign", solve.improvement, ge=0.0, why="no iteration raises the cost")


@pytest.mark.law("newton-statistics-lesson", source=SOURCE)
def test_newton_statistics_are_the_lessons(law, default_solves: dict[str, ColdSolve],
                                           lesson_20_2: dict[str, Any]) -> None:
    """Reference: 1 iteration, improvement 1.1e+02, gradient 1.7e-14, as the lesson printed."""
    require_lesson_mujoco("Newton statistics")
    ref = lesson_20_2["convergence"]["newton_default_tolerance"]
    newton = default_solves["Newton"]
    law.check("niter", newton.niter, near=ref["niter"], abs=0, why="Lesson 20.2, MuJoCo 3.14.0")
    law.check("improvement", newton.improvement[0], near=ref["improvement"], rel=0.10,
              why="printed as 1.1e+02 (measured 111.1): 2 digits, 10 %")
    law.check("gradient", newton.gradient[0], ge=ref["gradient"] / 10, le=ref["gradient"] * 10,
              why="printed as 1.7e-14 (measured 1.73e-14); roundoff-sized, so the order of magnitude only")
