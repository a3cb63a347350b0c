"""Laws of the settled pose: where the model comes to rest, what carries it there and whether it touches what
carries it. Sources: statics (a body at rest is carried by the forces on it: their sum equals its weight),
MuJoCo's documentation ("Computation": soft contacts; `mj_contactForce`), its XML reference (geom/margin, gap).

From the settled run (the model's own controls, from its starting pose, over the horizon).
The pose figures (how far each body sagged, the model's centre of mass, how far the servos stand off
their targets) are recorded for the gate: a servo-held arm's sag is its load over its gains, and moves
with either.

Measured:
`pytest --physlaw-model=MODEL.xml -k "pose or carries or touch" -s`; see docs/checking-a-model.md ("The laws, and what a finding means")."""

from __future__ import annotations

import copy
import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import roundoff, runs
from pytest_physlaw.pack.contacts import extent_contacts, geom_name, side_bodies
from pytest_physlaw.pack.ground import has_gravity
from pytest_physlaw.pack.wrenches import CONTACTS


SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"
REST_SPEED = 1e-3  # m/s: a floating tree whose centre of mass is slower than this at the end is at rest
LOAD = 0.02  # of the weight: a tree at rest to REST_SPEED is carried to 2 %
CARRYING = 1e-3  # of the model's weight: a contact pressing less than this carries nothing
TOUCHING, TOUCHING_MM = 0.1, 3.0  # of the thinner geom's smallest half-extent, or mm: geoms this close touch (to the eye)


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
    bias = mujoco_versions.per_control(model, "actuator_biasprm")
    servo = np.flatnonzero(bias[:, 1] < 0)  # a position feedback -kp: the force is kp x error
    if servo.size:
        error = final.actuator_force[servo] / -bias[servo, 1]
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
    if not has_gravity(model):
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
    if not has_gravity(model):
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
    for i, thinner in zip(*extent_contacts(model, data)):
        contact = data.contact[int(i)]
        mujoco.mj_contactForce(model, data, int(i), force)
        if force[0] <= CARRYING * weight:
            continue
        hover.append(max(float(contact.dist), 0.0))
        allowed.append(max(TOUCHING_MM / 1000, TOUCHING * float(thinner)))
        where.append(f"{geom_name(model, contact.geom1)} / {geom_name(model, contact.geom2)}")
        margin.append(float(contact.includemargin))
    return np.array(hover), np.array(allowed), where, np.array(margin)


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
        # a flex's side has no geom (-1): its vertices' bodies say which tree it is in
        inside = [any(int(model.body_treeid[b]) == tree for b in side) for side in side_bodies(model, data, i)]
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


def _flex_bodies(model: mujoco.MjModel, flex: int) -> np.ndarray:
    """The bodies that carry a flex's mass: its vertices' or, interpolated, its nodes' (`flex_nodebodyid`, 3.3 on)."""
    ids = [np.asarray(model.flex_vertbodyid)[model.flex_vertadr[flex]:model.flex_vertadr[flex] + model.flex_vertnum[flex]]]
    if hasattr(model, "flex_nodebodyid") and int(model.flex_nodenum[flex]):
        ids.append(np.asarray(model.flex_nodebodyid)[model.flex_nodeadr[flex]:model.flex_nodeadr[flex]
                                                     + model.flex_nodenum[flex]])
    return np.unique(np.concatenate(ids)).astype(int)


