"""coupling.proxies: scalar and tensor proxies, their floor, turning, exact cases and environment switches."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from coupling import (
    KAPPA_ENV,
    TENSOR_ENV,
    ScalarProxy,
    TensorProxy,
    axis_mass,
    mobility,
    mobility0,
    proxy,
    scalar_mass,
)
from tests.coupling.bodies import MOVING, com_answer, random_pose, zoo

FORCE = np.array([0.3, -1.1, 0.7])


@pytest.fixture(autouse=True)
def _no_switches(monkeypatch):
    monkeypatch.delenv(TENSOR_ENV, raising=False)
    monkeypatch.delenv(KAPPA_ENV, raising=False)


@pytest.fixture
def model() -> mujoco.MjModel:
    return zoo()


def _posed(model: mujoco.MjModel, seed: int) -> mujoco.MjData:
    data = mujoco.MjData(model)
    random_pose(model, data, seed)
    return data


def _turn_pole(model: mujoco.MjModel, degrees: float) -> mujoco.MjData:
    data = mujoco.MjData(model)
    data.qpos[model.joint("pole_hinge").qposadr[0]] = math.radians(degrees)
    mujoco.mj_forward(model, data)
    return data


# --- the scalar proxy ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", MOVING)
def test_scalar_proxy_is_one_mass_three_over_trace(model, name):
    scalar = proxy(model, name, tensor=False)
    data = _posed(model, 1)
    assert isinstance(scalar, ScalarProxy) and not scalar.tensor
    assert scalar.mass == scalar_mass(mobility0(model, name))
    np.testing.assert_array_equal(scalar.inv_mass(data), np.eye(3) / scalar.mass)
    np.testing.assert_array_equal(scalar.answer(FORCE, data), scalar.inv_mass(data) @ FORCE)


def test_scalar_proxy_at_the_current_pose_reads_the_current_mobility(model):
    data = _turn_pole(model, 90)
    scalar = proxy(model, "pole", tensor=False, pose="current")
    assert scalar.inv_mass(data)[0, 0] == 1 / scalar_mass(mobility(model, data, "pole"))
    assert scalar.mass == proxy(model, "pole", tensor=False).mass  # mass stays the qpos0 figure


# --- the tensor proxy ---------------------------------------------------------------------------


def test_tensor_floor_raises_each_eigenvalue_to_lambda_max_over_kappa(model):
    for kappa in (10.0, 100.0, 1000.0):
        tensor = proxy(model, "slider", tensor=True, kappa=kappa)
        values = np.linalg.eigvalsh(tensor.inv_mass_body)
        np.testing.assert_allclose(values, [1 / 1.5 / kappa] * 2 + [1 / 1.5], rtol=1e-12)
        across = tensor.answer([1.0, 0.0, 0.0], _posed(model, 2))
        np.testing.assert_allclose(across, [1 / 1.5 / kappa, 0, 0], rtol=1e-12, atol=1e-18)


def test_tensor_floor_leaves_eigenvalues_above_it_and_eigenvectors_alone(model):
    W = mobility0(model, "forearm")[:3, :3]
    values, vectors = np.linalg.eigh(W)
    tensor = TensorProxy(model, "forearm", kappa=10.0)
    rotation0 = mujoco.MjData(model)
    mujoco.mj_forward(model, rotation0)
    world = rotation0.xmat[model.body("forearm").id].reshape(3, 3)
    floored = world @ tensor.inv_mass_body @ world.T
    expected = (vectors * np.maximum(values, values[-1] / 10.0)) @ vectors.T
    np.testing.assert_allclose(floored, expected, rtol=1e-12, atol=1e-15 * values[-1])


def test_kappa_inf_is_no_floor_and_default_kappa_is_100(model):
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    unfloored = proxy(model, "slider", tensor=True, kappa=math.inf).inv_mass(data)
    np.testing.assert_allclose(unfloored, mobility(model, data, "slider")[:3, :3], atol=1e-16)
    assert proxy(model, "slider", tensor=True).kappa == 100.0


def test_a_hinged_body_s_tensor_turns_with_it(model):
    # One hinge: the whole system turns rigidly, so W at any angle is W0 turned with the body.
    tensor = proxy(model, "hinged", tensor=True, kappa=math.inf)
    for seed in range(4):
        data = _posed(model, seed)
        current = mobility(model, data, "hinged")[:3, :3]
        np.testing.assert_allclose(tensor.inv_mass(data), current, rtol=1e-10, atol=1e-10 * np.abs(current).max())


def test_the_qpos0_tensor_misses_a_turned_host_and_the_current_one_does_not(model):
    data = _turn_pole(model, 90)
    push = np.array([1.0, 0.0, 0.0])  # along the cart's slide
    body = com_answer(model, data, model.body("pole").id, np.r_[push, 0, 0, 0])[:3]
    turned = proxy(model, "pole", tensor=True, kappa=math.inf).answer(push, data)
    current = proxy(model, "pole", tensor=True, kappa=math.inf, pose="current").answer(push, data)
    assert abs(turned[0] - body[0]) > 0.5 * abs(body[0])
    np.testing.assert_allclose(current, body, rtol=1e-9, atol=1e-12)


def test_tensor_mass_is_the_scalar_mass(model):
    for name in MOVING:
        assert proxy(model, name, tensor=True).mass == proxy(model, name, tensor=False).mass


# --- exact cases, bit for bit -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["free", "three_slides"])
@pytest.mark.parametrize("pose", ["qpos0", "current"])
def test_an_isotropic_body_s_tensor_proxy_is_its_scalar_proxy_bit_for_bit(model, name, pose):
    scalar = proxy(model, name, tensor=False)
    tensor = proxy(model, name, tensor=True, pose=pose)
    assert isinstance(tensor, TensorProxy) and tensor.isotropic0
    for seed in range(3):
        data = _posed(model, seed)
        np.testing.assert_array_equal(tensor.inv_mass(data), scalar.inv_mass(data))
        np.testing.assert_array_equal(tensor.answer(FORCE, data), scalar.answer(FORCE, data))


def test_a_slide_only_body_keeps_its_qpos0_mobility_at_every_pose(model):
    data = _posed(model, 5)
    for name in ("slider", "three_slides"):
        for tensor in (False, True):
            still = proxy(model, name, tensor=tensor)
            moved = proxy(model, name, tensor=tensor, pose="current")
            np.testing.assert_array_equal(moved.inv_mass(data), still.inv_mass(data))


def test_a_slide_body_carrying_a_hinged_body_reads_its_current_mobility(model):
    # The cart moves on one slide, but its pole's angle changes the cart's M^-1: not pose-invariant.
    data = _turn_pole(model, 90)
    for tensor in (False, True):
        current = proxy(model, "cart", tensor=tensor, kappa=math.inf, pose="current")
        W_tt = mobility(model, data, "cart")[:3, :3]
        expected = W_tt if tensor else np.eye(3) / scalar_mass(W_tt)
        np.testing.assert_allclose(current.inv_mass(data), expected, rtol=1e-12, atol=1e-15)
        assert current.inv_mass(data)[0, 0] != proxy(model, "cart", tensor=tensor, kappa=math.inf).inv_mass(data)[0, 0]


TETHERED = """<mujoco><worldbody><site name="reel" pos="0 0 .05"/>
  <body name="puck" pos=".5 .3 .04"><freejoint/><geom type="cylinder" size=".05 .04" mass=".5"/><site name="eye"/></body>
  </worldbody><tendon><spatial armature=".5"><site site="reel"/><site site="eye"/></spatial></tendon></mujoco>"""


@pytest.mark.skipif(not hasattr(mujoco.MjModel, "tendon_armature"), reason="tendon armature came in MuJoCo 3.3")
def test_a_free_body_tethered_by_a_tendon_with_armature_reads_its_current_mobility():
    # M = m I + a u u^T: the tether's direction u is the world's, so the body alone on its free joint is not
    # pose-invariant, and turning it must not turn its W_tt (the answer MuJoCo gives is the current W's)
    model = mujoco.MjModel.from_xml_string(TETHERED)
    data = mujoco.MjData(model)
    data.qpos[3:7] = [0.5, 0.5, -0.5, 0.5]
    mujoco.mj_forward(model, data)
    tensor = proxy(model, "puck", tensor=True, kappa=math.inf, pose="current")
    W_tt = mobility(model, data, "puck")[:3, :3]
    np.testing.assert_allclose(tensor.inv_mass(data), W_tt, rtol=1e-12, atol=1e-15)
    untethered = mujoco.MjModel.from_xml_string(TETHERED.replace(' armature=".5"', ""))
    assert proxy(untethered, "puck", tensor=True, pose="current").isotropic0  # a free body alone: I / m, turned


def test_the_switch_off_gives_the_scalar_proxy_exactly(model, monkeypatch):
    data = _posed(model, 4)
    for value in ("0", "", " 0 "):
        monkeypatch.setenv(TENSOR_ENV, value)
        for name in MOVING:
            switched_off = proxy(model, name)
            assert type(switched_off) is ScalarProxy
            scalar = ScalarProxy(model, name)
            np.testing.assert_array_equal(switched_off.answer(FORCE, data), scalar.answer(FORCE, data))


# --- environment switches -----------------------------------------------------------------------


def test_the_switch_on_gives_a_tensor_proxy_with_the_kappa_variable(model, monkeypatch):
    monkeypatch.setenv(TENSOR_ENV, "1")
    assert type(proxy(model, "slider")) is TensorProxy
    assert proxy(model, "slider").kappa == 100.0
    monkeypatch.setenv(KAPPA_ENV, "10")
    assert proxy(model, "slider").kappa == 10.0
    monkeypatch.setenv(KAPPA_ENV, "inf")
    assert proxy(model, "slider").kappa == math.inf
    assert proxy(model, "slider", kappa=1000).kappa == 1000.0  # an argument wins over the variable
    assert type(proxy(model, "slider", tensor=False)) is ScalarProxy


@pytest.mark.parametrize("value", ["yes", "true", "2", "on", "1.0"])
def test_an_invalid_switch_is_a_value_error_naming_the_variable(model, monkeypatch, value):
    monkeypatch.setenv(TENSOR_ENV, value)
    with pytest.raises(ValueError, match=f"{TENSOR_ENV} must be '0' or '1'"):
        proxy(model, "slider")


@pytest.mark.parametrize("value", ["abc", "0", "-5", "0.5", "nan"])
def test_an_invalid_kappa_variable_is_a_value_error_naming_it(model, monkeypatch, value):
    monkeypatch.setenv(TENSOR_ENV, "1")
    monkeypatch.setenv(KAPPA_ENV, value)
    with pytest.raises(ValueError, match=KAPPA_ENV):
        proxy(model, "slider")


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kappa", [0, -1.0, math.nan, 0.5, True, "10", -math.inf])
def test_bad_kappa_is_a_value_error_naming_kappa(model, kappa):
    with pytest.raises(ValueError, match="kappa"):
        proxy(model, "slider", tensor=True, kappa=kappa)
    with pytest.raises(ValueError, match="kappa"):
        TensorProxy(model, "slider", kappa=kappa)


def test_bad_pose_tensor_or_body_is_a_value_error_naming_it(model):
    with pytest.raises(ValueError, match="pose must be one of"):
        proxy(model, "slider", pose="now")
    with pytest.raises(ValueError, match="tensor must be True, False or None"):
        proxy(model, "slider", tensor="1")
    with pytest.raises(ValueError, match="body: no body named 'nowhere'"):
        proxy(model, "nowhere", tensor=True)
    with pytest.raises(ValueError, match="body: the world body"):
        proxy(model, 0)
    with pytest.raises(ValueError, match="has no degrees of freedom"):
        proxy(model, "post", tensor=True)


@pytest.mark.parametrize(
    ("force", "message"),
    [
        ([1.0, math.nan, 0.0], "force must be finite"),
        ([math.inf, 0.0, 0.0], "force must be finite"),
        ([1.0, 2.0], r"force must have shape \(3,\)"),
        (np.ones((3, 1)), r"force must have shape \(3,\)"),
        ("up", "force must"),
    ],
)
@pytest.mark.parametrize("tensor", [False, True])
def test_bad_force_is_a_value_error_naming_force(model, force, message, tensor):
    data = _posed(model, 0)
    with pytest.raises(ValueError, match=message):
        proxy(model, "pole", tensor=tensor).answer(force, data)


def test_data_of_another_model_or_not_forwarded_is_refused(model):
    lone_ball = "<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"
    other = mujoco.MjModel.from_xml_string(lone_ball)
    with pytest.raises(ValueError, match="data does not belong to this model"):
        proxy(model, "pole", tensor=True).inv_mass(mujoco.MjData(other))
    with pytest.raises(ValueError, match="data: the body's xmat is not a rotation"):
        proxy(model, "pole", tensor=True).inv_mass(mujoco.MjData(model))
    with pytest.raises(ValueError, match="data: its mass matrix is not factorised"):
        proxy(model, "pole", tensor=True, pose="current").inv_mass(mujoco.MjData(model))


def test_axis_mass_of_the_proxy_s_mobility_is_what_the_tensor_answers_along_the_axis(model):
    tensor = proxy(model, "slider", tensor=True)
    data = _posed(model, 6)
    along = tensor.answer([0.0, 0.0, 1.0], data)[2]
    assert 1 / along == pytest.approx(axis_mass(tensor.mobility0), rel=1e-12)


def test_a_body_hinged_through_its_centre_of_mass_does_not_answer_a_force_there():
    spinner = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body name="wheel"><joint type="hinge" axis="0 0 1"/>'
        '<geom type="cylinder" size=".1 .01" mass="0.3"/></body></worldbody></mujoco>'
    )
    data = mujoco.MjData(spinner)
    mujoco.mj_forward(spinner, data)
    for tensor in (False, True):
        wheel = proxy(spinner, "wheel", tensor=tensor)
        assert wheel.mass == math.inf
        np.testing.assert_array_equal(wheel.answer(FORCE, data), np.zeros(3))
