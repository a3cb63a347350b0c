"""The readout laws (`pytest_physlaw.pack.readouts`) pass on a sound model that has every readout they judge, with a
pyramidal and an elliptic friction cone, and each fails when MuJoCo's call is made to report another value than the
step applied (the fault injected for the inner run only): a readout scaled, a force never written (MJX 3.2.0-3.2.3
never wrote actuator_force), a compensation added twice, a cone decoded with the wrong friction, a sensor off its
quantity."""

from __future__ import annotations


import mujoco
import numpy as np
import pytest

from tests.pack.law_record import law_record

MODEL = """<mujoco model="readouts">
  <option timestep="0.002" cone="{cone}"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1" euler="10 0 0"/>
    <site name="zone" type="box" size=".05 .05 .005" pos="1.4 0 1.005"/>
    <body name="box" pos="0 0 .2">
      <freejoint/>
      <geom type="box" size=".1 .1 .05" mass="1" condim="4"/>
      <site name="pad" type="box" size=".1 .1 .06" pos="0 0 -.02"/>
      <site name="imu" pos=".02 .01 .03"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-2 2" margin=".01" actuatorfrcrange="-30 30"
             actuatorgravcomp="true"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04" mass="1"/>
      <site name="tip" pos=".4 0 0"/>
      <site name="anchor" pos=".1 0 .05"/>
      <body name="forearm" pos=".4 0 0" gravcomp="1">
        <joint name="elbow" type="hinge" axis="0 1 0" range="-2 2"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".035" mass=".5"/>
        <site name="hand" pos=".3 0 0" size=".05"/>
        <site name="insert" pos=".1 0 .04"/>
        <body name="wrist" pos=".3 0 0">
          <joint name="wrist" type="ball"/>
          <geom type="sphere" size=".05" mass=".2"/>
        </body>
      </body>
    </body>
    <body name="slider" pos="-1 0 .5">
      <joint name="slide" type="slide" axis="1 0 0" range="-.5 .5"/>
      <geom type="box" size=".05 .05 .05" mass=".3"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="rail" limited="true" range="-.3 .3" margin=".25"><joint joint="slide" coef="1"/></fixed>
    <spatial name="biceps" limited="false">
      <site site="anchor"/>
      <site site="insert"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="shoulder_motor" joint="shoulder" gear="20" ctrlrange="-1 1" ctrllimited="true"/>
    <position name="elbow_servo" joint="elbow" kp="30" kv="2" forcerange="-5 5" ctrlrange="-1 1"/>
    <muscle name="biceps" tendon="biceps" ctrlrange="0 1"/>
    <general name="slide_filter" joint="slide" dyntype="filter" dynprm=".05" gainprm="10" actearly="true" ctrlrange="-1 1"/>
    <intvelocity name="slide_int" joint="slide" kp="20" actrange="-.5 .5" ctrlrange="-1 1"/>
  </actuator>
  <sensor>
    <touch name="pad_touch" site="pad"/>
    <accelerometer name="imu_acc" site="imu"/>
    <gyro name="imu_gyro" site="imu"/>
    <velocimeter name="imu_vel" site="imu"/>
    <force name="hand_force" site="hand"/>
    <torque name="hand_torque" site="hand" cutoff="0.5"/>
    <jointpos name="q_elbow" joint="elbow"/>
    <jointvel name="v_elbow" joint="elbow"/>
    <ballquat name="wrist_quat" joint="wrist"/>
    <ballangvel name="wrist_angvel" joint="wrist"/>
    <jointactuatorfrc name="shoulder_frc" joint="shoulder"/>
    <tendonpos name="biceps_len" tendon="biceps"/>
    <tendonvel name="biceps_vel" tendon="biceps"/>
    <actuatorpos name="servo_pos" actuator="elbow_servo"/>
    <actuatorvel name="servo_vel" actuator="elbow_servo"/>
    <actuatorfrc name="servo_frc" actuator="elbow_servo"/>
    <framepos name="tip_pos" objtype="site" objname="tip"/>
    <framepos name="tip_in_box" objtype="site" objname="tip" reftype="body" refname="box"/>
    <framequat name="box_quat" objtype="body" objname="box"/>
    <framequat name="hand_quat" objtype="site" objname="hand" reftype="xbody" refname="arm"/>
    <framexaxis name="fore_x" objtype="xbody" objname="forearm"/>
    <framezaxis name="geom_z" objtype="geom" objname="floor"/>
    <framelinvel name="tip_linvel" objtype="site" objname="tip"/>
    <frameangvel name="box_angvel" objtype="body" objname="box"/>
    <framelinacc name="tip_linacc" objtype="site" objname="tip"/>
    <frameangacc name="tip_angacc" objtype="site" objname="tip"/>
    <subtreecom name="arm_com" body="arm"/>
    <subtreelinvel name="arm_vel" body="arm"/>
    <clock name="clock"/>
    <subtreeangmom name="arm_angmom" body="arm"/>
    <magnetometer name="imu_mag" site="imu"/>
    <jointlimitpos name="shoulder_limit" joint="shoulder"/>
    <jointlimitvel name="shoulder_limit_vel" joint="shoulder"/>
    <tendonlimitpos name="rail_limit" tendon="rail"/>
    <tendonlimitvel name="rail_limit_vel" tendon="rail"/>{later}
  </sensor>
</mujoco>
"""
# kinds MuJoCo 3.3 added: in the model where the release has them
LATER = {"mjSENS_INSIDESITE": '<insidesite name="tip_in_zone" objtype="site" objname="tip" site="zone"/>',
         "mjSENS_TENDONACTFRC": '<tendonactuatorfrc name="biceps_frc" tendon="biceps"/>',
         "mjSENS_E_KINETIC": '<e_kinetic name="kinetic"/>'}
