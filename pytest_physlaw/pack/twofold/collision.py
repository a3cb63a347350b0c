"""Contacts against the pair's own distance: every geom pair MuJoCo's collision filter admits and that overlaps has a
contact in `mj_collision`'s result, and the deepest contact of each overlapping pair is the pair's signed distance
(negative: the depth), each computed a second time for the pair alone by MuJoCo's `mj_geomDistance` (before 3.1.6:
the pair's narrowphase in a probe model of the two geoms, `mujoco_versions.geom_distance`). Source: MuJoCo's
documentation (Computation: collision detection; API: mj_collision, mj_geomDistance; mjContact.dist: "distance
between nearest points; neg: penetration") and src/engine/engine_collision_driver.c (which pairs are tested).

The bound: the two computations' own errors (`distance.tolerance`): each convex solve stops within the model's
`ccd_tolerance` (1e-6 by default) of the distance, so two differ by at most 2x; an analytic collider (sphere, capsule,
box against a plane, ...) by round-off, 1e-9 of the model's extent. A pair overlaps when its second distance is
below minus that bound. `mj_geomDistance` computes a pair's distance by MuJoCo's convex solver (GJK and EPA, native
CCD) where the pair's collider is `mjc_BoxBox` or `mjc_Convex`, and by calling the pair's own collider with distmax as
its margin otherwise (engine_support.c): for the latter the second law compares the contact list with that collider's
own answer (the contact's bookkeeping), for the former with an independent solve.

Left out of the deepest-contact law, and named: height-field pairs (`mjc_ConvexHField` is a collision of the
prisms within the margin, at most mjMAXCONPAIR contacts; `mj_geomDistance` calls it again, no second computation);
SDF pairs (a local search from `sdf_initpoints` starts, sdf_iterations steps: both sides approximate); a flex's
contacts (an element's, not a geom's: `mj_geomDistance` takes two geoms); a convex-collider pair's (`mjc_Convex`)
contacts while multiccd is on (`mujoco_versions.multiccd`; Computation: Multiple contacts: the legacy pipeline adds
the contacts of the pair turned by +-1e-3 rad; the single-shot one, since 3.12 (commit 17e6d44a), reports points of
the clipped faces, each at its own depth, so that the overlap's deepest point need not be among them: MuJoCo's
cube_3x3x3 on 3.14.0, a cubelet pair's four contacts 0.264 mm deep against a 0.359 mm overlap, 47 x the bound;
replicate/bunnies on 4.0.1, a single mesh-mesh contact 4.5e-6 m shallower than the overlap, 2.2 x); pairs whose
deepest contact lies within the margin at a positive distance (a separating axis's gap for box-box, not the Euclidean
distance); releases without `mj_geomDistance` (the probe runs the same collider: no second computation).

Measured: `pytest-physlaw check MODEL.xml -k "collide or deepest"`; figures in docs/second-computations.md.
"""

from __future__ import annotations

from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import distance

SOURCE = ("MuJoCo documentation, Computation (collision detection) and API (mj_collision, mj_geomDistance, mjContact); "
          "src/engine/engine_collision_driver.c")
SDF = getattr(mujoco.mjtGeom, "mjGEOM_SDF", None)
APPROXIMATE = {distance.HFIELD: "height field (the prisms within the margin, at most mjMAXCONPAIR contacts; "
                                "mj_geomDistance calls the same collider)",
               **({int(SDF): "SDF (a local search from sdf_initpoints starts: both sides approximate)"} if SDF else {})}

# multiccd (Computation, Multiple contacts): the legacy pipeline adds the contacts of the pair turned by +-1e-3 rad,
# the single-shot one reports points of the clipped faces, each at its own depth (3.12 on, commit 17e6d44a), also
# where one is left: the overlap's deepest point need not be among them
MULTICCD = ("the convex collider's contacts with multiccd on (the legacy pipeline adds the pair turned by +-1e-3 rad, "
            "the single-shot one reports points of the clipped faces at their own depths, 3.12 on)")


