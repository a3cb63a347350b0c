"""Static friction on MJX: a `vmap` over 64 friction coefficients finds the slope's threshold where C does.
Source: Coulomb's law of friction on an incline, after Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 3 and its research note (MJX: friction is a traced field, so one compiled step serves every world of a `jax.vmap`).

The box on a 20 degree slope (tan 20 = 0.364), 64 friction coefficients from 0.2 to 0.6, each a world
of one `jax.vmap` over MJX's `geom_friction`, float32 and default solver options (Newton, 100
iterations), for 1 s. Where mu is clearly above tan(angle) (by 0.02, the knife edge of soft
contact, as in laws/warp) the box holds, moving less than 1 % of its frictionless slide; clearly
below, it slides Coulomb's 1/2 g (sin a - mu cos a) t^2. The threshold found, midway between the
last world that slides and the first that holds, lies within one grid step of the threshold MuJoCo
C finds on the same 64 frictions, and within the knife edge of tan(angle). No world's solve stops
at the iteration cap: MJX records no iteration count, so the route reads the counter of MJX's own
solver loop (`fixtures.mjx.route`).

Measured:
CPU, MuJoCo 3.14.0, mujoco-mjx 3.14.0, jax 0.10.2 (`pytest -m law laws/mjx --law-report=r.json`):
the threshold 0.3746 on MJX and in C (grid step 0.0063); held worlds move at most 0.24 % of their
frictionless slide, sliding ones at most 1.096 times Coulomb's distance (1.059 on an AVX-512 AMD EPYC); Newton 3.4 iterations a step at most
(a world's mean), 10 in one step. The 64 worlds' 500 steps take 2.4-3.3 s once compiled on this
2-core CPU (C, one world after another: 0.6 s).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fixtures.mjx.load import route_or_skip
from fixtures.solver.scenes import slope
from fixtures.solver.slope_runs import friction_threshold, run_slope

route = route_or_skip()  # skips this module, with the versions found, where MJX cannot run
DEVICE = route.device_kind()
ANGLE = 20.0
FRICTIONS = np.linspace(0.2, 0.6, 64)
SECONDS = 1.0
HOLD_SHARE = 0.01  # held: moved less than this share of the frictionless slide (as laws/warp)
KNIFE_EDGE_MU = 0.02  # closer than this to tan(angle), breaking away is a knife edge (as laws/warp)
F32_ULP = 2.0**-23  # a float32 round-off: the frictions' nudge that measures how far round-off moves a figure
DRIFT = 0.01  # the gate's default relative drift (ini physlaw_drift)
# The worst sliding world (mu 0.34) slides 110 mm by Coulomb, and float32 moves a slide by millimetres (the held
# box creeps 11.0 mm in float32, 8.99 mm in float64: laws/mjx/test_mjx_slope.py): its ratio to Coulomb is
# float32's rounding, which XLA orders differently on another CPU: 1.0965 on the CI machine of the last
# baseline, 1.0591 on an AVX-512 AMD EPYC (-3.4 %), while a one-ulp nudge of the frictions moves it 2e-6.
FLOAT32_CPU_DRIFT = 0.1  # and the mean iterations a step, which the same rounding moves (check_sweep)
BOX = 1


def check_sweep(law, mus: np.ndarray, slid_mm: np.ndarray, c_mm: np.ndarray, *, gravity: float,
                worlds_at_cap: int, iterations_per_step: float, nudged_iterations: float, run_seconds: float) -> None:
    """The law's checks on a sweep at ANGLE over SECONDS: MJX's distances `slid_mm` and C's `c_mm` per mu;
    `nudged_iterations`: the same sweep's iterations with every friction moved by one float32 ulp."""
    a = math.radians(ANGLE)
    frictionless = 500.0 * gravity * math.sin(a) * SECONDS**2
    coulomb = np.maximum(0.0, 500.0 * gravity * (math.sin(a) - mus * math.cos(a)) * SECONDS**2)
    step = float(mus[1] - mus[0])
    above, below = mus > math.tan(a) + KNIFE_EDGE_MU, mus < math.tan(a) - KNIFE_EDGE_MU
    held, c_held = slid_mm < HOLD_SHARE * frictionless, c_mm < HOLD_SHARE * frictionless
    threshold, c_threshold = friction_threshold(mus, held), friction_threshold(mus, c_held)

    law.check("threshold_minus_c", threshold - c_threshold, near=0.0, abs=step,
              why=f"within one step ({step:.4f}) of C's threshold on the same grid; measured 0 (both 0.3746)")
    law.check("threshold_minus_tan", threshold - math.tan(a), near=0.0, abs=max(step, KNIFE_EDGE_MU),
              why="Coulomb: tan(angle), to soft contact's knife edge of 0.02; measured +0.0106")
    law.check("held_share", slid_mm[above] / frictionless, lt=HOLD_SHARE,
              why="clearly above tan(angle): only soft-contact creep; measured at most 0.0024")
    law.check("slid_over_coulomb", slid_mm[below] / coulomb[below], near=1.0, rel=0.15, drift=FLOAT32_CPU_DRIFT,
              why="clearly below tan(angle): Coulomb's distance; measured at most 1.096, near the threshold "
                  "(MuJoCo Warp's: 1.088)")
    law.check("c_disagreements", int(np.count_nonzero((held != c_held)[above | below])), le=0, unit="worlds",
              why="MJX holds and slides in the same clear worlds as C")
    law.check("worlds_at_cap", worlds_at_cap, le=0, unit="worlds",
              why="converged in every world and step: MJX's iteration counter never reached 100")
    law.check("iterations_per_step", iterations_per_step, le=10.0, unit="iterations",
              drift=max(FLOAT32_CPU_DRIFT, roundoff_drift(iterations_per_step, nudged_iterations)),
              why="Newton, converged: measured 3.4 a step at most (a world's mean), 10 in one step; MJX iterates "
                  "at least once a step where C's warmstarted Newton mostly stops before iterating; float32's "
                  "rounding, which XLA orders by the CPU, moves it: 3.252 in the baseline saved on another CPU, "
                  "3.366 on an AMD EPYC of family 26 (AVX-512), +3.5 %; a one-ulp nudge of the frictions moved it "
                  "3.252 -> 3.184 on one CPU")
    law.check("sweep_seconds", run_seconds, le=30.0, unit="s", drift=None,
              why="the 64 worlds' 500 steps once compiled: measured 2.4-3.3 s on a 2-core CPU; a timing, "
                  "not gated for drift")


