"""The forward pass is a function of the state: `mj_forward` called again on the state it has just computed gives the
same accelerations, constraint forces, activation rates and sensor readings. Viewers, controllers and logging call
`mj_forward` between steps; where a release's forward pass writes an input of the next one (MuJoCo before 3.3.6 stored
the solver's answer as the next solve's warm start), a second call solves from elsewhere, and wherever the solve
stops before converging (a capped PGS, a loose tolerance) the physics depends on how often it was called, while every
run stays consistent with itself. Source: MuJoCo's documentation (API: mj_forward, "forward dynamics: same as
mj_step but do not integrate in time"; changelog 3.3.6, mj_forward made idempotent).

The measurement: at each state of `twofold_states` (three above 200 dofs), a copy forwarded twice; after each call
its qacc, qfrc_constraint, act_dot and sensordata, compared: the same computation of the same inputs, so the bound is
100 eps of the larger value.

Measured figures and commands: docs/second-computations.md ("The forward pass is a function of the state").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold.split_step import field_apart
from pytest_physlaw.pack.twofold.states import for_solves

SOURCE = "MuJoCo documentation, API (mj_forward: forward dynamics, no time integration); changelog 3.3.6"
FIELDS = ("qacc", "qfrc_constraint", "act_dot", "sensordata")


def _read(data: mujoco.MjData) -> dict[str, np.ndarray]:
    return {name: np.array(getattr(data, name)) for name in FIELDS}


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, str]:
    """(the largest difference between a first and a second `mj_forward` of a copy of `state`, over 100 eps of the
    larger value; which field, or sensor); (0, "") where none differs."""
    data = copy.copy(state)
    mujoco.mj_forward(model, data)
    first = _read(data)
    mujoco.mj_forward(model, data)
    second = _read(data)
    worst = (0.0, "")
    for name in FIELDS:
        share, which = field_apart(model, name, first[name], second[name])
        if share > worst[0]:
            worst = (share, which)
    return worst


@pytest.mark.law("model-forward-is-a-function-of-the-state", source=SOURCE)
def test_forward_twice_is_forward_once(law, pack_model, twofold_states, model_case) -> None:
    """At each state, a second mj_forward gives the first one's accelerations, constraint forces, activation rates
    and sensor readings, to 100 eps of the larger."""
    model = pack_model.model
    worst = (0.0, "qacc", 0.0)
    for state in for_solves(model, twofold_states):
        share, which = apart(model, state)
        if share >= worst[0] and which:
            worst = (share, which, float(state.time))
    share, which, t = worst
    law.check("forward_twice_apart_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |second mj_forward - first| over 100 eps of the larger, at each state: {which} at "
                  f"t = {t:.3f} s; failing, MuJoCo {mujoco.__version__}'s forward pass writes an input of the next "
                  "one (before 3.3.6: the warm start), so calling mj_forward between steps (a viewer, a controller) "
                  "changes the physics wherever a solve stops before converging (an engine defect: name it in a "
                  "MuJoCo issue, or change MuJoCo version)")
