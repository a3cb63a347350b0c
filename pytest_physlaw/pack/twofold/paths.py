"""Two paths of one constraint solve, compared at a state: the model run one way (the first computation) and the
same model with one option turned the other way (the second), each with the model's solver, tolerance, iterations
and the state's warm start. Converged paths reach one minimum (the problem is convex in qacc); each path's own error
is how far its answer moves when its solve goes on from it, for up to another cap of iterations, to 1e-4 of the
tolerance, and, for the second path (the one the other is judged against), how far apart that tighter solve lands
from a cold start and from its warm one: where the minimum lies in a flat valley (an ill-conditioned problem: a stiff
flex), where it stops within the valley depends on where it starts, by more than continuing it moves it (MuJoCo's
flex/sphere_trilinear.xml: islands and one solve 1.7e-7 of the acceleration apart, continuing either moving it 0).
Two paths heading for the same answer differ by no more than those errors plus round-off. Used by the modules of
this room whose pair is a solver option (`jacobian`, `islands`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from pytest_physlaw.pack import options

SPREAD = 10.0  # the paths may differ by ten times what continuing their solves moves them
ROUND_OFF = 1e-9  # of the correction (qacc) or the largest force: converged paths differ by round-off (zoo: 1e-12)
TIGHTER = 1e-4  # a path's own error: how far its answer moves when its solve goes on to 1e-4 of the tolerance


class OutOfMemory(Exception):
    """The model's arena (`<size memory>`) holds one path's solve and not the other's."""


def solve(model: mujoco.MjModel, chosen: options.Options, state: mujoco.MjData,
          warm: np.ndarray | None = None) -> mujoco.MjData:
    """`mj_forward` of `model` with the `chosen` options on a copy of `state` (`warm`: the solve starts from this
    qacc)."""
    data = copy.copy(state)
    if warm is not None:
        data.qacc_warmstart[:] = warm
    try:
        with options.changed(model, chosen):
            mujoco.mj_forward(model, data)
    except mujoco.FatalError as exc:
        if "out of memory" in str(exc):
            raise OutOfMemory(str(exc).splitlines()[0]) from exc
        raise
    return data


@dataclass(frozen=True)
class Pair:
    """The two paths: the model's options for each (the other options the model's own), each also with its
    tolerance tightened TIGHTER-fold, and the second's tightened path cold (no warm start). The options are set on
    the model for each solve and restored after it (`options.changed`: no copy of the model)."""

    model: mujoco.MjModel
    first: dict[str, Any]
    second: dict[str, Any]
    first_tight: dict[str, Any]
    second_tight: dict[str, Any]
    second_cold: dict[str, Any]  # second_tight without the warm start


def pair(model: mujoco.MjModel, first: options.Options, second: options.Options) -> Pair:
    """`Pair` of `model` run with the `first` and with the `second` options, each without the noslip pass: noslip
    rewrites the friction forces after the solve with a fixed number of sweeps, unconverged by design and in an
    order the islands change (gymnasium-robotics' Adroit hands, noslip_iterations 20: islands and one solve 6.2e-6 of
    the largest force apart after it, 1e-14 before); the paths compared are the constraint solve's."""
    main = options.without_noslip(model)
    first, second = {**main, **first}, {**main, **second}
    def tight(chosen: dict[str, Any]) -> dict[str, Any]:
        return {**chosen, "tolerance": TIGHTER * float(model.opt.tolerance)}
    return Pair(model, first, second, tight(first), tight(second), options.cold(model, tight(second)))


def iterations(data: mujoco.MjData) -> int:
    """The most iterations an island's solve took (the whole model's where it has no islands)."""
    return int(np.max(data.solver_niter[: max(int(data.nisland), 1)]))


@dataclass(frozen=True)
class PathsAt:
    """At one state: each path's iterations, whether either stopped at the cap while the other converged in a
    tenth of it, and the paths' distance on qacc (a share of the larger of the constraint correction and
    |qacc_smooth|) and on efc_force (of the largest constraint or smooth force), each with the two paths' own errors
    summed, on the same scale."""

    iterations: tuple[int, int]  # (first, second)
    capped_apart: bool
    qacc_apart: float
    qacc_own: float
    force_apart: float
    force_own: float

    @property
    def reaches(self) -> tuple[float, float]:
        """(qacc, force) distance over what the paths' own errors allow (SPREAD x own + ROUND_OFF)."""
        return (self.qacc_apart / (SPREAD * self.qacc_own + ROUND_OFF),
                self.force_apart / (SPREAD * self.force_own + ROUND_OFF))