@pytest.mark.law(f"mjx-friction-threshold[{DEVICE}]", source="Lesson 20.2, part 3 and research note")
def test_vmapped_frictions_find_cs_threshold(law, mjx_route, mjx_kept_run, pytestconfig) -> None:
    """64 frictions in one vmap, float32: holds above tan(angle), slides below, the threshold where C's is."""
    model = slope(ANGLE)
    run = mjx_route.simulate(model, SECONDS, precision="float32", frictions=FRICTIONS)  # timed: never kept
    nudged = mjx_kept_run(model, SECONDS, precision="float32", frictions=FRICTIONS * (1 + F32_ULP))
    cache = getattr(pytestconfig, "cache", None)
    c_mm = np.array([run_slope(ANGLE, float(mu), SECONDS, cache=cache).creep_mm for mu in FRICTIONS])
    check_sweep(law, FRICTIONS, run.creep_mm(BOX), c_mm, gravity=float(np.linalg.norm(model.opt.gravity)),
                worlds_at_cap=run.worlds_at_cap, iterations_per_step=float(run.niter_mean.max()),
                nudged_iterations=float(nudged.niter_mean.max()), run_seconds=run.run_seconds)


def roundoff_drift(value: float, nudged: float) -> float:
    """Ten times what a round-off nudge moved `value`, relative, or the default 1 %, whichever is more."""
    return max(DRIFT, 10 * abs(value - nudged) / abs(value)) if value else DRIFT
