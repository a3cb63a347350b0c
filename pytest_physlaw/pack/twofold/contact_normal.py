"""A contact points the way its shapes overlap least: the normal of each overlapping geom pair's deepest contact is
the direction along which the two shapes overlap least, so tilting it a little, any way, makes the overlap no
smaller (the penetration direction, the axis the separating-axis theorem picks and EPA converges to). The second
computation is the geometry (`twofold.surfaces.supports`: each shape's extent along a direction from its sizes, a
mesh's vertices, a heightfield prism's corners): a release whose collider turns a contact's normal off that axis
(3.3.7 tilted an ellipsoid's normals on a flat heightfield by evaluating its gradient inside it) is seen here though
the depth and the run stay plausible. Source: MuJoCo's documentation (Computation: collision detection; mjContact's
frame, its first axis the normal); the separating-axis theorem and EPA (the penetration depth is the least overlap
of the two shapes' projections over directions, and the normal the direction that attains it).

Measured: the overlap along the normal against the least overlap along the normal tilted by 1e-4, 1e-3 and 1e-2 rad
toward eight directions each (a wrong normal tilted by theta gains overlap along every tilt under 2 theta back
toward the right one); against a plane, and against a heightfield triangle the contact lies on, the normal's angle
from the face's times the other geom's bounding radius. A heightfield is collided as prisms (each cell's two
triangles over the field's base, MuJoCo's own construction); a contact is on a triangle's face where the solid's
deepest point below that face's plane, by the contact's depth, projects inside the triangle by more than the depth.

Bound: 5 % of the depth plus the collision's own tolerance (`distance.tolerance`: 2 ccd_tolerance + 1e-9 of the
extent). Judged where the normal is exact by construction: the analytic pairs (a plane with any solid; sphere,
capsule-capsule, box-box, sphere-cylinder pairs), two polytopes (boxes, meshes) under MuJoCo's own convex solver with
one contact a pair (EPA's polytope then is the pair's), and a sphere, capsule or ellipsoid on a heightfield
triangle's face under that solver. Left out, and named: the capsule-box collider (each end's contact), libccd's MPR
(native CCD off: its normals are replaced by a smooth shape's surface normal by design, `mjc_fixNormal`), curved
convex pairs (EPA's normal on two curved surfaces is off the least overlap by more than its tolerance: MuJoCo's
balloons, two ellipsoids, 0.7 degrees at the default 1e-6), several contacts a pair (multiccd: a clipped face's
normal; MuJoCo's Rubik's cube meshes 0.7 degrees off EPA's), a heightfield contact near a triangle's edge (EPA's
normal approximate there) or with a box, mesh or cylinder (flat faces clipped), heightfield pairs with a margin,
SDFs and flexes. States: `twofold_states`.

Measured figures and commands: docs/second-computations.md ("A contact points the way its shapes overlap least").
"""

from __future__ import annotations

from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import distance, surfaces
from pytest_physlaw.pack.twofold.contact_overlap import ANALYTIC, SHARE, worst_pair

SOURCE = ("MuJoCo documentation, Computation (collision detection) and mjContact (frame); the separating-axis "
          "theorem and EPA (the penetration direction is the least overlap's)")
TILTS = (1e-4, 1e-3, 1e-2)  # rad: a normal off by theta is seen by every tilt under 2 theta
AZIMUTHS = 8
POLYTOPES = {"box", "mesh"}
SMOOTH = {"sphere", "capsule", "ellipsoid"}  # what a heightfield contact is judged with


