"""`model-actuator-order-agrees` (pack/twofold/order.py): one step of the model as compiled and of the same model with
its actuators reordered agree. It passes on a sound model whose muscle is listed before its servos, fails when the
reordering leaves one per-actuator array behind (the fault injected in the version shim that lists them), leaves the
model as it found it, and reorders the corpus' muscle-then-servo elbow into its twin, field for field."""

from __future__ import annotations

import json
from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import order
from tests.pack.law_record import law_record

MODELS = Path(__file__).resolve().parents[2] / "regressions" / "models"
TRIGGER = MODELS / "mujoco_0bcaa856_muscle_then_servo.xml"  # MuJoCo 3.2.2 steps it wrong: the law's case
TWIN = MODELS / "mujoco_0bcaa856_servo_then_muscle.xml"  # the same elbow, the servo listed first
LAW = "model-actuator-order-agrees"
WRONG_DERIVATIVE = mujoco_versions.version() < (3, 2, 3)  # the corpus' case: a muscle before a servo, implicitfast
# A muscle listed first, then a motor, a damped position servo and an early-acting filter, on a tendon and joints of
# an implicitfast arm; a sensor reads an actuator's force (an actuator id the reordering remaps); a keyframe holds
# controls and activations.
ARM = """<mujoco><option timestep="0.002" integrator="implicitfast"/>
  <worldbody><body name="upper" pos="0 0 1">
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" contype="0" conaffinity="0"/>
    <site name="origin" pos="0.04 0 -0.05"/>
    <body name="forearm" pos="0 0 -0.3">
      <joint name="elbow" axis="0 1 0" range="-150 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.025" mass="0.5"/>
      <site name="insertion" pos="0.03 0 -0.05"/>
      <body name="hand" pos="0 0 -0.25">
        <joint name="wrist" axis="0 1 0" range="-80 80" damping="0.02"/>
        <joint name="twist" axis="0 0 1" range="-60 60" damping="0.02"/>
        <geom type="box" size="0.03 0.01 0.05" pos="0 0 -0.05" mass="0.2"/>
      </body></body></body></worldbody>
  <tendon><spatial name="biceps"><site site="origin"/><site site="insertion"/></spatial></tendon>
  <actuator>
    <muscle name="biceps" tendon="biceps" force="40"/>
    <motor name="elbow_motor" joint="elbow" gear="2" ctrlrange="-1 1"/>
    <general name="wrist" joint="wrist" biastype="affine" gainprm="20" biasprm="0 -20 -2" ctrlrange="-1 1"/>
    <general name="twist" joint="twist" dyntype="filter" dynprm="0.05" actearly="true" gainprm="3" ctrlrange="-1 1"/>
  </actuator>
  <sensor><actuatorfrc actuator="wrist"/><actuatorfrc actuator="biceps"/></sensor>
  <keyframe><key name="bent" qpos="-0.8 0.3 0.1" ctrl="0.5 0.2 -0.4 0.7" act="0.3 0.1"/></keyframe>
</mujoco>"""


def _record(pytester: pytest.Pytester, model: str) -> dict:
    return law_record(pytester, model, "actuator_order", LAW)


def _fields(model: mujoco.MjModel) -> dict[str, np.ndarray]:
    """Every array of the model and its options, copied."""
    found = {}
    for owner, prefix in ((model, ""), (model.opt, "opt.")):
        for name in dir(owner):
            if name.startswith("_"):
                continue
            try:
                value = getattr(owner, name)
            except Exception:  # noqa: BLE001 - a binding's property that cannot be read alone
                continue
            if isinstance(value, (np.ndarray, int, float)):
                found[prefix + name] = np.array(value, copy=True)
    return found


def test_the_arm_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("arm.xml").write_text(ARM)
    record = _record(pytester, "arm.xml")
    if WRONG_DERIVATIVE:  # up to 3.2.2 the muscle's velocity derivative read another actuator's activation
        assert record["outcome"] == "failed", record
        assert {c["quantity"] for c in record["checks"] if not c["passed"]} == {"qvel_apart_over_round_off"}, record
        return
    assert record["outcome"] == "passed", record
    assert {c["quantity"] for c in record["checks"]} == {"qacc_apart_over_round_off", "qvel_apart_over_round_off",
                                                        "act_apart_over_round_off"}, record


