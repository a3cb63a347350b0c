"""model-body-velocities-are-pose-rates (`pytest_physlaw.pack.twofold.velocities`): a chain of every joint kind and a
mocap body passes; a velocity reported at another point than the body's frame, or an angular velocity off by 1e-6
of itself, fails (the fault injected into `mj_objectVelocity` for the run); a state at rest has nothing to judge."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import velocities
from tests.pack.law_record import law_record

LAW = "model-body-velocities-are-pose-rates"
CHAIN = """<mujoco model="every joint kind">
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="hand" mocap="true" pos="1 0 1"><geom type="box" size=".05 .05 .05" contype="0" conaffinity="0"/></body>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .08 .05" mass="2"/>
      <body name="upper" pos=".1 0 0">
        <joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03" mass=".5"/>
        <body name="lower" pos=".3 0 0" euler="0 20 10">
          <joint name="elbow" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 .25 0 0" size=".025" mass=".3"/>
          <body name="finger" pos=".25 0 0">
            <joint name="slide" type="slide" axis="1 0 0" range="-.05 .05"/>
            <geom type="sphere" size=".03" mass=".1"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="elbow" ctrlrange="-1 1"/><motor joint="slide" ctrlrange="-1 1"/></actuator>
  <keyframe><key qpos="0 0 1 1 0 0 0 .9 .3 .2 .1 .4 0" qvel="1 -2 .5 3 -1 2 4 -3 2 5 .7"/></keyframe>
</mujoco>
"""


@pytest.fixture
def chain(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("chain.xml").write_text(CHAIN)
    return "chain.xml"


def _off_point(real):
    """mj_objectVelocity reporting a body's linear velocity 1 cm off its frame's origin (w x r added)."""
    def reported(m, d, objtype, objid, res, flg_local):
        real(m, d, objtype, objid, res, flg_local)
        res[3:] += np.cross(res[:3], [0.01, 0.0, 0.0])
    return reported


def _spin_scaled(real):
    """mj_objectVelocity reporting an angular velocity 1e-6 of itself too large."""
    def reported(m, d, objtype, objid, res, flg_local):
        real(m, d, objtype, objid, res, flg_local)
        res[:3] *= 1 + 1e-6
    return reported


def test_a_chain_of_every_joint_kind_passes(pytester: pytest.Pytester, chain: str) -> None:
    record = law_record(pytester, chain, "body_velocities", LAW)
    assert record["outcome"] == "passed", record
    assert 0 < record["checks"][0]["value"] < 1, record


@pytest.mark.parametrize("fault", [_off_point, _spin_scaled], ids=["reported-off-the-frame", "spin-scaled"])
def test_a_velocity_other_than_the_poses_rate_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      chain: str, fault) -> None:
    monkeypatch.setattr(mujoco, "mj_objectVelocity", fault(mujoco.mj_objectVelocity))
    record = law_record(pytester, chain, "body_velocities", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1, record


def test_a_state_at_rest_and_the_mocap_body_are_not_judged() -> None:
    model = mujoco.MjModel.from_xml_string(CHAIN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    assert velocities.mismatch(model, data) is None
    assert model.body("hand").id not in velocities.moving_bodies(model).tolist()
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    over, share, bodies = velocities.mismatch(model, data)
    assert over.shape == (model.nbody - 2, 2) and np.all(over < 1), over
