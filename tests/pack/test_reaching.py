"""The reaching run (`pytest_physlaw.pack.reaching`) takes a model to its limits, saturations and self-contacts;
the coverage it reports (`pytest_physlaw.pack.coverage`) is what it reached; and an engine law that reads the
exercised states catches a fault that lives only at saturation, which the driven run's states alone pass."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import coverage, derivatives, reaching, runs

FOLDING_ARM = """<mujoco><option gravity="0 0 0" timestep="0.002"/>
<worldbody><body name="link1"><joint name="yaw" type="hinge" axis="0 0 1" range="-5 5" damping="1"/>
  <geom name="g1" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
  <body name="link2" pos="0.3 0 0"><joint name="fold1" type="hinge" axis="0 1 0" range="-100 100" damping="0.5"/>
    <geom name="g2" type="capsule" fromto="0 0 0 0.05 0 0" size="0.02" mass="0.2"/>
    <body name="link3" pos="0.05 0 0"><joint name="fold2" type="hinge" axis="0 1 0" range="-100 100" damping="0.5"/>
      <geom name="g3" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body></body></body>
</worldbody>
<actuator><motor name="m1" joint="fold1" gear="20" ctrlrange="-1 1"/>
  <motor name="m2" joint="fold2" gear="20" ctrlrange="-1 1" forcelimited="true" forcerange="-0.99 0.99"/></actuator>
</mujoco>"""

# a free slide along x between two limits, no actuator; a box on the floor
SLIDER = """<mujoco><option timestep="0.002"/>
<worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
  <body name="cart" pos="0 0 0.05"><joint name="x" type="slide" axis="1 0 0" range="-0.2 0.2"/>
    <geom name="box" type="box" size="0.05 0.05 0.05" mass="1" friction="0.1"/></body>
