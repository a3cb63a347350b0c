"""coupling with equality=True (W_c) and "soft" (W_s): each held to a dense reference, and their edge cases."""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from coupling import axis_mass, mobility, mobility0, mobility_many, proxy, scalar_mass
from fixtures.coupling import scenes as coupling_scenes
from tests.coupling.bodies import (
    dense_constrained_mobility,
    dense_mobility,
    dense_soft_mobility,
    random_pose,
    zoo,
)

# Every kind of equality the module must hold: connect, weld, joint (polynomial), tendon, over two trees.
KINDS_XML = """
<mujoco>
  <option><flag contact="disable"/></option>
  <worldbody>
    <body name="a" pos="0 0 1"><joint name="a1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass=".4"/>
      <body name="b" pos=".3 0 0"><joint name="b1" type="ball"/>
        <geom type="capsule" fromto="0 0 0 .2 .05 0" size=".02" mass=".3"/></body></body>
    <body name="c" pos=".5 .1 1"><joint name="c1" type="slide" axis="1 0 0"/><joint name="c2" type="hinge" axis="0 0 1"/>
      <geom type="box" size=".05 .05 .05" mass=".7"/></body>
    <body name="d" pos="-.5 0 1"><freejoint/><geom type="box" size=".05 .1 .05" mass=".5"/></body>
    <body name="e" pos="0 1 1"><joint name="e1" type="slide" axis="0 0 1"/><joint name="e2" type="slide" axis="1 0 0"/>
      <geom type="sphere" size=".05" mass=".2"/>
      <site name="s_e"/></body>
    <site name="s_w" pos="0 1 2"/>
  </worldbody>
  <tendon><spatial name="t"><site site="s_w"/><site site="s_e"/></spatial></tendon>
  <equality>
    <connect body1="b" body2="c" anchor=".2 .05 0"/>
    <weld body1="d" body2="a"/>
    <joint joint1="e2" joint2="c1" polycoef="0 .5 .3 0 0"/>
    <tendon tendon1="t"/>
  </equality>
</mujoco>
"""


def _kinds(jacobian: int = mujoco.mjtJacobian.mjJAC_DENSE) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(KINDS_XML)
    model.opt.jacobian = jacobian
    data = mujoco.MjData(model)
    random_pose(model, data, seed=5)
    return model, data


@pytest.mark.parametrize("name", ["a", "b", "c", "d", "e"])
def test_held_mobility_matches_the_dense_schur_complement(name):
    model, data = _kinds()
    body = model.body(name).id
    reference = dense_constrained_mobility(model, data, body)
    W = mobility(model, data, name, equality=True)
    np.testing.assert_allclose(W, reference, rtol=1e-8, atol=1e-10 * np.abs(dense_mobility(model, data, body)).max())
    np.testing.assert_array_equal(W, W.T)
    assert np.linalg.eigvalsh(W).min() >= -1e-12 * np.abs(W).max()


def test_sparse_and_dense_constraint_jacobians_give_the_same_held_mobility():
    dense_model, dense_data = _kinds(mujoco.mjtJacobian.mjJAC_DENSE)
    sparse_model, sparse_data = _kinds(mujoco.mjtJacobian.mjJAC_SPARSE)
    assert mujoco.mj_isSparse(sparse_model) and not mujoco.mj_isSparse(dense_model)
    for name in "abcde":
        np.testing.assert_allclose(
            mobility(sparse_model, sparse_data, name, equality=True),
            mobility(dense_model, dense_data, name, equality=True), rtol=1e-10, atol=1e-13,
        )


