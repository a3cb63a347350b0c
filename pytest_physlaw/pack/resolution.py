"""How well the timestep resolves the motion, measured (no law here): the shift of the bodies between the model's
run and runs at finer steps over the same simulated time (Richardson: an integrator's error is about the change
that halving its step makes). The timestep law judges it (`stepping`); the laws that judge a resting state
(`contact_depth`) take it as their premise. Both import it, not each other.
"""

from __future__ import annotations

import numpy as np

from pytest_physlaw.pack import runs

RESOLVED = 0.1  # of how far the bodies moved: halving the timestep may move them no more than this
STILL = 1e-6  # m: bodies that moved less than this over the run leave nothing to resolve


def run_shift(run: runs.Run, other: runs.Run) -> tuple[float, float]:
    """(shift, moved) in m: the largest root-mean-square shift of a body between `run` and `other` at `run`'s
    steps (`other` at a step `k` times finer is read every k-th step), and the farthest any body of `run` moved
    from the start. The timestep law's measure, and that of a change of the model's options (its cap)."""
    every = max(1, round((len(other.xpos) - 1) / max(1, len(run.xpos) - 1)))
    coarse, fine = run.xpos, other.xpos[::every]
    moved = float(np.max(np.linalg.norm(coarse - coarse[:1], axis=2)))
    shift = float(np.max(np.sqrt(np.mean(np.sum((fine - coarse) ** 2, axis=2), axis=0))))
    return shift, moved


def still_within(run: runs.Run) -> float:
    """How far (m) the bodies may move over `run` and leave no motion to resolve: STILL, or the widest soft width
    (solimp width) of the contacts at its end. A body that only settles into its contacts sinks within that width,
    to a depth MuJoCo's refsafe ties to the timestep (a solref under 2 dt is stepped as 2 dt): halving the step
    moves its rest, not a motion (a Meta-World cylinder settling 0.146 mm on its table moved 0.021 mm at dt/2)."""
    final = run.final
    if not final.ncon:
        return STILL
    return max(STILL, float(np.max(np.asarray(final.contact.solimp[:final.ncon])[:, 2])))


def timestep_resolved(settled: runs.Run, settled_half_step: runs.Run) -> tuple[bool, float]:
    """(whether model-timestep-converged holds, its figure): the premise of the laws that judge a resting
    state, which an unresolved step moves."""
    shift, moved = run_shift(settled, settled_half_step)
    if moved < still_within(settled):
        return True, 0.0
    return shift / moved <= RESOLVED, shift / moved
