"""Laws of the settled pose: where the model comes to rest, what carries it there and how deep its
contacts sink. Sources: statics (a body at rest is carried by the forces on it: their sum equals its
weight), MuJoCo's documentation ("Computation": soft contacts; `mj_contactForce`).

From the settled run (the model's own controls, from its starting pose, over the horizon).
The pose figures (how far each body sagged, the model's centre of mass, how far the servos stand off
their targets) are recorded for the gate: a servo-held arm's sag is its load over its gains, and moves
with either.

Measured:
`pytest --physlaw-model=MODEL.xml -k "pose or contact" -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy
import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import roundoff, runs, stepping
from pytest_physlaw.pack.wrenches import CONTACTS

SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"
RANGE_ROUND_OFF = 1e-6  # rad or m: an exporter's round-off at a range's end
REST_SPEED = 1e-3  # m/s: a floating tree whose centre of mass is slower than this at the end is at rest
LOAD = 0.02  # of the weight: a tree at rest to REST_SPEED is carried to 2 %
CARRYING = 1e-3  # of the model's weight: a contact pressing less than this carries nothing
TOUCHING, TOUCHING_MM = 0.1, 3.0  # of the thinner geom's smallest half-extent, or mm: geoms this close touch (to the eye)
SINK = 0.5  # of the thinner geom's smallest half-extent (its radius, for a ball): deeper, it is about to pass through


@pytest.mark.law("model-settled-pose", source=SOURCE)
def test_settled_pose(law, pack_model, settled, settled_nudged, model_case) -> None:
    """Where the model settles from its starting pose: each body's sag (how far it moved from the start)
    and the height of the model's centre of mass, recorded for the gate; the settled run ends at rest or
    the law says which body still moves and how fast. Each figure may drift by ten times what a nudge of
    round-off's size at the start moves it (a chaotic run ends elsewhere; a settled one does not)."""
    figures, nudged = _pose(pack_model.model, settled), _pose(pack_model.model, settled_nudged)
    for name, (value, unit, zero, why) in figures.items():
        law.check(name, value, ge=0, unit=unit, drift_abs=zero, why=why,
                  drift=roundoff.drift(pack_model.config, value, nudged[name][0]))


