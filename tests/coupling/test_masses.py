"""coupling.masses: the isotropic fit 3 / trace(W_tt) and the axis mass 1 / lambda_max(W_tt)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coupling import axis_mass, mobile_axis, mobility0, scalar_mass, translation_block
from tests.coupling.bodies import MOVING, zoo


def _turned(inverse_masses: list[float]) -> np.ndarray:
    rotation, _ = np.linalg.qr(np.random.default_rng(7).normal(size=(3, 3)))
    return rotation @ np.diag(inverse_masses) @ rotation.T


def test_one_axis_of_motion_gives_three_times_the_mass_and_the_axis_its_own():
    W = _turned([0.0, 0.0, 1 / 1.5])
    assert scalar_mass(W) == pytest.approx(4.5, rel=1e-14)
    assert axis_mass(W) == pytest.approx(1.5, rel=1e-14)


def test_two_equal_free_axes_give_one_and_a_half_times_the_mass():
    W = _turned([0.0, 2.0, 2.0])
    assert scalar_mass(W) / axis_mass(W) == pytest.approx(1.5, rel=1e-14)


def test_isotropic_mobility_gives_equal_masses():
    assert scalar_mass(np.eye(3) / 0.515) == pytest.approx(0.515, rel=1e-15)
    assert axis_mass(np.eye(3) / 0.515) == pytest.approx(0.515, rel=1e-15)


def test_a_6x6_mobility_is_read_through_its_translational_block():
    W = np.zeros((6, 6))
    W[:3, :3] = _turned([0.5, 1.0, 2.0])
    W[3:, 3:] = np.diag([100.0, 200.0, 300.0])  # rotation must not enter the masses
    W[:3, 3:] = 0.1  # a coupling small enough that W stays positive semi-definite, as a mobility is
    W[3:, :3] = 0.1
    assert scalar_mass(W) == pytest.approx(3 / 3.5, rel=1e-14)
    assert axis_mass(W) == pytest.approx(0.5, rel=1e-14)
    np.testing.assert_array_equal(translation_block(W), translation_block(W[:3, :3]))


@pytest.mark.parametrize("name", MOVING)
def test_the_scalar_mass_is_never_below_the_axis_mass(name):
    W = mobility0(zoo(), name)
    assert scalar_mass(W) >= axis_mass(W) * (1 - 1e-14)
    assert scalar_mass(W) <= 3 * axis_mass(W) * (1 + 1e-14)


def test_mobile_axis_is_the_direction_of_least_mass():
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    W = 0.1 * np.eye(3) + 2.0 * np.outer(axis, axis)
    found = mobile_axis(W)
    assert abs(found @ axis) == pytest.approx(1.0, abs=1e-14)
    assert 1 / (found @ W @ found) == pytest.approx(axis_mass(W), rel=1e-14)


def test_a_centre_of_mass_that_cannot_translate_has_infinite_mass():
    W = np.zeros((6, 6))
    W[5, 5] = 3.0  # a hinge through the centre of mass: rotation only
    assert scalar_mass(W) == math.inf
    assert axis_mass(W) == math.inf


@pytest.mark.parametrize(
    ("W", "message"),
    [
        (np.eye(4), r"W must be a 6 x 6 or 3 x 3 mobility, got shape \(4, 4\)"),
        (np.ones(3), r"got shape \(3,\)"),
        (np.full((3, 3), np.nan), "W must be finite"),
        (np.diag([1.0, np.inf, 1.0]), "W must be finite"),
    ],
)
def test_bad_mobility_is_a_value_error_naming_w(W, message):
    for mass in (scalar_mass, axis_mass, mobile_axis):
        with pytest.raises(ValueError, match=message):
            mass(W)
