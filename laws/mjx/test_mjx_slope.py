"""On MJX a converged solve holds the box on the slope as MuJoCo C does; an iteration cap makes it slide.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 3 and its research note (how MJX bounds its solver iterations); MJX's `mjx.put_model` (the solvers it implements).

The lesson's box on a 20 degree slope with friction 0.5 (tan 20 = 0.36) creeps 8.99 mm in 5 s under
every converged solve of MuJoCo C, and still under C's CG capped at 2 or 5 iterations. On MJX, in
float64 (JAX's `enable_x64`), converged Newton and CG creep as far as C, to the difference of two
solves each stopped within tolerance 1e-8. In float32, JAX's default and what policies are trained
with, the converged box still holds but creeps farther than C's
(docs/known_gaps/mjx-float32-creep.md). Capped at 2 iterations MJX's CG stops at the cap on most
steps and the box slides, in either precision, where C's holds; at 5 it holds, float32 creeping
farther (docs/known_gaps/mjx-capped-cg.md). With elliptic cones CG capped at 2 lets the box creep
ten times C's distance (docs/known_gaps/mjx-elliptic-capped-cg.md). MJX has no PGS
(docs/known_gaps/mjx-no-pgs.md). MJX records no iteration count; the route reads its solver
loop's own counter (`fixtures.mjx.route`).

Measured:
CPU, MuJoCo 3.14.0, mujoco-mjx 3.14.0, jax 0.10.2 (`pytest -m law laws/mjx --law-report=r.json`), 5 s,
distance in mm, C / MJX float64 / MJX float32 (iterations a step, mean: C / float64 / float32):

    Newton 100 it.  8.9905 / 8.9905 / 11.0103   (0.19 / 1.00 / 2.09)
    CG 100 it.      8.9905 / 8.9909 /  9.1377   (0.20 / 3.48 / 4.73)
    CG 5 it.        8.9901 / 9.1815 / 16.3339   (at the cap: C 0.2 %, float64 17 %, float32 81 %)
    CG 2 it.        8.9952 / 1376.1 / 1677.1    (at the cap: C 2.5 %, float64 73 %, float32 62 %)
    elliptic CG 2   4.9199 / 51.73  / 77.74     (converged, C and float64: 4.9195 / 4.9199)
"""

from __future__ import annotations

import numpy as np
import pytest

from fixtures.mjx.load import route_or_skip
from fixtures.solver.options import SOLVERS
from fixtures.solver.scenes import slope
from fixtures.solver.slope_runs import HOLD_FACTOR

route = route_or_skip()  # skips this module, with the versions found, where MJX cannot run
DEVICE = route.device_kind()
SOURCE = "Lesson 20.2, part 3 and research note"
CONVERGED = 100  # MuJoCo's default opt.iterations
BOX = 1  # body 0 is the world
SLIDE_FACTOR = 5.0  # a slide: at least 5x the converged creep (PGS at 5 iterations in C: 17x)
FLOAT64_ABS_MM = 0.005
# How far the gate lets figures move that XLA's CPU code decides: a capped (unconverged) solve's figures are what
# the CPU's float arithmetic makes of its iterates, and two AMD EPYC CPUs (AVX-512 and AVX2-only, the same
# versions, 2026-12-02 and 12-03) put them up to 58 % apart (CG at 2 in float64: 153x and 242x C's creep),
# capped shares 27 %, the converged float32 creep difference 6 %, and the converged float64 one 0.41 and 0.55 um
# (two solves stopped within tolerance 1e-8: under FLOAT64_ZERO_MM it is round-off to the gate).
CAPPED_DRIFT = 1.0
SHARE_DRIFT = 0.5
CONVERGED_FLOAT32_DRIFT = 0.2
FLOAT64_ZERO_MM = 0.001
GAP_FLOAT32 = "docs/known_gaps/mjx-float32-creep.md"
GAP_CAPPED = "docs/known_gaps/mjx-capped-cg.md"
GAP_ELLIPTIC = "docs/known_gaps/mjx-elliptic-capped-cg.md"
GAP_PGS = "docs/known_gaps/mjx-no-pgs.md"


