"""A contact's points lie in its geoms: each contact places the point of its first geom at its position moved back
half its distance along its normal, and the point of its second geom moved on by the other half, and neither point
lies outside the geom it belongs to. The second computation is the geometry (`twofold.surfaces.gap`: each shape's
signed distance from its sizes, a mesh's convex hull from its planes), not a collider, and it judges every contact of
a pair, not only the deepest: a collider that books a shallow point at the pair's deepest depth, or moves a point off
its face, places one side's point outside its geom. Source: MuJoCo's mjContact (include/mujoco/mjdata.h: `pos`,
"position of contact point: midpoint between geoms"; `dist`, "distance between nearest points; neg: penetration";
`frame`, its first row the normal, from the first geom to the second).

Bound: the collision's own tolerance (`tolerance`: 4 ccd_tolerance + 2e-9 of the extent) plus a tenth of
the contact's distance (its depth, or its gap within the margin): the convex collider's several contacts a pair
(multiccd) are points of the clipped faces, each at its distance along the pair's normal, not along its face's, and
MuJoCo's own models leave a point up to 0.07 of the depth outside its mesh's hull; where the convex collider reports
several contacts a pair, 0.75 of the pair's deepest distance more (its depth, or its gap within the margin): a
clipped face's point is measured to the other face's plane, which a curved hull or a cylinder's rim leaves
(gymnasium-robotics' Adroit hammer on 3.14.0, a cylinder on a box: 0.56 of the depth outside; MuJoCo's
replicate/bunnies: 0.54), so a point booked at the pair's deepest depth (MuJoCo 3.11's multiccd) is caught where its
own depth is under 0.15 of it, and a point a full depth off is; the legacy multiccd (before 3.12) adds the contacts
of the pair turned by 1e-3 rad, so its bound adds that turn's sweep of the larger geom (2e-3 of its bounding
radius). One-sided: a point inside its geom is not judged (capsule-box and plane-capsule contacts at a capsule's
end, multiccd's on a mesh, report less than the overlap there by design: 0.2 of the depth measured on MuJoCo's
treadmill). Left out, and named: height fields (prisms raised by the margin), SDFs, meshes whose stored graph is no
convex hull, flexes, and convex pairs under libccd's MPR (its point is the portal's, inside the overlap, not the
surfaces'). States: `twofold_states`.

Measured figures and commands: docs/second-computations.md ("A contact's points lie in its geoms").
"""

from __future__ import annotations

from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import distance, surfaces
from pytest_physlaw.pack.twofold.contact_overlap import worst_pair

SOURCE = ("MuJoCo mjContact (include/mujoco/mjdata.h: pos, the midpoint between the geoms; dist; frame, the normal "
          "from geom1 to geom2)")
SHARE = 0.1  # of the depth: multiccd's points lie at most 0.07 of it outside a mesh's hull on MuJoCo's own models
CLIPPED = 0.75  # of the pair's deepest distance: a clipped face's point, measured to the other face's plane
LEGACY_TURN = 1e-3  # rad: the legacy multiccd's turned copies of the pair (Computation: Multiple contacts)
SDF = getattr(mujoco.mjtGeom, "mjGEOM_SDF", None)


def tolerance(model: mujoco.MjModel) -> float:
    """A point's own error: the convex solver leaves each witness and the distance within `ccd_tolerance`, and a point
    is placed from both (the position less half the distance along the normal), 2x that, twice over; an analytic
    collider's round-off, 1e-9 of the extent."""
    return 2.0 * distance.tolerance(model)


def why_not(model: mujoco.MjModel, g1: int, g2: int) -> str | None:
    """Why a pair's contact points are not judged against the geometry, or None."""
    kinds = distance.type_pair(model, g1, g2).split("-")
    if "hfield" in kinds and not mujoco_versions.convex_solver_distances(model):
        return "a height field under libccd's MPR (its point is the portal's)"
    if "sdf" in kinds:
        return "an SDF"
    for g in (g1, g2):
        if int(model.geom_type[g]) == surfaces.MESH and surfaces.mesh_hull(model, g) is None:
            return "a mesh whose stored graph is no convex hull"
    if distance.convex_solved(model, g1, g2) and not mujoco_versions.convex_solver_distances(model):
        return "a convex pair under libccd's MPR (its point is the portal's)"
    return None


