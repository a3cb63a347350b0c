"""How far round-off moves a figure of the model's run, measured on the model itself: the settled run is
run again from a start whose positions are nudged by a relative 1e-12 (the size of change another CPU, a
compiler or a MuJoCo patch release makes), and a figure may drift against the baseline by ten times what
that nudge moved it, or by the ini default (physlaw_drift), whichever is more. A model that comes to rest
moves by round-off only; a chaotic one (a hand tumbling a cube, a robot falling over) ends elsewhere, and
its end-state figures get the drift its chaos needs, no more.

Mean iteration counts are counts: a nudge changes the count of a few steps by one, which moves a mean over
n steps by 1/n each. Their drift is taken from the nudged run's warm counts the same way.
"""

from __future__ import annotations

import math

import pytest

from pytest_physlaw import options

NUDGE = 1e-12  # relative change of the start's positions: round-off's size
SPREAD = 10.0  # a figure may move this many times what the nudge moved it


def drift(config: pytest.Config, value: float, nudged: float) -> float:
    """The relative drift for a figure that is `value` in the run and `nudged` in the nudged run."""
    default = options.default_drift(config)
    if not math.isfinite(value) or not math.isfinite(nudged) or value == 0:
        return default
    return max(default, SPREAD * abs(value - nudged) / abs(value))