def creep_mm(run) -> float:
    return float(run.creep_mm(BOX)[0])


def float32_rounding_mm(run) -> float:
    """The most float32 position updates can round away: one ulp at the box's height per step."""
    height = float(np.abs(run.qpos0[:3]).max())
    return 1000.0 * run.steps * float(np.spacing(np.float32(height)))


@pytest.mark.law(f"mjx-slope-converged-float64[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("solver", route.mjx_solvers())
def test_converged_float64_creeps_as_far_as_c(law, mjx_slope_run, slope_run, solver: str) -> None:
    """In float64 MJX's converged box creeps as far as C's, within 0.005 mm in 5 s.

    Both run float64, so round-off alone parts them by ~1e-10 mm; what remains is that the two
    solvers stop at different iterates within tolerance 1e-8 (MJX iterates at least once a step,
    C's warmstarted solve mostly not at all). The bound is half the lesson's 0.01 mm.
    """
    run = mjx_slope_run(solver, CONVERGED, "float64")
    c = slope_run(solver, CONVERGED)
    law.check("creep_minus_c_mm", creep_mm(run) - c.creep_mm, near=0.0, abs=FLOAT64_ABS_MM, unit="mm",
              drift_abs=FLOAT64_ZERO_MM, why="two float64 solves stopped within tolerance 1e-8: measured -0.000005 (Newton) and +0.0004 mm "
                  "(CG); half the lesson's printed 0.01 mm")
    law.check("steps_at_cap", int(np.count_nonzero(run.niter >= run.cap)), le=0, unit="steps",
              why="converged: no step's solve stopped at the 100-iteration cap (MJX's own counter)")


@pytest.mark.law(f"mjx-slope-converged-float32-holds[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("solver", route.mjx_solvers())
def test_converged_float32_still_holds_the_box(law, mjx_slope_run, slope_run, solver: str) -> None:
    """In float32 MJX's converged box still holds: it creeps at most twice C's converged distance."""
    run = mjx_slope_run(solver, CONVERGED, "float32")
    c = slope_run(solver, CONVERGED)
    law.check("creep_over_c", creep_mm(run) / c.creep_mm, le=HOLD_FACTOR,
              why=f"held, not slid: at most {HOLD_FACTOR:g}x the converged creep (fixtures.solver.slope_runs); "
                  "measured 1.22 (Newton) and 1.02 (CG)")
    law.check("steps_at_cap", int(np.count_nonzero(run.niter >= run.cap)), le=0, unit="steps",
              why="converged: no step's solve stopped at the 100-iteration cap (measured at most 19 iterations)")


@pytest.mark.known_gap(GAP_FLOAT32)
@pytest.mark.law(f"mjx-slope-converged-float32[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("solver", route.mjx_solvers())
def test_converged_float32_creeps_as_far_as_c(law, mjx_slope_run, slope_run, solver: str) -> None:
    """Known gap: in float32 the converged box should creep as far as C's, to float32's position rounding."""
    run = mjx_slope_run(solver, CONVERGED, "float32")
    c = slope_run(solver, CONVERGED)
    rounding = float32_rounding_mm(run)
    law.check("creep_minus_c_mm", creep_mm(run) - c.creep_mm, near=0.0, abs=2 * rounding, unit="mm",
              drift=CONVERGED_FLOAT32_DRIFT, why=f"float32 positions: {run.steps} steps x one ulp = {rounding:.4f} mm, doubled; measured "
                  "+2.02 mm (Newton) and +0.147 mm (CG)")


@pytest.mark.law(f"mjx-slope-cg2-slides[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("precision", route.PRECISIONS)
def test_cg_capped_at_two_iterations_slides(law, mjx_slope_run, slope_run, precision: str) -> None:
    """MJX's CG capped at 2 iterations stops at the cap on most steps and the box slides, >= 5x the creep."""
    run = mjx_slope_run("CG", 2, precision)
    converged = slope_run("Newton", CONVERGED).creep_mm
    law.check("creep_over_converged", creep_mm(run) / converged, ge=SLIDE_FACTOR, drift=CAPPED_DRIFT,
              why="an unconverged friction solve each step: a slide (measured 153x float64, 187x float32; "
                  "C's PGS at 2 iterations: 52x)")
    law.check("capped_share", float(run.capped_share[0]), ge=0.5, drift=SHARE_DRIFT,
              why="the cap binds on most steps: measured 0.73 (float64) and 0.62 (float32); C's CG at 2: 0.025")


@pytest.mark.law(f"mjx-slope-cg5-holds[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("precision", route.PRECISIONS)
def test_cg_capped_at_five_iterations_holds(law, mjx_slope_run, slope_run, precision: str) -> None:
    """MJX's CG capped at 5 iterations stops at the cap on some steps, and still holds the box."""
    run = mjx_slope_run("CG", 5, precision)
    converged = slope_run("Newton", CONVERGED).creep_mm
    law.check("creep_over_converged", creep_mm(run) / converged, le=HOLD_FACTOR, drift=CAPPED_DRIFT,
              why=f"held: at most {HOLD_FACTOR:g}x the converged creep; measured 1.02 (float64), 1.82 (float32)")
    law.check("capped_share", float(run.capped_share[0]), gt=0.0, drift=SHARE_DRIFT,
              why="the cap binds, or the law tests nothing: measured 0.17 (float64), 0.81 (float32)")


@pytest.mark.known_gap(GAP_CAPPED)
@pytest.mark.law(f"mjx-slope-capped-cg-as-c[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("iterations,precision", [(2, "float64"), (2, "float32")])
def test_capped_cg_creeps_as_far_as_cs(law, mjx_slope_run, slope_run, iterations: int, precision: str) -> None:
    """Known gap: MJX's CG with C's cap should move the box as far as C's CG with that cap. (At a cap of 5 in
    float32 the creep over C's is what the CPU's float32 arithmetic makes of 81 % capped solves: 1.82 on the
    AMD EPYC the gap was measured on, 0.96 on an AVX2-only one; `test_cg_capped_at_five_iterations_holds`
    bounds it, no gap is kept there.)"""
    run = mjx_slope_run("CG", iterations, precision)
    c = slope_run("CG", iterations)
    law.check("creep_over_c_same_cap", creep_mm(run) / c.creep_mm, near=1.0, rel=0.1, drift=CAPPED_DRIFT,
              why="same solver, same cap; C holds at 8.995 mm (2 it.): measured 153x (float64) and 186x (float32)")


@pytest.mark.known_gap(GAP_ELLIPTIC)
@pytest.mark.law(f"mjx-slope-elliptic-capped-cg-as-c[{DEVICE}]", source=SOURCE)
@pytest.mark.parametrize("precision", route.PRECISIONS)
def test_elliptic_capped_cg_creeps_as_far_as_cs(law, mjx_slope_run, slope_run, precision: str) -> None:
    """Known gap: with elliptic cones MJX's CG capped at 2 should move the box as far as C's."""
    run = mjx_slope_run("CG", 2, precision, cone="elliptic")
    c = slope_run("CG", 2, cone="elliptic")
    law.check("creep_over_c_same_cap", creep_mm(run) / c.creep_mm, near=1.0, rel=0.1, drift=CAPPED_DRIFT,
              why="C's elliptic CG at 2 iterations creeps 4.92 mm, as converged (4.9195): measured 10.5x "
                  "(float64) and 15.8x (float32)")


@pytest.mark.known_gap(GAP_PGS)
@pytest.mark.law(f"mjx-solvers[{DEVICE}]", source=SOURCE)
def test_mjx_runs_every_solver_of_c(law) -> None:
    """Known gap: MJX should run each of MuJoCo's solvers on the slope; it refuses PGS."""
    refused = []
    for solver in SOLVERS:
        try:
            route.mjx.put_model(slope(solver=solver))
        except NotImplementedError:
            refused.append(solver)
    law.check("solvers_refused", len(refused), le=0, unit="solvers",
              why=f"mujoco-mjx's put_model raises NotImplementedError for {', '.join(refused) or 'none'}; "
                  "the lesson's sliding rows (PGS at 2 and 5 iterations) have no MJX counterpart")