def slack(model: mujoco.MjModel, g1: int, g2: int) -> float:
    """What the legacy multiccd's turned copies of a convex pair may move a point by: the turn's sweep of the larger
    geom (each side turned, 2x); 0 where the pair has one contact or the single-shot pipeline."""
    if not (distance.convex_solved(model, g1, g2) and mujoco_versions.multiccd(model)):
        return 0.0
    if not mujoco_versions.legacy_multiccd(model):
        return 0.0
    return 2.0 * LEGACY_TURN * float(max(model.geom_rbound[g1], model.geom_rbound[g2]))


def points_outside(model: mujoco.MjModel, state: mujoco.MjData, bound: float) -> tuple[list, Counter]:
    """([(how far a contact's point lies outside its geom over its bound, pair, distance, outside)] for each judged
    contact at `state`, the worse of its two points; Counter of why others are left out)."""
    out, left = [], Counter()
    n = state.ncon
    if not n:
        return out, left
    geoms = mujoco_versions.contact_geoms(state.contact)[:n]
    flexes = mujoco_versions.contact_flexes(state)
    shapes: dict[int, surfaces.Shape | None] = {}
    deepest = distance.deepest_contacts(state)
    several = Counter((min(a, b), max(a, b)) for a, b in geoms.tolist())
    for i, ((g1, g2), (f1, f2)) in enumerate(zip(geoms.tolist(), flexes.tolist())):
        if g1 < 0 or g2 < 0 or f1 >= 0 or f2 >= 0:
            left["a flex's contact"] += 1
            continue
        reason = why_not(model, g1, g2)
        if reason:
            left[reason] += 1
            continue
        normal = np.asarray(state.contact.frame[i][:3], float)
        pos, dist = np.asarray(state.contact.pos[i], float), float(state.contact.dist[i])
        worst = 0.0
        for g, point in ((g1, pos - 0.5 * dist * normal), (g2, pos + 0.5 * dist * normal)):
            if g not in shapes:
                shapes[g] = surfaces.shape(model, state, g)
            if shapes[g].kind == surfaces.HFIELD:  # the union of the prisms it is collided as, unraised
                low = surfaces.field_gap(shapes[g], point)
            else:
                low, _ = surfaces.gap(shapes[g], point)  # a lower bound on its distance outside the geom
            worst = max(worst, low)
        limit = bound + SHARE * abs(dist) + slack(model, g1, g2)
        key = (min(g1, g2), max(g1, g2))
        if several[key] > 1 and distance.convex_solved(model, g1, g2) and key in deepest:
            limit += CLIPPED * abs(deepest[key][0])
        out.append((worst / limit, (g1, g2), dist, worst))
    return out, left


@pytest.mark.law("model-contact-points-lie-in-their-geoms", source=SOURCE)
def test_contact_points_lie_in_their_geoms(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each contact's two points (its position moved half its distance back and on along its normal)
    lie in the geoms they belong to, from the geoms' own sizes, to the collision's tolerance and a tenth of its
    distance."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    bound = tolerance(model)
    worst, judged, named = worst_pair(model, twofold_states, points_outside, bound, model_case)
    ratio, (a, b), dist, outside, t = worst
    law.check("point_outside_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"how far a contact's point lies outside its own geom over {bound:.3g} + a tenth of its distance, "
                  f"worst of {judged} contacts: {distance.pair_name(model, a, b)}, {outside:.3g} outside at a "
                  f"distance of {dist:.3g} at t = {t:.3f} s" + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__}'s collider for that pair reports a contact whose depth or "
                  "point the two shapes do not have there (a shallow point booked at the pair's deepest depth, a point "
                  "off its face): an engine defect, not the model's; report it, or change MuJoCo version")
