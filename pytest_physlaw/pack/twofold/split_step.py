"""The step taken in two halves is the step: `mj_step1` (positions, velocities and their sensors), then `mj_step2`
(actuation, accelerations, their sensors, the integrator), gives the same next state and the same readings as one
`mj_step`, step after step. Controllers that set controls from the position and velocity sensors step this way, and
every quantity computed in the second half (acceleration, force and torque sensors, which read `cacc`, `cfrc_int`
and `cfrc_ext` through `mj_rnePostConstraint`) is the step's own: a release whose second half skips or reuses a pass
runs consistent with itself under `mj_step` and only this second computation shows it (MuJoCo 3.5.0's `mj_step2`
never cleared the flag of `mj_rnePostConstraint`, so an accelerometer kept its first step's reading). Source:
MuJoCo's documentation (API: mj_step1 and mj_step2, the step split around the setting of controls; with RK4 the
second half integrates with Euler).

The measurement: from each state of `twofold_states` (three of them above 200 dofs), two copies stepped `STEPS`
times with the state's controls, one by `mj_step`, the other by `mj_step1` then `mj_step2`; after each step their
qpos, qvel, act, qacc and sensordata compared. Both are the same computation of the same numbers, so the bound is
round-off: 100 eps of the larger value. Left out, naming why: the RK4 integrator (`mj_step2` integrates with Euler by
design), and a state that diverges within the steps.

Measured figures and commands: docs/second-computations.md ("The step in two halves").
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold.states import for_solves

EPS = float(np.finfo(float).eps)
ULPS = 100.0
STEPS = 4  # a stale pass shows from the second step; four reach a reading two steps old
FIELDS = ("qpos", "qvel", "act", "qacc", "sensordata")
SOURCE = "MuJoCo documentation, API (mj_step1 and mj_step2: the step split around the setting of controls)"


def why_not(model: mujoco.MjModel) -> str | None:
    """Why the two halves differ from the step by design, or None."""
    if int(model.opt.integrator) == int(mujoco.mjtIntegrator.mjINT_RK4):
        return "the RK4 integrator (mj_step2 integrates with Euler by design)"
    return None


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, str, int]:
    """(the largest difference between `mj_step` and `mj_step1` + `mj_step2` over the steps, over 100 eps of the
    larger value; which field, or sensor; at which step); the steps before a non-finite number only (a diverging
    state), (0, "", 0) where none differs."""
    def halves(m: mujoco.MjModel, d: mujoco.MjData) -> None:
        mujoco.mj_step1(m, d)
        mujoco.mj_step2(m, d)
    return stepped_apart(model, copy.copy(state), copy.copy(state), mujoco.mj_step, halves)


def stepped_apart(model: mujoco.MjModel, first: mujoco.MjData, second: mujoco.MjData, step_first: Callable,
                  step_second: Callable, steps: int = STEPS) -> tuple[float, str, int]:
    """Step `first` with `step_first` and `second` with `step_second`, `steps` times; after each step compare their
    FIELDS: (the largest difference over 100 eps of the larger value, which field or sensor, at which step), the steps
    before a non-finite number only (a diverging state), (0, "", 0) where none differs."""
    worst = (0.0, "", 0)
    for step in range(1, steps + 1):
        step_first(model, first)
        step_second(model, second)
        for name in FIELDS:
            one, other = np.asarray(getattr(first, name)), np.asarray(getattr(second, name))
            if not (np.all(np.isfinite(one)) and np.all(np.isfinite(other))):
                return worst  # diverged within the steps: what follows is not a step of the state
            share, which = field_apart(model, name, one, other)
            if share > worst[0]:
                worst = (share, which, step)
    return worst


def worst_state(model: mujoco.MjModel, states: list[mujoco.MjData],
                apart_at: Callable[[mujoco.MjModel, mujoco.MjData], tuple[float, str, int]]) -> tuple[float, str, int, float]:
    """(share, which, step, the state's time) of the state where `apart_at` finds the largest difference, over
    `for_solves(states)`; (0, "qpos", 0, 0) where none differs."""
    worst = (0.0, "qpos", 0, 0.0)
    for state in for_solves(model, states):
        share, which, step = apart_at(model, state)
        if share >= worst[0] and which:
            worst = (share, which, step, float(state.time))
    return worst


def field_apart(model: mujoco.MjModel, name: str, first: np.ndarray, second: np.ndarray) -> tuple[float, str]:
    """(|first - second| of one mjData field over 100 eps of the larger value; the field, or for sensordata the
    sensor that differs most): two computations of the same numbers."""
    scale = ULPS * EPS * max(float(np.max(np.abs(first), initial=0.0)), float(np.max(np.abs(second), initial=0.0)))
    gap = np.abs(first - second)
    share = float(np.max(gap, initial=0.0)) / max(scale, 1e-300)
    return share, name if name != "sensordata" or not gap.size else f"sensor {sensor_at(model, int(np.argmax(gap)))!r}"


def sensor_at(model: mujoco.MjModel, index: int) -> str:
    """The name (or kind and id) of the sensor whose readings hold sensordata[index]."""
    s = int(np.searchsorted(np.asarray(model.sensor_adr), index, side="right")) - 1
    return model.sensor(s).name or f"{mujoco.mjtSensor(int(model.sensor_type[s])).name} {s}"


@pytest.mark.law("model-split-step-is-the-step", source=SOURCE)
def test_split_step_is_the_step(law, pack_model, twofold_states, model_case) -> None:
    """From each state, mj_step1 then mj_step2 give the same states, accelerations and sensor readings as mj_step,
    step after step, to round-off."""
    model = pack_model.model
    reason = why_not(model)
    if reason:
        pytest.skip(f"{model_case}: {reason}")
    share, which, step, t = worst_state(model, twofold_states, apart)
    law.check("split_step_apart_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |mj_step - (mj_step1, mj_step2)| over 100 eps of the larger, {STEPS} steps from each "
                  f"state: {which} at step {step} from t = {t:.3f} s; failing, MuJoCo {mujoco.__version__}'s two "
                  "halves of the step compute another step than mj_step (3.5.0's mj_step2 kept the first step's "
                  "accelerations for its sensors): a controller stepping in halves reads, and applies, other physics "
                  "(an engine defect: name it in a MuJoCo issue, or change MuJoCo version)")
