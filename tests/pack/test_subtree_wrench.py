"""model-force-sensors-read-the-subtrees-wrench (`pytest_physlaw.pack.twofold.subtree_wrench`): the force and torque
sensors of an arm whose forearm a spatial tendon pulls and whose hand touches the floor read what the arm cut free at
the forearm needs (MuJoCo's own dynamics of the cut model); a reading with the tendon's pull left out (MuJoCo 3.13's
force sensor, the corpus' round-8 case) or off by a millionth fails; gravity compensation and site actuators, which
MuJoCo books on no body, are left out naming why."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import subtree_wrench as W
from tests.pack.law_record import law_record

LAW = "model-force-sensors-read-the-subtrees-wrench"
SCENE = """<mujoco model="an arm whose forearm a strap pulls, its hand on the floor">
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <site name="anchor" pos=".3 0 1.2"/>
    <body name="upper" pos="0 0 .33">
      <joint name="shoulder" axis="0 1 0" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body name="fore" pos=".4 0 0">
        <joint name="elbow" axis="0 1 0" damping=".1" range="-120 120"/>
        <geom type="capsule" fromto="0 0 0 .4 0 -.3" size=".035"/>
        <site name="cuff" pos=".05 0 0" size=".01"/>
        <site name="hook" pos=".3 0 -.2" size=".01"/>
        <body name="hand" pos=".4 0 -.3"><joint name="wrist" axis="1 0 0"/><geom type="box" size=".05 .05 .05"/></body>
      </body>
    </body>
  </worldbody>
  <tendon><spatial name="strap" stiffness="50" springlength=".1"><site site="anchor"/><site site="hook"/></spatial></tendon>
  <actuator><motor joint="shoulder" gear="20"/><motor joint="elbow" gear="10"/><motor joint="wrist" gear="2"/></actuator>
  <sensor><force name="force" site="cuff"/><torque name="torque" site="cuff"/></sensor>
</mujoco>
"""
TENDON_BOOKED = (3, 14)  # MuJoCo books a spatial tendon's pull on its bodies' wrenches from 3.14 (round 8's case)


def _scene(tmp_path: Path, text: str = SCENE) -> tuple[mujoco.MjModel, mujoco.MjData, Path]:
    path = tmp_path / "arm.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    data.ctrl[:3] = (0.3, -0.2, 0.1)
    for _ in range(10):  # the hand still on the floor, before the strap lifts the arm
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data, path


def _apart(model: mujoco.MjModel, data: mujoco.MjData, path: Path) -> list[float]:
    """|reading - the cut's wrench| over the bound, each sensor."""
    body = model.body("fore").id
    c = W.cut(model, path, body)
    assert not isinstance(c, str), c
    lin, ang, anchor, size = W.cut_wrench(model, data, c, body)
    ratios = []
    for s in W.wrench_sensors(model):
        want = W.expected_reading(model, data, s, lin, ang, anchor)
        reading = data.sensordata[model.sensor_adr[s]: model.sensor_adr[s] + 3]
        ratios.append(float(np.max(np.abs(reading - want))) / (W.SHARE * size * 2.0))
    return ratios


def test_the_arms_sensors_read_the_wrench_its_forearm_needs(tmp_path: Path) -> None:
    model, data, path = _scene(tmp_path)
    assert data.ncon > 0  # the hand is on the floor
    ratios = _apart(model, data, path)
    if mujoco_versions.version() >= TENDON_BOOKED:
        assert max(ratios) <= 1.0, ratios
    else:  # the strap's pull is missing from the force sensor's wrench there
        assert max(ratios) > 1e3, ratios


@pytest.mark.skipif(mujoco_versions.version() < TENDON_BOOKED, reason="the tendon is booked nowhere before 3.14")
def test_a_reading_without_the_tendons_pull_fails(tmp_path: Path) -> None:
    """The sensors read as MuJoCo 3.13 read them: the same accelerations and constraint forces, the strap's pull
    booked on no body."""
    model, data, path = _scene(tmp_path)
    unstrapped = mujoco.MjModel.from_xml_path(str(path))
    unstrapped.tendon_stiffness[:] = 0.0
    booked = mujoco.MjData(unstrapped)
    mujoco.mj_copyData(booked, model, data)
    mujoco.mj_rnePostConstraint(unstrapped, booked)
    mujoco.mj_sensorAcc(unstrapped, booked)
    assert not np.allclose(booked.sensordata, data.sensordata)
    assert min(_apart(model, booked, path)) > 1.0


@pytest.mark.skipif(mujoco_versions.version() < TENDON_BOOKED, reason="the tendon is booked nowhere before 3.14")
def test_a_reading_off_by_a_millionth_fails(tmp_path: Path) -> None:
    model, data, path = _scene(tmp_path)
    data.sensordata[:] *= 1.0 + 1e-6
    assert min(_apart(model, data, path)) > 1.0


@pytest.mark.parametrize("change, why", [
    ('<body name="fore" pos=".4 0 0" gravcomp="1">', "gravity compensation"),
    ('<body name="fore" pos=".4 0 0"><site name="thruster"/>', "an actuator on a site"),
])
def test_forces_booked_on_no_body_are_left_out_naming_why(tmp_path: Path, change: str, why: str) -> None:
    text = SCENE.replace('<body name="fore" pos=".4 0 0">', change)
    if "thruster" in change:
        text = text.replace("</actuator>", '<motor site="thruster" gear="0 0 1 0 0 0"/></actuator>')
    model, _, path = _scene(tmp_path, text)
    found = W.cut(model, path, model.body("fore").id)
    assert isinstance(found, str) and why in found, found


def test_a_body_the_file_does_not_write_is_left_out(tmp_path: Path) -> None:
    model, _, path = _scene(tmp_path)
    path.write_text(SCENE.replace('name="fore"', 'name="forearm"'))  # the compiled name is no longer in the file
    found = W.cut(model, path, model.body("fore").id)
    assert isinstance(found, str) and "does not write" in found


def test_the_law_runs_on_a_model(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("arm.xml").write_text(SCENE)
    record = law_record(pytester, "arm.xml", "subtrees_wrench", LAW)
    want = "passed" if mujoco_versions.version() >= TENDON_BOOKED else "failed"
    assert record["outcome"] == want, record