def _flex_held_elsewhere(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> str | None:
    """Why a flex's weight may go through something besides its contacts, or None: a pinned vertex (a body with no
    dof), a vertex on fewer than three slides (radial dofs: the flex's centre is its parent's), an actuator, an
    equality other than the flex's own, gravity compensation, a fluid, a tendon."""
    if np.any(np.asarray(model.body_dofnum)[bodies] == 0):
        return "a pinned vertex (a body without a dof)"
    if np.any(np.asarray(model.body_dofnum)[bodies] < 3):
        return "a vertex on fewer than three slides (radial dofs: the flex's parent holds its centre)"
    dofs = np.concatenate([np.arange(model.body_dofadr[b], model.body_dofadr[b] + model.body_dofnum[b]) for b in bodies])
    trees = {int(model.body_treeid[b]) for b in bodies}
    if model.nu and np.any(mujoco_versions.actuator_moments(model, data)[:, dofs] != 0):
        return "an actuator"
    flex_eq = int(getattr(mujoco.mjtEq, "mjEQ_FLEX", -1))
    if any(int(model.eq_type[e]) != flex_eq and trees & runs.equality_trees(model, e) for e in range(model.neq)):
        return "an equality constraint"
    if np.any(np.asarray(getattr(model, "body_gravcomp", np.zeros(model.nbody)))[bodies] != 0):
        return "gravity compensation"
    if model.opt.density or model.opt.viscosity:
        return "a fluid"
    if any(trees & runs.tendon_trees(model, k) for k in range(model.ntendon)):
        return "a tendon"
    return None


def _flex_contact_force(model: mujoco.MjModel, data: mujoco.MjData, flex: int) -> np.ndarray:
    """The world-frame sum of the contact forces on `flex` from anything outside it (`mj_contactForce`)."""
    sides, total, force = mujoco_versions.contact_flexes(data), np.zeros(3), np.zeros(6)
    for i in range(data.ncon):
        inside = [int(s) == flex for s in sides[i]]
        if inside[0] == inside[1]:
            continue
        mujoco.mj_contactForce(model, data, i, force)
        world = np.asarray(data.contact.frame[i]).reshape(3, 3).T @ force[:3]  # the force side 1 exerts on side 2
        total += world if inside[1] else -world
    return total


@pytest.mark.law("model-flex-contact-carries-weight", source=SOURCE)
def test_contacts_carry_a_resting_flex(law, pack_model, settled, model_case) -> None:
    """A soft body at rest on its contacts alone (a flex with no pinned vertex, actuator, equality, tendon, buoyancy or
    fluid) is carried by them: the contact forces on it from outside it (`mj_contactForce`, each contact's own frame)
    sum to its weight (its vertices' or nodes' masses), within 2 %. The contact forces are the solver's, in contact
    space; the weight is the bodies' mass: a contact Jacobian that spreads a contact's force over the flex with weights
    that do not sum to one carries the flex with more or less force than it weighs (MuJoCo 3.16.0 to 3.17.0 dropped
    a quadratic flex's nodes with negative weights: a jelly block carried at 0.91 of its weight, round 8's
    mujoco-9fb4eca4, not blind)."""
    model, final = pack_model.model, settled.final
    if not model.nflex:
        pytest.skip(f"{model_case}: the model has no flex")
    if not has_gravity(model):
        pytest.skip(f"{model_case}: the model has no gravity: nothing to carry")
    gravity = float(np.linalg.norm(model.opt.gravity))
    up = -np.asarray(model.opt.gravity) / gravity
    judged, left_out = [], []
    for f in range(model.nflex):
        bodies = _flex_bodies(model, f)
        bodies = bodies[bodies > 0]
        why = _flex_held_elsewhere(model, final, bodies) if bodies.size else "no body of its own"
        speed = float(np.max(np.abs(np.concatenate([final.qvel[model.body_dofadr[b]:model.body_dofadr[b]
                                                                 + model.body_dofnum[b]] for b in bodies])),
                             initial=0.0)) if not why else 0.0
        why = why or (f"not at rest ({speed:.3g} m/s)" if speed >= REST_SPEED else None)
        if why:
            left_out.append(f"flex {f}: {why}")
            continue
        weight = float(np.sum(np.asarray(model.body_mass)[bodies])) * gravity
        judged.append((f, float(_flex_contact_force(model, final, f) @ up) / weight))
    if not judged:
        pytest.skip(f"{model_case}: no flex at rest on its contacts alone ({'; '.join(left_out)})")
    f, worst = max(judged, key=lambda item: abs(item[1] - 1))
    law.check("flex_load_over_weight", [share for _, share in judged], near=1.0, abs=LOAD,
              why=f"the contact forces on each flex at rest along gravity's opposite over its weight; worst flex "
                  f"{mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_FLEX, f) or f}: {worst:.4g}"
                  + (f"; left out: {'; '.join(left_out)}" if left_out else "") +
                  f"; failing, MuJoCo {mujoco.__version__}'s flex contacts carry the flex with another force than "
                  "its weight: their Jacobian does not spread a contact's force over the flex as its mass lies (an "
                  "engine defect); report it, or change MuJoCo version")