@pytest.mark.law("model-figures", source="the model file")
def test_model_figures(law, pack_model, settled, settled_nudged, model_case) -> None:
    """The model's own figures, for the gate to see them move: total mass, nv, nefc after settling and
    the settled pose's drift (the farthest any body moved over the last tenth of the run)."""
    model, config = pack_model.model, pack_model.config
    law.check("total_mass", float(np.sum(model.body_mass)), gt=0, unit="kg", drift_abs=1e-12, why="a model with mass")
    law.check("nv", int(model.nv), ge=1, why="degrees of freedom: a movable body exists")
    law.check("nefc", settled.nefc, ge=0, drift_abs=0.5, why="constraint rows after settling",
              drift=roundoff.drift(config, settled.nefc, settled_nudged.nefc))
    tail = max(1, settled.steps // 10)
    law.check("drift_mm", _tail_drift(settled, tail), ge=0, unit="mm", drift_abs=1e-6,
              why=f"over the last {tail} of {settled.steps} steps",
              drift=roundoff.drift(config, _tail_drift(settled, tail), _tail_drift(settled_nudged, tail)))


def _pose(model: mujoco.MjModel, run: runs.Run) -> dict[str, tuple[float, str | None, float, str]]:
    """The settled pose's figures: name -> (value, unit, its zero for the gate, why)."""
    first, final = run.first, run.final
    sag = 1000 * np.linalg.norm(final.xipos[1:] - first.xipos[1:], axis=1)
    out = {
        "sag_max_mm": (float(np.max(sag)), "mm", 1e-6,
                       "the farthest any body's centre of mass moved from the start, recorded for the gate"),
        "sag_rms_mm": (float(np.sqrt(np.mean(sag**2))), "mm", 1e-6,
                       "root mean square over the bodies of the same, recorded for the gate"),
        "com_shift_mm": (1000 * float(np.linalg.norm(final.subtree_com[0] - first.subtree_com[0])), "mm", 1e-6,
                         "the whole model's centre of mass, end against start, recorded"),
    }
    servo = np.flatnonzero(model.actuator_biasprm[:, 1] < 0)  # a position feedback -kp: the force is kp x error
    if servo.size:
        error = final.actuator_force[servo] / -model.actuator_biasprm[servo, 1]
        out["servo_error_rms"] = (float(np.sqrt(np.mean(error**2))), None, 1e-12,
                                  "how far the servos stand off their targets at the end (force / kp: load over "
                                  "gain), root mean square, recorded for the gate")
    out["end_speed"] = (float(np.max(_speeds(model, final))), "m/s", 1e-9,
                        f"fastest body at the end (at rest below {REST_SPEED} m/s), recorded for the gate")
    return out


def _tail_drift(run: runs.Run, tail: int) -> float:
    """The farthest any body moved over the last `tail` steps of the run, mm."""
    return 1000 * float(np.max(np.linalg.norm(run.xpos[-1] - run.xpos[-1 - tail], axis=1)))


@pytest.mark.law("model-contact-carries-weight", source=SOURCE)
def test_contacts_carry_a_resting_floating_base(law, pack_model, settled, model_case) -> None:
    """A floating base at rest stands on its contacts, its medium, its thrust and what the model declares
    holds it: the contact forces on its tree from anything outside it (`mj_contactForce`), with its
    buoyancy (MuJoCo models it as gravity compensation, `gravcomp`), the fluid's forces, the actuators that
    push it from outside (a drone's rotors) and the other constraints that tie it to the world or to another
    tree (a weld or connect equality, a tendon's limit: their rows' `efc_J^T efc_force`), carry its weight,
    within 2 %. A tree also hung on a spring (a passive tendon) or an applied force fails, and the message
    says how much each carries. A model that turns gravity off (its option flag) has no weight to carry."""
    model, final = pack_model.model, settled.final
    roots = runs.floating_roots(model)
    if not roots:
        pytest.skip(f"{model_case}: no floating base (no tree whose root joint is free): its weight goes "
                    "through its joints, not its contacts")
    tree_speed = _tree_speeds(model, final, roots)
    resting = [r for r in roots if tree_speed[r] < REST_SPEED]
    if not resting:
        fastest = max(roots, key=tree_speed.get)
        pytest.skip(f"{model_case}: no floating base at rest at the end of the run (the centre of mass of body "
                    f"{model.body(fastest).name!r}'s tree moves at {tree_speed[fastest]:.3g} m/s)")
    gravity = float(np.linalg.norm(model.opt.gravity))
    if not _has_gravity(model):
        pytest.skip(f"{model_case}: the model has no gravity (its <option gravity> is zero or its flag turns "
                    "gravity off): nothing to carry")
    up = -model.opt.gravity / gravity
    weights = np.array([model.body_subtreemass[r] * gravity for r in resting])
    contact = np.array([float(_contact_force_on(model, final, r) @ up) for r in resting]) / weights
    medium = np.array([float(_medium_force_on(model, final, r) @ up) for r in resting]) / weights
    held = np.array([float(_held_force_on(model, final, r) @ up) for r in resting]) / weights
    total = contact + medium + held
    law.check("load_over_weight", total, near=1.0, abs=LOAD,
              why=f"contact force (worst tree, {_tree_name(model, resting, total)}: {_worst(contact, total)}), "
                  f"buoyancy, fluid forces and thrust ({_worst(medium, total)}) and equalities and other "
                  f"constraints that hold it ({_worst(held, total)}) along gravity's opposite over the tree's "
                  "weight, trees at rest; what is missing hangs on something else (a spring tendon, an applied force)")


@pytest.mark.law("model-contact-depth", source=SOURCE)
def test_resting_contacts_sink_less_than_the_geoms(law, pack_model, settled, settled_nudged, settled_half_step,
                                                   model_case) -> None:
    """At the end of the settled run no contact sinks deeper than the compliance it was given (its solimp
    width, over which MuJoCo's impedance rises: a rubber foot's design) or half the thinner geom's
    smallest half-extent (half its radius, for a ball or capsule), whichever is more: deeper, the geom's
    middle nears the other surface, where the contact normal and the geom's side flip. Contacts too soft for the load they
    carry (a solref time constant far above the timestep's scale) sink that deep under the robot's weight.
    Its premises: a resolved timestep and a start without overlap. Where the timestep is unresolved
    (model-timestep-converged fails) and at half the step the contacts sink within bounds, or where the
    deepest contact is a pair, or has a body, that already overlapped at the start (model-start-penetration), a failure
    here follows from that law's finding and is reported as its consequence, not as a second one."""
    model = pack_model.model
    depth, allowed, where = _depths_or_skip(model, settled.final, f"{model_case}: at the end of the run")
    ratio = depth / allowed
    deepest = int(np.argmax(ratio))
    _name_a_failed_premise(law, model, settled, settled_half_step, where[deepest],
                           _contact_bodies(model, settled.final, _extent_contacts(model, settled.final)[0][deepest]))
    nudged_depth, nudged_allowed, _ = contact_depths(model, settled_nudged.final)
    nudged = (float(np.max(nudged_depth / nudged_allowed)), 1000 * float(np.max(nudged_depth))) if nudged_depth.size \
        else (math.nan, math.nan)
    law.check("depth_over_allowed", ratio, le=1.0, drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, float(np.max(ratio)), nudged[0]),
              why=f"penetration over the larger of the contact's solimp width and half the thinner geom's "
                  f"smallest half-extent, deepest {where[deepest]}; if it fails, "
                  + stiffen(model, float(settled.final.contact.solref[_extent_contacts(model, settled.final)[0][deepest]][0])))
    law.check("depth_mm", 1000 * float(np.max(depth)), ge=0, unit="mm", drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, 1000 * float(np.max(depth)), nudged[1]),
              why="deepest contact at rest, recorded for the gate (solref, solimp, mass and gravity move it)")


