"""What `advise` prints and writes: the model's own settings and where they stand, the recommendation with its
`<option .../>` line and the route ini keys, the settings that cannot be had, and the Pareto front of cost against
physics error as a table and as JSON (`SCHEMA_VERSION`)."""

from __future__ import annotations

import math
from typing import Any

from pytest_physlaw import table
from pytest_physlaw.advise import distance
from pytest_physlaw.advise.advice import Advice
from pytest_physlaw.advise.planner import Point

SCHEMA_VERSION = 1
QUANTITIES = tuple(distance.DEFAULT_BOUNDS)


def _errors(point: Point) -> dict[str, float | None]:
    return {q: (None if not math.isfinite(v) else round(v, 6)) for q, v in point.errors.items()}


def point_json(advice: Advice, point: Point) -> dict[str, Any]:
    worst, quantity = point.worst(advice.tolerance)
    return {"setting": point.setting.to_json(), "role": point.role, "errors": _errors(point),
            "within": distance.within(point.errors, advice.tolerance),
            "worst": None if not math.isfinite(worst) else round(worst, 4), "worst_quantity": quantity,
            "seconds_per_second": round(point.cost, 6), "cost_ratio": round(advice.ratio(point), 4),
            "cost_timed": point.timed, "iterations_mean": round(point.observation.iterations, 3),
            "diverged": point.observation.diverged or None}


def to_json(advice: Advice) -> dict[str, Any]:
    plan = advice.plan
    return {
        "schema_version": SCHEMA_VERSION, "model": advice.model, "mujoco": advice.mujoco_version,
        "tolerance": advice.tolerance.bounds,
        "horizon": {"driven_s": advice.horizon.driven, "settled_s": advice.horizon.settled,
                    "keyframe": advice.horizon.keyframe},
        "own": point_json(advice, plan.own), "own_within": advice.own_within,
        "reference": {**point_json(advice, plan.reference), "reached": plan.reference_reached,
                      "last_halving_moved": {q: round(v, 6) for q, v in plan.reference_move.items()}},
        "recommended": {**point_json(advice, advice.recommended), "option": advice.recommended.setting.option_line(),
                        "route_ini": advice.route.ini() if advice.route is not None else route_ini(advice)},
        "route": advice.route.to_json() if advice.route is not None else None,
        "cannot": [limit.sentence() for limit in plan.limits],
        "smallest_caps": {s: point_json(advice, p) for s, p in plan.smallest_caps.items()},
        "cone": None if plan.cone is None else {**point_json(advice, plan.cone), "note": CONE_NOTE},
        "front": [point_json(advice, p) for p in advice.front],
        "points": len(plan.points), "seconds": round(plan.seconds, 2), "notes": plan.notes, "kept": sorted(advice.keep),
    }


CONE_NOTE = ("the other friction cone is another model of friction (pyramidal and elliptic cones differ where "
             "friction binds), not the same physics solved better: its distance is shown, never recommended")


def route_ini(advice: Advice) -> dict[str, str] | None:
    """The `physlaw_route_*` ini keys of the recommendation (routes solve with CG or Newton only: None for PGS)."""
    s = advice.recommended.setting
    if s.solver == "PGS":
        return None
    return {"physlaw_route_solver": s.solver, "physlaw_route_iterations": str(s.iterations),
            "physlaw_route_timestep": f"{s.timestep:.6g}"}


def route_lines(advice: Advice) -> list[str]:
    if advice.route is not None:  # measured on the route (`--route`): those keys, not C's
        return advice.route.lines()
    keys = route_ini(advice)
    if keys is None:
        return ["  route ini: none (MuJoCo Warp and MJX have no PGS)"]
    return ["  route ini (measured on MuJoCo C, not on the route): " + ", ".join(f"{k} = {v}" for k, v in keys.items())]


def _row(advice: Advice, point: Point) -> tuple[str, ...]:
    worst, quantity = point.worst(advice.tolerance)
    return (point.setting.label(), f"x{advice.ratio(point):.2f}", f"{worst:.2f} ({quantity})",
            "yes" if worst <= 1 else "no", point.role)


def text(advice: Advice) -> str:
    plan, tol = advice.plan, advice.tolerance
    own, rec = plan.own, advice.recommended
    lines = [f"advise {advice.model} (MuJoCo {advice.mujoco_version}): {len(plan.points)} settings measured in "
             f"{plan.seconds:.1f} s",
             "tolerance: " + ", ".join(f"{q} <= {b:g} {distance.UNITS[q]}" for q, b in tol.bounds.items()),
             f"reference: {plan.reference.setting.label()}: " + (
                 "halving its step moved nothing beyond a quarter of a bound" if plan.reference_reached else
                 "NOT reached: the last halving still moved " + ", ".join(f"{q} {v:.3g}" for q, v in plan.reference_move.items()
                                                                            if v > 0)),
             f"own:         {own.setting.label()}: "
             + ("within the tolerance" if advice.own_within else "CHANGES THE PHYSICS: " + "; ".join(distance.exceeded(own.errors, tol))),
             f"recommended: {rec.setting.label()}: cost x{advice.ratio(rec):.2f} of the model's own, worst "
             f"{rec.worst(tol)[0]:.2f} of its bound ({rec.worst(tol)[1]})",
             f"  {rec.setting.option_line()}",
             *route_lines(advice)]
    if plan.smallest_caps:
        lines.append("smallest cap that holds, per solver: " + ", ".join(
            f"{s} {p.setting.iterations} (tolerance {p.setting.tolerance:g}, {p.setting.timestep * 1000:g} ms "
            f"{p.setting.integrator}: {p.observation.iterations:.1f} it. a step)" for s, p in plan.smallest_caps.items()))
    if plan.limits:
        lines += ["cannot be had:"] + [f"  {limit.sentence()}" for limit in plan.limits]
    if plan.cone is not None:
        lines.append(f"cone: {plan.cone.setting.cone} at the reference moves {plan.cone.worst(tol)[1]} "
                     f"{plan.cone.errors[plan.cone.worst(tol)[1]]:.3g}: {CONE_NOTE}")
    lines += ["Pareto front (cost against the worst error / bound):"]
    lines += ["  " + r for r in table.align([("setting", "cost", "worst error / bound", "within", "role"),
                                              *(_row(advice, p) for p in advice.front)])]
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"