def why_not(model: mujoco.MjModel, g1: int, g2: int) -> str | None:
    """Why a pair's contact normal is not judged against the geometry, or None."""
    kinds = distance.type_pair(model, g1, g2).split("-")
    if "sdf" in kinds:
        return "an SDF"
    if kinds == ["plane", "plane"]:
        return "two planes"
    if "plane" in kinds and "hfield" not in kinds:
        return None
    if frozenset(kinds) in ANALYTIC:
        return None
    if set(kinds) == {"capsule", "box"}:
        return "capsule-box (its collider gives each end's contact)"
    if not mujoco_versions.convex_solver_distances(model):
        return "libccd's MPR (native CCD off: normals set to a smooth shape's surface normal by design)"
    if "hfield" in kinds:
        if "plane" in kinds or kinds == ["hfield", "hfield"]:
            return "a heightfield with a plane or a heightfield"
        if not set(kinds) - {"hfield"} <= SMOOTH:
            return "a heightfield with a box, mesh or cylinder (flat faces: a clipped face's normal)"
        if _margin(model, g1, g2) > 0:
            return "a heightfield pair with a margin (its prisms raised, the other geom grown)"
        return None
    if not set(kinds) <= POLYTOPES:
        return "a curved convex pair (EPA's normal on curved surfaces: balloons' ellipsoids 0.7 degrees off the least overlap)"
    if mujoco_versions.multiccd(model):
        return "a convex pair's several contacts (multiccd: the normal of a clipped face, not EPA's)"
    return None


def _margin(model: mujoco.MjModel, g1: int, g2: int) -> float:
    """The pair's margin: an explicit `<pair>`'s where one names these geoms, else the two geoms' summed."""
    for p in range(model.npair):
        if {int(model.pair_geom1[p]), int(model.pair_geom2[p])} == {g1, g2}:
            return float(model.pair_margin[p])
    return float(model.geom_margin[g1] + model.geom_margin[g2])


def tilted(normal: np.ndarray) -> np.ndarray:
    """The normal turned by each of TILTS toward AZIMUTHS directions about it, (len(TILTS) * AZIMUTHS, 3)."""
    normal = np.asarray(normal, float) / np.linalg.norm(normal)
    helper = np.eye(3)[int(np.argmin(np.abs(normal)))]
    first = np.cross(normal, helper)
    first /= np.linalg.norm(first)
    second = np.cross(normal, first)
    phi = 2.0 * np.pi * np.arange(AZIMUTHS) / AZIMUTHS
    ways = np.cos(phi)[:, None] * first + np.sin(phi)[:, None] * second
    return np.concatenate([np.cos(a) * normal + np.sin(a) * ways for a in TILTS])


def overlaps(first: surfaces.Shape, second: surfaces.Shape, directions: np.ndarray) -> np.ndarray:
    """The two shapes' overlap along each direction (`surfaces.overlap`, many directions at once)."""
    up1, down1 = surfaces.supports(first, directions), surfaces.supports(first, -directions)
    up2, down2 = surfaces.supports(second, directions), surfaces.supports(second, -directions)
    return np.minimum(up1 + down2, up2 + down1)


def excess(first: surfaces.Shape, second: surfaces.Shape, normal: np.ndarray) -> tuple[float, float]:
    """(the overlap along the normal, by how much it exceeds the least overlap along the normal's tilts)."""
    along = overlaps(first, second, np.asarray(normal, float)[None, :])[0]
    return float(along), max(0.0, float(along - np.min(overlaps(first, second, tilted(normal)))))


def _plane_excess(model: mujoco.MjModel, plane: surfaces.Shape, other: int, normal: np.ndarray) -> float:
    """How far a normal off the plane's turns the other geom: the sine of the angle times its bounding radius."""
    sine = float(np.linalg.norm(np.cross(plane.mat[:, 2], normal)))
    return sine * float(model.geom_rbound[other])


def face_under(field: surfaces.Shape, solid: surfaces.Shape, point: np.ndarray, depth: float,
               allowed: float, normal: np.ndarray) -> np.ndarray | None:
    """The world normal of the heightfield triangle the contact is on: of the triangles around `point`, those whose
    plane the solid's deepest point (along the face's inward normal) lies below by the contact's depth (within
    `allowed`), that point's projection inside the triangle by more than the depth from each edge; of several (a
    ball resting in a valley sinks into both its faces alike), the one nearest the contact's normal. None where no
    triangle holds the contact so (a contact near an edge or a corner)."""
    found = None
    for prism in surfaces.prisms(field, point, 0.0):
        top = prism.points[:3]  # in the field's frame
        up = np.cross(top[1] - top[0], top[2] - top[0])
        up = up / np.linalg.norm(up) * np.sign(up[2])
        face = field.mat @ up
        local = field.local(surfaces.support_point(solid, -face))
        if abs(float((top[0] - local) @ up) - depth) > allowed or _inside_by(top, local, up) <= depth:
            continue
        if found is None or abs(face @ normal) > abs(found @ normal):
            found = face
    return found