def paths_at(models: Pair, state: mujoco.MjData) -> PathsAt:
    """`PathsAt` of `state`, solved by both models of the pair."""
    model = models.model
    first, second = solve(model, models.first, state), solve(model, models.second, state)
    cap = int(model.opt.iterations)
    its = (iterations(first), iterations(second))
    capped_apart = any(its[a] >= cap and its[1 - a] <= cap // 10 for a in (0, 1))
    if first.nefc != second.nefc:
        full = [w for w in ("mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL") if hasattr(mujoco.mjtWarning, w)
                for d in (first, second) if d.warning[int(getattr(mujoco.mjtWarning, w))].number]
        if full:  # one path's arena ran out of room for rows the other kept (flex, 100 humanoids): not comparable
            raise OutOfMemory(f"{full[0]}: {first.nefc} rows one way, {second.nefc} the other")
        return PathsAt(its, capped_apart, float("inf"), 0.0, float("inf"), 0.0)  # other rows at one state
    # the scales: the larger of the constraint correction and qacc_smooth, of the largest constraint and smooth force:
    # where the constraints carry nothing, a share of the correction alone is round-off over round-off (a hopper's
    # idle joint limit on MuJoCo 3.0.1: 0.12)
    correction = max(float(np.linalg.norm(second.qacc_smooth - second.qacc)), float(np.linalg.norm(second.qacc_smooth)))
    n = second.nefc
    largest = max(float(np.max(np.abs(second.efc_force[:n]), initial=0.0)),
                  float(np.max(np.abs(second.qfrc_smooth), initial=0.0)))

    def share(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.linalg.norm(a - b)) / correction if correction > 0 else 0.0

    def force(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.max(np.abs(a[:n] - b[:n]), initial=0.0)) / largest if largest > 0 else 0.0

    apart = (share(first.qacc, second.qacc), force(first.efc_force, second.efc_force))
    if max(apart) <= ROUND_OFF:  # within round-off: the own errors could only widen a bound already met
        return PathsAt(its, capped_apart, apart[0], 0.0, apart[1], 0.0)
    first_on = solve(model, models.first_tight, state, warm=first.qacc)
    second_on = solve(model, models.second_tight, state, warm=second.qacc)
    second_cold = solve(model, models.second_cold, state)
    if not first_on.nefc == second_on.nefc == second_cold.nefc == n:
        return PathsAt(its, capped_apart, float("inf"), 0.0, float("inf"), 0.0)
    return PathsAt(its, capped_apart, apart[0],
                   share(first_on.qacc, first.qacc) + share(second_on.qacc, second.qacc)
                   + share(second_cold.qacc, second_on.qacc),
                   apart[1], force(first_on.efc_force, first.efc_force) + force(second_on.efc_force, second.efc_force)
                   + force(second_cold.efc_force, second_on.efc_force))


def judge(law: Any, model: mujoco.MjModel, found: list[PathsAt], first: str, second: str, change: str) -> None:
    """The three checks of a pair of solve paths over the states `found`: capped apart (count, 0), qacc and
    efc_force apart over their reach (<= 1); `first`/`second` name the paths, `change` ends a failing message."""
    solver = mujoco.mjtSolver(int(model.opt.solver)).name.removeprefix("mjSOL_")
    capped = [f for f in found if f.capped_apart]
    worst_cap = max(capped or found, key=lambda f: abs(f.iterations[0] - f.iterations[1]))
    law.check("capped_apart", len(capped), near=0, abs=0,
              why=f"states where one path stopped at {solver}'s cap (iterations={model.opt.iterations}) and the "
                  f"other converged in a tenth of it (iterations {first}/{second}: {worst_cap.iterations[0]}/"
                  f"{worst_cap.iterations[1]} at the worst of {len(found)} states); failing, {change}")
    for k, (name, scale) in enumerate((("qacc", "the larger of |qacc_smooth - qacc| and |qacc_smooth|"),
                                       ("force", "the largest efc_force or qfrc_smooth"))):
        worst = max(found, key=lambda f: f.reaches[k])
        apart, own = (worst.qacc_apart, worst.qacc_own) if k == 0 else (worst.force_apart, worst.force_own)
        law.check(f"{name}_apart_over_reach", worst.reaches[k], le=1.0, drift_abs=1.0,
                  why=f"the {first} path's {name} off the {second} path's, {apart:.3g} of {scale}, over {SPREAD:g} x "
                      f"the paths' own errors ({own:.3g}: how far their answers move when their solves go on to "
                      f"{TIGHTER:g} of the tolerance) + {ROUND_OFF:g}; failing, {change}")
