"""coupling.exchange: the clock bound, stiffness cap and strong-pair class, all from the axis mass."""

from __future__ import annotations

import math

import pytest

from coupling import axis_mass, exchange_mass, interface_bound, mobility0, stiffness_cap, strong_pair
from tests.coupling.bodies import MOVING, zoo


def test_interface_bound_is_the_root_of_mass_over_stiffness():
    # The seed's gripper pad: 1.15 ms on its 1.329 kg isotropic fit, 0.75 ms on its 0.56 kg axis mass,
    # both at k_c = 1e6 N/m (1.329 / 1.15e-3**2 = 1.005e6).
    assert interface_bound(1.329, 1e6) == pytest.approx(1.15e-3, rel=3e-3)
    assert interface_bound(0.56, 1e6) == pytest.approx(0.75e-3, rel=3e-3)
    assert interface_bound(4.0, 1.0) == 2.0


def test_stiffness_cap_grows_with_mass_and_falls_with_the_square_of_the_step():
    assert stiffness_cap(0.5, 2.0, 1e-3) == pytest.approx(1e6, rel=1e-15)
    assert stiffness_cap(0.5, 2.0, 2e-3) == pytest.approx(stiffness_cap(0.5, 2.0, 1e-3) / 4, rel=1e-15)


def test_a_pair_is_strong_when_the_heavier_outweighs_the_lighter_past_the_ratio():
    assert strong_pair(0.0012, 0.5, 100.0) and strong_pair(0.5, 0.0012, 100.0)
    assert not strong_pair(0.56, 1.0, 100.0)
    assert not strong_pair(1.0, 100.0, 100.0)  # the ratio itself is still explicit
    assert type(strong_pair(1.0, 2.0, 1.5)) is bool


@pytest.mark.parametrize("name", MOVING)
def test_exchange_mass_is_the_axis_mass_at_qpos0(name):
    model = zoo()
    assert exchange_mass(model, name) == axis_mass(mobility0(model, name))


def test_a_slider_s_exchange_mass_is_its_own_mass():
    assert exchange_mass(zoo(), "slider") == pytest.approx(1.5, rel=1e-14)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: interface_bound(0.0, 1e6), "mass"),
        (lambda: interface_bound(-1.0, 1e6), "mass"),
        (lambda: interface_bound(math.nan, 1e6), "mass"),
        (lambda: interface_bound(1.0, 0.0), "k_c"),
        (lambda: interface_bound(1.0, math.inf), "k_c"),
        (lambda: interface_bound("1", 1.0), "mass"),
        (lambda: stiffness_cap(0.0, 1.0, 1e-3), "c"),
        (lambda: stiffness_cap(0.5, -1.0, 1e-3), "mass"),
        (lambda: stiffness_cap(0.5, 1.0, 0.0), "dt_x"),
        (lambda: stiffness_cap(True, 1.0, 1e-3), "c"),
        (lambda: strong_pair(0.0, 1.0, 10.0), "mass_a"),
        (lambda: strong_pair(1.0, -2.0, 10.0), "mass_b"),
        (lambda: strong_pair(1.0, 2.0, 0.5), "ratio"),
        (lambda: strong_pair(1.0, 2.0, math.nan), "ratio"),
        (lambda: strong_pair(math.inf, math.inf, 10.0), "mass_a"),  # was False through inf / inf = NaN
        (lambda: strong_pair(1.0, math.inf, 10.0), "mass_b"),
        (lambda: strong_pair(math.nan, 1.0, 10.0), "mass_a"),
        (lambda: strong_pair(1.0, "2", 10.0), "mass_b"),
        (lambda: exchange_mass(zoo(), "post"), "body"),
    ],
)
def test_bad_sizes_are_value_errors_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
