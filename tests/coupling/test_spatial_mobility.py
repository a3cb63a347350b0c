"""coupling.spatial_mobility: W = J M^-1 J^T of a body, held to a dense reference and to MuJoCo's own answer."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from coupling import forward_position, mobility, mobility0, mobility_many
from coupling.spatial_mobility import _CHUNK_BYTES
from tests.coupling.bodies import MOVING, com_answer, dense_mobility, random_chain, random_pose, zoo


@pytest.fixture
def posed_zoo() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = zoo()
    data = mujoco.MjData(model)
    random_pose(model, data, seed=3)
    return model, data


@pytest.mark.parametrize("name", MOVING)
def test_mobility_matches_the_dense_reference(posed_zoo, name):
    model, data = posed_zoo
    body = model.body(name).id
    W = mobility(model, data, name)
    reference = dense_mobility(model, data, body)
    assert W.shape == (6, 6)
    np.testing.assert_allclose(W, reference, rtol=1e-10, atol=1e-12 * np.abs(reference).max())
    np.testing.assert_array_equal(W, W.T)
    assert np.linalg.eigvalsh(W).min() >= -1e-12 * np.abs(W).max()


@pytest.mark.parametrize("seed", range(12))
def test_mobility_of_random_chains_matches_the_dense_reference(seed):
    model = random_chain(seed)
    data = mujoco.MjData(model)
    random_pose(model, data, seed)
    for body in range(1, model.nbody):
        reference = dense_mobility(model, data, body)
        np.testing.assert_allclose(
            mobility(model, data, body), reference, rtol=1e-9, atol=1e-12 * np.abs(reference).max()
        )


@pytest.mark.parametrize("name", ["slider", "hinged", "pole", "forearm"])
def test_mobility_is_how_mujoco_moves_the_com_under_a_wrench(posed_zoo, name):
    model, data = posed_zoo
    body = model.body(name).id
    wrench = np.array([0.3, -0.2, 0.5, 0.01, 0.02, -0.03])
    measured = com_answer(model, data, body, wrench)
    predicted = mobility(model, data, body) @ wrench
    np.testing.assert_allclose(predicted, measured, rtol=1e-8, atol=1e-10 * np.abs(measured).max())


def test_mobility_many_stacks_mobility_in_the_order_given(posed_zoo):
    model, data = posed_zoo
    names = ["pole", "free", 1, "forearm", "pole"]
    many = mobility_many(model, data, names)
    assert many.shape == (5, 6, 6)
    for W, body in zip(many, names):
        np.testing.assert_array_equal(W, mobility(model, data, body))


def test_mobility_many_packed_and_chunked_equals_one_by_one():
    # 30 free boxes share one packed row block; a 120-link hinge chain (one tree) needs 120 blocks,
    # more than one 512 KiB chunk holds at this nv, so the call spans several mj_solveM2 chunks.
    links = "".join(
        f'<body pos="0 0 .05"><joint type="hinge" axis="{i % 2} {1 - i % 2} 0"/>'
        f'<geom type="capsule" fromto="0 0 0 0 0 .05" size=".01"/>'
        for i in range(120)
    ) + "</body>" * 120
    boxes = "".join(
        f'<body pos="{i} 1 1" euler="{i} {2 * i} 0"><freejoint/>'
        f'<geom type="box" size=".1 .05 .02" pos=".01 0 .02" mass="{0.1 + i / 100}"/></body>'
        for i in range(30)
    )
    model = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{links}{boxes}</worldbody></mujoco>")
    assert _CHUNK_BYTES // (6 * model.nv * 8) < 120
    data = mujoco.MjData(model)
    random_pose(model, data, seed=9)
    bodies = np.random.default_rng(9).permutation(np.arange(1, model.nbody))
    many = mobility_many(model, data, bodies)
    for W, body in zip(many, bodies):
        np.testing.assert_array_equal(W, mobility(model, data, body))
    for row in (0, 7, 60, 149):
        reference = dense_mobility(model, data, bodies[row])
        np.testing.assert_allclose(many[row], reference, rtol=1e-9, atol=1e-12 * np.abs(reference).max())


def test_mobility_many_of_no_bodies_is_empty(posed_zoo):
    model, data = posed_zoo
    assert mobility_many(model, data, []).shape == (0, 6, 6)


def test_mobility0_is_mobility_at_qpos0(posed_zoo):
    model, _ = posed_zoo
    data0 = mujoco.MjData(model)
    mujoco.mj_forward(model, data0)
    for name in MOVING:
        np.testing.assert_allclose(mobility0(model, name), mobility(model, data0, name), rtol=1e-14, atol=1e-14)


def test_forward_position_is_enough_for_mobility(posed_zoo):
    model, data = posed_zoo
    bare = mujoco.MjData(model)
    bare.qpos[:] = data.qpos
    forward_position(model, bare)
    np.testing.assert_array_equal(mobility_many(model, bare, MOVING), mobility_many(model, data, MOVING))


def test_a_slider_moves_on_its_axis_only_and_a_free_body_is_isotropic(posed_zoo):
    model, data = posed_zoo
    slider = mobility(model, data, "slider")[:3, :3]
    np.testing.assert_allclose(slider, np.diag([0.0, 0.0, 1 / 1.5]), atol=1e-15)
    free = mobility(model, data, "free")[:3, :3]
    np.testing.assert_allclose(free, np.eye(3) / 1.5, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("nowhere", "body: no body named 'nowhere'"),
        (0, "body: the world body"),
        ("world", "body: the world body"),
        ("post", "body: body 'post' (id 10) has no degrees of freedom"),
        ("mocap", "has no degrees of freedom"),
        (99, "body: body id 99 is out of range"),
        (-1, "body: body id -1 is out of range"),
        (True, "body must be a body id"),
        (1.0, "body must be a body id"),
    ],
)
def test_bad_body_is_a_value_error_naming_body(posed_zoo, body, message):
    model, data = posed_zoo
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mobility(model, data, body)
    with pytest.raises(ValueError, match="body"):
        mobility0(model, body)


def test_bad_bodies_are_value_errors_naming_the_entry(posed_zoo):
    model, data = posed_zoo
    with pytest.raises(ValueError, match=r"bodies\[2\]: no body named 'nowhere'"):
        mobility_many(model, data, ["slider", "pole", "nowhere"])
    with pytest.raises(ValueError, match="bodies must be a sequence"):
        mobility_many(model, data, "slider")
    with pytest.raises(ValueError, match="bodies must be a sequence"):
        mobility_many(model, data, 3)


def test_data_not_forwarded_or_of_another_model_is_refused(posed_zoo):
    model, _ = posed_zoo
    with pytest.raises(ValueError, match="data: its mass matrix is not factorised"):
        mobility(model, mujoco.MjData(model), "slider")
    other = random_chain(0)
    with pytest.raises(ValueError, match="data does not belong to this model"):
        mobility(model, mujoco.MjData(other), "slider")
    with pytest.raises(ValueError, match="data must be a mujoco.MjData"):
        mobility(model, None, "slider")
