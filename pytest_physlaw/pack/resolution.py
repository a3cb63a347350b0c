"""How well the timestep resolves the motion, measured (no law here): the shift of the bodies between the model's
run and runs at finer steps over the same simulated time (Richardson: an integrator's error is about the change
that halving its step makes). The timestep law judges it (`stepping`); the laws that judge a resting state
(`contact_depth`) take it as their premise. Both import it, not each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import options, runs

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


ORDER_FLOOR = 0.5  # a shift that shrinks slower than this order over a halving is not an integrator's error
ORDER_CEILING = 5.0  # faster than this (MuJoCo's best integrator, RK4, is of order 4), the coarser run was not yet
# converging (it diverged, or met another contact): that halving is not the integrator's either
AIM = 0.5  # of RESOLVED: the advised step aims at half the bound, as the order drifts between halvings (a spring arm
# at 10 ms: order 2.4 over dt/2 and dt/4; the step aimed at the bound itself, 6.5 ms, read 0.106 when rerun)


@dataclass(frozen=True)
class Convergence:
    """The timestep law's measure over its halvings: `shifts[i]` the shift (m) between the runs at dt / 2^i and
    dt / 2^(i+1) (`run_shift`), `moved` how far the bodies moved at dt, `still` below which nothing is to
    resolve. The runs past dt / 2 are made only where the first halving fails (`convergence`)."""

    dt: float
    moved: float
    still: float
    shifts: tuple[float, ...]

    @property
    def share(self) -> float:
        """The timestep law's figure: the first halving's shift over how far the bodies moved (0 when still)."""
        return 0.0 if self.moved < self.still else self.shifts[0] / self.moved

    @property
    def resolved(self) -> bool:
        """Whether model-timestep-converged holds."""
        return self.share <= RESOLVED

    def order(self) -> tuple[float, int] | None:
        """(p, i): the convergence order measured over the finest pair of halvings whose order is an integrator's
        (ORDER_FLOOR to ORDER_CEILING), p = log2(shifts[i-1] / shifts[i]), and that halving's index; None where no
        pair is (chaos, contact events: the motion does not converge with the step)."""
        for i in range(len(self.shifts) - 1, 0, -1):
            p = _order(self.shifts[i - 1], self.shifts[i])
            if p is not None:
                return p, i
        return None

    def measured_resolved(self) -> float | None:
        """The coarsest finer step dt / 2^i (i >= 1) whose own halving moved the bodies within RESOLVED of the
        motion: measured to resolve it; None where none of the runs made did."""
        return next((self.dt / 2**i for i in range(1, len(self.shifts)) if self.shifts[i] <= RESOLVED * self.moved),
                    None)

    def needed(self) -> float | None:
        """The timestep at which the halving's shift is AIM x RESOLVED of the motion: from the measured order,
        shift(h) = shifts[i] (h / (dt / 2^i))^p, or the finer step measured to resolve it where that is longer;
        None where neither is measured."""
        found, measured = self.order(), self.measured_resolved()
        if found is None:
            return measured
        p, i = found
        extrapolated = min(self.dt / 2**i * (AIM * RESOLVED * self.moved / self.shifts[i]) ** (1 / p), self.dt)
        return max(extrapolated, measured or 0.0)

    def advice(self) -> str:
        """What the measurement supports, in the model's terms: no change, the timestep to paste, or why none."""
        if self.resolved:
            return "the timestep resolves the motion: no change"
        figures = ", ".join(f"{1000 * s:.3g} mm" for s in self.shifts)
        steps = "; ".join(f"dt/{2**i} to dt/{2**(i + 1)}" for i in range(len(self.shifts)))
        needed, found = self.needed(), self.order()
        if needed is None:
            return (f"the shift does not shrink with the step ({steps}: {figures}): the motion does not converge "
                    "(chaos, contact events), so the measurement supports no timestep")
        how = (f"the shift shrinks at order {found[0]:.2g} over the halvings" if found is not None else
               "the finer runs' own halving is within bound")
        return f'{how} ({steps}: {figures}): set <option timestep="{floor_2(needed)}"/> (now {self.dt:g})'


def _order(coarse: float, fine: float) -> float | None:
    """log2(coarse / fine), the order at which a halving shrank the shift, where it is an integrator's; else None."""
    if fine <= 0 or coarse <= fine:
        return None
    p = math.log2(coarse / fine)
    return p if ORDER_FLOOR <= p <= ORDER_CEILING else None


def floor_2(value: float) -> str:
    """`value` rounded down to two significant figures: a timestep at most the one computed."""
    digits = 1 - math.floor(math.log10(value))
    return f"{math.floor(value * 10**digits) / 10**digits:g}"


def convergence(model: mujoco.MjModel, settled: runs.Run, half_step: runs.Run, horizon: int,
                keyframe: str) -> Convergence:
    """The timestep law's measure (`Convergence`): the first halving from the runs at hand; where it fails, the
    run at dt / 4 gives the second halving, and where that one does not shrink the shift (an impact's timing
    makes the first uneven, or the run at dt diverged: no integrator's order) the run at dt / 8 the third."""
    shift, moved = run_shift(settled, half_step)
    still = still_within(settled)
    found = Convergence(float(model.opt.timestep), moved, still, (shift,))
    if found.resolved:
        return found
    finer, shifts = half_step, [shift]
    for k in (4, 8):
        with options.changed(model, runs.halved(model, k)):
            run = runs.settled(model, k * horizon, keyframe, cold=False)
        shifts.append(run_shift(finer, run)[0])
        if _order(shifts[-2], shifts[-1]) is not None or shifts[-1] <= RESOLVED * moved:
            break  # an order measured, or this finer step measured to resolve the motion
        finer = run
    return Convergence(found.dt, moved, still, tuple(shifts))


@pytest.fixture(scope="module")
def timestep_convergence(pack_model, settings, horizon: int, settled: runs.Run, settled_half_step: runs.Run) -> Convergence:
    """The timestep law's measure over its halvings, made once a model and shared with the laws that take a
    resolved timestep as their premise (model-contact-depth): one verdict for both."""
    return convergence(pack_model.model, settled, settled_half_step, horizon, settings.keyframe)