def _named(counts: Counter) -> str:
    return ", ".join(f"{k} {v}x" for k, v in sorted(counts.items()))


def _above_the_plane(model: mujoco.MjModel, state: mujoco.MjData, g1: int, g2: int, bound: float) -> bool:
    """Whether one geom of the pair is a plane and the other's bounding box (MuJoCo's `geom_aabb`, in the geom's frame)
    lies wholly above it by more than `bound`: then the two cannot overlap, and an overlap `mj_geomDistance` reports
    is its collider's, not a contact the collision pruned (MuJoCo's replicate/bowl on 3.14.0: plane-cylinder, a
    cylinder upright to 2e-14 read 2.87 mm into the floor with its lowest point 0.04 mm above it)."""
    plane = int(mujoco.mjtGeom.mjGEOM_PLANE)
    kinds = (int(model.geom_type[g1]), int(model.geom_type[g2]))
    if kinds.count(plane) != 1:
        return False
    p, g = (g1, g2) if kinds[0] == plane else (g2, g1)
    normal = state.geom_xmat[p].reshape(3, 3)[:, 2]
    frame = state.geom_xmat[g].reshape(3, 3)
    centre, half = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
    lowest = normal @ (state.geom_xpos[g] + frame @ centre - state.geom_xpos[p]) - np.abs(normal @ frame) @ half
    return float(lowest) > bound


