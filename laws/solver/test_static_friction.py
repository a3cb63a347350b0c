"""Static friction: a box on a slope holds where tan(angle) is clearly below mu, slides where above.
Source: Coulomb's law of friction on an incline, beyond Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", part 3.

Coulomb's law for a block on an incline: it stays when tan(angle) <= mu and otherwise slides
with acceleration g (sin(angle) - mu cos(angle)). MuJoCo's soft contacts blur the boundary
(creep below it, a start-up transient just above), so the law is checked away from it: held for
tan(angle) <= 0.8 mu (friction 0.05 to 1.2, tan(angle) up to 0.8; a cube tips beyond 1), sliding
for tan(angle) >= 1.25 mu up to tan(angle) = 0.6. Steeper, the sliding cube rocks (angular speeds
up to 6 rad/s measured) and ends up to 19 % off Coulomb's speed. Half a second separates the
two. Default solver: Newton, converged. `pytest laws/solver/test_static_friction.py` draws 25
cases of each.

Measured:
Over 280 held cases (a grid of the domain), a box ends at most at 0.7 % of its frictionless speed;
over 566 sliding ones (a grid and the domain's edges), at 0.946 to 1.061 of Coulomb's speed, the
extremes next to tan(angle) = 1.25 mu, where the start-up transient counts most (MuJoCo 3.14.0 and
4.0.0).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

SOURCE = "Coulomb friction on an incline; Lesson 20.2, part 3 (beyond)"
HORIZON = 0.5  # s
HOLD_BELOW, SLIDE_ABOVE = 0.8, 1.25  # tan(angle) / mu, clear of the boundary at 1
HOLD_TAN = 0.8  # a held cube, far from tipping over (tan(angle) = 1)
SLIDE_TAN = 0.6  # a sliding cube, before it starts to rock
EXAMPLES = settings(max_examples=25, deadline=None, derandomize=True, database=None)


def _angle(ratio: float, mu: float) -> float:
    return math.degrees(math.atan(ratio * mu))


@pytest.mark.law("static-friction-holds", source=SOURCE)
@EXAMPLES
@given(mu=st.floats(0.05, 1.2), ratio=st.floats(0.1, HOLD_BELOW))
def test_box_holds_where_tan_angle_is_clearly_below_mu(law, slope_run, mu: float, ratio: float) -> None:
    """tan(angle) <= 0.8 mu: the box stays; after 0.5 s it moves at a tiny share of its frictionless speed."""
    assume(ratio * mu <= HOLD_TAN)
    run = slope_run(angle=_angle(ratio, mu), mu=mu, seconds=HORIZON)
    law.check("speed_over_frictionless", run.speed / run.free_speed, le=0.02,
              why="held: soft-contact creep only, measured <= 0.007; a slide at 1.25 mu is >= 0.2")


@pytest.mark.law("static-friction-slides", source=SOURCE)
@EXAMPLES
@given(mu=st.floats(0.05, SLIDE_TAN / SLIDE_ABOVE), ratio=st.floats(SLIDE_ABOVE, 3.0))
def test_box_slides_at_coulombs_rate_where_tan_angle_is_clearly_above_mu(law, slope_run, mu: float,
                                                                         ratio: float) -> None:
    """tan(angle) >= 1.25 mu: the box slides, at the speed g (sin - mu cos) t within 10 %."""
    assume(ratio * mu <= SLIDE_TAN)
    run = slope_run(angle=_angle(ratio, mu), mu=mu, seconds=HORIZON)
    law.check("speed_over_coulomb", run.speed / run.coulomb_speed, ge=0.9, le=1.1,
              why="Coulomb's kinetic friction; measured 0.946 to 1.061 (start-up transient, soft contact): 10 %")