def test_degenerate_rows_are_dropped_not_inverted():
    # Every hinge of the linkage gripper turns about y: each connect's y row is zero.
    model = coupling_scenes.linkage_gripper()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rows = data.efc_J.reshape(data.nefc, model.nv)[data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
    assert np.linalg.matrix_rank(rows) < rows.shape[0]
    for name in ("right_pad", "left_pad", "right_driver", "left_follower"):
        reference = dense_constrained_mobility(model, data, model.body(name).id)
        np.testing.assert_allclose(mobility(model, data, name, equality=True), reference, rtol=1e-8, atol=1e-12)


def test_held_mobility_of_the_finger_pair_is_both_fingers():
    model = coupling_scenes.finger_pair()
    held = mobility0(model, "left_finger", equality=True)
    np.testing.assert_allclose(held[:3, :3], np.diag([0.0, 1 / 0.23, 0.0]), atol=1e-14)


def test_without_active_equalities_the_held_mobility_is_the_free_one_bit_for_bit():
    model, data = zoo(), mujoco.MjData(zoo())
    random_pose(model, data, seed=2)
    names = ["pole", "free", "forearm"]
    np.testing.assert_array_equal(mobility_many(model, data, names, equality=True), mobility_many(model, data, names))
    gripper = coupling_scenes.finger_pair()
    off = mujoco.MjData(gripper)
    off.eq_active[:] = False
    mujoco.mj_forward(gripper, off)
    np.testing.assert_array_equal(mobility(gripper, off, "left_finger", equality=True),
                                  mobility(gripper, off, "left_finger"))
    gripper.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_EQUALITY
    np.testing.assert_array_equal(mobility0(gripper, "left_finger", equality=True), mobility0(gripper, "left_finger"))


def test_the_default_is_the_free_mobility_bit_for_bit():
    model, data = _kinds()
    np.testing.assert_array_equal(mobility(model, data, "b", equality=False), mobility(model, data, "b"))
    np.testing.assert_array_equal(mobility(model, data, "b"), mobility_many(model, data, ["b"])[0])


def test_held_mobility_leaves_the_data_untouched():
    model, data = _kinds()
    before = copy.copy(data)
    mobility_many(model, data, ["a", "e"], equality=True)
    for field in ("qpos", "qacc", "efc_J", "efc_type", "efc_force", "qLD", "xpos"):
        np.testing.assert_array_equal(getattr(data, field), getattr(before, field))
    assert data.nefc == before.nefc


def test_held_mobility_many_equals_one_by_one():
    model, data = _kinds()
    names = ["e", "a", "d", "b", "c", "a"]
    many = mobility_many(model, data, names, equality=True)
    for W, name in zip(many, names):
        np.testing.assert_allclose(W, mobility(model, data, name, equality=True), rtol=1e-12, atol=1e-15)


def test_held_proxies_read_the_held_mobility():
    model = coupling_scenes.linkage_gripper()
    held = mobility0(model, "right_pad", equality=True)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    for tensor in (False, True):
        for pose in ("qpos0", "current"):
            p = proxy(model, "right_pad", tensor=tensor, pose=pose, equality=True)
            assert p.equality and "equality=True" in repr(p)
            assert p.mass == scalar_mass(held)
            np.testing.assert_allclose(p.mobility0, held, rtol=0, atol=0)
    tensor = proxy(model, "right_pad", tensor=True, kappa=np.inf, equality=True)
    np.testing.assert_allclose(tensor.inv_mass(data), held[:3, :3], rtol=1e-12, atol=1e-15)
    assert not proxy(model, "right_pad").equality
    assert axis_mass(held) > 5 * axis_mass(mobility0(model, "right_pad"))


@pytest.mark.parametrize("value", [None, 1, "yes", "Soft", "rigid", np.array([True])])
def test_equality_must_be_a_bool_or_soft(value):
    model, data = _kinds()
    for call in (
        lambda: mobility(model, data, "a", equality=value),
        lambda: mobility0(model, "a", equality=value),
        lambda: mobility_many(model, data, ["a"], equality=value),
        lambda: proxy(model, "a", equality=value),
    ):
        with pytest.raises(ValueError, match="^equality must be False .free., True .* or 'soft'"):
            call()


def test_held_mobility_many_in_chunks_of_one_body_equals_one_chunk(monkeypatch):
    from coupling import spatial_mobility

    model, data = _kinds()
    names = ["a", "b", "c", "d", "e"]
    whole = mobility_many(model, data, names, equality=True)
    monkeypatch.setattr(spatial_mobility, "_CHUNK_BYTES", 1)  # one body per mj_solveM2 call
    np.testing.assert_array_equal(mobility_many(model, data, names, equality=True), whole)


@pytest.mark.parametrize("name", ["a", "b", "c", "d", "e"])
def test_soft_mobility_matches_the_dense_woodbury_reference(name):
    model, data = _kinds()
    body = model.body(name).id
    W = mobility(model, data, name, equality="soft")
    np.testing.assert_allclose(W, dense_soft_mobility(model, data, body), rtol=1e-8,
                               atol=1e-10 * np.abs(dense_mobility(model, data, body)).max())
    np.testing.assert_array_equal(W, W.T)
    assert np.linalg.eigvalsh(W).min() >= -1e-12 * np.abs(W).max()


def test_soft_mobility_lies_between_the_rigid_and_the_free_one():
    model, data = _kinds()
    for name in ("a", "b", "c", "d", "e"):
        free, rigid, soft = (mobility(model, data, name, equality=e) for e in (False, True, "soft"))
        scale = np.abs(free).max()
        assert np.linalg.eigvalsh(free - soft).min() >= -1e-10 * scale, name
        assert np.linalg.eigvalsh(soft - rigid).min() >= -1e-10 * scale, name


def test_soft_mobility_tends_to_the_rigid_one_as_the_impedance_nears_one():
    model = coupling_scenes.linkage_gripper()
    gaps = []
    for d in (0.9, 0.99, 0.999, 0.9999):
        model.eq_solimp[:, :2] = d
        soft, rigid = mobility0(model, "right_pad", equality="soft"), mobility0(model, "right_pad", equality=True)
        gaps.append(np.abs(soft - rigid).max() / np.abs(rigid).max())
    assert all(later < earlier / 5 for earlier, later in zip(gaps, gaps[1:])), gaps
    assert gaps[-1] < 1e-2


def test_soft_without_active_equalities_is_the_free_mobility_bit_for_bit():
    model, data = zoo(), mujoco.MjData(zoo())
    random_pose(model, data, seed=2)
    names = ["pole", "free", "forearm"]
    np.testing.assert_array_equal(mobility_many(model, data, names, equality="soft"), mobility_many(model, data, names))


def test_soft_proxies_read_the_soft_mobility_and_say_so():
    model = coupling_scenes.linkage_gripper()
    soft = mobility0(model, "right_pad", equality="soft")
    for tensor in (False, True):
        p = proxy(model, "right_pad", tensor=tensor, equality="soft")
        assert p.equality == "soft" and "equality='soft'" in repr(p)
        np.testing.assert_array_equal(p.mobility0, soft)


def test_soft_mobility_many_in_chunks_equals_one_chunk_and_leaves_data(monkeypatch):
    from coupling import spatial_mobility

    model, data = _kinds()
    before = copy.copy(data)
    names = ["a", "b", "c", "d", "e"]
    whole = mobility_many(model, data, names, equality="soft")
    monkeypatch.setattr(spatial_mobility, "_CHUNK_BYTES", 1)
    np.testing.assert_array_equal(mobility_many(model, data, names, equality="soft"), whole)
    for field in ("qpos", "qacc", "efc_J", "efc_R", "qLD"):
        np.testing.assert_array_equal(getattr(data, field), getattr(before, field))
