"""Convergence from one state: how much of the constraint correction each solver still misses.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 1.

The settled tower of 10 boxes (60 dofs, 160 constraint rows) is solved once, cold (warmstart
off), by each solver stopped after k = 1, 2, 5, 10, 20, 50, 100 iterations, and compared with
Newton run to convergence: share = |qacc_k - qacc*| / |qacc_smooth - qacc*|. Newton is exact after
one iteration (with the active set right the cost is quadratic, one Newton step solves it); CG
converges to machine precision within 20; PGS overshoots at first (share 7.4 > 1 at k = 1) and
still misses after 100 (2.1e-5).

Measured:
This suite measures the lesson's table digit for digit on MuJoCo 3.14.0
(`pytest laws/solver/test_convergence.py`).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from fixtures.settled import SettledState
from fixtures.solver.convergence import ConvergenceTable, convergence_table
from laws.solver.lesson import require_lesson_mujoco

SOURCE = "Lesson 20.2, part 1"
MACHINE_PRECISION = 1e-12  # measured 6e-15 to 7e-15 on the 60-dof tower; 150x margin for other BLAS/CPUs
# A share at machine precision is round-off: the gate compares it with its bound only (drift_abs).


@pytest.fixture(scope="module")
def tower_convergence(settled_tower: SettledState) -> ConvergenceTable:
    """The missing shares of the settled tower: 21 cold solves and one converged Newton."""
    return convergence_table(settled_tower)


@pytest.mark.law("newton-exact-after-one", source=SOURCE)
def test_newton_is_exact_after_one_iteration(law, tower_convergence: ConvergenceTable) -> None:
    """Newton, cold, misses nothing after one iteration: the active set is right at once."""
    law.check("newton_share", tower_convergence.shares["Newton"], le=MACHINE_PRECISION, drift_abs=MACHINE_PRECISION,
              why="machine precision: measured 0 at k=1 and <= 6.7e-15 after, margin for other platforms")
    law.check("reference_newton_iterations", tower_convergence.reference_niter, le=2,
              why="Newton at tolerance 1e-14 stops after 1 iteration (measured); 2 allows one more for roundoff")


@pytest.mark.law("cg-converges-by-20", source=SOURCE)
def test_cg_converges_within_twenty_iterations(law, tower_convergence: ConvergenceTable) -> None:
    """CG needs several iterations (0.63 missing after 5) but reaches machine precision by 20."""
    table = tower_convergence
    law.check("cg_share_k5", table.share("CG", 5), ge=0.1,
              why="CG is not a one-step solver here: measured 0.63 after 5 iterations")
    law.check("cg_share_k10", table.share("CG", 10), le=1e-4,
              why="nearly there after 10: measured 4.6e-7, bound 200x above")
    law.check("cg_share_k20_plus", [table.share("CG", k) for k in table.ks if k >= 20], le=MACHINE_PRECISION,
              drift_abs=MACHINE_PRECISION, why="machine precision from k=20: measured <= 7.3e-15")


@pytest.mark.law("pgs-overshoots-then-creeps", source=SOURCE)
def test_pgs_overshoots_first_and_misses_after_a_hundred(law, tower_convergence: ConvergenceTable) -> None:
    """PGS overshoots after one sweep (share > 1), then closes in slowly and still misses at 100."""
    shares = tower_convergence.shares["PGS"]
    law.check("pgs_share_k1", shares[0], gt=1.0,
              why="overshoot: one sweep through stacked contacts misses by more than the whole correction (7.4)")
    law.check("pgs_share_k100", shares[-1], ge=1e-8, le=1e-3,
              why="converging but not converged after 100: measured 2.1e-5, band 2 decades each way")
    law.check("pgs_share_ratio_per_k", [b / a if a else math.inf for a, b in zip(shares, shares[1:])], lt=1.0,
              why="every further batch of sweeps reduces the miss (measured ratios 0.81 to 0.002)")


@pytest.mark.law("solver-order-per-iteration", source=SOURCE)
def test_newton_beats_cg_beats_pgs_at_equal_iterations(law, tower_convergence: ConvergenceTable) -> None:
    """At every k, Newton misses no more than CG, and CG less than PGS (ties at machine precision)."""
    shares = tower_convergence.shares
    law.check("newton_minus_cg", [n - c for n, c in zip(shares["Newton"], shares["CG"])], le=MACHINE_PRECISION,
              why="Newton's step uses the cost's Hessian, CG only M^-1: never behind at equal k")
    law.check("cg_over_pgs", [c / p if p else math.inf for c, p in zip(shares["CG"], shares["PGS"])], lt=1.0,
              why="CG ahead of PGS at every k on the tower (measured ratios 0.13 to 3e-10)")


@pytest.mark.law("convergence-table-lesson", source=SOURCE)
def test_convergence_table_is_the_lessons(law, tower_convergence: ConvergenceTable,
                                          lesson_20_2: dict[str, Any]) -> None:
    """Reference: every share the lesson printed above 1e-10 is measured within 10 %."""
    require_lesson_mujoco("convergence table")
    ref = lesson_20_2["convergence"]
    assert tuple(ref["ks"]) == tower_convergence.ks, "the lesson's k are the table's k"
    for solver, printed in ref["shares"].items():
        for k, expected, measured in zip(ref["ks"], printed, tower_convergence.shares[solver]):
            if expected > 1e-10:
                law.check(f"{solver}_share_k{k}", measured, near=expected, rel=0.10,
                          why="Lesson 20.2 printed 2 digits (MuJoCo 3.14.0); 10 % covers the rounding")
    law.check("scale", tower_convergence.scale, near=ref["scale"], rel=1e-3,
              why="|qacc_smooth - qacc*| printed as 31.02")
