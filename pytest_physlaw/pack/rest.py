"""Laws of the settled pose: where the model comes to rest, what carries it there and how deep its
contacts sink. Sources: statics (a body at rest is carried by the forces on it: their sum equals its
weight), MuJoCo's documentation ("Computation": soft contacts; `mj_contactForce`).

From the settled run (the model's own controls, from its starting pose, over the horizon).
The pose figures (how far each body sagged, the model's centre of mass, how far the servos stand off
their targets) are recorded for the gate: a servo-held arm's sag is its load over its gains, and moves
with either.

Measured:
`pytest --physlaw-model=MODEL.xml -k "pose or contact" -s`; see README ("Your own model").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import runs

SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"
REST_SPEED = 1e-3  # m/s: every body's centre of mass slower than this at the end is at rest
LOAD = 0.02  # of the weight: a tree at rest to REST_SPEED over the last tenth is carried to 2 %
SINK = 0.5  # of the thinner geom's bounding radius: a contact deeper than that is about to pass through


@pytest.mark.law("model-settled-pose", source=SOURCE)
def test_settled_pose(law, pack_model, settled, model_case) -> None:
    """Where the model settles from its starting pose: each body's sag (how far it moved from the start)
    and the height of the model's centre of mass, recorded for the gate; the settled run ends at rest or
    the law says which body still moves and how fast."""
    model, first, final = pack_model.model, settled.first, settled.final
    sag = 1000 * np.linalg.norm(final.xipos[1:] - first.xipos[1:], axis=1)
    law.check("sag_max_mm", float(np.max(sag)), ge=0, unit="mm", drift_abs=1e-6,
              why="the farthest any body's centre of mass moved from the start, recorded for the gate")
    law.check("sag_rms_mm", float(np.sqrt(np.mean(sag**2))), ge=0, unit="mm", drift_abs=1e-6,
              why="root mean square over the bodies of the same, recorded for the gate")
    law.check("com_shift_mm", 1000 * float(np.linalg.norm(final.subtree_com[0] - first.subtree_com[0])), ge=0,
              unit="mm", drift_abs=1e-6, why="the whole model's centre of mass, end against start, recorded")
    servo = np.flatnonzero(model.actuator_biasprm[:, 1] < 0)  # a position feedback -kp: the force is kp x error
    if servo.size:
        error = final.actuator_force[servo] / -model.actuator_biasprm[servo, 1]
        law.check("servo_error_rms", float(np.sqrt(np.mean(error**2))), ge=0, drift_abs=1e-12,
                  why="how far the servos stand off their targets at the end (force / kp: load over gain), "
                      "root mean square, recorded for the gate")
    speed = _speeds(model, final)
    law.check("end_speed", float(np.max(speed)), ge=0, unit="m/s", drift_abs=1e-9,
              why=f"fastest body at the end (at rest below {REST_SPEED} m/s), recorded for the gate")


@pytest.mark.law("model-figures", source="the model file")
def test_model_figures(law, pack_model, settled, model_case) -> None:
    """The model's own figures, for the gate to see them move: total mass, nv, nefc after settling and
    the settled pose's drift (the farthest any body moved over the last tenth of the run)."""
    model = pack_model.model
    law.check("total_mass", float(np.sum(model.body_mass)), gt=0, unit="kg", drift_abs=1e-12, why="a model with mass")
    law.check("nv", int(model.nv), ge=1, why="degrees of freedom: a movable body exists")
    law.check("nefc", settled.nefc, ge=0, drift_abs=0.5, why="constraint rows after settling")
    tail = max(1, settled.steps // 10)
    moved = np.linalg.norm(settled.xpos[-1] - settled.xpos[-1 - tail], axis=1)
    law.check("drift_mm", 1000 * float(np.max(moved)), ge=0, unit="mm", drift_abs=1e-6,
              why=f"over the last {tail} of {settled.steps} steps")


@pytest.mark.law("model-contact-carries-weight", source=SOURCE)
def test_contacts_carry_a_resting_floating_base(law, pack_model, settled, model_case) -> None:
    """A floating base at rest stands on its contacts and its medium: the contact forces on its tree from
    anything outside it (`mj_contactForce`), with its buoyancy (MuJoCo models it as gravity compensation,
    `gravcomp`) and the fluid's forces, carry its weight, within 2 %. A tree also held by a tendon, an
    equality or an applied force fails, and the message says how much the contacts carry. A model that
    turns gravity off (its option flag) has no weight to carry."""
    model, final = pack_model.model, settled.final
    roots = runs.floating_roots(model)
    if not roots:
        pytest.skip(f"{model_case}: no floating base (no tree whose root joint is free): its weight goes "
                    "through its joints, not its contacts")
    speed = _speeds(model, final)
    tree_speed = {r: float(np.max(speed[model.body_rootid == r])) for r in roots}
    resting = [r for r in roots if tree_speed[r] < REST_SPEED]
    if not resting:
        fastest = max(roots, key=tree_speed.get)
        pytest.skip(f"{model_case}: no floating base at rest at the end of the run (body "
                    f"{model.body(fastest).name!r}'s tree moves at {tree_speed[fastest]:.3g} m/s)")
    gravity = float(np.linalg.norm(model.opt.gravity))
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY or gravity == 0:
        pytest.skip(f"{model_case}: the model has no gravity (its <option gravity> is zero or its flag turns "
                    "gravity off): nothing to carry")
    up = -model.opt.gravity / gravity
    weights = np.array([model.body_subtreemass[r] * gravity for r in resting])
    contact = np.array([float(_contact_force_on(model, final, r) @ up) for r in resting]) / weights
    medium = np.array([float(_medium_force_on(model, final, r) @ up) for r in resting]) / weights
    law.check("load_over_weight", contact + medium, near=1.0, abs=LOAD,
              why=f"contact force (worst tree: {_worst(contact, contact + medium)}) and buoyancy and fluid forces "
                  f"({_worst(medium, contact + medium)}) along gravity's opposite over the tree's weight, trees at rest")


@pytest.mark.law("model-contact-depth", source=SOURCE)
def test_resting_contacts_sink_less_than_the_geoms(law, pack_model, settled, model_case) -> None:
    """At the end of the settled run no contact sinks deeper than the compliance it was given (its solimp
    width, over which MuJoCo's impedance rises: a rubber foot's design) or half the thinner geom's
    bounding radius, whichever is more: deeper, the geom's centre nears the other surface, where the
    contact normal and the geom's side flip."""
    model, final = pack_model.model, settled.final
    if final.ncon == 0:
        pytest.skip(f"{model_case}: no contact at the end of the run")
    depth, allowed = _contact_depths(model, final)
    if not depth.size:
        pytest.skip(f"{model_case}: contacts at the end involve only planes and heightfields (no radius)")
    law.check("depth_over_allowed", depth / allowed, le=1.0, drift_abs=1e-6,
              why="penetration over the larger of the contact's solimp width and half the thinner geom's bounding "
                  "radius; if it fails, stiffen those geoms' contact (a shorter solref time constant, a solimp "
                  "nearer 1) or accept the finding")
    law.check("depth_mm", 1000 * float(np.max(depth)), ge=0, unit="mm", drift_abs=1e-6,
              why="deepest contact at rest, recorded for the gate (solref, solimp, mass and gravity move it)")


# -- measurements ------------------------------------------------------------------------------------

def _speeds(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Each body's centre-of-mass speed (m/s), from MuJoCo's `mj_objectVelocity`; the world's is 0."""
    speed = np.zeros(model.nbody)
    velocity = np.zeros(6)  # angular, then linear, world frame, at the body's centre of mass
    for b in range(1, model.nbody):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, b, velocity, 0)
        speed[b] = np.linalg.norm(velocity[3:])
    return speed


def _contact_force_on(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> np.ndarray:
    """The world-frame sum of the contact forces on `root`'s tree from geoms outside it."""
    tree = int(model.body_treeid[root])
    total, force = np.zeros(3), np.zeros(6)
    for i, contact in enumerate(data.contact[: data.ncon]):
        inside = [int(model.body_treeid[model.geom_bodyid[g]]) == tree for g in (contact.geom1, contact.geom2)]
        if inside[0] == inside[1]:
            continue
        mujoco.mj_contactForce(model, data, i, force)
        world = contact.frame.reshape(3, 3).T @ force[:3]  # the force geom1 exerts on geom2
        total += world if inside[1] else -world
    return total


def _medium_force_on(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> np.ndarray:
    """The world-frame force of the medium on `root`'s tree: buoyancy (`qfrc_gravcomp`) and the fluid's force
    (`qfrc_fluid`), read at the root's free joint, whose translational dofs are the world's axes: on them a
    generalized force is the sum of the forces on the whole tree."""
    joints = range(model.body_jntadr[root], model.body_jntadr[root] + model.body_jntnum[root])
    dof = next(int(model.jnt_dofadr[j]) for j in joints if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE)
    return (data.qfrc_gravcomp + data.qfrc_fluid)[dof:dof + 3].copy()


def _worst(part: np.ndarray, total: np.ndarray) -> str:
    """`part` of the tree whose `total` is farthest from 1, as a share of its weight."""
    return f"{float(part[int(np.argmax(np.abs(total - 1)))]):.3g} of the weight"


def _contact_depths(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(penetration, what it may reach) of each contact between geoms that have a radius: the larger of the
    contact's own solimp width (MuJoCo's mix of its geoms') and SINK times the thinner geom's bounding radius."""
    depth, allowed = [], []
    for c in data.contact[: data.ncon]:
        radii = [model.geom_rbound[g] for g in (c.geom1, c.geom2) if model.geom_rbound[g] > 0]
        if radii:
            depth.append(max(-float(c.dist), 0.0))
            allowed.append(max(float(c.solimp[2]), SINK * float(min(radii))))
    return np.array(depth), np.array(allowed)