def _inside_by(triangle: np.ndarray, point: np.ndarray, up: np.ndarray) -> float:
    """How far the point's projection along `up` lies inside the triangle: its least distance to the edges' lines,
    negative outside."""
    least = np.inf
    for k in range(3):
        a, b, c = triangle[k], triangle[(k + 1) % 3], triangle[(k + 2) % 3]
        across = np.cross(up, b - a)
        across /= np.linalg.norm(across)
        if across @ (c - a) < 0:
            across = -across
        least = min(least, float((point - a) @ across))
    return least


def normal_apart(model: mujoco.MjModel, state: mujoco.MjData, bound: float) -> tuple[list, Counter]:
    """([(excess over the bound, pair, depth, excess)] for each judged overlapping pair's deepest contact at
    `state`, Counter of why others are left out). For a heightfield, the best of the prisms around the contact:
    the larger of its excess and its depth's miss, each over its bound."""
    out, left = [], Counter()
    for (a, b), (dist, i) in distance.deepest_contacts(state).items():
        depth = -dist
        if depth <= 0:
            continue
        reason = why_not(model, a, b)
        if reason:
            left[reason] += 1
            continue
        normal = np.asarray(state.contact.frame[i][:3], float)
        geom1, geom2 = int(state.contact.geom1[i]), int(state.contact.geom2[i])  # the normal points from 1 to 2
        first, second = surfaces.shape(model, state, geom1), surfaces.shape(model, state, geom2)
        allowed = SHARE * depth + bound
        if surfaces.PLANE in (first.kind, second.kind):
            plane, other = (first, geom2) if first.kind == surfaces.PLANE else (second, geom1)
            found = _plane_excess(model, plane, other, normal)
            out.append((found / allowed, (a, b), depth, found))
        elif surfaces.HFIELD in (first.kind, second.kind):
            field, solid = (first, second) if first.kind == surfaces.HFIELD else (second, first)
            face = face_under(field, solid, state.contact.pos[i], depth, allowed, normal)
            if face is None:
                left["a heightfield contact off a triangle's face (near its edges EPA's normal is approximate)"] += 1
                continue
            sine = float(np.linalg.norm(np.cross(face, normal)))
            found = sine * float(model.geom_rbound[solid.geom])
            out.append((found / allowed, (a, b), depth, found))
        else:
            found = excess(first, second, normal)[1]
            out.append((found / allowed, (a, b), depth, found))
    return out, left


@pytest.mark.law("model-contact-normal-is-least-overlap", source=SOURCE)
def test_contact_normal_is_least_overlap(law, pack_model, twofold_states, model_case) -> None:
    """At each state, the deepest contact of each overlapping geom pair points along the direction its shapes
    overlap least: no tilt of its normal gives a smaller overlap, by more than 5 % of the depth."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    bound = distance.tolerance(model)
    worst, judged, named = worst_pair(model, twofold_states, normal_apart, bound, model_case)
    ratio, (a, b), depth, found, t = worst
    law.check("normal_excess_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"how much less the shapes overlap along a tilt of the deepest contact's normal than along it, "
                  f"over 5 % of the depth + {bound:.3g}, worst of {judged} pair-states: "
                  f"{distance.pair_name(model, a, b)}, depth {depth:.6g}, {found:.3g} less at t = {t:.3f} s"
                  + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__}'s collider for that pair points its contact off the "
                  "direction its shapes overlap least (3.3.7: an ellipsoid on a flat heightfield, tilted by its "
                  "gradient taken inside it): an engine defect, not the model's; report it, or change MuJoCo version")
