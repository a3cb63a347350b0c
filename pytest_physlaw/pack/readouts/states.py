"""The states the readout laws judge, through one fixture: the start and each state of the driven run (seeded
controls, `runs.driven`), as MuJoCo's forward pass left them. One place, so that more states (limit-reaching
ones) reach every readout law at once."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw.pack import runs


@pytest.fixture(scope="module")
def readout_states(driven: runs.Driven) -> list[mujoco.MjData]:
    """The forwarded states whose readouts the readout laws compare (not to be changed: copy before a call)."""
    return list(driven.states)
