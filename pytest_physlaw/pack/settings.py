"""What the user sets for the model law pack (ini keys, `pytest_physlaw/options.py`), read once into a
frozen record: the horizon, the starting keyframe, the exercised run's controls, the accepted findings.

An accepted finding is a line `MODEL_PATH LAW_ID: reason` of ini `physlaw_model_accept`, the path
relative to the rootdir as the law's case id writes it. The law still runs and is gated; its failure
is reported as an xfail with the reason (non-strict: when the finding goes away the law passes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import PurePosixPath

import pytest

from pytest_physlaw import options

CONTROLS = ("seeded", "none")


@dataclass(frozen=True)
class Accepted:
    """One accepted finding: the model (rootdir-relative, posix), the law id, the user's reason."""

    model: str
    law: str
    reason: str


@dataclass(frozen=True)
class PackSettings:
    seconds: float
    steps: int
    keyframe: str  # "" (keyframe 0 if any, else qpos0), "qpos0", a name or an index
    controls: str
    accepted: tuple[Accepted, ...]

    def horizon(self, timestep: float) -> tuple[int, float]:
        """(steps, seconds) of a run at `timestep`: the shorter of `seconds` and `steps` timesteps, >= 1 step."""
        steps = max(1, min(self.steps, math.ceil(self.seconds / timestep - 1e-9)))
        return steps, steps * timestep

    def accepted_for(self, model: str, law: str) -> Accepted | None:
        return next((a for a in self.accepted if a.model == model and a.law == law), None)


def _accepted(line: str) -> Accepted:
    head, colon, reason = line.partition(":")
    parts = head.split()
    if not colon or len(parts) != 2 or not reason.strip():
        raise pytest.UsageError(f"ini physlaw_model_accept: {line!r}: write 'MODEL_PATH LAW_ID: reason' "
                                "(the reason is what a reader of the report needs to know)")
    return Accepted(PurePosixPath(parts[0]).as_posix(), parts[1], reason.strip())


def read(config: pytest.Config) -> PackSettings:
    """The pack's settings from the ini; a bad value is a UsageError naming the key."""
    steps_text = str(config.getini("physlaw_model_steps")).strip()
    try:
        steps = int(steps_text)
    except ValueError:
        steps = 0
    if steps < 1:
        raise pytest.UsageError(f"ini physlaw_model_steps = {steps_text!r}: must be a whole number >= 1")
    controls = str(config.getini("physlaw_model_controls")).strip() or "seeded"
    if controls not in CONTROLS:
        raise pytest.UsageError(f"ini physlaw_model_controls = {controls!r}: must be one of {', '.join(CONTROLS)}")
    accepted = tuple(_accepted(line) for line in config.getini("physlaw_model_accept"))
    return PackSettings(options.model_seconds(config), steps, str(config.getini("physlaw_model_keyframe")).strip(),
                        controls, accepted)
