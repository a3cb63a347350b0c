"""A simulation restored from its saved state steps as the original: the state `mj_getState` reads
(`mjSTATE_INTEGRATION`: time, positions, velocities, activations, warm start, controls, applied forces, mocap poses,
equality activations, plugin and history state) set with `mj_setState` into a new mjData gives, step after step, the
same positions, velocities, activations, accelerations and sensor readings as the mjData it came from. Reinforcement
learning resets, model-predictive control's rollouts, checkpoints and replays restore states this way; a release
whose step reads something the state leaves out (an array of the last pass, a counter, a buffer) steps a restored
simulation into other physics while every uninterrupted run stays consistent with itself. Source: MuJoCo's
documentation (Programming, Simulation: State and control; API: mj_getState, mj_setState, the integration state
"sufficient to step the simulation deterministically").

The measurement: from each state of `twofold_states` (three above 200 dofs), a copy of the state's mjData
(`mj_copyData`) and a new mjData given its integration state, each stepped `STEPS` times; after each step their qpos,
qvel, act, qacc and sensordata compared. The same computation of the same inputs, so the bound is round-off: 100 eps
of the larger value (every release from 3.0 names the integration state).

Measured figures and commands: docs/second-computations.md ("A restored state").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold.split_step import stepped_apart, worst_state

INTEGRATION = int(mujoco.mjtState.mjSTATE_INTEGRATION)
STEPS = 4  # something left out of the state shows at the first step; a buffer read with a delay, a few steps on
SOURCE = ("MuJoCo documentation, Programming: Simulation, State and control (the integration state steps the "
          "simulation deterministically); API: mj_getState, mj_setState")


def restored(model: mujoco.MjModel, data: mujoco.MjData) -> mujoco.MjData:
    """A new mjData of `model` given `data`'s integration state through `mj_getState` and `mj_setState`."""
    state = np.empty(mujoco.mj_stateSize(model, INTEGRATION))
    mujoco.mj_getState(model, data, state, INTEGRATION)
    fresh = mujoco.MjData(model)
    mujoco.mj_setState(model, fresh, state, INTEGRATION)
    return fresh


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, str, int]:
    """(the largest difference between the copy and the restored mjData over the steps, over 100 eps of the larger
    value; which field, or sensor; at which step); the steps before a non-finite number only (a diverging state),
    (0, "", 0) where none differs."""
    return stepped_apart(model, copy.copy(state), restored(model, state), mujoco.mj_step, mujoco.mj_step, STEPS)


@pytest.mark.law("model-restored-state-steps-alike", source=SOURCE)
def test_a_restored_state_steps_as_the_original(law, pack_model, twofold_states, model_case) -> None:
    """From each state, a new mjData given its integration state (mj_getState, mj_setState) steps as the original
    does: the same states, accelerations and sensor readings, step after step, to round-off."""
    model = pack_model.model
    share, which, step, t = worst_state(model, twofold_states, apart)
    law.check("restored_apart_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |original - restored| over 100 eps of the larger, {STEPS} steps from each state: "
                  f"{which} at step {step} from t = {t:.3f} s; failing, MuJoCo "
                  f"{mujoco.__version__}'s step reads something mj_getState's integration state leaves out, so a "
                  "simulation restored from a saved state (a reset, a rollout, a checkpoint) steps into other "
                  "physics (an engine defect: name it in a MuJoCo issue, or change MuJoCo version)")