def _extent_contacts(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(indices, the thinner geom's smallest half-extent) of `data`'s contacts between geoms of which one has an
    extent (not two planes or heightfields, not a flex's): the contacts the resting laws measure."""
    n = data.ncon
    a, b = (np.asarray(data.contact.geom1[:n], dtype=int), np.asarray(data.contact.geom2[:n], dtype=int))
    geoms = (a >= 0) & (b >= 0)  # a contact with a flex has no geom on that side (-1): not a geom pair
    thinner = np.where(geoms, _thinner_extent(model, np.maximum(a, 0), np.maximum(b, 0)), np.inf)
    keep = np.flatnonzero(np.isfinite(thinner))
    return keep, thinner[keep]


def stiffen(model: mujoco.MjModel, tc: float) -> str:
    """The change that makes a contact of solref time constant `tc` stiffer, in the model's terms: where MuJoCo's
    refsafe already softens it to twice the timestep, only a shorter timestep does."""
    dt = float(model.opt.timestep)
    refsafe = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE
    if tc > 0 and refsafe and tc < 2 * dt:
        return (f"its solref time constant {tc:g} s is under twice the timestep: MuJoCo steps it as 2 x {dt:g} = "
                f"{2 * dt:g} s (refsafe), so a shorter solref changes nothing: lower <option timestep> to {tc / 2:g} s "
                "or below, or accept the finding")
    return (f"stiffen those geoms' contact (a shorter solref time constant, now {tc:g} s, no shorter than 2 x the "
            f"{dt:g} s timestep; a solimp nearer 1) or accept the finding")


def start_overlaps(model: mujoco.MjModel, first: mujoco.MjData) -> list[tuple[str, float]]:
    """(which geoms, how deep, m) of each pair that overlaps at the start deeper than a resting contact may sink
    (what model-start-penetration fails on), the farthest past its allowance first."""
    depth, allowed, where = contact_depths(model, first)
    over = np.flatnonzero(depth > allowed)
    return [(where[i], float(depth[i])) for i in over[np.argsort(-(depth / allowed)[over], kind="stable")]]


def start_overlap(model: mujoco.MjModel, first: mujoco.MjData) -> str:
    """The worst of `start_overlaps`, named with its depth; "" where none overlaps."""
    overlaps = start_overlaps(model, first)
    return f"{overlaps[0][0]} overlap {1000 * overlaps[0][1]:.3g} mm" if overlaps else ""


def _contact_bodies(model: mujoco.MjModel, data: mujoco.MjData, contact: int) -> set[int]:
    """The moving bodies (not the world) of `data`'s contact `contact`."""
    geoms = (int(data.contact.geom1[contact]), int(data.contact.geom2[contact]))
    return {int(model.geom_bodyid[g]) for g in geoms} - {0}


def _start_overlaps_by_body(model: mujoco.MjModel, first: mujoco.MjData) -> tuple[set[str], dict[int, str]]:
    """(the pairs, and body -> a pair it is in, of each moving body) that overlap at the start deeper than a resting
    contact may sink (model-start-penetration's pairs), from one measure of the start's contacts."""
    keep, _ = _extent_contacts(model, first)
    depth, allowed, where = contact_depths(model, first)
    over = np.flatnonzero(depth > allowed)
    found: dict[int, str] = {}
    for i in over:
        for body in _contact_bodies(model, first, int(keep[i])):
            found.setdefault(body, where[i])
    return {where[i] for i in over}, found


def _name_a_failed_premise(law, model: mujoco.MjModel, settled: runs.Run, half_step: runs.Run, deepest: str,
                           bodies: set[int]) -> None:
    """`law.follows` the premise of a resting contact's depth that the model fails, if any (see the law): the
    pair, or a body of it, overlapped at the start; or the timestep is unresolved and at half of it the contact
    holds."""
    pairs, overlapping = _start_overlaps_by_body(model, settled.first)
    if deepest in pairs:
        law.follows("model-start-penetration", f"{deepest} already overlapped at the start, deeper than a resting "
                    "contact may sink; separate them at the start and this contact rests as deep as its load makes it")
        return
    wedged = sorted(bodies & set(overlapping))
    if wedged:
        body = wedged[0]
        law.follows("model-start-penetration", f"{deepest}: body {model.body(body).name or body!r} started inside "
                    f"another ({overlapping[body]}), and the push that separates them can wedge it where it rests; "
                    "start it apart and this contact rests as deep as its load makes it")
        return
    resolved, shift = stepping.timestep_resolved(settled, half_step)
    if resolved:
        return
    half_depth, half_allowed, _ = contact_depths(model, half_step.final)
    half = float(np.max(half_depth / half_allowed)) if half_depth.size else 0.0
    if half <= 1.0:
        law.follows("model-timestep-converged", f"halving the timestep moves the run by {shift:.3g} of its motion, and "
                    f"at half the step the deepest resting contact uses {half:.3g} of its allowance: lower <option "
                    "timestep>, not the contact's stiffness")


@pytest.mark.law("model-rest-touching", source=SOURCE + "; MuJoCo XML reference (geom/margin, geom/gap)")
def test_resting_bodies_touch_what_carries_them(law, pack_model, settled, settled_nudged, model_case) -> None:
    """A body at rest touches what carries it: at the end of the settled run every contact that carries load
    (a normal force above a thousandth of the model's weight) has its geoms no farther apart than a tenth of
    the thinner geom's smallest half-extent, or 3 mm, whichever is more (closer, no eye tells them apart).
    MuJoCo's contact pushes from its margin less its gap (`includemargin`) on: a margin above the gap makes
    the contact carry before the surfaces meet, and the body rests that far above its support, floating in
    every render and in every contact a policy learns.

    Measured (`pytest-physlaw check MODELS -- -k touch_what -v`, MuJoCo 3.14.0): gymnasium's Ant (margin
    0.01 on its geoms and its floor) rests its ankles 19.7 mm above the floor, 2.5 times the allowance;
    its Humanoid and HumanoidStandup (margin 0.001) 1.55 mm, 0.5 of it; the other gymnasium models touch. Every
    geom's margin raised by 2 cm (MjSpec, written beside the file) on 16 models that rest on something
    (gymnasium's six walkers, seven of dm_control's suite, Fetch push-and-place, Adroit relocate, the Shadow
    hand's block): found on 16 (by 5 mm: 14; dm_control's walker and the Fetch scene pass, their geoms thick
    enough that 5 mm looks like touching); mjcf-doctor 0.2.1 reports nothing of it on any (no rule reads margins)."""
    model, final = pack_model.model, settled.final
    if not _has_gravity(model):
        pytest.skip(f"{model_case}: the model has no gravity: no weight for a contact to carry")
    hover, allowed, where, margin = resting_gaps(model, final)
    if not hover.size:
        pytest.skip(f"{model_case}: at the end of the run no contact between geoms with an extent carries load")
    ratio = hover / allowed
    worst = int(np.argmax(ratio))
    nudged, nudged_allowed, _, _ = resting_gaps(model, settled_nudged.final)
    nudged_ratio = float(np.max(nudged / nudged_allowed)) if nudged.size else math.nan
    law.check("rest_gap_over_allowed", float(ratio[worst]), le=1.0, drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, float(ratio[worst]), nudged_ratio),
              why=f"how far apart the geoms of a loaded contact rest over what is still touching (a tenth of the thinner "
                  f"geom's smallest half-extent, or 3 mm), widest {where[worst]}: {1000 * hover[worst]:.3g} mm apart, "
                  f"their contact's margin less gap {1000 * margin[worst]:.3g} mm; if it fails, set those geoms' margin "
                  "to their gap (margin 0, MuJoCo's default, with gap 0)")


def resting_gaps(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """(how far apart, what still touches, which geoms, margin less gap) of each contact that carries more than
    CARRYING of the model's weight, between geoms of which one has an extent."""
    weight = float(np.sum(model.body_mass) * np.linalg.norm(model.opt.gravity))
    force = np.zeros(6)
    hover, allowed, where, margin = [], [], [], []
    for i, thinner in zip(*_extent_contacts(model, data)):
        contact = data.contact[int(i)]
        mujoco.mj_contactForce(model, data, int(i), force)
        if force[0] <= CARRYING * weight:
            continue
        hover.append(max(float(contact.dist), 0.0))
        allowed.append(max(TOUCHING_MM / 1000, TOUCHING * float(thinner)))
        where.append(f"{_geom_name(model, contact.geom1)} / {_geom_name(model, contact.geom2)}")
        margin.append(float(contact.includemargin))
    return np.array(hover), np.array(allowed), where, np.array(margin)


@pytest.mark.law("model-contact-stiffness", source=SOURCE + "; MuJoCo documentation, Computation: solver "
                  "parameters (solref, solimp: k = d(r) / (dmax^2 tau^2 zeta^2), R = (1 - d) / d A)")
def test_contacts_are_stiff_enough_to_carry_a_body(law, pack_model, model_case) -> None:
    """A body resting on one contact sinks, in MuJoCo's soft-contact model, the depth r where the contact's
    spring meets gravity: k(r) r = (1 - d(r)) / d(r) g, whatever the body's mass (the impedance d and the
    stiffness k from the contact's solref and solimp, the time constant raised to 2 dt by refsafe). For every
    pair of geoms that can collide, that sink stays inside what model-contact-depth allows a resting contact
    (the larger of the solimp width and half the thinner geom's smallest half-extent): deeper, a geom
    resting on that contact has its middle near the other surface. A contact softer than that (a solref time
    constant of 0.2 s sinks 20 mm) cannot carry even the body's own weight, whatever touches it.

    Measured (`pytest --physlaw-model=MODEL.xml -k stiff -s`): on 58 sound models of 9 packages at most 0.45 of
    the allowance (ANYmal C's shank on the floor: 13.5 of 30 mm; MuJoCo's default contact at a 2 ms step sinks
    0.37 mm); every geom's solref raised to 0.2 s on 14 robots: 0.39 (LEAP hand, whose pairs keep their own
    0.1 ms) and 1.12 to 19.6 on the others. A free sphere or box resting in MuJoCo sinks what this says (one
    contact) or a quarter of it (four corners share the load)."""
    model = pack_model.model
    if not _has_gravity(model):
        pytest.skip(f"{model_case}: the model has no gravity: no weight for a contact to carry")
    pairs = collidable_pairs(model)
    sink, allowed, where = rest_sinks(model, pairs)
    if not sink.size:
        pytest.skip(f"{model_case}: no two geoms with an extent can collide (contype/conaffinity, pairs)")
    ratio = sink / allowed
    worst = int(np.argmax(ratio))
    law.check("rest_sink_over_allowed", float(ratio[worst]), le=1.0, drift_abs=1e-9,
              why=f"the sink of a body resting on one contact under gravity over what a resting contact may sink, "
                  f"worst pair {where[worst]} ({1000 * sink[worst]:.3g} mm of {1000 * allowed[worst]:.3g} mm); if it "
                  f"fails, {stiffen(model, _pair_time_constant(model, pairs, worst))}")


def _pair_time_constant(model: mujoco.MjModel, pairs: tuple[np.ndarray, ...], pair: int) -> float:
    """The solref time constant of the `pair`-th pair `rest_sinks` measures of `pairs` (`collidable_pairs`)."""
    a, b, solref, _ = pairs
    return float(solref[np.isfinite(_thinner_extent(model, a, b))][pair][0])


@pytest.mark.law("model-start-penetration", source=SOURCE)
def test_start_state_is_not_interpenetrating(law, pack_model, settled, settings, model_case) -> None:
    """At the start (the starting keyframe, or qpos0 where the model has none) no two geoms overlap deeper than a resting contact may sink (the larger of
    its solimp width and half the thinner geom's smallest half-extent): an overlap at the start is pushed
    apart by MuJoCo's contact spring in the first steps, a force many times the robot's weight that no real start
    has. The contact force at the start over the model's weight is recorded for the gate."""
    model, first = pack_model.model, settled.first
    depth, allowed, where = _depths_or_skip(model, first, f"{model_case}: at the start")
    ratio = depth / allowed
    law.check("start_depth_over_allowed", ratio, le=1.0, drift_abs=1e-6,
              why=f"overlap at the start over what a resting contact may sink, deepest {where[int(np.argmax(ratio))]} "
                  f"({1000 * float(np.max(depth)):.3g} mm): {_separate_at(model, settings.keyframe)}")
    weight = float(np.sum(model.body_mass) * np.linalg.norm(model.opt.gravity))
    if weight > 0:
        law.check("start_force_over_weight", _normal_force(model, first) / weight, ge=0, drift_abs=1e-6,
                  why="sum of the contacts' normal forces at the start over the model's weight, recorded for the gate")


@pytest.mark.law("model-start-in-range", source=SOURCE + "; MuJoCo XML reference (joint/range, key/qpos)")
def test_start_state_is_within_joint_ranges(law, pack_model, settings, model_case) -> None:
    """Every keyframe, and qpos0 where it is the start (no keyframe, or ini physlaw_model_keyframe = qpos0), put
    each limited joint inside its own range (a hinge's or slide's position, a ball's rotation angle): a start
    outside its range meets the limit's constraint force at the first step, a kick no real start has, and a
    keyframe outside it is a state the robot cannot reach. Within the limit's soft width (its solimp width,
    MuJoCo's default 1 mm or 1 mrad, where the limit's own spring holds a joint at rest: a keyframe saved from a
    run) or 1e-6 (an exporter's round-off at a range's end), whichever is more, is no finding. (A model that starts from a keyframe may keep qpos0, its springs' and MJX's
    reference, outside a range: 12 of 56 sound models checked do, Menagerie-style arms' folded joints.)"""
    model = pack_model.model
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE), int(mujoco.mjtJoint.mjJNT_BALL))
    limited = [j for j in range(model.njnt) if model.jnt_limited[j] and int(model.jnt_type[j]) in kinds]
    if not limited:
        pytest.skip(f"{model_case}: no limited hinge, slide or ball joint")
    from_qpos0 = model.nkey == 0 or runs.keyframe_id(model, settings.keyframe) is None
    starts = ([("qpos0", model.qpos0)] if from_qpos0 else []) + [
        (f"keyframe {model.key(k).name or k!r}", model.key_qpos[k]) for k in range(model.nkey)]
    worst, where = 0.0, "none"
    for label, qpos in starts:
        for j in limited:
            out, text = _outside_range(model, j, qpos)
            soft = float(model.jnt_solimp[j, 2])  # the width over which the limit's impedance rises
            if out - soft > worst:
                worst, where = out - soft, f"{label}: {text}, its limit's soft width {soft:.3g}"
    law.check("outside_range", worst, le=RANGE_ROUND_OFF, drift_abs=RANGE_ROUND_OFF,
              why=f"the farthest a limited joint starts outside its range past its limit's soft width (rad or m), "
                  f"{where}: set that joint's value "
                  "in <key qpos> (for qpos0: the joint's ref, or the body's pose) inside its <joint range>, or widen "
                  "the range if the robot reaches it")


def _separate_at(model: mujoco.MjModel, keyframe: str) -> str:
    """The change that separates two geoms at the start, in the model's terms: the starting keyframe's qpos, or
    (no keyframe) the bodies' pos and the joints' ref that make qpos0."""
    key = runs.keyframe_id(model, keyframe)
    if key is not None:
        return f"move them apart in <key name={model.key(key).name or key!r}> qpos (or move the geoms)"
    return ("move them apart where qpos0 puts them (the model has no keyframe, or the start is qpos0): the bodies' "
            "pos, the joints' ref, or the geoms; or add a <keyframe> that starts them apart")


def _outside_range(model: mujoco.MjModel, joint: int, qpos: np.ndarray) -> tuple[float, str]:
    """(how far `qpos` puts `joint` outside its range, a description in the model's terms)."""
    adr, (low, high) = int(model.jnt_qposadr[joint]), model.jnt_range[joint]
    name = model.joint(joint).name or f"joint {joint}"
    if int(model.jnt_type[joint]) == int(mujoco.mjtJoint.mjJNT_BALL):
        angle = 2 * math.acos(min(1.0, abs(float(qpos[adr])) / max(float(np.linalg.norm(qpos[adr:adr + 4])), 1e-300)))
        return max(0.0, angle - float(high)), f"ball {name!r} turned {angle:.4g} rad past its range {float(high):.4g}"
    value = float(qpos[adr])
    return max(0.0, float(low) - value, value - float(high)), \
        f"{name!r} at {value:.4g}, its range [{float(low):.4g}, {float(high):.4g}]"


@pytest.mark.law("model-can-collide", source=SOURCE)
def test_something_can_collide(law, pack_model, model_case) -> None:
    """Where gravity pulls a floating body, something can touch something: some pair of geoms of different
    bodies may collide (their contype and conaffinity bits meet, or an explicit pair names them). A model in
    which no two geoms can ever touch lets every floating body fall through everything. A file whose geoms are all
    one body's (a part that a scene places, without a ground) has nothing else to touch: skipped."""
    model = pack_model.model
    if not runs.falling_roots(model) or not _has_gravity(model):
        pytest.skip(f"{model_case}: " + ("no floating body" if _has_gravity(model) else "no gravity") +
                    ": nothing falls if nothing collides")
    bodies = set(np.asarray(model.geom_bodyid).tolist())
    if len(bodies) < 2:
        pytest.skip(f"{model_case}: every geom is body {model.body(bodies.pop()).name!r}'s (no ground, no other body): "
                    "nothing else to collide with; a part that a scene places is checked in that scene")
    law.check("colliding_pairs", _colliding_pairs(model), ge=1,
              why="pairs of geoms (of different bodies) whose contype/conaffinity bits meet, and explicit <pair>s: 0 means "
                  "nothing can touch anything; give the collision geoms contype=1 conaffinity=1")


@pytest.mark.law("model-ground-collides", source=SOURCE)
def test_floating_bases_can_touch_the_ground(law, pack_model, model_case) -> None:
    """A floating base needs something to stand on: where the model has a ground (a plane or heightfield on
    the world), each floating tree has a geom that can collide with it (their contype and conaffinity bits
    meet, or an explicit pair names them). A robot whose collision bits were all cleared falls through its
    floor. (A fixed or sliding base may hang over a ground drawn only to be seen: not checked.)"""
    model = pack_model.model
    grounds, roots = _grounds(model), _standing_roots(model)
    if not grounds.size or not roots:
        pytest.skip(f"{model_case}: " + ("no floating base" if not roots else
                                         "no ground (no plane or heightfield on the world body)"))
    tree_of_geom = model.body_treeid[model.geom_bodyid]
    touching = np.array([sum(_can_collide(model, g, grounds) for g in np.flatnonzero(tree_of_geom == model.body_treeid[r]))
                         for r in roots])
    worst = int(np.argmin(touching))
    law.check("geoms_touching_ground", touching, ge=1,
              why=f"geoms of each floating tree that can collide with the ground, fewest {model.body(roots[worst]).name!r}: "
                  "0 means it cannot stand on the floor; set contype/conaffinity on its collision geoms")


@pytest.mark.law("model-base-above-ground", source=SOURCE)
def test_floating_bases_stay_above_the_ground(law, pack_model, settled, settled_nudged, model_case) -> None:
    """A floating base that starts above a ground plane is above it at the end of the settled run: solid
    bodies do not pass through the floor. A robot whose feet cannot collide, or whose contacts are far too
    soft for its weight, ends below it."""
    model, first, final = pack_model.model, settled.first, settled.final
    roots, planes = _standing_roots(model), ground_planes(model)
    if not roots or not planes.size:
        pytest.skip(f"{model_case}: " + ("no floating base" if not roots else "no ground plane on the world body"))
    heights = lambda data: np.array([[plane_height(data, p, data.subtree_com[r]) for p in planes] for r in roots])  # noqa: E731
    above = heights(first) > 0
    if not above.any():
        pytest.skip(f"{model_case}: no floating base starts above a ground plane")
    end, nudged = 1000 * heights(final)[above], 1000 * heights(settled_nudged.final)[above]
    law.check("lowest_height_mm", float(np.min(end)), gt=0, unit="mm", drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, float(np.min(end)), float(np.min(nudged))),
              why="height of a floating tree's centre of mass over the ground planes it started above, at the end; "
                  "below 0 it fell through the floor")


