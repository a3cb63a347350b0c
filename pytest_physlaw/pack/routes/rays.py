"""A ray on the route meets what MuJoCo C's meets: rays aimed at each geom (the first 128, evenly spread) from three
points outside it, at the start and at the settled end, cast by the route's own `ray` (MuJoCo Warp's `ray`, MJX's
`ray`) at MuJoCo C's poses, and the same rays turned away from their geom (which then lies behind the origin), meet
the scene at the point MuJoCo C's `mj_ray` finds, or miss it where C's misses.
Policies trained on the routes read rangefinders, lidars and reach checks through these functions. Source: MuJoCo's
API reference (`mj_ray`), MJX's and MuJoCo Warp's documentation of `ray` (the same contract); MJX 3.1.4 met a mesh
behind the ray's origin (fixed in 3.1.5, commit 719476c2).

The second computation: MuJoCo C's `mj_ray` with the same origin and unit direction, at the same state. A ray whose
first geom on C is of a kind the route does not intersect (MJX: cylinders, height fields, SDFs; Warp: SDFs, flexes)
is left out, and counted. Newton casts MuJoCo C's own rays: skipped, naming it.

Bound: the route's precision (`RouteSetup.eps`, float32 1e-6) times `reference.ENVELOPE` (10) times 10, of the
larger of the model's extent and the ray's distance (a float32 intersection of a few products of lengths); a hit
where C misses, a miss where C hits, or a hit behind the origin (a negative distance), is infinite. Two geoms sharing the surface met tie: the point is judged. A
ray whose origin lies on a surface (a hit within the bound of x = 0, on either side: gym's pusher, where a finger's
ray starts on the other finger) is a tie of round-off, not judged; a route whose ray raises on the model (MJX 3.14
on gym's pusher and myo_sim's finger: a JAX gather out of range) is skipped, naming the error.

Measured: `pytest-physlaw check MODEL.xml --physlaw-route=warp -k route_rays`; see docs/routes.md ("Rays").
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import runs
from pytest_physlaw.pack.routes import adapter_offering, reference, route_law
from pytest_physlaw.pack.routes.common import RouteRefused, RouteUnsupported
from pytest_physlaw.pack.twofold import ray_scale

SOURCE = ("MuJoCo API reference (mj_ray); MJX and MuJoCo Warp documentation (ray); MJX 3.1.4 met a mesh behind the "
          "ray's origin (mjx-719476c2)")
SLACK = 10.0  # a float32 intersection carries its lengths' round-off a few products deep


def aimed_rays(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(origins, unit directions, which geom each is aimed at) of `ray_scale`'s rays at `data`."""
    origins, directions, names = [], [], []
    for g in ray_scale.aimed(model).tolist():
        for origin, unit, _ in ray_scale.rays(model, data, g):
            name = model.geom(g).name or str(g)
            # the ray at the geom, and the same ray turned away from it: the geom then lies behind its origin
            origins += [origin, origin]
            directions += [unit, -unit]
            names += [name, f"away from {name}"]
    return np.array(origins).reshape(-1, 3), np.array(directions).reshape(-1, 3), names


def c_hits(model: mujoco.MjModel, data: mujoco.MjData, origins: np.ndarray,
           directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distance, geom id; -1 where none) of each ray by MuJoCo C's `mj_ray`."""
    dist, geoms = np.full(len(origins), -1.0), np.full(len(origins), -1, dtype=int)
    for i, (origin, unit) in enumerate(zip(origins, directions)):
        geom, point = ray_scale.cast(model, data, origin, unit)
        if geom >= 0:
            dist[i], geoms[i] = float(np.dot(point - origin, unit)), geom
    return dist, geoms


