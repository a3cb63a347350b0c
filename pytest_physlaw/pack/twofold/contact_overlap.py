"""A contact is as deep as its geoms overlap: the deepest contact of each overlapping geom pair reports the depth by
which the two shapes overlap along the contact's own normal, how far one must move along it to clear the other.
The second computation is the geometry (`twofold.surfaces.overlap`: each shape's extent along the normal from its
sizes, a mesh's vertices, a plane's surface), not a collider: a release whose collider reports another depth than
the shapes have (3.2.6's sphere-box gave the radius once the centre sank inside the box; 3.3.7's box-box half the
overlap) is seen here whether or not `mj_geomDistance` shares its code. Source: MuJoCo's documentation (Computation:
collision detection; mjContact: dist, "distance between nearest points; neg: penetration", and the frame's first
axis, the normal); the separating-axis theorem (for convex shapes the penetration depth is the least overlap of
their projections, and the contact normal is that axis).

Bound: 5 % of the depth plus the collision's own tolerance (`distance.tolerance`: 2 ccd_tolerance + 1e-9 of the
extent). Judged where MuJoCo's collider measures the overlap exactly: its analytic pairs (a plane with a sphere,
capsule, ellipsoid, cylinder, box or mesh; sphere, capsule-capsule, box-box, sphere-cylinder), and the convex pairs
(`mjc_Convex`) solved by MuJoCo's own GJK/EPA with one contact a pair (native CCD on, multiccd off), ellipsoids
left out (EPA's polytope of a curved surface: millimetres). Left out, and named: the capsule-box collider (each end's
depth), libccd's MPR (approximate depths), several contacts a convex pair (multiccd: points of clipped faces, each
at its own depth), height fields, SDFs and flexes. States: `twofold_states`.

Measured figures and commands: docs/second-computations.md ("A contact is as deep as its geoms overlap").
"""

from __future__ import annotations

from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import distance, surfaces

SOURCE = ("MuJoCo documentation, Computation (collision detection) and mjContact (dist, frame); the separating-axis "
          "theorem")
SHARE = 0.05  # of the depth: EPA's own error on cylinders and meshes is 6e-5 m at most (measured), analytic ones 0
ANALYTIC = {frozenset(k) for k in (("sphere",), ("sphere", "capsule"), ("sphere", "box"), ("sphere", "cylinder"),
                                   ("capsule",), ("box",))}


def why_not(model: mujoco.MjModel, g1: int, g2: int, several: bool | None = None) -> str | None:
    """Why a pair's depth is not judged against the geometry, or None; `several`: whether the convex collider
    reports several contacts a pair (the model's multiccd where None; False for `mj_geomDistance`, one answer)."""
    kinds = distance.type_pair(model, g1, g2).split("-")
    if "hfield" in kinds or "sdf" in kinds:
        return "a height field or SDF"
    if "plane" in kinds:
        return "two planes" if kinds == ["plane", "plane"] else None
    if frozenset(kinds) in ANALYTIC:
        return None
    if set(kinds) == {"capsule", "box"}:
        return "capsule-box (its collider gives each end's depth)"
    if "ellipsoid" in kinds:
        return "an ellipsoid pair (EPA's polytope of its surface: millimetres)"
    if not mujoco_versions.convex_solver_distances(model):
        return "a convex pair under libccd's MPR (approximate depth)"
    if mujoco_versions.multiccd(model) if several is None else several:
        return "a convex pair's several contacts (multiccd: each at its own depth)"
    return None


PARALLEL_BEFORE = "3.17.0"  # the release from which two parallel capsules' contacts report their overlap (measured)


