"""The advice on one model: the plan's points ranked by cost against physics error, the Pareto front, the cheapest
setting within the tolerance, and where the model's own settings stand.

Costs of the front, the model's own settings and the reference are timed together at the end (`cost.timed`:
interleaved, repeated, minimum), and reported as a ratio to the model's own settings.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mujoco

from pytest_physlaw.advise import cost, distance
from pytest_physlaw.advise.observe import Horizon
from pytest_physlaw.advise.planner import Plan, Planner, Point


SHORTLIST = 6  # settings within the tolerance timed beside the front, cheapest by their rough cost


@dataclass
class Advice:
    model: str
    mujoco_version: str
    tolerance: distance.Tolerance
    horizon: Horizon
    plan: Plan
    front: list[Point]
    recommended: Point
    own_within: bool
    keep: frozenset[str] = frozenset()
    candidates: list[Point] = field(default_factory=list)  # the timed settings within the tolerance, cheapest first
    route: Any = None  # route.RouteAdvice where `--route` asked the route's own settings measured on it

    def ratio(self, point: Point) -> float:
        return point.cost / self.plan.own.cost if self.plan.own.cost > 0 else math.nan


def pareto(points: list[Point], tolerance: distance.Tolerance) -> list[Point]:
    """The points no other point beats on both cost and worst error / bound, cheapest first."""
    finite = [p for p in points if math.isfinite(p.worst(tolerance)[0])]
    front = [p for p in finite if not any(q is not p and q.cost <= p.cost and q.worst(tolerance)[0] <= p.worst(tolerance)[0]
                                          and (q.cost < p.cost or q.worst(tolerance)[0] < p.worst(tolerance)[0])
                                          for q in finite)]
    return sorted(front, key=lambda p: p.cost)


def load(path: str | Path) -> mujoco.MjModel:
    """The compiled model; a file MuJoCo cannot compile is a ValueError naming it and MuJoCo's message."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such model file")
    try:
        return mujoco.MjModel.from_xml_path(str(p))
    except Exception as exc:  # MuJoCo's ValueError carries the compiler's message
        raise ValueError(f"{path}: MuJoCo {mujoco.__version__} cannot compile it: {' '.join(str(exc).split())}") from None


def advise(path: str | Path, tolerance: distance.Tolerance | None = None, horizon: Horizon | None = None,
           budget: float = 40.0, model: mujoco.MjModel | None = None, keep: frozenset[str] = frozenset(),
           cache_dir: Path | None = None) -> Advice:
    """Plan, measure and rank the settings of the model at `path` (or the compiled `model`, `path` its name);
    the reference is kept in, and read from, `cache_dir` where one is given."""
    tolerance = tolerance or distance.Tolerance(dict(distance.DEFAULT_BOUNDS))
    horizon = horizon or Horizon()
    started = time.perf_counter()
    model = model if model is not None else load(path)
    plan = Planner(model, tolerance, horizon, budget, keep, cache_dir).plan()
    first = pareto(plan.points, tolerance)
    within = [p for p in first if distance.within(p.errors, tolerance)]
    # the rough costs (one measuring run each) only shortlist: the front, and the cheapest few within the tolerance,
    # are timed against the model's own settings
    shortlist = sorted((p for p in plan.points if distance.within(p.errors, tolerance)), key=lambda p: p.cost)[:SHORTLIST]
    timed_points = list({id(p): p for p in [*first, *shortlist, plan.own, plan.reference]}.values())
    times = cost.timed(model, [p.setting for p in timed_points], horizon.keyframe)
    for p in timed_points:
        p.cost, p.timed = times[p.setting], True
    front = pareto(timed_points, tolerance)
    candidates = [p for p in timed_points if distance.within(p.errors, tolerance)] or within or [plan.reference]
    candidates.sort(key=lambda p: p.cost)
    recommended = candidates[0]
    plan.seconds = time.perf_counter() - started
    return Advice(str(path), mujoco.__version__, tolerance, horizon, plan, front, recommended,
                  distance.within(plan.own.errors, tolerance), keep, candidates)
