"""The iteration cap that covers a model's solves, measured (no law here): for the advice of
model-solver-cap-share, which makes the run again with the cap raised (`solver._uncapped_shift`) and may
state, instead of "raise the cap until the motion stops changing", the cap that run shows the solves need.

Where it is called: `pytest_physlaw/pack/solver.py`, in the cap-share law's message, from the raised-cap run
that `_uncapped_shift` makes.
"""

from __future__ import annotations

import mujoco
import numpy as np

from pytest_physlaw.pack import runs


def covering_cap(model: mujoco.MjModel, raised_run: runs.Run, raised: int) -> str:
    """The `<option iterations>` that covers every step's solve, from `raised_run` (the model's run with the cap
    raised to `raised`): the most iterations a step's main solve took there (MuJoCo's `solver_niter`, the noslip
    pass counted apart, `runs.settled`), plus one; where steps still stop at the raised cap, no cap is measured."""
    now = int(model.opt.iterations)
    if raised_run.steps == 0 or not raised_run.warm.size:
        return "no step was solved: no change"
    if np.any(raised_run.capped):
        return (f"{int(np.count_nonzero(raised_run.capped))} steps still stop at the raised cap of {raised}: the "
                "measurement supports no cap (loosen <option tolerance> or look at what the solver cannot converge)")
    most = int(np.max(raised_run.warm))
    if most < now:
        return f"the solves take at most {most} iterations, under the cap of {now}: no change"
    # one more than the most taken: a solve that stops at the cap itself cannot be told from a capped one
    return (f'set <option iterations="{most + 1}"/> or more (the most a step\'s solve took with the cap at {raised} '
            f"is {most}; now {now})")