@pytest.mark.law("model-overlapping-pairs-collide", source=SOURCE)
def test_overlapping_pairs_collide(law, pack_model, twofold_states, model_case) -> None:
    """Every geom pair MuJoCo's filter admits (contype/conaffinity or an explicit pair, not excluded, not one weld,
    not parent and child) that overlaps by more than the distance's own error, `mj_geomDistance` says, has a contact
    in `mj_collision`'s list: at the start, every state of the driven and reaching runs and the settled end (a body
    falling through another overlaps it for a state or two)."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    if mujoco.get_mjcb_contactfilter() is not None:
        pytest.skip(f"{model_case}: a contact filter callback (mjcb_contactfilter) decides which pairs collide")
    bound = distance.tolerance(model)
    worst, where = 0.0, "no admitted pair overlaps without a contact"
    measured, unmeasured, asleep, full = 0, Counter(), 0, 0
    phantom, phantom_where = 0, ""
    for state in twofold_states:
        if distance.contact_full(state):
            full += 1
            continue
        pairs, dozing = distance.admitted(model, state, distance.near(model, state))
        asleep += dozing
        contacted = distance.deepest_contacts(state)
        for g1, g2 in zip(pairs.geom1.tolist(), pairs.geom2.tolist()):
            if (g1, g2) in contacted:
                measured += 1
                continue
            dist = mujoco_versions.geom_distance(model, state, g1, g2, 0.0)
            if dist is None:
                unmeasured[distance.type_pair(model, g1, g2)] += 1
                continue
            measured += 1
            if -dist > bound and _above_the_plane(model, state, g1, g2, bound):
                phantom += 1  # the geoms cannot overlap: the distance's overlap is its collider's, nothing was pruned
                phantom_where = phantom_where or (f"{distance.pair_name(model, g1, g2)} at t = {float(state.time):.3f} "
                                                  f"s: mj_geomDistance {dist:.4g}, the geom's bounding box above the plane")
                continue
            if -dist / bound > worst:
                worst = -dist / bound
                where = (f"{distance.pair_name(model, g1, g2)} overlap by {-dist:.4g} with no contact at "
                         f"t = {float(state.time):.3f} s")
    left_out = "; ".join(s for s in (
        f"not measured on MuJoCo {mujoco.__version__} (no mj_geomDistance; a probe copies no asset): "
        f"{_named(unmeasured)}" if unmeasured else "",
        f"{asleep} pair-states with a body asleep" if asleep else "",
        f"{full} states after MuJoCo dropped contacts (CONTACTFULL)" if full else "",
        f"{phantom} pair-states where mj_geomDistance reports an overlap of a geom whose bounding box lies above the "
        f"plane it is paired with (the collider's error, not a pruned contact), first {phantom_where}"
        if phantom else "") if s)
    if not measured:
        pytest.skip(f"{model_case}: no admitted geom pair near another at any state" +
                    (f" that can be measured ({left_out})" if left_out else ""))
    law.check("overlap_without_contact_over_tolerance", worst, le=1.0, drift_abs=1.0,
              why=f"the deepest overlap of an admitted geom pair that has no contact, over the distance's own error "
                  f"({bound:.3g}: 2 ccd_tolerance + 1e-9 extent), over {measured} pair-states: {where}"
                  + (f"; left out: {left_out}" if left_out else "") +
                  f"; failing, an engine defect of MuJoCo {mujoco.__version__}'s collision (not the model's): "
                  "mj_geomDistance sees an overlap that the model's collision has no contact for: its broad- or "
                  "midphase pruned an overlapping pair (3.1.5: fusestatic left the world's bounding volumes stale), or "
                  "the pair's own collider reports an overlap the geoms do not have (the geoms' extent tells which); "
                  "report it, or change MuJoCo version")


@pytest.mark.law("model-deepest-contact-is-distance", source=SOURCE)
def test_deepest_contact_is_the_distance(law, pack_model, twofold_states, model_case) -> None:
    """The deepest contact of each overlapping geom pair in `mj_collision`'s list is the pair's signed distance
    `mj_geomDistance` computes for it, within the two computations' own errors (2 ccd_tolerance + 1e-9 of the
    extent), at every state of `twofold_states`."""
    model = pack_model.model
    if distance.contacts_off(model):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    bound = distance.tolerance(model)
    worst, where = 0.0, ""
    compared, approximate, separated = 0, Counter(), 0
    multiple = mujoco_versions.multiccd(model)
    for state in twofold_states:
        for (g1, g2), (deepest, _) in distance.deepest_contacts(state).items():
            if deepest >= 0:
                separated += 1
                continue
            types = {int(model.geom_type[g1]), int(model.geom_type[g2])}
            kind = next((APPROXIMATE[t] for t in types if t in APPROXIMATE), None)
            if not kind and multiple and distance.convex_solved(model, g1, g2):
                kind = MULTICCD
            if kind:
                approximate[kind] += 1
                continue
            dist = mujoco_versions.geom_distance(model, state, g1, g2, 0.0, probe=False)
            if dist is None:
                pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} has no mj_geomDistance (3.1.6); a probe "
                            "model's distance would run the pair's own collider again, no second computation")
            compared += 1
            apart = abs(deepest - dist) / bound
            if apart > worst or not where:
                worst = apart
                where = (f"{distance.pair_name(model, g1, g2)}: deepest contact {deepest:.6g}, distance {dist:.6g} "
                         f"at t = {float(state.time):.3f} s")
    left_out = "; ".join(s for s in (
        "; ".join(f"{kind}: {n} pair-states" for kind, n in sorted(approximate.items())),
        f"{separated} pair-states whose deepest contact is within the margin, apart" if separated else "") if s)
    if not compared:
        pytest.skip(f"{model_case}: no overlapping geom pair with a contact at any state"
                    + (f" (left out: {left_out})" if left_out else ""))
    law.check("deepest_contact_from_distance_over_tolerance", worst, le=1.0, drift_abs=1.0,
              why=f"|the deepest contact's dist - mj_geomDistance| of an overlapping pair over the two computations' "
                  f"own errors ({bound:.3g}: 2 ccd_tolerance + 1e-9 extent), worst of {compared} pair-states: {where}"
                  + (f"; left out: {left_out}" if left_out else "") +
                  f"; failing, an engine defect of MuJoCo {mujoco.__version__}'s collider for that pair (not the "
                  "model's): its contacts report another depth than the pair has (3.3.7: box-box reported half the "
                  "overlap); report it, or change MuJoCo version")
