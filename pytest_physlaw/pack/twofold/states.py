"""The states the second-computation laws compare at, in one place: the exercised states (the start, each state of
the driven run under seeded controls every 50 ms, where limbs swing, touch and load loops, then the reaching run's at
joint limits, saturated actuators and self-contact: `reaching.Exercised`), and the settled run's end (bodies at rest
in their contacts, where redundant contacts split the load)."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw.pack import reaching, runs

LARGE = 200  # dofs: above, a second computation of a whole solve or collision is made at three states only


def sampled(states: list[mujoco.MjData]) -> list[mujoco.MjData]:
    """The start, the middle state and the last (the settled end): where a second computation is costly (a collision
    without the midphase, a whole solve of a model with more than LARGE dofs: flex and replicated models)."""
    return [states[i] for i in sorted({0, len(states) // 2, len(states) - 1})]


def for_solves(model: mujoco.MjModel, states: list[mujoco.MjData]) -> list[mujoco.MjData]:
    """The states a law re-solving the constraints compares at: all of them, or `sampled` above LARGE dofs."""
    return states if model.nv <= LARGE else sampled(states)


@pytest.fixture(scope="module")
def twofold_states(exercised: reaching.Exercised, settled: runs.Run) -> list[mujoco.MjData]:
    """Forwarded states, each a copy the laws may not change: the exercised ones (the driven run's, its first the
    start, then the reaching run's), then the settled run's end."""
    return [*exercised.states, settled.final]
