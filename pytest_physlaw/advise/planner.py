"""The sweep, planned by measuring: a converged reference first, then each setting the user controls walked from
the reference outward until it leaves the tolerance, never a full grid.

1. Reference: Newton at a tight tolerance (`REFERENCE_TOLERANCE`, cap `REFERENCE_CAP`), the model's integrator and
   cone, its timestep halved until one more halving moves no quantity by more than `SETTLED_SHARE` of its bound
   (measured; `MAX_HALVINGS` at most, or the time budget: a reference not reached is said, with its last move).
2. Timestep, per integrator: from the reference's step, doubled while the setting stays within the tolerance
   (up to `MAX_GROWTH` times the model's own step): the largest step that holds, and the first that does not.
3. Solver, at the cheapest integrator and step of 2: per solver the loosest tolerance of `TOLERANCES` that holds
   at the reference's cap, then the smallest cap of `CAPS` that holds, by bisection (a cap too small is named with
   the quantity it breaks: "no PGS cap below 12 keeps creep_mm within 1 mm").
4. The other friction cone at the reference: a different model of friction (pyramidal and elliptic cones are
   different friction laws, not one law solved better or worse), so its distance is reported, never recommended.

Every point is measured against the final reference. The recommendation is the cheapest point within the
tolerance, by `cost.timed` (interleaved with the model's own settings, minimum of repeats).
"""

from __future__ import annotations

import hashlib
import math
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path

import mujoco
import numpy as np

from pytest_physlaw.advise import distance
from pytest_physlaw.advise.observe import Driven, Horizon, Observation, movable_bodies, observe
from pytest_physlaw.advise.setting import INTEGRATORS, SOLVERS, Setting

REFERENCE_TOLERANCE = 1e-10
REFERENCE_CAP = 100
SETTLED_SHARE = 0.25  # a halving "moves nothing" when it moves each quantity by at most this share of its bound
MAX_HALVINGS = 5
MAX_GROWTH = 8  # the timestep is grown at most to this many times the model's own
TOLERANCES = (1e-8, 1e-6, 1e-4, 1e-3)
KEEPABLE = {"timestep", "integrator"}  # what a user may hold at the model's own (a control loop's period)
CAPS = (1, 2, 3, 4, 6, 8, 12, 16, 20, 30, 50, 100)


@dataclass
class Point:
    setting: Setting
    role: str  # own, reference, halving, timestep, tolerance, cap, cone
    observation: Observation
    errors: dict[str, float] = field(default_factory=dict)
    cost: float = math.nan  # wall s per simulated s (rough until timed)
    timed: bool = False

    def worst(self, tolerance: distance.Tolerance) -> tuple[float, str]:
        return distance.worst(self.errors, tolerance)


@dataclass
class Limit:
    """A setting that cannot be had: `what` beyond `edge` leaves the tolerance (`broken`: the quantities)."""

    what: str
    edge: str
    broken: list[str]

    def sentence(self) -> str:
        return f"{self.what} {self.edge}: {'; '.join(self.broken)}"


