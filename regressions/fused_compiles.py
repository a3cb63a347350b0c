"""The measurement behind `model-fused-bodies-keep-the-dynamics` on models that do not fuse as written: each model
compiled with `fusestatic` forced on and off through the law's own functions (`pytest_physlaw/pack/twofold/fused.py`),
the law's shares (difference over bound) of the mass matrix and the bias force, worst of `qpos0` at rest and three
seeded states. A share above 1 is what the law would fail, were the model to fuse. Not a law of the pack.

    PYTHONPATH=$PWD python regressions/fused_compiles.py MODEL.xml ...
"""

from __future__ import annotations

import sys
import warnings

import mujoco
import numpy as np

from pytest_physlaw.pack import recompile
from pytest_physlaw.pack.twofold import fused


def shares(path: str, states: int = 4) -> str:
    """One line: the model's fused and unfused body counts and its worst shares, or why it has none."""
    try:
        first, second = recompile.compiled(fused.fused_anyway, path), recompile.compiled(fused.unfused, path)
    except (ValueError, RuntimeError) as exc:
        return f"not compiled: {str(exc).splitlines()[0][:80]}"
    if first.nbody == second.nbody or not fused.same_joints(first, second):
        return "nothing fused"
    rng = np.random.default_rng(0)
    worst = {"mass_matrix": 0.0, "bias_force": 0.0}
    data = mujoco.MjData(second)
    for k in range(states):  # qpos0 at rest, then seeded poses and velocities
        data.qpos[:] = second.qpos0 + (0.0 if k == 0 else 0.3 * rng.standard_normal(second.nq))
        mujoco.mj_normalizeQuat(second, data.qpos)
        qvel = np.zeros(second.nv) if k == 0 else rng.standard_normal(second.nv)
        for quantity, share in fused.apart(first, second, np.array(data.qpos), qvel).items():
            worst[quantity] = max(worst[quantity], share)
    return (f"bodies {second.nbody} -> {first.nbody}, mass matrix {worst['mass_matrix']:.3g}, "
            f"bias force {worst['bias_force']:.3g}")


if __name__ == "__main__":
    warnings.simplefilter("ignore", UserWarning)  # MjSpec's notes on attached models' option conflicts
    for model in sys.argv[1:]:
        print(f"mujoco {mujoco.__version__} {model}: {shares(model)}", flush=True)
