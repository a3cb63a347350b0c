"""Actuators with several controls and outputs (MuJoCo 3.11's orientation servo: three of each) are read per control
(`mujoco_versions.per_control`): each control with its own force output and its actuator's types, gains and ranges,
so an actuator listed after such a servo is read as itself, not as its neighbour; the pack runs on such a model, its
laws passing or naming what they leave out; a layout whose controls are not its outputs is skipped by every law,
naming why."""

from __future__ import annotations

from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

HEAD_AND_ARM = """<mujoco model="a camera head on a ball joint held by an orientation servo, and an arm's position servo">
  <option timestep="0.001"/>
  <worldbody>
    <body name="head" pos="0 0 .5"><joint name="neck" type="ball" damping=".01"/>
      <geom type="box" size=".03 .04 .03" mass=".3"/></body>
    <body name="arm" pos=".3 0 .5"><joint name="shoulder" axis="0 1 0" range="-1 1" damping=".05"/>
      <geom type="capsule" fromto="0 0 0 .2 0 0" size=".015" mass=".2"/></body>
  </worldbody>
  <actuator>
    <orientation name="servo" joint="neck" kp="2" kv=".05"/>
    <position name="elbow" joint="shoulder" kp="20" ctrlrange="-1 1" forcerange="-3 3"/>
  </actuator>
</mujoco>
"""


def _model() -> mujoco.MjModel:
    try:
        return mujoco.MjModel.from_xml_string(HEAD_AND_ARM)
    except ValueError:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no orientation actuator (3.11 on)")


def test_each_control_reads_its_own_actuators_row() -> None:
    model = _model()
    assert model.nu == 4 and mujoco_versions.actuator_count(model) == 2
    assert mujoco_versions.control_actuators(model).tolist() == [0, 0, 0, 1]
    bias = mujoco_versions.per_control(model, "actuator_biasprm")
    assert bias.shape[0] == 4 and np.array_equal(bias[3], model.actuator_biasprm[1])  # the arm's, not the servo's
    assert np.array_equal(mujoco_versions.per_control(model, "actuator_forcerange")[3], [-3, 3])
    assert [mujoco_versions.control_name(model, c) for c in range(4)] == ["servo[0]", "servo[1]", "servo[2]", "elbow"]
    assert mujoco_versions.actuator_outputs(model, 1) == slice(3, 4)
    assert mujoco_versions.multi_output_actuators(model) is None


def test_one_control_an_actuator_reads_the_model_itself() -> None:
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body>
      </worldbody><actuator><motor joint="j"/><position joint="j" kp="3"/></actuator></mujoco>""")
    assert mujoco_versions.per_control(model, "actuator_gainprm") is model.actuator_gainprm or np.array_equal(
        mujoco_versions.per_control(model, "actuator_gainprm"), model.actuator_gainprm)
    assert mujoco_versions.control_name(model, 1) == "1"


def test_controls_that_are_not_their_outputs_are_named() -> None:
    parted = SimpleNamespace(nu=4, nactuator=2, nout=5, actuator_ctrladr=np.array([0, 3]),
                             actuator_ctrlnum=np.array([3, 1]), actuator_outadr=np.array([0, 4]),
                             actuator_outnum=np.array([4, 1]))
    assert "not their force outputs (2 actuators, 4 controls, 5 outputs)" in \
        mujoco_versions.multi_output_actuators(parted)


def test_the_force_law_judges_the_arm_and_names_the_servo(pytester: pytest.Pytester) -> None:
    _model()
    pytester.path.joinpath("head.xml").write_text(HEAD_AND_ARM)
    record = law_record(pytester, "head.xml", "actuator_force_is_the_force_law", "model-readout-actuator-force")
    assert record["outcome"] == "passed", record
    assert "servo[0]" in record["checks"][0]["why"], record["checks"][0]["why"]


def test_the_pack_runs_on_the_model(pytester: pytest.Pytester) -> None:
    _model()
    pytester.path.joinpath("head.xml").write_text(HEAD_AND_ARM)
    result = pytester.runpytest_inprocess("--physlaw-model=head.xml", "-p", "no:cacheprovider", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 25 and not outcomes.get("error") and not outcomes.get("failed"), outcomes