</worldbody></mujoco>"""


def _model(xml: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(xml)


def test_the_reaching_run_reaches_limits_saturates_and_folds_onto_itself() -> None:
    model = _model(FOLDING_ARM)
    reached = reaching.reaching(model, 500)
    assert reached.stopped is None and not reached.warnings
    summary = reached.coverage.summary()
    assert summary["joints"]["yaw"]["limits"] == "both"  # unactuated: pushed by qfrc_applied
    assert summary["actuators"]["m2"]["force_limits"] == "both"  # a control of 1 asks 1, clamped at 0.99
    assert summary["actuators_at_both_ctrl_ends"] == 2
    assert ["g1", "g3"] in summary["self_contact_pairs"]  # link3 folded under link1 (not its parent)
    assert 4 <= len(reached.states) <= reaching.PHASES + reaching.MAX_EVENT_STATES
    # the driven run, controls inside their range, reached none of it
    driven = runs.driven(model, 500, "", 2024).coverage.summary()
    assert driven["actuators"]["m2"]["force_limits"] == "none" and driven["joints"]["yaw"]["limits"] == "none"


def test_coverage_numbers_on_a_model_whose_answers_are_known() -> None:
    """A cart sliding on the floor between limits at +-0.2 m, pushed by the reaching run: the whole range, both
    limits, one geom pair touched (the box and the floor, not a self-contact); no actuator."""
    model = _model(SLIDER)
    summary = reaching.reaching(model, 500).coverage.summary()
    assert summary["joints"] == {"x": {"share": 1.0, "limits": "both"}}
    assert summary["joint_range_share"] == 1.0 and summary["joints_at_a_limit"] == 1
    assert summary["contact_pairs"] == [["floor", "box"]] and summary["self_contact_pairs"] == []
    assert summary["actuator_count"] == 0
    resting = runs.driven(model, 500, "", 2024).coverage.summary()  # nothing pushes it: it stays at 0
    assert resting["joints"] == {"x": {"share": 0.0, "limits": "none"}}
    assert json.loads(json.dumps(summary)) == summary  # plain JSON, for the report


def test_coverage_shares_are_of_the_range_visited() -> None:
    model = _model(SLIDER)
    data = mujoco.MjData(model)
    record = coverage.Coverage(model)
    for x in (-0.05, 0.1, 0.02):
        data.qpos[0] = x
        mujoco.mj_forward(model, data)
        record.see(data)
    assert record.summary()["joints"]["x"] == {"share": pytest.approx(0.375), "limits": "none"}  # 0.15 of 0.4


def _clamped_force_misreported(real):
    def faulty(m, d):  # the actuator force reported 1 % off where forcerange clamps it, right elsewhere
        real(m, d)
        limited = m.actuator_forcelimited.astype(bool)
        low, high = m.actuator_forcerange.T
        if np.any(limited & ((d.actuator_force <= low) | (d.actuator_force >= high))):
            d.qfrc_actuator[:] *= 1.01
    return faulty


@pytest.mark.parametrize("with_reaching", [False, True], ids=["driven-alone", "exercised"])
def test_a_fault_at_saturation_is_caught_only_with_the_reaching_run(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     with_reaching: bool) -> None:
    pytester.path.joinpath("arm.xml").write_text(FOLDING_ARM)
    monkeypatch.setattr(mujoco, "mj_forward", _clamped_force_misreported(mujoco.mj_forward))
    if not with_reaching:  # the old exercised states: the driven run's alone
        monkeypatch.setattr(reaching, "reaching", lambda model, steps, keyframe="": reaching.Reached(
            [], coverage.Coverage(model), {}, None))
    pytester.runpytest_inprocess("--physlaw-model=arm.xml", "-p", "no:cacheprovider", "-k", "inverse")
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == "model-inverse-dynamics"]
    assert record["outcome"] == ("failed" if with_reaching else "passed"), record
    if with_reaching:
        assert "smooth_residual" in {c["quantity"] for c in record["checks"] if not c["passed"]}
    (entry,) = report["run"]["models"]
    assert entry["coverage"]["actuators"]["m2"]["force_limits"] == ("both" if with_reaching else "none")


# a motor with a velocity term (force = ctrl - 1e-4 qdot), stepped by implicitfast, whose forcerange (0.999) binds
# only at the ends of its ctrlrange: held there by the reaching run against the joint's limit, not drawn by the driven run
SERVO = """<mujoco><compiler angle="radian"/><option gravity="0 0 0" integrator="implicitfast" timestep="0.002"/>
<worldbody><body><joint name="j" type="hinge" axis="0 1 0" range="-1 1" damping="0.01"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body></worldbody>
<actuator><general name="servo" joint="j" gainprm="1" biastype="affine" biasprm="0 0 -1e-4" ctrlrange="-1 1"
  forcelimited="true" forcerange="-0.999 0.999"/></actuator></mujoco>"""


IMPLICIT_READ = pytest.mark.skipif(not hasattr(mujoco, "mj_implicit"),
                                   reason=f"MuJoCo {mujoco.__version__}'s bindings have no mj_implicit")
CLAMP_KEPT = mujoco_versions.version() < (3, 5, 0)  # b4668294: a clamped servo's -kv kept in qDeriv until 3.5.0


def _clamped_servo_keeps_its_damping(real):
    def faulty(m, d):  # MuJoCo 3.4.0: the velocity term (bias -kv) kept in qDeriv while forcerange clamps its force
        real(m, d)
        low, high = m.actuator_forcerange.T
        clamped = m.actuator_forcelimited.astype(bool) & ((d.actuator_force <= low) | (d.actuator_force >= high))
        if np.any(clamped):
            moment = runs.moments(m, d)
            dense = moment.T @ np.diag(np.where(clamped, m.actuator_biasprm[:, 2], 0.0)) @ moment
            d.qDeriv[:] += dense[np.nonzero(dense)][: d.qDeriv.size]  # one dof here: the one entry
    return faulty


@IMPLICIT_READ
@pytest.mark.parametrize(("fault", "with_reaching", "beyond", "outcome"),
                         [(False, True, True, "passed"), (True, False, False, "passed"), (True, False, True, "failed"),
                          (True, True, False, "failed")],
                         ids=["sound", "fault-driven-alone", "fault-driven-controls-beyond-range", "fault-exercised"])
def test_the_velocity_derivative_law_sees_a_clamped_servo_only_when_the_run_clamps_it(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault: bool, with_reaching: bool, beyond: bool,
        outcome: str) -> None:
    """The clamp is seen where a state clamps the servo: the reaching run's, or the controls pushed beyond their
    range (the law's own states); the driven run's alone never clamp it."""
    pytester.path.joinpath("servo.xml").write_text(SERVO)
    if fault:
        monkeypatch.setattr(mujoco, "mj_implicit", _clamped_servo_keeps_its_damping(mujoco.mj_implicit))
    if not beyond:
        monkeypatch.setattr(derivatives, "beyond_range", lambda model, state: [])
    if not with_reaching:
        monkeypatch.setattr(reaching, "reaching", lambda model, steps, keyframe="": reaching.Reached(
            [], coverage.Coverage(model), {}, None))
    pytester.runpytest_inprocess("--physlaw-model=servo.xml", "-p", "no:cacheprovider", "-k", "velocity_derivative")
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == "model-velocity-derivative"]
    if CLAMP_KEPT and beyond:  # the released defect itself, where the law's own states clamp the servo
        outcome = "failed"
    assert record["outcome"] == outcome, record


# the same servo beside a muscle on a second joint: MuJoCo's qDeriv holds the muscle's velocity derivative, which the
# law's differences leave out; before the muscle's gear was zeroed in both computations this read 0.16 and failed
SERVO_AND_MUSCLE = SERVO.replace('<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>', (
    '<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>'
    '<body pos="0.3 0 0"><joint name="k" type="hinge" axis="0 1 0" range="-1 1" damping="0.01"/>'
    '<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body></body>')).replace(
    "</actuator>", '<muscle name="flexor" joint="k" lengthrange="-1 1" ctrlrange="0 1"/></actuator>')


@IMPLICIT_READ
def test_the_velocity_derivative_law_leaves_a_muscle_out_of_both_computations(pytester: pytest.Pytester) -> None:
    """A muscle's velocity derivative is in MuJoCo's qDeriv but not in the law's differences: both leave it out."""
    pytester.path.joinpath("arm.xml").write_text(SERVO_AND_MUSCLE)
    pytester.runpytest_inprocess("--physlaw-model=arm.xml", "-p", "no:cacheprovider", "-k", "velocity_derivative")
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == "model-velocity-derivative"]
    assert record["outcome"] == ("failed" if CLAMP_KEPT else "passed"), record  # the servo clamped beyond its range