# -- measurements ------------------------------------------------------------------------------------

def _speeds(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Each body's centre-of-mass speed (m/s), from MuJoCo's `mj_objectVelocity`; the world's is 0."""
    speed = np.zeros(model.nbody)
    velocity = np.zeros(6)  # angular, then linear, world frame, at the body's centre of mass
    for b in range(1, model.nbody):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, b, velocity, 0)
        speed[b] = np.linalg.norm(velocity[3:])
    return speed


def _tree_speeds(model: mujoco.MjModel, data: mujoco.MjData, roots: list[int]) -> dict[int, float]:
    """Each root's tree: the speed of its centre of mass (m/s), MuJoCo's `subtree_linvel` (`mj_subtreeVel`). The
    balance of forces is the tree's: a finger still drifting inside a resting robot does not move it (the
    Unitree G1 with hands ends its 1 s run at 0.54 mm/s on MuJoCo 3.14.0 and 0.72 mm/s on 4.0.0, a finger at
    0.92 and 1.27 mm/s: judged by its fastest body, the law ran on one version only)."""
    scratch = copy.copy(data)
    mujoco.mj_subtreeVel(model, scratch)
    return {r: float(np.linalg.norm(scratch.subtree_linvel[r])) for r in roots}


def _contact_force_on(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> np.ndarray:
    """The world-frame sum of the contact forces on `root`'s tree from geoms outside it."""
    tree = int(model.body_treeid[root])
    total, force = np.zeros(3), np.zeros(6)
    for i, contact in enumerate(data.contact[: data.ncon]):
        inside = [int(model.body_treeid[model.geom_bodyid[g]]) == tree for g in (contact.geom1, contact.geom2)]
        if inside[0] == inside[1]:
            continue
        mujoco.mj_contactForce(model, data, i, force)
        # the contact array's own view: on MuJoCo 3.0 one contact's `frame` reads zeros (`pos`, `solref` and
        # `solimp` repeat their first entry), while `data.contact.frame[i]` is right on every release
        world = np.asarray(data.contact.frame[i]).reshape(3, 3).T @ force[:3]  # the force geom1 exerts on geom2
        total += world if inside[1] else -world
    return total


def _medium_force_on(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> np.ndarray:
    """The world-frame force on `root`'s tree of its medium and of actuators that push it from outside:
    buoyancy (`qfrc_gravcomp`), the fluid's force (`qfrc_fluid`) and thrust (`qfrc_actuator`), read at the root's
    free joint, whose translational dofs are the world's axes: on them a generalized force is the sum of the
    forces on the whole tree, and an actuator inside the tree (a joint's, a tendon's between its bodies)
    gives none."""
    dof = _free_dof(model, root)
    return (mujoco_versions.gravcomp_force(model, data) + mujoco_versions.fluid_force(model, data)
            + data.qfrc_actuator)[dof:dof + 3].copy()


def _held_force_on(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> np.ndarray:
    """The world-frame force on `root`'s tree of the constraints that are not contacts (equalities, tendon and
    joint limits, friction loss): their rows' generalized force `efc_J^T efc_force`, read at the root's free
    joint as in `_medium_force_on`; a constraint inside the tree (a joint's limit, a loop closed in it) gives
    none there."""
    rows = np.array([int(k) not in CONTACTS for k in data.efc_type[: data.nefc]], dtype=bool)
    if not np.any(rows):
        return np.zeros(3)
    force = mujoco_versions.constraint_jacobian(model, data)[rows].T @ data.efc_force[: data.nefc][rows]
    return force[_free_dof(model, root):][:3].copy()


def _free_dof(model: mujoco.MjModel, root: int) -> int:
    """The first dof of `root`'s free joint."""
    joints = range(model.body_jntadr[root], model.body_jntadr[root] + model.body_jntnum[root])
    return next(int(model.jnt_dofadr[j]) for j in joints if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE)


def _tree_name(model: mujoco.MjModel, roots: list[int], total: np.ndarray) -> str:
    """The name of the root body whose `total` is farthest from 1."""
    root = roots[int(np.argmax(np.abs(total - 1)))]
    return repr(model.body(root).name or f"body {root}")


def _worst(part: np.ndarray, total: np.ndarray) -> str:
    """`part` of the tree whose `total` is farthest from 1, as a share of its weight."""
    return f"{float(part[int(np.argmax(np.abs(total - 1)))]):.3g} of the weight"


def contact_depths(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(penetration, what it may reach, which geoms) of each contact between geoms that have a thickness (not
    planes or heightfields): the larger of the contact's own solimp width (MuJoCo's mix of its geoms') and SINK
    times the thinner geom's smallest half-extent (from MuJoCo's `geom_aabb`)."""
    keep, thinner = _extent_contacts(model, data)
    n = data.ncon
    a, b = (np.asarray(data.contact.geom1[:n], dtype=int)[keep], np.asarray(data.contact.geom2[:n], dtype=int)[keep])
    depth = np.maximum(-np.asarray(data.contact.dist[:n])[keep], 0.0)
    allowed = np.maximum(np.asarray(data.contact.solimp[:n])[keep, 2], SINK * thinner)
    where = [f"{_geom_name(model, g1)} / {_geom_name(model, g2)}" for g1, g2 in zip(a, b)]
    return depth, allowed, where


def _thinner_extent(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smaller of geoms a's and b's smallest half-extents (MuJoCo's `geom_aabb`), pair by pair; inf where
    neither has an extent (planes, heightfields)."""
    thick = np.where(model.geom_rbound > 0, np.min(model.geom_aabb[:, 3:], axis=1), np.inf)
    return np.minimum(thick[a], thick[b])


def _depths_or_skip(model: mujoco.MjModel, data: mujoco.MjData, when: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`contact_depths` of `data`, or a skip saying `when` there is none to measure."""
    if data.ncon == 0:
        pytest.skip(f"{when}: no contact")
    depth, allowed, where = contact_depths(model, data)
    if not depth.size:
        pytest.skip(f"{when}: the contacts involve only planes and heightfields (no extent)")
    return depth, allowed, where


def _geom_name(model: mujoco.MjModel, geom: int) -> str:
    body = model.body(int(model.geom_bodyid[geom])).name or f"body {model.geom_bodyid[geom]}"
    return f"{body}:{model.geom(geom).name or geom}"


def _normal_force(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """Sum of the contacts' normal forces (`mj_contactForce`, its first component)."""
    force, total = np.zeros(6), 0.0
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, force)
        total += abs(float(force[0]))
    return total


GROUND_TYPES = (int(mujoco.mjtGeom.mjGEOM_PLANE), int(mujoco.mjtGeom.mjGEOM_HFIELD))


def _grounds(model: mujoco.MjModel, planes_only: bool = False) -> np.ndarray:
    """The world body's planes and heightfields (planes only, if asked)."""
    kinds = GROUND_TYPES[:1] if planes_only else GROUND_TYPES
    return np.array([g for g in range(model.ngeom) if model.geom_bodyid[g] == 0 and int(model.geom_type[g]) in kinds],
                    dtype=int)


def _standing_roots(model: mujoco.MjModel) -> list[int]:
    """Roots of trees gravity moves down (`runs.falling_roots`: a free joint, a planar walker's unlimited rootz)
    that are bodies to stand: a robot (a joint besides its free one) or an object
    that collides. A lone free body that collides with nothing is a marker (a goal, a target drawn for the
    eye) and is placed by its program, not by physics."""
    tree_of_geom = model.body_treeid[model.geom_bodyid]
    def standing(root: int) -> bool:
        tree = model.body_treeid[root]
        jointed = np.count_nonzero(model.body_treeid[model.jnt_bodyid] == tree) > 1
        geoms = tree_of_geom == tree
        return bool(jointed or np.any((model.geom_contype[geoms] | model.geom_conaffinity[geoms]) != 0))
    return [r for r in runs.falling_roots(model) if standing(r)]


def ground_planes(model: mujoco.MjModel) -> np.ndarray:
    """The world body's planes: the grounds a height is measured from."""
    return _grounds(model, planes_only=True)


def _has_gravity(model: mujoco.MjModel) -> bool:
    return bool(np.any(model.opt.gravity)) and not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY


def _colliding_pairs(model: mujoco.MjModel) -> int:
    """Pairs of geoms on different bodies that MuJoCo's bit test lets collide, plus the explicit pairs."""
    contype, conaffinity = model.geom_contype, model.geom_conaffinity
    meet = ((contype[:, None] & conaffinity[None, :]) | (conaffinity[:, None] & contype[None, :])) != 0
    meet &= model.geom_bodyid[:, None] != model.geom_bodyid[None, :]
    return int(np.count_nonzero(np.triu(meet, 1))) + int(model.npair)


def _can_collide(model: mujoco.MjModel, geom: int, others: np.ndarray) -> bool:
    """Whether `geom` may collide with one of `others`: MuJoCo's bit test (contype of one meets conaffinity of
    the other), or an explicit contact pair."""
    bits = (model.geom_contype[geom] & model.geom_conaffinity[others]) | (model.geom_conaffinity[geom] & model.geom_contype[others])
    pairs = {(int(a), int(b)) for a, b in zip(model.pair_geom1, model.pair_geom2)}
    return bool(np.any(bits)) or any((geom, int(o)) in pairs or (int(o), geom) in pairs for o in others)


def plane_height(data: mujoco.MjData, plane: int, point: np.ndarray) -> float:
    """Signed distance of `point` from a plane geom along its normal (the geom's z axis)."""
    normal = data.geom_xmat[plane].reshape(3, 3)[:, 2]
    return float((point - data.geom_xpos[plane]) @ normal)


def rest_sinks(model: mujoco.MjModel, pairs: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(sink of a body resting on one contact under gravity, what a resting contact may sink, which geoms) for
    each pair of geoms that can collide (`pairs`, by default `collidable_pairs`) with at least one of them of
    some extent."""
    a, b, solref, solimp = pairs if pairs is not None else collidable_pairs(model)
    thinner = _thinner_extent(model, a, b)
    keep = np.isfinite(thinner)
    if not keep.any():
        return np.zeros(0), np.zeros(0), []
    a, b, solref, solimp, thinner = a[keep], b[keep], solref[keep], solimp[keep], thinner[keep]
    gravity = float(np.linalg.norm(model.opt.gravity))
    floor = 0.0 if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE else 2 * model.opt.timestep
    params, inverse = np.unique(np.hstack([solref, solimp]), axis=0, return_inverse=True)
    sinks = np.array([resting_sink(row[:2], row[2:], gravity, floor) for row in params])
    sink = sinks[np.asarray(inverse).reshape(-1)]
    allowed = np.maximum(solimp[:, 2], SINK * thinner)
    return sink, allowed, _names(model, a, b, int(np.argmax(sink / allowed)))


def _names(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray, worst: int) -> list[str]:
    """Pair names, filled only at `worst` (the one a message names): thousands of pairs are not named."""
    names = [""] * a.size
    names[worst] = f"{_geom_name(model, int(a[worst]))} / {_geom_name(model, int(b[worst]))}"
    return names


def resting_sink(solref: np.ndarray, solimp: np.ndarray, gravity: float, floor: float) -> float:
    """Depth r at which a body resting on one contact is held: MuJoCo's reference acceleration -k d(r) r meets
    what its regularizer R = (1 - d) / d A leaves of gravity, k d(r) r = (1 - d(r)) / d(r) g (mass cancels:
    A = 1 / m for a body on one contact). Standard solref (tau, zeta): k = 1 / (dmax^2 tau^2 zeta^2), tau at
    least `floor` (refsafe); direct (-stiffness, -damping): k = stiffness / dmax^2. Bisection: the left side
    grows with r, the right falls."""
    d0, dmax, width, mid, power = _clamped_solimp(solimp)
    if solref[0] > 0:
        tau = max(float(solref[0]), floor)
        k = 1.0 / (dmax**2 * tau**2 * float(solref[1]) ** 2)
    else:
        k = -float(solref[0]) / dmax**2
    if k <= 0:
        return math.inf
    low, high = 0.0, 1.0
    while k * _impedance(high, d0, dmax, width, mid, power) * high < gravity * (1 - dmax) / dmax and high < 1e6:
        high *= 2
    for _ in range(100):
        r = (low + high) / 2
        d = _impedance(r, d0, dmax, width, mid, power)
        low, high = (low, r) if k * d * r > gravity * (1 - d) / d else (r, high)
    return (low + high) / 2


def _clamped_solimp(solimp: np.ndarray) -> tuple[float, float, float, float, float]:
    """solimp as MuJoCo uses it: d0, dmax in [1e-4, 0.9999], width >= 0, midpoint in (0, 1), power >= 1."""
    d0, dmax = (min(max(float(x), 1e-4), 0.9999) for x in solimp[:2])
    return d0, dmax, max(float(solimp[2]), 0.0), min(max(float(solimp[3]), 1e-4), 1 - 1e-4), max(float(solimp[4]), 1.0)


def _impedance(r: float, d0: float, dmax: float, width: float, mid: float, power: float) -> float:
    """MuJoCo's impedance d(r) at penetration r (documentation, Computation: solimp's sigmoid)."""
    x = r / width if width > 0 else 1.0
    if x >= 1:
        return dmax
    y = x**power / mid ** (power - 1) if x <= mid else 1 - (1 - x) ** power / (1 - mid) ** (power - 1)
    return d0 + y * (dmax - d0)


def collidable_pairs(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(geoms a, geoms b, solref, solimp) of the pairs MuJoCo may collide: explicit <pair>s with their own
    parameters, and pairs whose contype/conaffinity bits meet, on bodies of different welds, not parent and
    child (unless the filter is off or one is the world) and not excluded, with MuJoCo's mix of the two geoms'
    solref and solimp (the higher geom_priority's own; else weighted by solmix; a direct solref: the smaller of
    each). The override flag replaces them all with o_solref and o_solimp."""
    contype, conaffinity = model.geom_contype, model.geom_conaffinity
    meet = ((contype[:, None] & conaffinity[None, :]) | (conaffinity[:, None] & contype[None, :])) != 0
    weld = model.body_weldid[model.geom_bodyid]
    parent = model.body_weldid[model.body_parentid[weld]]
    meet &= weld[:, None] != weld[None, :]
    if not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT:
        kin = (weld[:, None] == parent[None, :]) | (parent[:, None] == weld[None, :])
        meet &= ~(kin & (weld[:, None] != 0) & (weld[None, :] != 0))
    body = model.geom_bodyid
    for signature in model.exclude_signature:
        b1, b2 = int(signature) >> 16, int(signature) & 0xFFFF
        meet &= ~(((body[:, None] == b1) & (body[None, :] == b2)) | ((body[:, None] == b2) & (body[None, :] == b1)))
    a, b = np.nonzero(np.triu(meet, 1))
    solref, solimp = _mixed(model, a, b)
    a, b = np.concatenate([model.pair_geom1, a]).astype(int), np.concatenate([model.pair_geom2, b]).astype(int)
    solref = np.vstack([model.pair_solref.reshape(-1, 2), solref])
    solimp = np.vstack([model.pair_solimp.reshape(-1, 5), solimp])
    if model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_OVERRIDE:
        solref, solimp = np.tile(model.opt.o_solref, (a.size, 1)), np.tile(model.opt.o_solimp, (a.size, 1))
    return a, b, solref, solimp


def _mixed(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's contact parameters of geom pairs (a, b): the higher priority's own, else mixed by solmix."""
    m1, m2 = model.geom_solmix[a], model.geom_solmix[b]
    total = m1 + m2
    mix = np.where(total < 1e-15, 0.5, m1 / np.where(total < 1e-15, 1.0, total))
    p1, p2 = model.geom_priority[a], model.geom_priority[b]
    mix = np.where(p1 > p2, 1.0, np.where(p2 > p1, 0.0, mix))
    r1, r2 = model.geom_solref[a], model.geom_solref[b]
    standard = (r1[:, 0] > 0) & (r2[:, 0] > 0)
    solref = np.where(standard[:, None], mix[:, None] * r1 + (1 - mix[:, None]) * r2, np.minimum(r1, r2))
    solimp = mix[:, None] * model.geom_solimp[a] + (1 - mix[:, None]) * model.geom_solimp[b]
    return solref, solimp
