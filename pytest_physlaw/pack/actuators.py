"""Laws of the model's actuators: they can hold the starting pose against gravity. Sources: statics (a
pose is held when the actuators' generalized force can equal what gravity and the springs ask),
MuJoCo's documentation ("Modeling": actuators, ctrlrange and forcerange; `qfrc_bias`, `actuator_moment`).

At the starting pose at rest, the generalized force to hold it is `qfrc_bias - qfrc_passive` (gravity
less the springs). Each actuator's force range at that pose: a servo (a bias that depends on its
length or velocity: position, velocity, general affine) has its `forcerange`, or no limit when it has
none (it holds any load, off its target by load / kp); any other is what MuJoCo computes at either end
of its control range (`actuator_force`, gains and forcerange clamp included); mapped through
its moment arms it bounds what the actuators can give each joint, each joint alone. Left out: joints
of a floating tree (standing on contacts, their load is not gravity's alone: model-contact-carries-weight
reads it), joints resting on a limit that gravity pushes them into (the limit carries them), and joints
an equality constraint ties to others (the equality carries part of their load).

Measured:
`pytest --physlaw-model=MODEL.xml -k authority -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import runs
from pytest_physlaw.pack.ground import ground_planes, plane_height

SOURCE = "statics; MuJoCo documentation, Modeling: actuators (ctrlrange, forcerange, gains)"
NEGLIGIBLE = 1e-6  # of the largest holding force: a joint that needs less needs nothing
LIMIT_REACH = 1e-6  # of a joint's range: within this of an end, the joint rests on its limit


@pytest.mark.law("model-actuator-authority", source=SOURCE)
def test_actuators_can_hold_the_start_pose(law, pack_model, settings, model_case) -> None:
    """At the starting pose, every actuated joint of a fixed-base tree needs at most what its actuators
    can give it inside their control and force ranges to hold the pose against gravity: a load over
    authority above 1 is a pose the robot cannot hold (a weak actuator, a heavy link, a wrong gear)."""
    model = pack_model.model
    if model.nu == 0:
        pytest.skip(f"{model_case}: the model has no actuator")
    data, need, low, high = _holding(model, settings.keyframe)
    free = _fixed_base_dofs(model) & ~_on_a_limit(model, data, need) & ~_tied(model)
    actuated = free & ((low != 0) | (high != 0)) & np.isfinite(low) & np.isfinite(high)
    scale = float(np.max(np.abs(need[actuated]))) if actuated.any() else 0.0
    loaded = actuated & (np.abs(need) > NEGLIGIBLE * scale) if scale > 0 else np.zeros_like(actuated)
    if not loaded.any():
        pytest.skip(f"{model_case}: no joint of a fixed-base tree that a force-limited actuator drives carries a "
                    "load at the start pose (a servo without forcerange holds any load)")
    reach = np.where(need[loaded] > 0, high[loaded], -low[loaded])  # what the actuators give that way
    ratio = np.where(reach > 0, np.abs(need[loaded]) / np.where(reach > 0, reach, 1.0), np.inf)
    names = [_dof_name(model, d) for d in np.flatnonzero(loaded)]
    worst = int(np.argmax(ratio))
    law.check("load_over_authority", ratio, le=1.0, drift_abs=1e-9,
              why=f"holding force over what the actuators can give, per joint; worst {names[worst]!r} "
                  f"needs {abs(need[loaded][worst]):.3g} of {reach[worst]:.3g}")


@pytest.mark.law("model-servo-sag", source=SOURCE + "; Hooke's law of a servo (force = kp x error)")
def test_servo_sag_stays_off_the_limits(law, pack_model, linearized, settings, model_case) -> None:
    """A joint of a fixed-base tree that a position servo holds, with the starting controls, sags under the
    robot's weight by its load over its stiffness from where the actuators alone would put it (each joint
    alone: the load is what gravity and the springs ask at the start pose, the stiffness MuJoCo's own, the
    servo's kp through its moment arm with the joint's springs, linearized); the sag stays inside the room
    the joint has to the limit it sags toward. Farther, the joint comes to rest on its limit: the limit holds
    the pose, not the servo (a gain or a gear off by a factor, too weak for the links).

    Measured (`pytest --physlaw-model=MODEL.xml -k sag -s`): on the sound zoo models at most 0.19 of the room
    (Allegro's ffj1, Gymnasium's Franka kitchen); gains and servo biases x0.05: Shadow hand 2.1, LEAP hand 1.6,
    Allegro 3.7 (fingers resting on their stops), ALOHA 0.999, Panda 0.084, Gen3 0.15 (they sag, off the stops)."""
    model = pack_model.model
    dofs = _servo_dofs(model)
    if not dofs.any():
        pytest.skip(f"{model_case}: no joint of a fixed-base tree that a position servo drives")
    data = runs.start(model, settings.keyframe)
    data.qvel[:] = 0
    mujoco.mj_forward(model, data)
    load = data.qfrc_bias - data.qfrc_passive  # what the actuators must give to hold the pose
    stiffness = np.diag(linearized.stiffness)
    checked = dofs & ~_on_a_limit(model, data, load) & ~_tied(model) & (stiffness > 0)
    sag, room, names = [], [], []
    for d in np.flatnonzero(checked):
        joint = int(model.dof_jntid[d])
        if not model.jnt_limited[joint] or int(model.jnt_type[joint]) not in (int(mujoco.mjtJoint.mjJNT_HINGE),
                                                                              int(mujoco.mjtJoint.mjJNT_SLIDE)):
            continue
        (low, high), k = model.jnt_range[joint], float(stiffness[d])
        rest = float(data.qpos[model.jnt_qposadr[joint]]) + float(data.qfrc_actuator[d]) / k  # unloaded, as commanded
        if not low <= rest <= high:
            continue  # commanded onto its limit (a grasp, a stop): the command holds it there, not the weight
        move = -float(load[d]) / k  # the servo answers the load with -K dq
        sag.append(abs(move))
        room.append(high - rest if move > 0 else rest - low)
        names.append(_dof_name(model, d))
    if not sag:
        pytest.skip(f"{model_case}: no servo-held joint with a range to sag into (limited hinge or slide, not tied, "
                    "not resting on a limit)")
    sag_, room_ = np.array(sag), np.array(room)
    ratio = np.where(room_ > 0, sag_ / np.where(room_ > 0, room_, 1.0), np.where(sag_ > 0, np.inf, 0.0))
    worst = int(np.argmax(ratio))
    law.check("sag_over_room", ratio, le=1.0, drift_abs=1e-9,
              why=f"each servo-held joint's sag under the start's load (load / stiffness) over its room to the limit "
                  f"it sags toward, from where the starting controls alone put it; worst {names[worst]!r}: {sag_[worst]:.3g} of {room_[worst]:.3g}; if it fails, "
                  "raise that servo's kp (or check its gear)")


@pytest.mark.law("model-stands", source=SOURCE + "; statics of a robot on its legs")
def test_servos_hold_a_standing_robot_up(law, pack_model, settings, horizon, model_case) -> None:
    """A floating robot whose every joint a position servo holds stands on its own: with each servo's target
    at the starting pose, over the run its centre of mass stays above half its starting height over the
    ground. Lower, its legs have folded and it lies on the floor: servos too weak for its weight (a gain
    or a gear off by a factor), not a pose it holds."""
    model = pack_model.model
    roots, planes = _held_roots(model), ground_planes(model)
    if not roots or not planes.size:
        pytest.skip(f"{model_case}: no floating robot whose every joint a position servo holds, over a ground plane"
                    if planes.size else f"{model_case}: no ground plane")
    first, final = runs.held(model, horizon, settings.keyframe)
    height = lambda data, r: min(plane_height(data, p, data.subtree_com[r]) for p in planes)  # noqa: E731
    start = np.array([height(first, r) for r in roots])
    standing = [r for r, h in zip(roots, start) if h > 0]
    if not standing:
        pytest.skip(f"{model_case}: no servo-held floating robot starts above the ground")
    kept = np.array([height(final, r) / height(first, r) for r in standing])
    worst = int(np.argmin(kept))
    law.check("height_kept", kept, ge=0.5, drift_abs=1e-9,
              why=f"centre-of-mass height over the ground at the end over the start's, servos targeting the start "
                  f"pose; lowest {model.body(standing[worst]).name!r} ({kept[worst]:.3g}): below 1/2 it has folded; "
                  "raise the servos' kp (and their forcerange) or check their gear")


# -- measurements ------------------------------------------------------------------------------------

def _held_roots(model: mujoco.MjModel) -> list[int]:
    """Floating roots of trees with at least one hinge or slide, each driven by a position servo of its own."""
    trnid, trntype = (mujoco_versions.per_control(model, f) for f in ("actuator_trnid", "actuator_trntype"))
    held = {int(trnid[a, 0]) for a in runs.servos(model)
            if int(trntype[a]) in (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT))}
    out = []
    for r in runs.floating_roots(model):
        joints = [j for j in range(model.njnt) if model.body_treeid[model.jnt_bodyid[j]] == model.body_treeid[r]
                  and int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]
        if joints and all(j in held for j in joints):
            out.append(r)
    return out


def _holding(model: mujoco.MjModel, keyframe: str) -> tuple[mujoco.MjData, np.ndarray, np.ndarray, np.ndarray]:
    """(the start at rest, the generalized force that holds it, the least and the most the actuators give
    each dof there), from MuJoCo's `qfrc_bias`, `qfrc_passive`, `actuator_force` and `actuator_moment`."""
    data = runs.start(model, keyframe)
    data.qvel[:] = 0
    mujoco.mj_forward(model, data)
    need = data.qfrc_bias - data.qfrc_passive
    forces = []  # each actuator's least and most force
    for ends in _control_ends(model):  # each actuator's force at either end of its ctrlrange (activation there too)
        trial = copy.copy(data)
        trial.ctrl[:] = ends
        if model.na:
            trial.act[:] = _act_at(model, trial.ctrl)
        mujoco.mj_forward(model, trial)
        forces.append(trial.actuator_force.copy())
    per = lambda name: mujoco_versions.per_control(model, name)  # noqa: E731 (an actuator's row per control)
    servo = np.any(per("actuator_biasprm")[:, 1:3] != 0, axis=1)  # a bias that follows length or velocity
    limited = per("actuator_forcelimited").astype(bool)
    for end, unlimited in ((0, -np.inf), (1, np.inf)):
        forces[end] = np.where(servo, np.where(limited, per("actuator_forcerange")[:, end], unlimited), forces[end])
    moment = runs.moments(model, data)
    with np.errstate(invalid="ignore"):  # 0 * inf: no moment arm on that dof, no force there
        per_actuator = np.nan_to_num(np.stack([moment * forces[0][:, None], moment * forces[1][:, None]]), nan=0.0, posinf=np.inf, neginf=-np.inf)
    return data, need, per_actuator.min(axis=0).sum(axis=0), per_actuator.max(axis=0).sum(axis=0)


