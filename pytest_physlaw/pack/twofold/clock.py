"""The physics does not read the clock: a state's accelerations and constraint forces are the same whatever the
simulation's time says, at t and at t + 1000 s (time-translation invariance, the symmetry energy conservation comes
from). Nothing in MuJoCo's step depends on `mjData.time` but what the user asks to (a clock sensor, delayed controls
and sensors, plugins, callbacks); a release that seeds a solver's order, a noise or a cache with the time makes the
same robot move otherwise an hour into a run, and a run from t = 0 cannot show it. Source: Noether's theorem (time
translation); MuJoCo's documentation (Computation: the forward dynamics as a function of the state (qpos, qvel,
act), the controls and the applied forces).

The measurement: at each state of `twofold_states` (three of them above 200 dofs), `mj_forward` on two copies of
the state, one with its time moved 1000 s on; `qacc` and the constraint forces (`qfrc_constraint`) of the two
compared. Both are the same computation of the same numbers, so the bound is round-off: 100 eps of the larger
value. Left out, naming why: a model with delayed controls or sensors (their history is kept by time) or plugins.

Measured figures and commands: docs/second-computations.md ("The clock").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold.states import for_solves

EPS = float(np.finfo(float).eps)
ULPS = 100.0
SHIFT = 1000.0  # seconds: an hour's order, where a float time still resolves a millisecond step exactly enough
SOURCE = ("Noether's theorem (time translation); MuJoCo documentation, Computation (forward dynamics of the state, "
          "controls and applied forces)")


def why_not(model: mujoco.MjModel) -> str | None:
    """Why the model's physics may read the time by design, or None."""
    if int(getattr(model, "nhistory", 0)):
        return "delayed controls or sensors (their history is kept by time)"
    if int(model.nplugin):
        return "plugins (they may read the time)"
    return None


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, str]:
    """(the largest difference of qacc and qfrc_constraint between the state at its time and 1000 s later, over
    100 eps of the larger value; which)."""
    results = []
    for shift in (0.0, SHIFT):
        data = copy.copy(state)
        data.time = float(state.time) + shift
        mujoco.mj_forward(model, data)
        results.append((np.array(data.qacc), np.array(data.qfrc_constraint)))
    worst, which = 0.0, "qacc"
    for k, name in enumerate(("qacc", "qfrc_constraint")):
        first, second = results[0][k], results[1][k]
        scale = ULPS * EPS * max(float(np.max(np.abs(first), initial=0.0)), float(np.max(np.abs(second), initial=0.0)))
        share = float(np.max(np.abs(first - second), initial=0.0)) / max(scale, 1e-300)
        if share > worst:
            worst, which = share, name
    return worst, which


@pytest.mark.law("model-physics-ignores-the-clock", source=SOURCE)
def test_physics_ignores_the_clock(law, pack_model, twofold_states, model_case) -> None:
    """At each state, qacc and the constraint forces are the same with the time moved 1000 s on, to round-off."""
    model = pack_model.model
    reason = why_not(model)
    if reason:
        pytest.skip(f"{model_case}: {reason}")
    worst = (0.0, "qacc", 0.0)
    for state in for_solves(model, twofold_states):
        share, which = apart(model, state)
        if share >= worst[0]:
            worst = (share, which, float(state.time))
    share, which, t = worst
    law.check("clock_shift_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |{which} at the state's time - at its time + {SHIFT:g} s| over 100 eps of the larger, at "
                  f"t = {t:.3f} s; failing, MuJoCo {mujoco.__version__} computes this state's physics from its clock "
                  f"(solver {mujoco.mjtSolver(int(model.opt.solver)).name}): the same robot moves otherwise later in a "
                  "run (an engine defect: name it in a MuJoCo issue, or change MuJoCo version)")