LATER_SENSORS = [xml.split('name="')[1].split('"')[0] for kind, xml in LATER.items() if hasattr(mujoco.mjtSensor, kind)]
MODEL = MODEL.replace("{later}", "".join(f"\n    {xml}" for kind, xml in LATER.items() if hasattr(mujoco.mjtSensor, kind)))
LAWS = {  # law id -> the test function's name (the -k expression)
    "model-readout-constraint-force": "test_qfrc_constraint_is_the_rows_forces",
    "model-readout-contact-force": "test_contact_force_is_the_rows_forces",
    "model-readout-actuator-generalised": "test_qfrc_actuator_is_moment_times_force",
    "model-readout-actuator-force": "test_actuator_force_is_the_force_law",
    "model-readout-sensors": "test_sensors_read_what_they_name",
}


def _run(pytester: pytest.Pytester, law_id: str, cone: str = "pyramidal", xml: str | None = None) -> dict:
    (pytester.path / "readouts.xml").write_text(xml or MODEL.format(cone=cone))
    return law_record(pytester, "readouts.xml", LAWS[law_id], law_id)


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("law_id", LAWS)
def test_readouts_are_what_the_step_applied_on_a_sound_model(pytester: pytest.Pytester, law_id: str, cone: str) -> None:
    record = _run(pytester, law_id, cone)
    assert record["outcome"] == "passed", record
    assert all(c["value"] < 1e-12 for c in record["checks"]), record


def _after(real, change):
    def faulty(m, d, *args):
        real(m, d, *args)
        change(m, d)
    return faulty


def _drop_last_row(m, d):  # one row's force left out of qfrc_constraint
    if d.nefc:
        f = np.zeros(d.nefc)
        f[-1] = d.efc_force[d.nefc - 1]
        out = np.zeros(m.nv)
        mujoco.mj_mulJacTVec(m, d, out, f)
        d.qfrc_constraint[:] -= out


def _never_written(m, d):  # actuator_force left zero (MJX 3.2.0-3.2.3)
    d.actuator_force[:] = 0


