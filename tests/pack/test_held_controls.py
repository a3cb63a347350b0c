"""model-held-controls-are-the-controls (`pytest_physlaw.pack.twofold.held_controls`): an arm whose shoulder a delayed
PID servo drives (position, velocity and feed-forward inputs) and whose elbow a delayed motor with linear
interpolation drives passes on the pinned release, though the rest of the pack leaves its several-input actuator out;
a delayed read that drops an input (a fault wrapped around `mj_forward`) fails, and so does a force that is not
finite; a model without delays is left out, naming why."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import held_controls
from tests.pack.law_record import law_record

LAW = "model-held-controls-are-the-controls"
pytestmark = pytest.mark.skipif(not hasattr(mujoco.mjtGain, "mjGAIN_PID"), reason="a PID servo needs MuJoCo 3.12")
ARM = """<mujoco model="arm, a delayed PID shoulder and a delayed elbow motor">
  <option timestep="0.002"/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" damping="0.05" armature="0.01"/>
      <geom type="capsule" fromto="0 0 0 .35 0 0" size=".03" mass="1"/>
      <body name="fore" pos=".35 0 0">
        <joint name="elbow" axis="0 1 0" damping="0.05" armature="0.005"/>
        <geom type="capsule" fromto="0 0 0 .25 0 0" size=".025" mass=".4"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <pid name="shoulder" joint="shoulder" kp="60" kv="3" input="pos vel ff" delay="0.01" nsample="10"/>
    <motor name="elbow" joint="elbow" gear="2" ctrlrange="-1 1" delay="0.006" nsample="5" interp="linear"/>
  </actuator>
  <keyframe><key ctrl=".3 0 -3.4 .5"/></keyframe>
</mujoco>
"""


def _arm() -> tuple[mujoco.MjModel, list[mujoco.MjData]]:
    model = mujoco.MjModel.from_xml_string(ARM)
    return model, held_controls.starts(model, "")


def test_a_delayed_pid_and_motor_held_apply_their_undelayed_forces() -> None:
    model, states = _arm()
    actuators = held_controls.delayed(model)
    assert actuators.tolist() == [0, 1]
    steps = held_controls.hold_steps(model, actuators)
    assert steps == 12  # the PID's 10 samples (its delay is 5 steps), and two more
    twin = held_controls.undelayed(model)
    for state in states:
        gap, scale, _ = held_controls.apart(model, twin, state, actuators, steps)
        assert scale > 0.1 and gap <= held_controls.ROUND_OFF * scale, (gap, scale)


def test_a_delayed_read_dropping_an_input_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    model, states = _arm()
    forward = mujoco.mj_forward

    def dropped(m, d):  # the delayed path loses the PID's feed-forward input (3.12's and 3.13's stale scratch)
        forward(m, d)
        if m.actuator_delay[0] > 0:
            d.actuator_force[0] -= d.ctrl[2]
    monkeypatch.setattr(held_controls.mujoco, "mj_forward", dropped)
    twin = held_controls.undelayed(model)
    gap, scale, worst = held_controls.apart(model, twin, states[0], held_controls.delayed(model), 12)
    assert gap / max(scale, 1.0) > 0.1 and worst == 0, (gap, scale, worst)


def test_a_force_that_is_not_finite_never_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    model, states = _arm()
    forward = mujoco.mj_forward

    def broken(m, d):
        forward(m, d)
        if m.actuator_delay[1] > 0:
            d.actuator_force[1] = math.nan
    monkeypatch.setattr(held_controls.mujoco, "mj_forward", broken)
    twin = held_controls.undelayed(model)
    gap, _, worst = held_controls.apart(model, twin, states[0], held_controls.delayed(model), 12)
    assert gap == math.inf and worst == 1


def test_a_model_without_delays_is_left_out() -> None:
    model = mujoco.MjModel.from_xml_string(ARM.replace(' delay="0.01" nsample="10"', "")
                                           .replace(' delay="0.006" nsample="5" interp="linear"', ""))
    assert not held_controls.delayed(model).size and np.all(model.actuator_delay == 0)


def test_the_law_runs_on_the_arm_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("arm.xml").write_text(ARM)
    record = law_record(pytester, "arm.xml", "held", LAW)
    assert record["outcome"] == "passed", record
