"""`model-compiled-constants-agree` (pack/twofold/constants.py): the inverse weights and actuator accelerations MuJoCo's
compiler stored are those its runtime API computes at qpos0. It passes on a sound model with every family (a free body,
a ball, hinges, a slider-only body, a tendon, actuators), fails when one stored constant is off (the fault injected in
the compiled model, per family) and on the corpus' board on rollers where MuJoCo 3.6.0 stored a roller's rotational
weight as its translational one; the computed values are MuJoCo's own definitions on a body whose weights are known."""

from __future__ import annotations

import json
from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import constants
from tests.pack.law_record import law_record

LAW = "model-compiled-constants-agree"
ROLLERS = Path(__file__).resolve().parents[2] / "regressions" / "models" / "mujoco_3163_board_on_rollers.xml"
ROLLED_WEIGHT = mujoco_versions.version()[:2] == (3, 6)  # the corpus' mujoco-3163: 3.6.0 only, rolled back in 3.7.0
SCENE = """<mujoco><option timestep="0.002"/>
  <worldbody><geom type="plane" size="1 1 0.01"/>
    <body name="ball" pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.05" mass="0.3"/></body>
    <body name="arm" pos="0.5 0 0.5">
      <joint name="shoulder" type="ball" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
      <site name="a" pos="0.1 0 0.03"/>
      <body name="forearm" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0" range="-120 120"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.4"/>
        <site name="b" pos="0.1 0 0.02"/>
      </body></body>
    <body name="cart" pos="-0.5 0 0.1">
      <joint name="track" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.05 0.05 0.05" mass="2"/>
    </body></worldbody>
  <tendon><spatial name="flexor"><site site="a"/><site site="b"/></spatial></tendon>
  <actuator><motor joint="elbow" gear="3"/><motor tendon="flexor" gear="10"/><motor joint="track"/></actuator>
</mujoco>"""


def _record(pytester: pytest.Pytester, model: str) -> dict:
    return law_record(pytester, model, "compiled_constants", LAW)


def test_the_scene_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    record = _record(pytester, "scene.xml")
    assert record["outcome"] == "passed", record
    assert {c["quantity"] for c in record["checks"]} == {f"{name}_apart_over_round_off" for name in constants.FAMILIES}
    assert max(c["value"] for c in record["checks"]) < 0.01, record  # round-off, far inside the bound


@pytest.mark.parametrize("field", ["body_invweight0", "dof_invweight0", "tendon_invweight0", "actuator_acc0"])
def test_the_law_fails_when_a_stored_constant_is_off(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      field: str) -> None:
    """The compiled model's first entry of one family is a part in a million off what the mass matrix gives."""
    real = constants.reference

    def off(model: mujoco.MjModel) -> mujoco.MjData:
        values = getattr(model, field).ravel()
        at = int(np.flatnonzero(values)[0])
        getattr(model, field).flat[at] *= 1.000001
        return real(model)

    monkeypatch.setattr(constants, "reference", off)
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    record = _record(pytester, "scene.xml")
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert failed == {f"{field}_apart_over_round_off"}, record
    assert "engine defect" in json.dumps(record)


def test_the_rollers_fail_where_mujoco_weighed_them_wrong(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("rollers.xml").write_text(ROLLERS.read_text())
    record = _record(pytester, "rollers.xml")
    assert record["outcome"] == ("failed" if ROLLED_WEIGHT else "passed"), record


def test_the_computed_weights_are_mujocos_definitions() -> None:
    """A free sphere: translational inverse weight 1/m, rotational 1/I (I = 2/5 m r^2); the slider-only cart 1/m;
    a roller whose hinge passes through its centre of mass: no translational weight."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = constants.reference(model)
    stored, computed, _ = constants.body_weights(model, data)
    ball, cart = model.body("ball").id, model.body("cart").id
    moving = [b for b in range(1, model.nbody) if model.body_weldid[b] != 0]
    at = {b: 2 * moving.index(b) for b in moving}
    assert computed[at[ball]] == pytest.approx(1 / 0.3, rel=1e-12)
    assert computed[at[ball] + 1] == pytest.approx(1 / (0.4 * 0.3 * 0.05 ** 2), rel=1e-12)
    assert computed[at[cart]] == pytest.approx(1 / 2, rel=1e-12)
    rollers = mujoco.MjModel.from_xml_path(str(ROLLERS))
    _, weights, _ = constants.body_weights(rollers, constants.reference(rollers))
    assert weights[0] == pytest.approx(0.0, abs=1e-12)  # roller1's centre of mass lies on its hinge