def _gravcomp_twice(m, d):  # the actuator gravity compensation added a second time
    d.qfrc_actuator[:] += np.where(np.repeat(m.jnt_actgravcomp, [6 if t == 0 else 3 if t == 1 else 1 for t in m.jnt_type]),
                                   d.qfrc_gravcomp, 0)


def _forcerange_ignored(m, d):  # the servo's force not clamped to its forcerange (moment^T force kept consistent)
    a = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, "elbow_servo")
    d.actuator_force[a] *= 1.001


def _friction_halved(real):
    def faulty(m, d, i, result):  # a cone decoded with half the friction
        real(m, d, i, result)
        result[1:] *= 0.5
    return faulty


FAULTS = [("model-readout-constraint-force", "mj_forward", lambda real: _after(real, _drop_last_row), "qfrc_constraint_error"),
          ("model-readout-contact-force", "mj_contactForce", _friction_halved, "contact_force_error"),
          ("model-readout-actuator-generalised", "mj_forward", lambda real: _after(real, _never_written), "qfrc_actuator_error"),
          ("model-readout-actuator-generalised", "mj_forward", lambda real: _after(real, _gravcomp_twice), "qfrc_actuator_error"),
          ("model-readout-actuator-force", "mj_forward", lambda real: _after(real, _never_written), "actuator_force_error"),
          ("model-readout-actuator-force", "mj_forward", lambda real: _after(real, _forcerange_ignored), "actuator_force_error")]


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize(("law_id", "function", "fault", "quantity"), FAULTS,
                         ids=["row-dropped", "friction-halved", "force-never-written", "gravcomp-twice",
                              "force-never-written-law", "forcerange-ignored"])
def test_each_readout_check_fails_under_its_fault(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, law_id: str,
                                                   function: str, fault, quantity: str, cone: str) -> None:
    monkeypatch.setattr(mujoco, function, fault(getattr(mujoco, function)))
    record = _run(pytester, law_id, cone)
    assert record["outcome"] == "failed", record
    assert quantity in {c["quantity"] for c in record["checks"] if not c["passed"]}, record


SENSORS = ["pad_touch", "imu_acc", "imu_gyro", "imu_vel", "hand_force", "hand_torque", "q_elbow", "v_elbow", "wrist_quat",
           "wrist_angvel", "shoulder_frc", "biceps_len", "biceps_vel", "servo_pos", "servo_vel", "servo_frc", "tip_pos",
           "tip_in_box", "box_quat", "hand_quat", "fore_x", "geom_z", "tip_linvel", "box_angvel", "tip_linacc",
           "tip_angacc", "arm_com", "arm_vel", "clock", "arm_angmom", "imu_mag", "shoulder_limit",
           "shoulder_limit_vel", "rail_limit", "rail_limit_vel", *LATER_SENSORS]


@pytest.mark.parametrize("sensor", SENSORS)
def test_the_sensor_check_fails_when_a_sensor_reads_off_its_quantity(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch, sensor: str) -> None:
    """Every sensor kind the law recomputes is judged: that one sensor's reading moved by 1e-6 of its scale fails."""
    def off(m, d):
        s = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, sensor)
        adr = int(m.sensor_adr[s])
        d.sensordata[adr] += 1e-6 * max(1.0, abs(float(d.sensordata[adr])))

    monkeypatch.setattr(mujoco, "mj_forward", _after(mujoco.mj_forward, off))
    record = _run(pytester, "model-readout-sensors")
    assert record["outcome"] == "failed", record
    assert sensor in record["checks"][0]["why"], record


def test_sensor_cutoff_is_applied_as_mujoco_applies_it(pytester: pytest.Pytester) -> None:
    """A torque sensor whose cutoff clips it reads the clipped value: no finding (and the unclipped one would be)."""
    xml = MODEL.format(cone="pyramidal").replace('cutoff="0.5"', 'cutoff="1e-3"')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.ctrl[:] = 1
    for _ in range(50):
        mujoco.mj_step(model, data)
    s = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, "hand_torque")
    assert np.max(np.abs(data.sensordata[model.sensor_adr[s]: model.sensor_adr[s] + 3])) == pytest.approx(1e-3)
    assert _run(pytester, "model-readout-sensors", xml=xml)["outcome"] == "passed"