def test_the_law_fails_when_one_actuator_array_stays_behind(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The shim that lists the per-actuator arrays forgets the gains: the second order's muscle pulls with the
    motor's gain, and the step is another."""
    pytester.path.joinpath("arm.xml").write_text(ARM)
    real = mujoco_versions.actuator_fields
    monkeypatch.setattr(mujoco_versions, "actuator_fields",
                        lambda model: [f for f in real(model) if f != "actuator_gainprm"])
    record = _record(pytester, "arm.xml")
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert "qacc_apart_over_round_off" in failed, record
    assert "engine defect" in json.dumps(record)


def test_the_law_fails_when_the_activations_stay_behind(pytester: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The activations are not moved with their actuators: the filter reads the muscle's activation."""
    pytester.path.joinpath("arm.xml").write_text(ARM)
    monkeypatch.setattr(order.Reorder, "carry", lambda self, data: None)
    record = _record(pytester, "arm.xml")
    assert record["outcome"] == "failed", record


def test_a_model_already_in_the_second_order_is_skipped(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("twin.xml").write_text(TWIN.read_text())
    result = pytester.runpytest_inprocess("--physlaw-model=twin.xml", "-p", "no:cacheprovider", "-k", "actuator_order",
                                          "-rs")
    result.assert_outcomes(skipped=1)
    assert "already listed in the second order" in result.stdout.str()


def test_the_model_is_restored_after_the_steps() -> None:
    model = mujoco.MjModel.from_xml_string(ARM)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    before = _fields(model)
    second = order.second_order(model)
    assert list(second) == [2, 1, 3, 0]  # the position servo and the motor reversed, then the filter and the muscle
    first, reordered, act = order.steps_in_both_orders(model, data, second)
    after = _fields(model)
    assert before.keys() == after.keys()
    changed = [name for name in before if not np.array_equal(before[name], after[name])]
    assert not changed, changed
    assert np.array_equal(first.act, act)
    if not WRONG_DERIVATIVE:
        assert np.max(np.abs(first.qvel - reordered.qvel)) < 1e-12


def test_the_reordering_moves_every_actuator_array_and_reference() -> None:
    model = mujoco.MjModel.from_xml_string(ARM)
    second = order.second_order(model)
    before = _fields(model)
    with order.reordered(model, second) as reorder:
        for name in mujoco_versions.actuator_fields(model):
            if name not in ("actuator_actadr", "actuator_ctrladr", "actuator_outadr"):
                assert np.array_equal(getattr(model, name), before[name][second]), name
        assert list(model.actuator_actadr) == [-1, -1, 0, 1]  # the filter's activation first, then the muscle's
        assert list(reorder.vectors["act"]) == [1, 0]
        assert list(model.sensor_objid) == [0, 3]  # the servo now actuator 0, the muscle 3
        assert np.array_equal(model.key_ctrl[0], before["key_ctrl"][0][second])
        assert np.array_equal(model.key_act[0], before["key_act"][0][[1, 0]])


def test_the_muscle_then_servo_elbow_reorders_into_its_twin() -> None:
    """The corpus pair of mujoco-0bcaa856 differ only in their actuators' order: the trigger reordered is the twin
    compiled, array for array (names aside: the names' buffer is laid out in the file's order)."""
    trigger, twin = mujoco.MjModel.from_xml_path(str(TRIGGER)), mujoco.MjModel.from_xml_path(str(TWIN))
    with order.reordered(trigger, order.second_order(trigger)):
        ours, theirs = _fields(trigger), _fields(twin)
    names = ("name", "nnames", "nbuffer")  # the model's own name differs, and its text's sizes with it
    differ = [n for n in ours if not n.startswith(names) and not np.array_equal(ours[n], theirs[n])]
    assert not differ, differ


DELAYED = """<mujoco><option integrator="implicitfast"/><worldbody><body>
  <joint name="a" axis="0 1 0" damping="0.1"/><joint name="b" axis="1 0 0" damping="0.1"/>
  <geom size="0.1" pos="0 0 -0.2"/></body></worldbody>
  <actuator><general joint="a" dyntype="filter" dynprm="0.05" gainprm="2"/>
    <motor joint="a" delay="0.01" nsample="6"/><motor joint="b" delay="0.004" nsample="3" interp="linear"/>
    <position joint="b" kp="5" kv="1"/></actuator></mujoco>"""


def test_delayed_actuators_keep_their_own_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """MuJoCo's delayed actuators (3.14: a history buffer each, at `actuator_historyadr`) read their own controls'
    history in either order; an actuator given another's buffer steps another way."""
    try:
        model = mujoco.MjModel.from_xml_string(DELAYED)
    except ValueError:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no actuator delay")
    data = mujoco.MjData(model)
    rng = np.random.default_rng(1)
    for _ in range(100):
        data.ctrl[:] = rng.uniform(-1, 1, model.nu)
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    second = order.second_order(model)
    first, reordered, act = order.steps_in_both_orders(model, data, second)
    assert np.array_equal(first.qvel, reordered.qvel) and np.array_equal(first.act, act)
    fields = mujoco_versions.actuator_fields
    monkeypatch.setattr(mujoco_versions, "actuator_fields",
                        lambda m: [f for f in fields(m) if f != "actuator_historyadr"])
    first, reordered, _ = order.steps_in_both_orders(model, data, second)
    assert np.max(np.abs(first.qvel - reordered.qvel)) > 1e-6
