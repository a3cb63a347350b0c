"""The cost of a setting: wall time per simulated second, as a ratio to the model's own settings timed in the same
process, interleaved with it and repeated, the minimum of each taken (the machine is shared: the least disturbed
repeat is the closest to the cost itself).
"""

from __future__ import annotations

import math
import time

import mujoco
import numpy as np

from pytest_physlaw.advise.setting import Setting
from pytest_physlaw.pack import runs

TIMED_SECONDS = 0.5  # simulated s each repeat times (at least MIN_STEPS steps)
MIN_STEPS = 1000


def seconds_per_second(model: mujoco.MjModel, setting: Setting, keyframe: str, seed: int = 0) -> float:
    """Wall s per simulated s of the driven run under `setting` (controls redrawn as in `observe`)."""
    m = setting.applied(model)
    data = runs.start(m, keyframe)
    rng = np.random.default_rng(seed)
    steps = max(MIN_STEPS, math.ceil(TIMED_SECONDS / m.opt.timestep))
    period = max(1, int(round(runs.CONTROL_PERIOD / m.opt.timestep)))
    controls = [runs.seeded_controls(m, rng) for _ in range(steps // period + 1)] if m.nu else []
    t0 = time.perf_counter()
    for i in range(steps):
        if controls and i % period == 0:
            data.ctrl[:] = controls[i // period]
        mujoco.mj_step(m, data)
    return (time.perf_counter() - t0) / (steps * m.opt.timestep)


def timed(model: mujoco.MjModel, settings: list[Setting], keyframe: str, repeats: int = 5) -> dict[Setting, float]:
    """Each setting's least wall s per simulated s over `repeats` interleaved rounds."""
    best = {s: math.inf for s in settings}
    for _ in range(repeats):
        for s in settings:
            best[s] = min(best[s], seconds_per_second(model, s, keyframe))
    return best