def _control_ends(model: mujoco.MjModel) -> np.ndarray:
    """Each actuator's control range (2 x nu); [-1, 1] where it is not limited."""
    limited = model.actuator_ctrllimited.astype(bool)
    return np.where(limited, model.actuator_ctrlrange.T, np.array([[-1.0], [1.0]]))


def _act_at(model: mujoco.MjModel, ctrl: np.ndarray) -> np.ndarray:
    """Activations at the steady state of each stateful actuator's control (a filter's or integrator's)."""
    act = np.zeros(model.na)
    actadr, actnum = (mujoco_versions.per_control(model, f) for f in ("actuator_actadr", "actuator_actnum"))
    for i in range(model.nu):
        adr, num = int(actadr[i]), int(actnum[i])
        if adr >= 0 and num:
            act[adr:adr + num] = ctrl[i]
    return act


def _fixed_base_dofs(model: mujoco.MjModel) -> np.ndarray:
    """Whether each dof belongs to a tree whose root is fixed to the world (no free joint at its root)."""
    floating = {int(model.body_treeid[r]) for r in runs.floating_roots(model)}
    return np.array([int(model.body_treeid[model.dof_bodyid[d]]) not in floating for d in range(model.nv)])


def _on_a_limit(model: mujoco.MjModel, data: mujoco.MjData, need: np.ndarray) -> np.ndarray:
    """Whether each dof is a limited hinge or slide at an end of its range that `need` pushes it into."""
    out = np.zeros(model.nv, dtype=bool)
    for j in range(model.njnt):
        if not model.jnt_limited[j] or int(model.jnt_type[j]) not in (int(mujoco.mjtJoint.mjJNT_HINGE),
                                                                       int(mujoco.mjtJoint.mjJNT_SLIDE)):
            continue
        q, (low, high), d = data.qpos[model.jnt_qposadr[j]], model.jnt_range[j], model.jnt_dofadr[j]
        reach = LIMIT_REACH * max(high - low, 1e-12)
        out[d] = (q <= low + reach and need[d] > 0) or (q >= high - reach and need[d] < 0)
    return out