def apart(model: mujoco.MjModel, c: tuple[np.ndarray, np.ndarray], route: tuple[np.ndarray, np.ndarray],
          kinds: frozenset[int], eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(each ray's distance between C's and the route's hit points over its bound, infinite where one hits and the
    other misses; which rays are judged: those whose first geom on C is of a kind the route intersects)."""
    c_dist, c_geom = c
    r_dist, r_geom = route
    judged = (c_geom < 0) | np.isin(np.asarray(model.geom_type)[np.maximum(c_geom, 0)], list(kinds))
    extent = max(float(model.stat.extent), 1e-9)
    bound = reference.ENVELOPE * SLACK * eps * np.maximum(extent, np.abs(c_dist))
    c_hit, r_hit = c_geom >= 0, (r_geom >= 0) & (r_dist >= 0)
    behind = (r_geom >= 0) & (r_dist < 0)  # a hit behind the origin is no hit of a half-line (MJX 3.1.4's meshes)
    # a ray that starts on a surface (its origin within the bound of a geom another one touches) meets it at x = 0 or
    # not by round-off alone: a tie, not judged
    judged &= ~((c_hit & (np.abs(c_dist) < bound)) | (r_hit & (np.abs(r_dist) < bound)))
    share = np.where(c_hit & r_hit, np.abs(r_dist - c_dist) / bound, np.where(c_hit == r_hit, 0.0, np.inf))
    share = np.where(behind, np.inf, share)
    return np.where(judged, share, 0.0), judged


@route_law("model-route-rays", source=SOURCE)
def test_route_rays_meet_what_c_meets(law, pack_model: Any, route_case, settings, settled) -> None:
    """Rays aimed at each geom from three points, at the start and the settled end, cast by the route's own `ray` at
    MuJoCo C's poses, meet the scene where `mj_ray` does (or miss it where it misses), to 100 times the route's
    precision of the extent or the ray's distance."""
    module = adapter_offering(route_case, "rays", "casts MuJoCo C's own rays (no ray of its own to judge)")
    model = pack_model.model
    if not model.ngeom:
        pytest.skip(f"{route_case.route}: no geom")
    kinds, eps = module.ray_types(), route_case.setup.eps
    worst, where, judged, total = 0.0, "none", 0, 0
    for state in (runs.start(model, settings.keyframe), settled.final):
        data = mujoco.MjData(model)
        data.qpos[:], data.qvel[:] = state.qpos, state.qvel
        data.mocap_pos[:], data.mocap_quat[:] = state.mocap_pos, state.mocap_quat
        mujoco.mj_forward(model, data)
        origins, directions, names = aimed_rays(model, data)
        c = c_hits(model, data, origins, directions)
        try:
            route = module.rays(model, data, origins, directions, route_case.setup)
        except (RouteUnsupported, RouteRefused) as e:
            pytest.skip(f"{route_case.route}: {e}")
        except Exception as e:  # noqa: BLE001  the route's own ray raising on this model: named, not a wrong hit
            cause = (" (a model without materials: MJX's ray reads mat_rgba[geom_matid], which has no row to read; "
                     "MJX 3.5.0, 3.14.0 and 3.17.0 measured)" if route_case.route == "mjx" and not model.nmat else "")
            pytest.skip(f"{route_case.route} {module.versions()}: its ray raises on this model (no hit to judge)"
                        f"{cause}: {type(e).__name__}: {e}".replace("\n", " ")[:500])
        share, kept = apart(model, c, route, kinds, eps)
        judged, total = judged + int(kept.sum()), total + len(kept)
        i = int(np.argmax(share))
        if share[i] > worst:
            worst = float(share[i])
            where = (f"a ray at geom {names[i]!r} (t = {float(state.time):.3f} s): C meets geom {int(c[1][i])} at "
                     f"{c[0][i]:.6g}, the route geom {int(route[1][i])} at {route[0][i]:.6g}")
    law.check("ray_apart_over_precision", worst, le=1.0, drift_abs=1.0,
              why=f"the largest distance between the route's and C's hit of one ray, over {reference.ENVELOPE * SLACK:g} "
                  f"x the route's precision ({eps:g}) of the extent or the ray's distance; {judged} of {total} rays "
                  f"judged (the rest meet first a geom the route's ray passes over); worst: {where}; failing, the "
                  f"route's ray meets another surface than MuJoCo C's (MJX 3.1.4 met a mesh behind the origin): a "
                  "defect of the route")
