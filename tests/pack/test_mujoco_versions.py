"""The version shims (`pytest_physlaw/mujoco_versions.py`): each way an older MuJoCo is met gives what the
pinned release's own function gives, and the geoms' volume model compiled in a child process (the way before
3.14) is the one compiled in this process."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import inertia

ARM = """<mujoco><worldbody><body pos="0 0 1"><joint name="a" type="hinge" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
  <body pos="0.3 0 0" gravcomp="0.5"><joint name="b" type="hinge" axis="0 0 1"/><geom type="box" size="0.05 0.02 0.02" mass="0.5"/>
  </body></body><body pos="1 0 1"><freejoint/><geom type="sphere" size="0.05" mass="0.2"/></body></worldbody>
  <tendon><fixed name="t"><joint joint="a" coef="1"/><joint joint="b" coef="-0.5"/></fixed></tendon>
  <actuator><motor joint="a"/><motor tendon="t" gear="2"/></actuator></mujoco>"""


@pytest.fixture
def arm() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(ARM)
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    data = mujoco.MjData(model)
    data.qpos[:2], data.qvel[:] = [0.4, -0.3], np.linspace(-1, 1, model.nv)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_dense_mass_matrix_is_mujocos(arm) -> None:
    model, data = arm
    solved = np.zeros(model.nv)
    mujoco.mj_solveM(model, data, solved.reshape(1, -1), np.ones((1, model.nv)))
    assert np.allclose(mujoco_versions.full_mass(model, data) @ solved, 1.0)


def test_moment_arms_dense_from_sparse_or_dense(arm, monkeypatch: pytest.MonkeyPatch) -> None:
    model, data = arm
    moments = mujoco_versions.actuator_moments(model, data)
    assert moments.shape == (model.nu, model.nv) and moments[0, 0] == 1.0 and moments[1, 1] == -1.0
    monkeypatch.delattr(mujoco, "mju_sparse2dense")  # the numpy fallback, as on MuJoCo 3.0-3.2
    assert np.array_equal(mujoco_versions.actuator_moments(model, data), moments)


def test_tree_dofs_without_tree_fields_are_the_models(arm) -> None:
    model, _ = arm

    class Before34:  # MjModel without tree_dofadr, tree_dofnum, tree_bodynum
        dof_treeid, body_treeid = model.dof_treeid, model.body_treeid

    for tree in range(model.ntree):
        assert mujoco_versions.tree_dofs(Before34, tree) == mujoco_versions.tree_dofs(model, tree)
        assert mujoco_versions.tree_bodies(Before34, tree) == int(model.tree_bodynum[tree])


def test_gravcomp_and_fluid_forces_without_their_fields(arm) -> None:
    model, data = arm
    model.opt.density = 1.2
    mujoco.mj_forward(model, data)

    class Older:  # an MjData without qfrc_gravcomp and qfrc_fluid: the same state otherwise
        def __init__(self, d: mujoco.MjData) -> None:
            self.d = d

        def __getattr__(self, name: str):
            if name in ("qfrc_gravcomp", "qfrc_fluid"):
                raise AttributeError(name)
            return getattr(self.d, name)

        def __copy__(self) -> mujoco.MjData:
            import copy
            return copy.copy(self.d)

    assert np.allclose(mujoco_versions.gravcomp_force(model, Older(data)), data.qfrc_gravcomp, atol=1e-12)
    assert np.allclose(mujoco_versions.fluid_force(model, Older(data)), data.qfrc_fluid, atol=1e-12)
    assert np.any(data.qfrc_gravcomp) and np.any(data.qfrc_fluid)


def test_kinetic_energy_from_the_mass_matrix_is_mujocos(arm) -> None:
    model, data = arm
    assert mujoco_versions.kinetic_energy(model, data) == pytest.approx(data.energy[1], rel=1e-12)
    assert mujoco_versions.energy(model, data) == (data.energy[0], data.energy[1])


def test_the_volume_model_compiled_in_a_child_is_the_one_compiled_here(tmp_path, monkeypatch) -> None:
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    here = inertia.geometry_model(str(path))
    monkeypatch.setattr(mujoco_versions, "version", lambda: (3, 8, 1))  # the child-process way (before 3.14)
    child = inertia.geometry_model(str(path))
    assert np.array_equal(child.body_mass, here.body_mass) and np.array_equal(child.body_inertia, here.body_inertia)
    path.write_text("<mujoco><worldbody><body><geom type='mesh' mesh='absent'/></body></worldbody></mujoco>")
    with pytest.raises(ValueError):
        inertia.geometry_model(str(path))


def test_a_run_keeps_its_starts_contacts() -> None:
    """MuJoCo 3.0's copy of an MjData keeps ncon but leaves the contacts zero (geom 0 against geom 0): the start a
    run keeps is forwarded again, so the start's overlap is measured on every release (gymnasium's HumanoidStandup,
    its arm 36 mm in the floor, read "no contact with an extent" on 3.0.0 before)."""
    from pytest_physlaw.pack import runs

    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""")
    fresh = runs.start(model)
    first = runs.settled(model, 2, cold=False).first
    assert first.ncon == fresh.ncon > 0
    assert [(c.geom1, c.geom2) for c in first.contact[: first.ncon]] == [(c.geom1, c.geom2) for c in fresh.contact[: fresh.ncon]]
    assert np.allclose(first.contact.dist[: first.ncon], fresh.contact.dist[: fresh.ncon])


def test_a_resting_box_weighs_its_weight_on_its_contacts() -> None:
    """MuJoCo 3.0's MjContact reads a zero `frame` one contact at a time (the contact array's view is right):
    model-contact-carries-weight read 0 of the weight on gymnasium-robotics' Fetch, Shadow hand and kitchen there.
    The contact forces on a box at rest, in the world frame, carry its weight on every release."""
    from pytest_physlaw.pack import runs, settled_pose

    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body></worldbody></mujoco>""")
    final = runs.settled(model, 500, cold=False).final
    weight = 2 * float(np.linalg.norm(model.opt.gravity))
    assert settled_pose._contact_force_on(model, final, 1)[2] == pytest.approx(weight, rel=0.02)
