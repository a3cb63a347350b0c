"""The states the readout laws judge, through one fixture: the exercised states (`reaching.Exercised`: the start,
each state of the driven run under seeded controls, then the reaching run's, at joint limits, saturated actuators
and new contacts), as MuJoCo's forward pass left them. One place, so that more states reach every readout law at
once."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw.pack import reaching


@pytest.fixture(scope="module")
def readout_states(exercised: reaching.Exercised) -> list[mujoco.MjData]:
    """The forwarded states whose readouts the readout laws compare (not to be changed: copy before a call)."""
    return list(exercised.states)
