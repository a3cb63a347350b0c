"""advise on a route (`--route warp`): the route's own settings measured on the route, against the route's own
converged run, planned as the MuJoCo C sweep is: never a grid. The planner takes any route's `run`; the command
offers MuJoCo Warp only (MJX's contact capacity is set by recompiling the model from its file).

The settings a route adds (ini `physlaw_route_*`): the contact and constraint-row capacities (`nconmax`, `njmax`),
the solver's iteration cap (`iterations`) and its line search's (`ls_iterations`). The route runs the model's own
timestep and integrator, and its solver (Newton where the model asks PGS: the routes have none).

1. Reference: the route at `REFERENCE_CAP` iterations and line-search iterations, with its default capacities;
   where it reports an overflow (contacts or rows dropped), the capacities it ran are doubled and it is run again
   (`MAX_GROWS` times at most: a reference that still overflows is said).
2. Capacities, from the counts the route reports: the reference's peak contacts and rows a world, times
   `CAPACITY_MARGIN` (the seeded controls of a policy reach states the few worlds here did not), and checked: the
   cap runs below run with them, and any overflow there is reported against them.
3. The iteration cap: the smallest of `planner.CAPS` whose run stays within the tolerance of the reference, by
   bisection; then the line search's cap the same way at that cap.

The distance: the largest distance of a body's centre of mass from the reference's over the whole run, every world
(bound `trajectory_mm`), and the share of world-steps the cap stopped unconverged (bound `capped_share`). A run that
drops contacts or rows for want of capacity, or goes non-finite, is outside the tolerance whatever its distance.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import mujoco
import numpy as np

from pytest_physlaw.advise import distance
from pytest_physlaw.advise import planner
from pytest_physlaw.advise.planner import CAPS

REFERENCE_CAP = 100
LS_CAPS = (1, 2, 3, 4, 6, 8, 12, 16, 20, 30, 50)
CAPACITY_MARGIN = 1.5
MAX_GROWS = 3
ROUTE_SOLVERS = ("CG", "Newton")
SEED = 20260

RouteRunner = Callable[[mujoco.MjModel, list, Any], Any]  # (model, worlds, RouteSetup) -> RouteRun


@dataclass
class Trial:
    """One route run: its settings (the `physlaw_route_*` values), its distance from the reference, its counts."""

    iterations: int
    ls_iterations: int
    nconmax: int | None
    njmax: int | None
    errors: dict[str, float]
    overflow: dict[str, int]
    contacts_max: int
    rows_max: int
    seconds: float
    within: bool = False

    def label(self) -> str:
        caps = "" if self.nconmax is None else f", nconmax {self.nconmax}, njmax {self.njmax}"
        return f"iterations {self.iterations}, ls_iterations {self.ls_iterations}{caps}"


@dataclass
class RouteAdvice:
    route: str
    solver: str
    timestep: float
    reference: Trial
    reference_clean: bool  # the reference ran without an overflow
    nconmax: int
    njmax: int
    iterations: int
    ls_iterations: int
    trials: list[Trial]
    limits: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    device: str = ""

    def ini(self) -> dict[str, str]:
        """The `physlaw_route_*` keys measured on the route (ROUTE=VALUE items: they apply to this route only)."""
        values = {"solver": self.solver, "iterations": self.iterations, "ls_iterations": self.ls_iterations,
                  "nconmax": self.nconmax, "njmax": self.njmax, "timestep": f"{self.timestep:.6g}"}
        return {f"physlaw_route_{k}": f"{self.route}={v}" for k, v in values.items()}

    def lines(self) -> list[str]:
        where = f"{self.route} on {self.device}" if self.device else self.route
        out = [f"route {where} (measured on the route against its own run at {REFERENCE_CAP} iterations, "
               f"{len(self.trials)} runs, {self.seconds:.1f} s):",
               "  route ini: " + ", ".join(f"{k} = {v}" for k, v in self.ini().items()),
               f"  capacities: the reference's peak {self.reference.contacts_max} contacts and "
               f"{self.reference.rows_max} rows a world, times {CAPACITY_MARGIN:g}"
               + ("" if self.reference_clean else " (the reference itself overflowed: the peaks are a floor)")]
        out += [f"  cannot be had: {lim}" for lim in self.limits]
        out += [f"  note: {n}" for n in self.notes]
        return out

    def to_json(self) -> dict[str, Any]:
        trial = lambda t: {"iterations": t.iterations, "ls_iterations": t.ls_iterations, "nconmax": t.nconmax,  # noqa: E731
                           "njmax": t.njmax, "errors": t.errors, "overflow": t.overflow, "within": t.within,
                           "contacts_max": t.contacts_max, "rows_max": t.rows_max, "seconds": round(t.seconds, 3)}
        return {"route": self.route, "device": self.device, "versions": self.versions, "ini": self.ini(),
                "reference": trial(self.reference), "reference_clean": self.reference_clean,
                "trials": [trial(t) for t in self.trials], "limits": self.limits, "notes": self.notes,
                "seconds": round(self.seconds, 2)}


def worlds(model: mujoco.MjModel, keyframe: str, seconds: float) -> list:
    """The route's batch: the start held (the settled world) and two seeded-control runs, as the route laws'."""
    from pytest_physlaw.pack import runs
    from pytest_physlaw.pack.routes.reference import controls_at, world_of

    start = runs.start(model, keyframe)
    steps = max(1, int(round(seconds / model.opt.timestep)))
    times = np.arange(steps) * model.opt.timestep
    return [world_of("settled", start, np.repeat(start.ctrl[None], steps, axis=0)),
            *(world_of(f"seeded-{k}", start, controls_at(model, times, SEED + k)) for k in (1, 2))]


def _errors(reference: Any, run: Any) -> dict[str, float]:
    gap = np.linalg.norm(np.asarray(run.xipos) - np.asarray(reference.xipos), axis=-1)
    trajectory = float(np.max(gap)) * 1000.0 if gap.size and np.all(np.isfinite(gap)) else math.inf
    return {"trajectory_mm": trajectory, "capped_share": float(np.mean(run.capped)) if run.capped.size else 0.0}


class RoutePlanner:
    def __init__(self, model: mujoco.MjModel, runner: RouteRunner, batch: list, tolerance: distance.Tolerance,
                 route: str = "warp", budget: float = 120.0) -> None:
        from pytest_physlaw.pack.routes import common

        self.common, self.model, self.runner, self.batch, self.route = common, model, runner, batch, route
        self.bounds = {q: tolerance.bounds[q] for q in ("trajectory_mm", "capped_share")}
        self.budget, self.started = budget, time.perf_counter()
        own = mujoco.mjtSolver(model.opt.solver).name.removeprefix("mjSOL_")
        self.solver = {"PGS": "Newton", "CG": "CG", "NEWTON": "Newton"}[own]
        self.notes: list[str] = [] if own != "PGS" else ["the model asks PGS, which the route has not: Newton"]
        self.trials: list[Trial] = []
        self.cache: dict[tuple, tuple[Trial, Any]] = {}

    def run(self, iterations: int, ls_iterations: int, nconmax: int | None, njmax: int | None,
            reference: Any = None) -> tuple[Trial, Any]:
        key = (iterations, ls_iterations, nconmax, njmax)
        if key in self.cache:
            return self.cache[key]
        setup = self.common.RouteSetup(self.route, self.solver, iterations, ls_iterations, "float32", nconmax, njmax,
                                       max(self.common.MIN_WORLDS, len(self.batch)))
        tick = time.perf_counter()
        out = self.runner(self.common.route_model(self.model, setup), self.batch, setup)
        errors = _errors(reference if reference is not None else out, out)
        trial = Trial(iterations, ls_iterations, nconmax, njmax, errors, dict(out.overflow), int(out.contacts_max),
                      int(out.rows_max), time.perf_counter() - tick)
        trial.within = (not any(out.overflow.values()) and all(math.isfinite(v) for v in errors.values())
                        and all(errors[q] <= b for q, b in self.bounds.items()))
        self.trials.append(trial)
        self.cache[key] = (trial, out)
        return trial, out

    def broken(self, trial: Trial) -> str:
        parts = [f"{q} {trial.errors[q]:.3g} > {b:g}" for q, b in self.bounds.items() if not trial.errors[q] <= b]
        parts += [f"{k.lower()} overflow in {n} steps" for k, n in trial.overflow.items() if n]
        return "; ".join(parts) or "within"

    def reference(self) -> tuple[Trial, Any, bool]:
        nconmax = njmax = None
        trial, run = self.run(REFERENCE_CAP, REFERENCE_CAP, nconmax, njmax)
        for _ in range(MAX_GROWS):
            if not any(trial.overflow.values()):
                return trial, run, True
            nconmax = 2 * max(1, run.capacity.get("contacts") or trial.contacts_max)
            njmax = 2 * max(1, run.capacity.get("rows") or trial.rows_max)
            self.notes.append(f"the reference overflowed ({self.broken(trial)}): capacities doubled to nconmax "
                              f"{nconmax}, njmax {njmax}")
            trial, run = self.run(REFERENCE_CAP, REFERENCE_CAP, nconmax, njmax)
        return trial, run, not any(trial.overflow.values())

    def bisect(self, ladder: tuple[int, ...], make: Callable[[int], Trial], what: str) -> int:
        """The smallest rung of `ladder` that holds (its top is taken to hold: the reference's own)."""
        lo, hi = -1, len(ladder) - 1
        while hi - lo > 1 and time.perf_counter() - self.started < self.budget:
            mid = (lo + hi) // 2
            if make(ladder[mid]).within:
                hi = mid
            else:
                lo = mid
        if hi - lo > 1:
            self.notes.append(f"{what}: bisection stopped by the time budget ({self.budget:g} s) at {ladder[hi]}")
        if lo >= 0:
            self.limits.append(f"no {what} below {ladder[hi]}: at {ladder[lo]}: {self.broken(make(ladder[lo]))}")
        return ladder[hi]

    def plan(self) -> RouteAdvice:
        self.limits: list[str] = []
        ref, ref_run, clean = self.reference()
        nconmax = max(1, math.ceil(ref.contacts_max * CAPACITY_MARGIN))
        njmax = max(1, math.ceil(ref.rows_max * CAPACITY_MARGIN))
        top = LS_CAPS[-1] if REFERENCE_CAP > LS_CAPS[-1] else REFERENCE_CAP
        ladder = tuple(c for c in CAPS if c <= REFERENCE_CAP)
        iterations = self.bisect(ladder, lambda c: self.run(c, REFERENCE_CAP, nconmax, njmax, ref_run)[0],
                                 "iteration cap")
        ls_ladder = tuple(c for c in LS_CAPS if c <= top)
        ls = self.bisect(ls_ladder, lambda c: self.run(iterations, c, nconmax, njmax, ref_run)[0],
                         "line-search cap")
        final, _ = self.run(iterations, ls, nconmax, njmax, ref_run)
        if not final.within:
            self.notes.append(f"the planned setting ({final.label()}) is outside the tolerance: {self.broken(final)}")
        return RouteAdvice(self.route, self.solver, float(self.model.opt.timestep), ref, clean, nconmax, njmax,
                           iterations, ls, list(self.trials), self.limits, self.notes,
                           time.perf_counter() - self.started)


def advise_route(model: mujoco.MjModel, route: str, tolerance: distance.Tolerance, keyframe: str = "",
                 seconds: float = 0.2, budget: float = 120.0, runner: RouteRunner | None = None) -> RouteAdvice:
    """Plan the route's settings for `model` on `route` (`runner`: the route's `run`, or a stand-in in tests);
    a route that cannot run here is a ValueError naming the versions found."""
    from pytest_physlaw.pack.routes import common

    meta: dict[str, Any] = {}
    if runner is None:
        why = common.unavailable(route)
        if why:
            raise ValueError(f"--route {route}: {why}")
        from pytest_physlaw.pack.routes import adapter

        module = adapter(route)
        if getattr(module, "NEEDS_SOURCE", False):
            raise ValueError(f"--route {route}: advise plans MuJoCo Warp and MJX only")
        runner = module.run
        meta = {"versions": module.versions(), "device": module.device_kind()} if hasattr(module, "versions") else {}
    advice = RoutePlanner(model, runner, worlds(model, keyframe, seconds), tolerance, route, budget).plan()
    advice.versions, advice.device = meta.get("versions", {}), meta.get("device", "")
    return advice
