"""On MuJoCo Warp the box on the slope creeps as far as under MuJoCo C, converged or capped.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 3; MuJoCo Warp's README (the solvers it implements).

A box on a 20 degree slope with friction 0.5 (tan 20 = 0.36) only creeps, 8.99 mm in 5 s under
every converged solve; an iteration cap that stops PGS short of static friction lets it slide (PGS
at 2 iterations: 465 mm). MJWarp implements CG and Newton only: its `put_model` refuses PGS
(NotImplementedError, "mjSOL_PGS is unsupported"), so the lesson's sliding rows have no MJWarp
counterpart. Its two primal solvers hold the box even when capped at one (Newton) or two (CG)
iterations, and agree with MuJoCo C run with the same options. Horizon: 5 s on CUDA; 1 s on the
CPU, where Warp launches every kernel from Python (~6 ms a step).

Measured:
On the CPU with MuJoCo 3.14.0 and mujoco-warp 3.14.0, distance slid, MJWarp / C:

    1 s: Newton 100 it. 1.7887 / 1.7885 mm, Newton 1 it. 1.7874 / 1.7874, CG 100 it. 1.7882 / 1.7885,
         CG 2 it. 1.7873 / 1.7932 (MJWarp capped in 18 of 500 steps)
    5 s: Newton 100 it. 8.9880 / 8.9905 mm, CG 100 it. 8.9876 / 8.9905, CG 2 it. 8.9866 / 8.9952

(`pytest laws/warp/test_warp_slope.py --law-report=r.json` has the 1 s differences and ratios; one
5 s figure: `python -c "from fixtures.warp import route as w; from fixtures.solver.scenes import
slope; m = slope(solver='CG', iterations=2); print(w.simulate(w.put_scene(m), 2500).displacement_mm(1))"`
and `fixtures.solver.slope_runs.run_slope(20, 0.5, 5.0, solver='CG', iterations=2).creep_mm` for C.)
The issue's author measured Newton 8.988 / 8.991 mm (as here) and CG at 2 iterations 9.134 / 9.211
mm; this scene gives 8.987 / 8.995 mm for CG at 2, C's figure being the lesson's (8.995 mm).
"""

from __future__ import annotations

import numpy as np
import pytest

from fixtures.warp.support import skip_unless_supported

skip_unless_supported()  # mujoco-warp missing, or of another release than MuJoCo

from fixtures.solver.slope_runs import HOLD_FACTOR  # noqa: E402
from fixtures.warp.route import device_kind, float32_rounding_m, warp_solvers  # noqa: E402

DEVICE = device_kind()
SECONDS = 5.0 if DEVICE == "cuda" else 1.0
DEFAULT_ITERATIONS = 100  # MuJoCo's default opt.iterations
CAPPED = {"Newton": 1, "CG": 2}  # the fewest iterations each primal solver is measured at
BOX = 1  # body 0 is the world


@pytest.mark.law(f"warp-slope-converged[{DEVICE}]", source="Lesson 20.2, part 3")
@pytest.mark.parametrize("solver", warp_solvers())
def test_converged_warp_creeps_as_far_as_c(law, warp_slope_run, slope_run, solver: str) -> None:
    """At the default 100 iterations MJWarp's box creeps as far as C's, to float32's rounding.

    MJWarp integrates in float32: each step may round the box position by one ulp at its
    magnitude, so the two runs may part by steps x ulp; the bound is twice that.
    """
    warp = warp_slope_run(solver, DEFAULT_ITERATIONS, SECONDS)
    c = slope_run(solver, DEFAULT_ITERATIONS, seconds=SECONDS)
    creep = float(warp.displacement_mm(BOX)[0])
    rounding_mm = 1000.0 * float32_rounding_m(np.abs(warp.xpos0[0, BOX]).max(), warp.steps)
    law.check("creep_minus_c_mm", creep - c.creep_mm, near=0.0, abs=2 * rounding_mm, unit="mm",
              why=f"float32 positions: {warp.steps} steps x one ulp = {rounding_mm:.4f} mm, doubled for "
                  "other devices' rounding; measured -0.0026 mm over 5 s, +0.0001 mm over 1 s (Newton, CPU)")
    law.check("steps_at_cap", int(warp.capped_steps[0]), le=0, unit="steps",
              why="a converged solve never stops at the cap: MJWarp printed no iteration-limit warning")


@pytest.mark.law(f"warp-slope-capped[{DEVICE}]", source="Lesson 20.2, part 3")
@pytest.mark.parametrize("solver", warp_solvers())
def test_capped_warp_still_holds_the_box(law, warp_slope_run, slope_run, solver: str) -> None:
    """Capped at 1 (Newton) or 2 (CG) iterations MJWarp still holds the box, as C does.

    Where the lesson's PGS slid at 2 iterations, MJWarp's primal solvers stop at the cap only now
    and then, and the box creeps as under a converged solve.
    """
    iterations = CAPPED.get(solver, 2)
    warp = warp_slope_run(solver, iterations, SECONDS)
    c_capped = slope_run(solver, iterations, seconds=SECONDS)
    c_converged = slope_run(solver, DEFAULT_ITERATIONS, seconds=SECONDS)
    creep = float(warp.displacement_mm(BOX)[0])
    law.check("cap_warnings", warp.cap_warnings, ge=1, unit="warnings",
              why="the cap binds: MJWarp printed its iteration-limit warning (captured) in 1 (Newton, 1 it.) "
                  "and 18 (CG, 2 it.) of 500 steps on the CPU; with none the capped run would test nothing")
    law.check("creep_over_converged_c", creep / c_converged.creep_mm, le=HOLD_FACTOR,
              why=f"the box holds: it moves at most {HOLD_FACTOR:g}x the converged creep (fixtures.solver.slope_runs); "
                  "measured 0.999 (CG 2 it., 1 s) where PGS at 2 iterations slides 52x as far in C")
    law.check("creep_over_c_same_cap", creep / c_capped.creep_mm, near=1.0, rel=0.02,
              why="an unconverged solve stops at another iterate in float32, tolerance 1e-6 and MJWarp's "
                  "unconditional warmstart; measured 0.9967 (CG 2 it., 1 s) and 0.9990 (5 s)")
