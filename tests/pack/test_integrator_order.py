"""model-rk4-is-fourth-order (`pytest_physlaw.pack.twofold.integrator_order`): a paddle on a ball-joint wrist under RK4
converges at the fourth order from MuJoCo 4.0.0 and at the second before it (round 8's mujoco-4.0.0-rk4-ball-order:
3.0.0 to 3.17.0 summed the stages' body-frame angular velocities in one tangent space); the same arm with a hinge wrist
is fourth order everywhere; a step that integrates with Euler (the fault injected into `mj_step`) fails; another
integrator has nothing to judge."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-rk4-is-fourth-order"
ARM = """<mujoco model="a paddle on a wrist">
  <option integrator="{integrator}" timestep="0.004"/>
  <worldbody>
    <body name="upper"><joint name="shoulder" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
      <body name="paddle" pos="0.3 0 0"><joint name="wrist" {wrist}/>
        <geom type="box" size="0.1 0.04 0.01" pos="0.1 0 0" mass="0.5"/></body></body>
  </worldbody>
  <actuator><motor joint="shoulder" gear="5"/></actuator>
  <keyframe><key qpos="{qpos}" qvel="{qvel}"/></keyframe>
</mujoco>"""
BALL, HINGE = 'type="ball"', 'axis="1 0 0"'
START = {BALL: ("0.3 0.9553 0.1 0.2 0.1987", "0.5 6 -3 4"), HINGE: ("0.3 0.2", "0.5 6")}  # the paddle spinning
FIXED = (4, 0, 0)


def _record(pytester: pytest.Pytester, wrist: str, integrator: str = "RK4") -> dict:
    qpos, qvel = START[wrist]
    pytester.path.joinpath("arm.xml").write_text(ARM.format(integrator=integrator, wrist=wrist, qpos=qpos, qvel=qvel))
    return law_record(pytester, "arm.xml", "fourth_order", LAW)


def test_a_ball_wrist_under_rk4_is_fourth_order_where_rk4_is_whole(pytester: pytest.Pytester) -> None:
    record = _record(pytester, BALL)
    order = record["checks"][0]["value"]
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "failed" and 1.8 < order < 2.3, record
    else:
        assert record["outcome"] == "passed" and order > 3.5, record


def test_a_hinge_wrist_is_fourth_order_on_every_release(pytester: pytest.Pytester) -> None:
    record = _record(pytester, HINGE)
    assert record["outcome"] == "passed" and record["checks"][0]["value"] > 3.5, record


def test_a_step_that_integrates_with_euler_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = mujoco.mj_step

    def euler(m, d, *args):
        kept = int(m.opt.integrator)
        m.opt.integrator = int(mujoco.mjtIntegrator.mjINT_EULER)
        try:
            real(m, d, *args)
        finally:
            m.opt.integrator = kept

    monkeypatch.setattr(mujoco, "mj_step", euler)
    record = _record(pytester, HINGE)
    assert record["outcome"] == "failed" and record["checks"][0]["value"] < 1.5, record


def test_another_integrator_has_nothing_to_judge(pytester: pytest.Pytester) -> None:
    assert _record(pytester, BALL, "implicitfast")["outcome"] == "skipped"
