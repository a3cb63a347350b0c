"""A delayed actuator whose controls have been held for longer than its delay applies the force of the same actuator
without the delay: a delay shifts the controls in time and changes nothing else, so once every sample of the
control history is the held control, the delayed read is that control, every input of it (a PID's position,
velocity and feed-forward setpoints, a DC motor's inputs). Source: MuJoCo's documentation (XML reference,
actuator/delay and nsample: the control read at time - delay from the history buffer, interpolated between
samples).

The second computation is MuJoCo's own undelayed path. From the start (its keyframe's controls, else zero) and from
the start under seeded controls (uniform in each control's range, as the driven run draws them), the controls are
held and the model stepped until its control history holds nothing else (`actuator_history`'s samples, or the
delay's steps, and two more); then `mj_forward` runs on that state twice, on the model as it is and on a copy with
`actuator_delay` set to 0, which reads `ctrl` directly. The delayed actuators' forces (their own outputs,
`actuator_outadr`) are compared. Interpolating equal samples is exact to round-off, so the bound is round-off:
1e-10 of the largest force, or of 1. The law reads each actuator by its own controls and outputs, so it runs on the
models whose several-input actuators the rest of the pack leaves out.

Measured figures and commands: docs/second-computations.md ("Held controls").
"""

from __future__ import annotations

import copy
import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import runs
from pytest_physlaw.pack.fixtures import SEED

ROUND_OFF = 1e-10  # of the largest delayed force (or 1): equal samples interpolate to themselves, to round-off
MOST_STEPS = 2000  # a history longer than this many steps is left out (its hold would cost more than its run)
SOURCE = "MuJoCo documentation, XML reference (actuator delay and nsample: the control read from its history)"


def delayed(model: mujoco.MjModel) -> np.ndarray:
    """The actuators with a delay (`actuator_delay` > 0; none before MuJoCo 3.5, which has no delays)."""
    delay = np.asarray(getattr(model, "actuator_delay", np.zeros(mujoco_versions.actuator_count(model)))).ravel()
    return np.flatnonzero(delay > 0)


def hold_steps(model: mujoco.MjModel, actuators: np.ndarray) -> int:
    """Steps after which each of `actuators`' history holds only the control held: its samples and its delay's
    steps, and two more."""
    delay = np.asarray(model.actuator_delay).ravel()
    samples = np.asarray(model.actuator_history).reshape(-1, 2)[:, 0]
    need = [max(int(samples[a]), math.ceil(float(delay[a]) / model.opt.timestep)) for a in actuators.tolist()]
    return max(need, default=0) + 2


def undelayed(model: mujoco.MjModel) -> mujoco.MjModel:
    """A copy of the model whose actuators read `ctrl` directly (every `actuator_delay` 0)."""
    twin = copy.deepcopy(model)
    twin.actuator_delay[:] = 0
    return twin


def starts(model: mujoco.MjModel, keyframe: str) -> list[mujoco.MjData]:
    """The start with its own controls, and with seeded controls (two draws)."""
    first = runs.start(model, keyframe)
    rng = np.random.default_rng(SEED)
    found = [first]
    for _ in range(2):
        data = copy.copy(first)
        data.ctrl[:] = runs.seeded_controls(model, rng)
        found.append(data)
    return found


def apart(model: mujoco.MjModel, twin: mujoco.MjModel, state: mujoco.MjData, actuators: np.ndarray,
          steps: int) -> tuple[float, float, int]:
    """(largest |delayed force - undelayed force| over `actuators`' outputs, the largest of those forces, the worst
    actuator) after holding `state`'s controls for `steps` steps (`state` not changed)."""
    data = copy.copy(state)
    for _ in range(steps):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    other = copy.copy(data)
    mujoco.mj_forward(twin, other)
    worst, scale, which = 0.0, 0.0, int(actuators[0])
    for a in actuators.tolist():
        rows = mujoco_versions.actuator_outputs(model, a)
        held, direct = np.asarray(data.actuator_force)[rows], np.asarray(other.actuator_force)[rows]
        gap = float(np.max(np.abs(held - direct), initial=0.0))
        if not math.isfinite(gap):  # a force that is not finite never passes
            gap = math.inf
        if gap > worst:
            worst, which = gap, a
        scale = max(scale, float(np.max(np.abs(direct), initial=0.0)))
    return worst, scale, which


@pytest.mark.law("model-held-controls-are-the-controls", source=SOURCE)
def test_held_controls_are_the_controls(law, any_pack_model, model_case) -> None:
    """From the start, with its own controls and with seeded ones, a delayed actuator whose controls were held longer
    than its history applies the force of the same actuator without delay, to round-off."""
    model = any_pack_model.model
    actuators = delayed(model)
    if not actuators.size or model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ACTUATION:
        pytest.skip(f"{model_case}: no delayed actuator (or actuation disabled)")
    steps = hold_steps(model, actuators)
    if steps > MOST_STEPS:
        pytest.skip(f"{model_case}: a control history of {steps} steps (more than {MOST_STEPS} to hold)")
    twin = undelayed(model)
    found = [apart(model, twin, s, actuators, steps) for s in starts(model, any_pack_model.settings.keyframe)]
    gap, _, a = max(found, key=lambda f: f[0])
    scale = max(f[1] for f in found)
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or f"actuator {a}"
    law.check("held_delay_gap", gap / max(scale, 1.0), le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"largest |force with delay - force without| of the delayed actuators after their controls were held "
                  f"{steps} steps, a share of the largest force (or of 1); worst {name!r}; failing, MuJoCo "
                  f"{mujoco.__version__} reads other controls from its history than those held (an input of a "
                  "multi-input actuator, an interpolation, a sample's time): an engine defect")