def parallel_capsules(model: mujoco.MjModel, state: mujoco.MjData, g1: int, g2: int) -> bool:
    """Whether two capsules are parallel by the capsule-capsule collider's own test (the determinant of its
    closest-point equations, half-length axes, below mjMINVAL), where MuJoCo 3.0.1 to 3.16.0 report a contact at
    each end of the first segment against the other's nearest end, shallower than the pair's overlap and tilted off
    its normal (dm_control's CMU humanoid V2020 at qpos0: root and lower back 75.7 mm against 77.9 mm, 11.5 degrees
    off; a rod in the groove of two rollers 1 cm longer than it: 0.145 mm reported, sunk 0.75 mm deeper than on
    3.17.0)."""
    if not int(model.geom_type[g1]) == int(model.geom_type[g2]) == int(mujoco.mjtGeom.mjGEOM_CAPSULE):
        return False
    axis1, axis2 = (np.asarray(state.geom_xmat[g]).reshape(3, 3)[:, 2] * model.geom_size[g][1] for g in (g1, g2))
    return abs(float(axis1 @ axis1 * (axis2 @ axis2) - (axis1 @ axis2) ** 2)) < mujoco.mjMINVAL


def depth_apart(model: mujoco.MjModel, state: mujoco.MjData, bound: float) -> tuple[list, Counter]:
    """([(|deepest depth - overlap along its normal| over the bound, pair, depth, overlap)] for each judged
    overlapping pair at `state`, Counter of why others are left out)."""
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
        first, second = surfaces.shape(model, state, a), surfaces.shape(model, state, b)
        if first.kind == second.kind == surfaces.BOX:  # its normal is a face's or an edge pair's, not the least axis
            found = surfaces.box_box_depth(first, second)
        else:
            found = surfaces.overlap(first, second, normal)
        if found is None:
            left["no extent along the normal"] += 1
            continue
        out.append((abs(found - depth) / (SHARE * depth + bound), (a, b), depth, found))
    return out, left


def worst_pair(model: mujoco.MjModel, states: list, measure, bound: float, model_case: str) -> tuple[tuple, int, str]:
    """Run `measure(model, state, bound)` (-> ([(ratio, pair, depth, figure)], Counter of reasons)) over the states:
    (the worst item with its state's time appended, how many pair-states were judged, the left-out reasons named);
    skips, naming them, where no pair was judged at any state."""
    worst, judged, left = None, 0, Counter()
    for state in states:
        found, reasons = measure(model, state, bound)
        left.update(reasons)
        judged += len(found)
        for item in found:
            if worst is None or item[0] > worst[0]:
                worst = (*item, float(state.time))
    named = "; ".join(f"{why}: {n} pair-states" for why, n in sorted(left.items()))
    if worst is None:
        pytest.skip(f"{model_case}: no overlapping geom pair judged at any state" + (f" (left out: {named})" if named
                                                                                    else ""))
    return worst, judged, named


@pytest.mark.law("model-contact-depth-is-the-overlap", source=SOURCE)
def test_contact_depth_is_the_overlap(law, pack_model, twofold_states, model_case) -> None:
    """At each state, the deepest contact of each overlapping geom pair (MuJoCo measuring it exactly) reports the
    depth by which the two shapes overlap along the contact's normal, from their own sizes, to 5 % of it."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    bound = distance.tolerance(model)
    worst, judged, named = worst_pair(model, twofold_states, depth_apart, bound, model_case)
    ratio, (a, b), depth, found, t = worst
    state = next(s for s in twofold_states if float(s.time) == t)
    parallel = (f" (two parallel capsules: MuJoCo before {PARALLEL_BEFORE} reports each end's contact of such a pair, "
                "shallower than their overlap)") if parallel_capsules(model, state, a, b) else ""
    law.check("depth_apart_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"|the deepest contact's depth - the shapes' overlap along its normal| over 5 % of the depth + "
                  f"{bound:.3g}, worst of {judged} pair-states: {distance.pair_name(model, a, b)}, depth {depth:.6g} "
                  f"against an overlap of {found:.6g} at t = {t:.3f} s" + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__}'s collider for that pair reports another depth than its "
                  "shapes have (3.2.6: a sphere whose centre sank into a box read its radius): an engine defect, not "
                  "the model's" + parallel + "; report it, or change MuJoCo version")
