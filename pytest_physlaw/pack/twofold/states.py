"""The states the second-computation laws compare at, in one place: the start and each state of the driven run
(seeded controls, every 50 ms: limbs swing, touch and load loops), and the settled run's end (bodies at rest in
their contacts, where redundant contacts split the load). Another run's states (joint limits, saturated
actuators, self-contact) join the laws of this room by being added here."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw.pack import runs


@pytest.fixture(scope="module")
def twofold_states(driven: runs.Driven, settled: runs.Run) -> list[mujoco.MjData]:
    """Forwarded states, each a copy the laws may not change: the driven run's (its first is the start, under the
    seeded controls), then the settled run's end."""
    return [*driven.states, settled.final]
