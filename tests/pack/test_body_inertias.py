"""model-mass-matrix-is-its-bodies (`pytest_physlaw.pack.twofold.body_inertias`): an arm on a floating base with a
ball wrist, a slider, tendons with armature (3.3.1 on) and actuators that reflect armature (3.7 on) has the mass
matrix of its bodies and armature; a body's inertia, a dof's armature, a tendon's or an actuator's that MuJoCo's
pass would leave out or change fails; a tendon coupling two branches is compared as MuJoCo holds it and named."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import body_inertias as B
from tests.pack.law_record import law_record

LAW = "model-mass-matrix-is-its-bodies"
TENDON_ARMATURE = mujoco_versions.version() >= (3, 3, 1)
ACTUATOR_ARMATURE = mujoco_versions.version() >= (3, 7)


def _scene(branching: bool = False) -> str:
    tendon = ' armature=".05"' if TENDON_ARMATURE else ""
    fixed = ' armature=".02"' if TENDON_ARMATURE else ""
    motor = (lambda value: f' armature="{value}"') if ACTUATOR_ARMATURE else (lambda value: "")
    # the fixed tendon couples the shoulder with the elbow (one chain) or with the cart's rail (two branches)
    other = "rail" if branching else "elbow"
    return f"""<mujoco model="an arm on a floating base">
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .1 .05" mass="2"/>
      <body name="upper" pos=".1 0 0" euler="0 0 30">
        <joint name="shoulder" axis="0 1 0" armature=".01"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
        <site name="s1" pos=".15 0 .03"/>
        <body name="lower" pos=".3 0 0">
          <joint name="elbow" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 .3 0 0" size=".025"/>
          <site name="s2" pos=".15 0 .03"/>
          <body name="hand" pos=".3 0 0">
            <joint name="wrist" type="ball" armature=".002"/>
            <inertial pos=".02 .01 0" mass=".3" fullinertia=".001 .002 .0015 .0002 0 -.0001"/>
          </body>
        </body>
      </body>
      <body name="cart" pos="0 0 -.1">
        <joint name="rail" type="slide" axis="1 0 0"/>
        <geom type="box" size=".05 .05 .02"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="biceps"{tendon}><site site="s1"/><site site="s2"/></spatial>
    <fixed name="couple"{fixed}><joint joint="shoulder" coef="1"/><joint joint="{other}" coef="-.5"/></fixed>
  </tendon>
  <actuator>
    <motor name="elbow motor" joint="elbow" gear="50"{motor("1e-4")}/>
    <motor name="rail motor" joint="rail" gear="3"{motor(".01")}/>
    <motor name="biceps motor" tendon="biceps" gear="2"{motor(".03")}/>
    <motor name="elbow brake" joint="elbow" gear="20"{motor("2e-4")}/>
  </actuator>
</mujoco>"""


def _moving(xml: str) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[:] = np.random.default_rng(1).normal(size=model.nv)
    for _ in range(20):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_arms_mass_matrix_is_its_bodies_and_armature() -> None:
    model, data = _moving(_scene())
    ratio, entry, built, summed = B.compare(model, data)
    assert ratio <= 1.0, (ratio, entry, built, summed)
    assert B.branching_tendons(model, data) == []


def test_reflected_armature_sums_each_actuators_gear_squared() -> None:
    if not ACTUATOR_ARMATURE:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no actuator armature (3.7 on)")
    model = mujoco.MjModel.from_xml_string(_scene())
    dof, tendon, other = B.armatures(model)
    elbow = int(model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "elbow")])
    assert dof[elbow] == pytest.approx(1e-4 * 50 ** 2 + 2e-4 * 20 ** 2)
    assert tendon[0] == pytest.approx(0.05 + 0.03 * 2 ** 2) and not other


@pytest.mark.parametrize("fault", ["a body's inertia", "a dof's armature", "a tendon's armature",
                                   "an actuator's armature", "a body's mass"])
def test_a_term_the_pass_got_wrong_fails(fault: str) -> None:
    model, data = _moving(_scene())
    # MuJoCo's matrix is built; the model the sum reads now differs from the one it was built of
    if fault == "a body's inertia":
        model.body_inertia[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "hand")] *= 1 + 1e-6
    elif fault == "a dof's armature":
        model.dof_armature[6] = 0.0
    elif fault == "a tendon's armature":
        if not TENDON_ARMATURE:
            pytest.skip(f"MuJoCo {mujoco.__version__} has no tendon armature (3.3.1 on)")
        model.tendon_armature[0] = 0.0
    elif fault == "an actuator's armature":
        if not ACTUATOR_ARMATURE:
            pytest.skip(f"MuJoCo {mujoco.__version__} has no actuator armature (3.7 on)")
        model.actuator_armature[1] = 0.0
    else:
        model.body_mass[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "cart")] *= 1 + 1e-6
    assert B.compare(model, data)[0] > 1.0, fault


def test_a_tendon_across_two_branches_is_compared_as_mujoco_holds_it_and_named() -> None:
    if not TENDON_ARMATURE:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no tendon armature (3.3.1 on)")
    model, data = _moving(_scene(branching=True))
    assert B.compare(model, data)[0] <= 1.0
    assert B.branching_tendons(model, data) == ["couple"]
    shoulder, rail = (int(model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, j)])
                      for j in ("shoulder", "rail"))
    assert mujoco_versions.full_mass(model, data)[shoulder, rail] == 0.0  # MuJoCo drops -0.5 x 0.02 there


def test_the_chains_are_each_dof_with_its_ancestors() -> None:
    model = mujoco.MjModel.from_xml_string(_scene())
    held = B.chains(model)
    assert held[0, 11] and held[6, 7] and not held[6, 11] and not held[7, 11]  # base-rail; shoulder-elbow; branches


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("arm.xml").write_text(_scene(branching=True))
    record = law_record(pytester, "arm.xml", "is_its_bodies", LAW)
    assert record["outcome"] == "passed", record
    if TENDON_ARMATURE:
        assert "couple" in record["checks"][0]["why"]