def _tied(model: mujoco.MjModel) -> np.ndarray:
    """Whether each dof's joint is tied to others by an equality active at the start: a joint or tendon
    equality names it, or a connect or weld holds a body of its tree."""
    tied = np.zeros(model.nv, dtype=bool)
    kinds = mujoco.mjtEq
    for e in range(model.neq):
        if not model.eq_active0[e]:
            continue
        kind, a, b = int(model.eq_type[e]), int(model.eq_obj1id[e]), int(model.eq_obj2id[e])
        if kind == int(kinds.mjEQ_JOINT):
            joints = [j for j in (a, b) if j >= 0]
        elif kind == int(kinds.mjEQ_TENDON):
            joints = [int(model.wrap_objid[w]) for t in (a, b) if t >= 0
                      for w in range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t])
                      if int(model.wrap_type[w]) == int(mujoco.mjtWrap.mjWRAP_JOINT)]
        else:  # connect, weld, flex: every dof of the trees of the bodies it holds
            trees = {int(model.body_treeid[x]) for x in (a, b) if 0 < x < model.nbody}
            tied |= np.isin(model.body_treeid[model.dof_bodyid], list(trees))
            continue
        for j in joints:
            tied[np.asarray(model.dof_jntid) == j] = True
    return tied


def _dof_name(model: mujoco.MjModel, dof: int) -> str:
    joint = int(model.dof_jntid[dof])
    return model.joint(joint).name or f"joint {joint}"


def _servo_dofs(model: mujoco.MjModel) -> np.ndarray:
    """Whether each dof of a fixed-base tree has a moment arm from a position servo (`runs.servos`)."""
    out = np.zeros(model.nv, dtype=bool)
    servo = runs.servos(model)
    if not servo.size:
        return out
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    moment = runs.moments(model, data)
    return np.any(moment[servo] != 0, axis=0) & _fixed_base_dofs(model)