def _zone(kind: str, size: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(f'<mujoco><worldbody><site type="{kind}" size="{size}"/></worldbody></mujoco>')


def test_a_touch_contact_whose_ray_leaves_the_zone_through_an_edge_is_not_required() -> None:
    """MuJoCo counts a contact inside a touch zone by casting its normal ray at the zone (`mju_rayGeom`); where the ray
    leaves a box through an edge, round-off can reject both faces and drop the contact. The point and ray are
    dm_control's ant's hip contact in its leg zone's frame (MuJoCo 3.14.0 read 0 of its 3.5e5 N): such a contact may
    or may not be counted, while one leaving through a face, or any contact of a smooth zone, must be."""
    from pytest_physlaw.pack.readouts.sensors import _exits_on_an_edge

    box = _zone("box", ".09 .09 .24")
    hip = np.array([4.05935293e-17, 2.36235612e-17, -1.41421356e-01])
    diagonal = np.array([-1.0, -1.0, -9.6e-16]) / np.sqrt(2)
    assert _exits_on_an_edge(box, 0, hip, diagonal)
    assert not _exits_on_an_edge(box, 0, hip, np.array([0.0, -1.0, 0.0]))  # through the face y = -0.09
    assert not _exits_on_an_edge(box, 0, hip, np.array([0.6, -0.8, 0.0]))
    cylinder = _zone("cylinder", ".1 .2")
    rim = np.array([0.1, 0.0, 0.2]) - np.array([0.0, 0.0, 0.1])
    assert _exits_on_an_edge(cylinder, 0, np.array([0.0, 0.0, 0.1]), rim / np.linalg.norm(rim))
    assert not _exits_on_an_edge(cylinder, 0, np.array([0.0, 0.0, 0.1]), np.array([0.0, 0.0, 1.0]))
    assert not _exits_on_an_edge(_zone("sphere", ".1"), 0, np.zeros(3), diagonal)


PEDESTAL = """<mujoco model="an IMU on a fixed pedestal">
  <worldbody>
    <body name="pedestal"><geom type="box" size=".1 .1 .1"/><site name="base_imu" euler="10 20 30"/></body>
    <body name="arm" pos="0 0 .3"><joint name="shoulder" axis="0 1 0" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/><site name="tip_imu" pos=".3 0 0"/></body>
  </worldbody>
  <actuator><motor joint="shoulder" gear="2"/></actuator>
  <sensor><accelerometer name="base_acc" site="base_imu"/><accelerometer name="tip_acc" site="tip_imu"/>
    <framelinacc name="base_linacc" objtype="body" objname="pedestal"/></sensor>
</mujoco>"""


def test_an_accelerometer_on_a_fixed_body_reads_gravity(pytester: pytest.Pytester) -> None:
    """The accelerations come from the point's Jacobians (J qacc + Jdot qvel), not from the sensors' own
    `mj_objectAcceleration`: an IMU on a body fixed to the world must read -gravity. MuJoCo 3.3.7 to 3.17.0 read 0
    there (a quick return for static bodies, fixed in 4.0.0: round 8's mujoco-4.0.0-static-body-accelerometer)."""
    from pytest_physlaw import mujoco_versions
    record = _run(pytester, "model-readout-sensors", xml=PEDESTAL)
    if mujoco_versions.sound_jacobian_dot() and (3, 3, 7) <= mujoco_versions.version() < (4, 0, 0):
        assert record["outcome"] == "failed", record
        assert record["checks"][0]["value"] == pytest.approx(1.0), record
    else:
        assert record["outcome"] == "passed", record