# a damped servo on a turntable whose joint clamps the actuator force (actuatorfrcrange 1 N m) while it spins up:
# the clamped force has no velocity derivative, and MuJoCo kept the servo's -kv in qDeriv until 4.0.0
TURNTABLE = """<mujoco><option gravity="0 0 0" integrator="implicitfast" timestep="0.002"/>
<worldbody><body><joint name="spin" type="hinge" axis="0 0 1" actuatorfrcrange="-1 1"/>
  <geom type="cylinder" size="0.2 0.02" mass="1"/></body></worldbody>
<actuator><velocity name="drive" joint="spin" kv="10" ctrlrange="-5 5"/></actuator>
<keyframe><key ctrl="5"/></keyframe></mujoco>"""


@IMPLICIT_READ
def test_the_velocity_derivative_law_differences_the_force_the_joint_clamps(pytester: pytest.Pytester) -> None:
    """The differences are of qfrc_actuator, what the step applies (the joint's actuatorfrcrange clamped): from
    MuJoCo 4.0.0 the clamped servo passes; before, its kept -kv is the released defect, seen."""
    pytester.path.joinpath("turntable.xml").write_text(TURNTABLE)
    pytester.runpytest_inprocess("--physlaw-model=turntable.xml", "-p", "no:cacheprovider", "-k",
                                 "velocity_derivative")
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == "model-velocity-derivative"]
    assert record["outcome"] == ("passed" if mujoco_versions.version() >= (4, 0, 0) else "failed"), record


PADDLE = """<mujoco><option timestep="0.002"/>
<worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
  <body name="pusher" mocap="true" pos="-0.3 0 0.05"><geom name="paddle" type="box" size="0.02 0.1 0.04"/></body>
  <body name="hand" mocap="true" pos="0 0.6 0.3"><geom name="palm" type="box" size="0.03 0.03 0.01"/></body>
  <body name="gripper" pos="0 0.6 0.25"><freejoint/><geom name="jaw" type="box" size="0.02 0.02 0.02" mass="0.1"/></body>
  <body name="box" pos="0 0 0.05"><freejoint/><geom name="box" type="box" size="0.05 0.05 0.05" mass="1"/></body>
</worldbody>
<equality><weld body1="hand" body2="gripper"/></equality></mujoco>"""


def test_mocap_bodies_are_swept_through_the_nearest_part_they_do_not_hold() -> None:
    """The paddle is dragged through the box and the box is pushed; the hand, nearer its own welded gripper than the
    box, is swept toward the box, not into what it holds; coverage names both sweeps."""
    model = _model(PADDLE)
    reached = reaching.reaching(model, 1000)
    assert reached.swept == {"pusher": "box", "hand": "box"}, reached.swept
    assert ["paddle", "box"] in reached.coverage.summary()["contact_pairs"]
    start = runs.start(model)
    assert reached.states[-1].xpos[model.body("box").id][0] != pytest.approx(start.xpos[model.body("box").id][0])
    swept = reaching.sweeps(model, start, 250)
    hand = list(swept.mocap).index(model.body("hand").mocapid[0])
    # its path runs from its start out through the box's centre: the direction of the box, not of the gripper
    towards = start.geom_xpos[model.geom("box").id] - start.mocap_pos[swept.mocap[hand]]
    assert np.allclose(np.cross(swept.reach[hand], towards), 0, atol=1e-12)
    # no faster than a quarter of the smaller geom's bounding radius a step
    assert np.linalg.norm(swept.reach[hand]) <= 0.25 * model.geom_rbound[model.geom("palm").id] * 250 + 1e-12


def test_a_model_without_mocap_bodies_sweeps_nothing() -> None:
    reached = reaching.reaching(_model(SLIDER), 200)
    assert reached.swept == {}
