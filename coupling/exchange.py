"""The explicit exchange's clock and sizes, all read from a body's mass along its most mobile axis.

A body that can move along one axis is as light as `axis_mass` there, whatever its isotropic fit
says: the exchange between MuJoCo and a coupled solver must be sized for that lightest direction.
- `interface_bound(mass, k_c) = sqrt(mass / k_c)`: the time scale of the mass on the interface
  stiffness k_c; the explicit exchange step must stay below it.
- `stiffness_cap(c, mass, dt_x) = c * mass / dt_x**2`: the stiffest exchange spring a mass can take
  at exchange step dt_x (c: the dimensionless safety factor).
- `strong_pair(mass_a, mass_b, ratio)`: True when the pair is too unequal for the explicit
  exchange (the heavier over the lighter above `ratio`), so it needs an implicit coupler.
- `exchange_mass(model, body)`: the axis mass at qpos0 that feeds them.
"""

from __future__ import annotations

import math

import mujoco

from ._inputs import positive_number
from .masses import axis_mass
from .spatial_mobility import mobility0


def interface_bound(mass: float, k_c: float) -> float:
    """sqrt(mass / k_c), in s: the exchange clock's bound for `mass` (kg) on stiffness `k_c` (N/m)."""
    return math.sqrt(positive_number("mass", mass) / positive_number("k_c", k_c))


def stiffness_cap(c: float, mass: float, dt_x: float) -> float:
    """c * mass / dt_x**2, in N/m: the stiffest exchange spring `mass` (kg) takes at step `dt_x` (s)."""
    return positive_number("c", c) * positive_number("mass", mass) / positive_number("dt_x", dt_x) ** 2


def strong_pair(mass_a: float, mass_b: float, ratio: float) -> bool:
    """Whether max(mass_a, mass_b) / min(mass_a, mass_b) > `ratio` (>= 1): too unequal to exchange explicitly.

    Both masses must be finite: an infinite axis mass (a centre of mass that cannot translate) has
    nothing to exchange, and two of them would compare through inf / inf = NaN.
    """
    a = positive_number("mass_a", mass_a)
    b = positive_number("mass_b", mass_b)
    limit = positive_number("ratio", ratio)
    if limit < 1.0:
        raise ValueError(f"ratio must be >= 1 (a heavier-over-lighter mass ratio), got {ratio!r}")
    return bool(max(a, b) / min(a, b) > limit)


def exchange_mass(model: mujoco.MjModel, body: int | str, *, equality: bool | str = False) -> float:
    """The mass (kg) that sizes `body`'s exchange: `axis_mass(mobility0(model, body, equality=equality))`."""
    return axis_mass(mobility0(model, body, equality=equality))
