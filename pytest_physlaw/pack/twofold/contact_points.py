"""A contact lies between its surfaces: each contact's point is the midpoint of the two geoms' nearest points (or
deepest, when they overlap), so it lies within half the contact's distance of each geom's surface. The forces of
every contact act at that point: a point off the surfaces puts a torque on both bodies that their geometry does not
make. The depth and normal laws judge a pair's deepest contact; this one judges every contact, multiccd's clipped
points included, a second computation of where they are (MuJoCo 3.3.0 to 3.9.0's multiccd edge clipping put each
point a full depth off, below both surfaces). Source: MuJoCo's documentation (mjContact: pos, "midpoint between
geoms"; dist, the distance between the nearest points); the geometry of a point's distance to a surface.

The measurement: at each state of `twofold_states`, for each contact, the signed distance of its point to each
geom's surface from the geom's own shape (`surfaces.gap`: exact for a sphere, capsule, cylinder, box, a plane's
half-space and a mesh's convex hull, MuJoCo's stored graph; an ellipsoid's bounded). Bound: |distance| <= |dist| / 2
+ 5 % of |dist| + the collision's own tolerance (`distance.tolerance`: 2 ccd_tolerance + 1e-9 of the extent). Left
out, and named: height fields, SDFs and flexes; two meshes (EPA's points on two hulls land up to 2.3e-4 m inside one
where the pair is 2e-5 m deep, MuJoCo's replicated bunnies); a mesh whose stored graph is no convex hull; convex pairs
under libccd's MPR (approximate points).

Measured figures and commands: docs/second-computations.md ("A contact lies between its surfaces").
"""

from __future__ import annotations

from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import distance, surfaces
from pytest_physlaw.pack.twofold.contact_overlap import SHARE, worst_pair

SOURCE = ("MuJoCo documentation, mjContact (pos: the midpoint between the geoms; dist: the distance between their "
          "nearest points)")


def why_not(model: mujoco.MjModel, g1: int, g2: int) -> str | None:
    """Why a pair's contact points are not judged against the geometry, or None."""
    kinds = distance.type_pair(model, g1, g2).split("-")
    if "hfield" in kinds or "sdf" in kinds:
        return "a height field or SDF"
    if kinds == ["plane", "plane"]:
        return "two planes"
    if kinds == ["mesh", "mesh"]:
        return "two meshes (EPA's points on two hulls: up to 2.3e-4 m inside one, MuJoCo's bunnies)"
    if distance.convex_solved(model, g1, g2) and not mujoco_versions.convex_solver_distances(model):
        return "a convex pair under libccd's MPR (approximate points)"
    return None


def points_apart(model: mujoco.MjModel, state: mujoco.MjData, bound: float) -> tuple[list, Counter]:
    """([(the point's larger |distance to a surface| beyond half the contact's distance, over the bound; pair;
    dist; that distance)] for each judged contact at `state`, Counter of why others are left out)."""
    out, left, shapes = [], Counter(), {}
    geoms = mujoco_versions.contact_geoms(state.contact)[: state.ncon]
    for c in range(state.ncon):
        a, b = (int(g) for g in geoms[c])
        if a < 0 or b < 0:
            left["a flex's contact"] += 1
            continue
        reason = why_not(model, a, b)
        if reason:
            left[reason] += 1
            continue
        for g in (a, b):
            if g not in shapes:
                shapes[g] = surfaces.shape(model, state, g)
        if any(shapes[g] is None or (shapes[g].kind == surfaces.MESH and shapes[g].hull is None) for g in (a, b)):
            left["a mesh whose stored graph is no convex hull"] += 1
            continue
        point, dist = np.asarray(state.contact.pos[c], float), float(state.contact.dist[c])
        allowed = abs(dist) / 2 + SHARE * abs(dist) + bound
        far = 0.0
        for g in (a, b):
            low, high = surfaces.gap(shapes[g], point)
            # the interval of the point's possible distances against |distance| <= |dist| / 2
            far = max(far, low - abs(dist) / 2, -abs(dist) / 2 - high)
        out.append((max(far, 0.0) / (allowed - abs(dist) / 2), (a, b), dist, far + abs(dist) / 2))
    return out, left


@pytest.mark.law("model-contact-points-lie-between-the-surfaces", source=SOURCE)
def test_contact_points_lie_between_the_surfaces(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each contact's point lies within half its distance of each geom's surface (the midpoint of the
    two nearest points), to 5 % of the distance plus the collision's tolerance."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    bound = distance.tolerance(model)
    worst, judged, named = worst_pair(model, twofold_states, points_apart, bound, model_case)
    ratio, (a, b), dist, far, t = worst
    law.check("point_off_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"largest distance of a contact's point from a geom's surface beyond half the contact's distance, "
                  f"over 5 % of the distance + {bound:.3g}, worst of {judged} contacts x states: "
                  f"{distance.pair_name(model, a, b)}, dist {dist:.6g}, the point {far:.6g} from a surface at "
                  f"t = {t:.3f} s" + (f"; left out: {named}" if named else "") + f"; failing, MuJoCo "
                  f"{mujoco.__version__}'s collider for that pair puts the contact elsewhere than between the surfaces "
                  "(3.3.0 to 3.9.0: multiccd's edge clipping put it a full depth off): its force acts with a lever arm "
                  "the geometry does not have (an engine defect, not the model's; report it, or change MuJoCo version)")
