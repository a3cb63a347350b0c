"""Bad input to the coupling API is refused by name: models, data of another model, mobilities, masses."""

from __future__ import annotations

import copy
import math
import pathlib

import mujoco
import numpy as np
import pytest

import coupling
from fixtures.coupling import scenes as coupling_scenes
from tests.coupling.bodies import ZOO_XML, zoo

NOT_MODELS = {
    "None": lambda: None,
    "a path": lambda: "robot.xml",
    "a pathlib.Path": lambda: pathlib.Path("robot.xml"),
    "an MjSpec": lambda: mujoco.MjSpec.from_string(ZOO_XML),
    "an MjData": lambda: mujoco.MjData(zoo()),
}


def _model_calls(model: object) -> dict[str, object]:
    """Every public function of coupling that takes a model, called with `model`."""
    data = mujoco.MjData(zoo())
    return {
        "mobility": lambda: coupling.mobility(model, data, "slider"),
        "mobility0": lambda: coupling.mobility0(model, "slider"),
        "mobility_many": lambda: coupling.mobility_many(model, data, ["slider"]),
        "forward_position": lambda: coupling.forward_position(model, data),
        "exchange_mass": lambda: coupling.exchange_mass(model, "slider"),
        "proxy": lambda: coupling.proxy(model, "slider"),
        "ScalarProxy": lambda: coupling.ScalarProxy(model, "slider"),
        "TensorProxy": lambda: coupling.TensorProxy(model, "slider"),
    }


@pytest.mark.parametrize("kind", NOT_MODELS)
@pytest.mark.parametrize("function", list(_model_calls(None)))
def test_a_model_that_is_not_an_mjmodel_is_refused_by_name(kind, function):
    call = _model_calls(NOT_MODELS[kind]())[function]
    with pytest.raises(ValueError, match="^model must be a mujoco.MjModel, got"):
        call()


def test_the_refusal_says_what_to_do_with_what_was_passed():
    with pytest.raises(ValueError, match=r"MjSpec; compile it first"):
        coupling.mobility0(mujoco.MjSpec.from_string(ZOO_XML), "slider")
    with pytest.raises(ValueError, match=r"MjData; pass its model, data.model"):
        coupling.mobility0(mujoco.MjData(zoo()), "slider")
    with pytest.raises(ValueError, match=r"a path or XML; load it first"):
        coupling.proxy("robot.xml", "slider")


def _forwarded(model: mujoco.MjModel) -> mujoco.MjData:
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return data


def test_data_of_another_model_with_the_same_sizes_is_refused():
    # Two Panda-like hands with different fingers: every size equal, the body masses not.
    light, heavy = coupling_scenes.finger_pair(0.115), coupling_scenes.finger_pair(0.5)
    assert (light.nq, light.nv, light.nbody, light.neq) == (heavy.nq, heavy.nv, heavy.nbody, heavy.neq)
    foreign = _forwarded(heavy)
    held = coupling.proxy(light, "left_finger", tensor=True, pose="current")
    for call in (
        lambda: coupling.mobility(light, foreign, "left_finger"),
        lambda: coupling.mobility_many(light, foreign, ["left_finger"], equality=True),
        lambda: coupling.forward_position(light, foreign),
        lambda: held.inv_mass(foreign),
        lambda: held.answer([1.0, 0.0, 0.0], foreign),
    ):
        with pytest.raises(ValueError, match=r"^data does not belong to this model \(its model differs: body_mass\)"):
            call()


def test_data_of_a_model_of_other_sizes_is_refused_naming_the_size():
    with pytest.raises(ValueError, match=r"^data does not belong to this model \(its model differs: nq"):
        coupling.mobility(zoo(), _forwarded(coupling_scenes.cart_pole()), "slider")


def test_data_of_a_copy_of_the_model_is_accepted():
    model = zoo()
    twin = copy.copy(model)
    data = _forwarded(twin)
    assert data.model is twin and twin is not model
    np.testing.assert_array_equal(coupling.mobility(model, data, "pole"), coupling.mobility(twin, data, "pole"))


def test_data_that_is_not_an_mjdata_is_refused():
    model = zoo()
    for data in (None, model, np.zeros(3)):
        with pytest.raises(ValueError, match="^data must be a mujoco.MjData"):
            coupling.mobility(model, data, "slider")


def _turned(values: list[float]) -> np.ndarray:
    rotation, _ = np.linalg.qr(np.random.default_rng(4).normal(size=(3, 3)))
    return rotation @ np.diag(values) @ rotation.T


BAD_MOBILITIES = {
    "not symmetric": (np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), "W must be symmetric"),
    "indefinite": (_turned([-1.0, 1.0, 2.0]), "W must be positive semi-definite"),
    "negative definite": (-np.eye(3), "W must be positive semi-definite"),
    "6 x 6 indefinite": (np.diag([1.0, 1.0, 1.0, 1.0, 1.0, -1.0]), "W must be positive semi-definite"),
    "not numbers": ([["a"] * 3] * 3, "W must be a 6 x 6 or 3 x 3 mobility of real numbers"),
    "ragged": ([[1.0, 0.0], [0.0]], "W must be a 6 x 6 or 3 x 3 mobility of real numbers"),
    "4 x 4": (np.eye(4), r"W must be a 6 x 6 or 3 x 3 mobility, got shape \(4, 4\)"),
    "nan": (np.full((3, 3), np.nan), "W must be finite"),
}


@pytest.mark.parametrize("case", BAD_MOBILITIES)
def test_a_w_that_is_not_a_mobility_is_refused_by_name(case):
    W, message = BAD_MOBILITIES[case]
    for function in (coupling.scalar_mass, coupling.axis_mass, coupling.mobile_axis, coupling.translation_block):
        with pytest.raises(ValueError, match=f"^{message}"):
            function(W)


def test_round_off_of_a_computed_mobility_passes():
    W = _turned([0.0, 0.0, 1 / 1.5])  # rank one: two eigenvalues of ~1e-17, either sign
    W[0, 1] += 1e-15
    assert coupling.axis_mass(W) == pytest.approx(1.5, rel=1e-12)
    assert coupling.scalar_mass(np.zeros((6, 6))) == math.inf


@pytest.mark.parametrize(
    ("masses", "name"),
    [((math.inf, math.inf), "mass_a"), ((1.0, math.inf), "mass_b"), ((math.nan, 1.0), "mass_a"), ((1.0, -math.inf), "mass_b")],
)
def test_strong_pair_refuses_masses_that_are_not_finite(masses, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a positive real number \(finite\)"):
        coupling.strong_pair(*masses, 10.0)