@dataclass
class Plan:
    own: Point
    reference: Point
    reference_reached: bool
    reference_move: dict[str, float]  # the last halving's move of each quantity
    points: list[Point]
    limits: list[Limit]
    cone: Point | None
    smallest_caps: dict[str, Point] = field(default_factory=dict)  # per solver: its smallest cap that holds
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class Planner:
    def __init__(self, model: mujoco.MjModel, tolerance: distance.Tolerance, horizon: Horizon,
                 budget: float = 40.0, keep: frozenset[str] = frozenset(), cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir
        self.model, self.tolerance, self.horizon, self.budget = model, tolerance, horizon, budget
        unknown = set(keep) - KEEPABLE
        if unknown:
            raise ValueError(f"keep {', '.join(sorted(unknown))}: advise can keep only {', '.join(sorted(KEEPABLE))}")
        self.keep = keep
        self.bodies = movable_bodies(model)
        if not len(self.bodies):
            raise ValueError("the model has no movable body: advise has nothing to measure")
        weight = float(np.sum(model.body_mass) * np.linalg.norm(model.opt.gravity))
        self.weight = weight if weight > 0 else 1.0
        self.own_setting = Setting.of(model)
        self.cache: dict[Setting, Point] = {}
        self.started = time.perf_counter()
        self.notes: list[str] = []
        self.driven: Driven | None = None

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def over_budget(self) -> bool:
        return self.elapsed() > self.budget

    def measure(self, setting: Setting, role: str) -> Point:
        """The setting's observation, its transitions from the reference's states (cached per reference)."""
        if setting not in self.cache:
            observation, _ = observe(self.model, setting, self.horizon, self.bodies, self.driven)
            self.cache[setting] = Point(setting, role, observation, cost=observation.wall_per_second)
        return self.cache[setting]

    def measure_as_reference(self, setting: Setting) -> Point:
        """The setting's observation with its own driven run, which becomes the reference's states."""
        observation, driven = observe(self.model, setting, self.horizon, self.bodies)
        self.driven, self.cache = driven, {}
        self.cache[setting] = Point(setting, "reference", observation, cost=observation.wall_per_second)
        return self.cache[setting]

    def errors(self, reference: Point, point: Point) -> dict[str, float]:
        return distance.distances(reference.observation, point.observation, self.weight)

    def reference_key(self) -> str:
        """What the reference depends on: the compiled model's bytes (MJB: the file, its includes and meshes, its
        own options), MuJoCo's version, the tolerance, the horizons, the budget and the reference's own constants."""
        size = mujoco.mj_sizeModel(self.model)
        buffer = np.zeros(size, dtype=np.uint8)
        mujoco.mj_saveModel(self.model, None, buffer)
        digest = hashlib.sha256(buffer.tobytes())
        digest.update(repr((mujoco.__version__, sorted(self.tolerance.bounds.items()), self.horizon, self.budget,
                            REFERENCE_TOLERANCE, REFERENCE_CAP, SETTLED_SHARE, MAX_HALVINGS)).encode())
        return digest.hexdigest()

    # 1. the reference
    def find_reference(self) -> tuple[Point, bool, dict[str, float]]:
        """The reference, from the cache (`cache_dir`) where this model, MuJoCo and tolerance measured it before."""
        path = self.cache_dir / f"reference-{self.reference_key()}.pkl" if self.cache_dir is not None else None
        if path is not None and path.is_file():
            try:
                reference, reached, move, self.driven, self.cache, notes = pickle.loads(path.read_bytes())
                self.notes += notes + [f"reference: from the cache {path}"]
                return self.cache[reference], reached, move
            except Exception:  # a cache written by another version of advise: measured again
                pass
        before = len(self.notes)
        found = self._find_reference()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            kept = (found[0].setting, found[1], found[2], self.driven, self.cache, self.notes[before:])
            path.write_bytes(pickle.dumps(kept))
        return found

    def _find_reference(self) -> tuple[Point, bool, dict[str, float]]:
        base = self.own_setting.but(solver="Newton", iterations=REFERENCE_CAP, tolerance=REFERENCE_TOLERANCE)
        current = self.measure_as_reference(base)
        settled = distance.Tolerance({q: b * SETTLED_SHARE for q, b in self.tolerance.bounds.items()})
        move: dict[str, float] = {}
        for k in range(1, MAX_HALVINGS + 1):
            finer = base.but(timestep=base.timestep / 2 ** k)
            if self.elapsed() + 2.5 * current.observation.wall_per_second * 2 * (
                    self.horizon.driven + self.horizon.settled) > self.budget / 2:
                self.notes.append(f"reference: halving stopped after {k - 1} of {MAX_HALVINGS} by the time budget "
                                  f"({self.budget:g} s; the next would take about half of it)")
                break
            coarser = current.setting
            current = self.measure_as_reference(finer)
            move = self.errors(current, self.measure(coarser, "halving"))
            move["capped_share"] = current.observation.capped_share
            if not current.observation.diverged and distance.within(move, settled):
                return current, True, move
        return current, False, move

    def judge(self, reference: Point, point: Point) -> bool:
        point.errors = self.errors(reference, point)
        return distance.within(point.errors, self.tolerance)

    # 2. the timestep, per integrator
    def timesteps(self, reference: Point) -> tuple[list[Point], list[Limit]]:
        held, limits = [], []
        top = self.own_setting.timestep * MAX_GROWTH
        integrators = [reference.setting.integrator] + [i for i in INTEGRATORS if i != reference.setting.integrator
                                                        and "integrator" not in self.keep]
        for integrator in integrators:
            if "timestep" in self.keep:  # the model's own step only
                point = self.measure(reference.setting.but(timestep=self.own_setting.timestep, integrator=integrator),
                                     "timestep")
                if self.judge(reference, point):
                    held.append(point)
                continue
            step = reference.setting.timestep
            last = reference if integrator == reference.setting.integrator else None
            while step * 2 <= top * (1 + 1e-9) and not self.over_budget():
                step *= 2
                point = self.measure(reference.setting.but(timestep=step, integrator=integrator), "timestep")
                if not self.judge(reference, point):
                    limits.append(Limit(f"{integrator}: no timestep above", f"{point.setting.timestep / 2 * 1000:g} ms",
                                        [f"at {step * 1000:g} ms " + "; ".join(distance.exceeded(point.errors, self.tolerance))
                                         + (f" (diverged: {point.observation.diverged})" if point.observation.diverged else "")]))
                    break
                last = point
            if last is not None:
                held.append(last)
        return held, limits

    # 3. the solver at one integrator and step
    def solvers(self, reference: Point, base: Setting) -> tuple[list[Point], list[Limit]]:
        found, limits = [], []
        for solver in SOLVERS:
            if self.over_budget():
                self.notes.append(f"solver {solver}: not swept (time budget)")
                continue
            tol = None
            for t in TOLERANCES:
                point = self.measure(base.but(solver=solver, iterations=REFERENCE_CAP, tolerance=t), "tolerance")
                if not self.judge(reference, point):
                    if tol is None:
                        limits.append(Limit(f"{solver}: even {REFERENCE_CAP} iterations at tolerance", f"{t:g}",
                                            distance.exceeded(point.errors, self.tolerance)))
                    break
                tol = t
            if tol is None:
                continue
            lo, hi = -1, len(CAPS) - 1  # CAPS[hi] holds; CAPS[lo] fails (or none below)
            while hi - lo > 1 and not self.over_budget():
                mid = (lo + hi) // 2
                point = self.measure(base.but(solver=solver, iterations=CAPS[mid], tolerance=tol), "cap")
                if self.judge(reference, point):
                    hi = mid
                else:
                    lo = mid
            best = self.measure(base.but(solver=solver, iterations=CAPS[hi], tolerance=tol), "cap")
            self.judge(reference, best)
            found.append(best)
            if lo >= 0:
                below = self.cache[base.but(solver=solver, iterations=CAPS[lo], tolerance=tol)]
                limits.append(Limit(f"{solver}: no cap below", str(CAPS[hi]),
                                    [f"at {CAPS[lo]}: " + "; ".join(distance.exceeded(below.errors, self.tolerance))]))
        return found, limits

    def plan(self) -> Plan:
        reference, reached, move = self.find_reference()
        own = self.measure(self.own_setting, "own")
        own.role = "own"
        held, limits = self.timesteps(reference)
        for p in self.cache.values():
            self.judge(reference, p)
        passing = [p for p in held if distance.within(p.errors, self.tolerance)] or [reference]
        if "timestep" in self.keep and not any(p.setting.timestep == self.own_setting.timestep for p in passing):
            self.notes.append("the model's own timestep kept: no integrator holds the tolerance at it even with the "
                              "reference's solver; the solvers are swept at the reference's step")
        base = min(passing, key=lambda p: p.cost).setting
        found, solver_limits = self.solvers(reference, base)
        limits += solver_limits
        other = "elliptic" if reference.setting.cone == "pyramidal" else "pyramidal"
        cone = None
        if not self.over_budget():
            cone = self.measure(reference.setting.but(cone=other), "cone")
        for p in self.cache.values():
            self.judge(reference, p)
        reference.errors = {q: 0.0 for q in distance.DEFAULT_BOUNDS}
        points = [p for p in self.cache.values() if p is not cone]
        caps = {p.setting.solver: p for p in found if distance.within(p.errors, self.tolerance)}
        return Plan(own, reference, reached, move, points, limits, cone, caps, self.elapsed(), self.notes)
