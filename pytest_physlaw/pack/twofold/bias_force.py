"""The bias force is its bodies' inertial and gravity forces: at any state MuJoCo's `qfrc_bias` (its recursive
Newton-Euler pass with zero joint accelerations, `mj_rne`, plus a tendon armature's term) equals, summed over the
bodies through their centre-of-mass Jacobians, what each body needs to follow its motion at constant joint
velocities and to hold against gravity: Jp^T m (a - g) + Jr^T (I alpha + w x I w), where a = dJp/dt qvel and alpha =
dJr/dt qvel are measured as the rates of the body's velocities along qvel (central differences, `twofold.rates`),
plus each tendon's armature times ten_J^T d(ten_J qvel)/dt. The Coriolis, centrifugal and gyroscopic forces computed
a second way, from the poses alone. Source: Featherstone, Rigid Body Dynamics Algorithms (the bias force of the
equations of motion); MuJoCo's documentation (Computation: qfrc_bias; XML reference: tendon armature's bias term).

Bound: 10 x (the differences' own error carried through the sum, |Jp|^T m |da| + |Jr|^T (|I| |dalpha|), plus 100
(nbody + nv) eps of the terms' magnitudes with each body's lever arms from its tree's centre of mass, where MuJoCo's
pass holds them). States: those of `twofold_states` that move (the start, middle and end above 200 dofs).

Measured figures and commands: docs/second-computations.md ("The bias force is its bodies' inertial forces").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import rates, states
from pytest_physlaw.pack.twofold.body_inertias import armatures, world_inertia

SOURCE = ("Featherstone, Rigid Body Dynamics Algorithms (bias force); MuJoCo documentation (Computation: qfrc_bias; "
          "XML reference: tendon armature)")
EPS = float(np.finfo(float).eps)
C = 10.0
ULPS = 100.0
DSBL = mujoco.mjtDisableBit


def velocities(model: mujoco.MjModel, data: mujoco.MjData, qvel: np.ndarray) -> np.ndarray:
    """Each body's centre-of-mass velocity and angular velocity, then each tendon's, at `data`'s position (MuJoCo's
    own position passes) for the joint velocities `qvel`: the quantity whose rate along qvel is the acceleration at
    constant joint velocities."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    out = np.zeros((model.nbody, 2, 3))
    for b in range(1, model.nbody):
        mujoco.mj_jacBodyCom(model, data, jacp, jacr, b)
        out[b] = jacp @ qvel, jacr @ qvel
    lengths = np.zeros(0)
    if model.ntendon:
        mujoco.mj_tendon(model, data)
        lengths = mujoco_versions.tendon_jacobian(model, data) @ qvel
    return np.concatenate([out.ravel(), lengths])


def summed(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the bias force summed over the bodies and tendons, its error carried from the differences, its round-off
    scale) at `data` (forwarded); at rest, gravity's alone."""
    qvel = np.asarray(data.qvel, float).copy()
    nb, nv = model.nbody, model.nv
    quantity = (lambda m, d: (velocities(m, d, qvel), np.zeros(nb * 6 + model.ntendon)))
    size = np.concatenate([np.full(nb * 6, _speed_size(model, data, qvel)),
                           np.full(model.ntendon, float(np.max(np.abs(data.ten_velocity), initial=0.0)))])
    rate = rates.along_motion(model, copy.copy(data), quantity, size)
    if rate is None:
        accel, error = np.zeros(nb * 6 + model.ntendon), np.zeros(nb * 6 + model.ntendon)
    else:  # the rate is per unit of the largest dof speed along qvel / speed: times speed, the time derivative
        accel, error = rate.measured * rate.speed, rate.error * rate.speed
    gravity = np.zeros(3) if model.opt.disableflags & int(DSBL.mjDSBL_GRAVITY) else np.asarray(model.opt.gravity)
    force, carried, scale = np.zeros(nv), np.zeros(nv), np.zeros(nv)
    jacp, jacr = np.zeros((3, nv)), np.zeros((3, nv))
    body_acc = accel[:nb * 6].reshape(nb, 2, 3)
    body_err = error[:nb * 6].reshape(nb, 2, 3)
    for b in range(1, nb):
        mass = float(model.body_mass[b])
        mujoco.mj_jacBodyCom(model, data, jacp, jacr, b)
        inertia = world_inertia(model, data, b)
        spin = jacr @ qvel
        linear, angular = body_acc[b]
        force += jacp.T @ (mass * (linear - gravity)) + jacr.T @ (inertia @ angular + np.cross(spin, inertia @ spin))
        carried += np.abs(jacp).T @ (mass * body_err[b, 0]) + np.abs(jacr).T @ (np.abs(inertia) @ body_err[b, 1])
        # round-off's scale in norms, not per component: MuJoCo's pass turns every force between frames (a vertical
        # hinge's gravity term reads 3.6e-15 on dm_control's quadruped where the bodies' sum is exactly 0)
        rho = float(np.linalg.norm(data.xipos[b] - data.subtree_com[model.body_rootid[b]]))
        arm, turn_arm = np.linalg.norm(jacp, axis=0), np.linalg.norm(jacr, axis=0)
        lever = arm + rho * turn_arm
        w = float(np.linalg.norm(spin))
        moving = float(np.linalg.norm(jacp @ qvel)) + rho * w
        terms = mass * (np.linalg.norm(linear) + rho * np.linalg.norm(angular) + np.linalg.norm(gravity) + 2 * w * moving)
        size = float(np.linalg.norm(inertia, 2))
        scale += lever * terms + turn_arm * size * (float(np.linalg.norm(angular)) + w * w)
    tendon = armatures(model)[1]
    if tendon.any():
        rows = mujoco_versions.tendon_jacobian(model, data)
        for t in np.flatnonzero(tendon):
            force += tendon[t] * rows[t] * accel[nb * 6 + t]
            carried += tendon[t] * np.abs(rows[t]) * error[nb * 6 + t]
            scale += tendon[t] * np.abs(rows[t]) * abs(accel[nb * 6 + t])
    return force, carried, scale


def _speed_size(model: mujoco.MjModel, data: mujoco.MjData, qvel: np.ndarray) -> float:
    """The size of a body's velocity's operands: the largest dof speed times the model's extent and 1 (lever arms)."""
    return float(np.max(np.abs(qvel), initial=0.0)) * max(1.0, float(model.stat.extent))


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, int, float, float]:
    """(the worst |qfrc_bias - the bodies' sum| over its bound, its dof, MuJoCo's value, the sum's) at a copy of
    `state` forwarded anew."""
    data = copy.copy(state)
    mujoco.mj_forward(model, data)
    return compare(model, data)


def compare(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, int, float, float]:
    """`apart` at `data`'s last forward pass (its `qfrc_bias`)."""
    force, carried, scale = summed(model, data)
    bound = C * (carried + ULPS * (model.nbody + model.nv) * EPS * scale) + 1e-300
    ratio = np.abs(np.asarray(data.qfrc_bias) - force) / bound
    dof = int(np.argmax(ratio))
    return float(ratio[dof]), dof, float(data.qfrc_bias[dof]), float(force[dof])


@pytest.mark.law("model-bias-force-is-its-bodies", source=SOURCE)
def test_bias_force_is_its_bodies(law, pack_model, twofold_states, model_case) -> None:
    """At each state the bias force (`qfrc_bias`) is what the bodies need, through their centre-of-mass Jacobians, to
    move at constant joint velocities (their accelerations measured as their velocities' rates along qvel) and to
    hold against gravity, plus the tendons' armature term, to 10 x the differences' own error and round-off."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    if armatures(model)[2]:
        pytest.skip(f"{model_case}: actuators with armature on a transmission that is not a joint or tendon")
    awake = mujoco_versions.awake(model) if mujoco_versions.sleeping(model) else model
    found = [(apart(awake, s), float(s.time)) for s in states.for_solves(model, twofold_states)]
    (ratio, dof, built, total), t = max(found, key=lambda f: f[0][0])
    joint = int(model.dof_jntid[dof])
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, joint) or f"joint {joint}"
    law.check("apart_over_error", ratio, le=1.0, drift_abs=1.0,
              why=f"|qfrc_bias - the bodies' inertial and gravity forces| over 10 x the differences' error and "
                  f"round-off, worst at t = {t:.3f} s, dof {dof} ({name}): MuJoCo {built:.9g}, the bodies' {total:.9g}; "
                  f"failing, MuJoCo {mujoco.__version__}'s Newton-Euler pass gives forces its bodies' motion does not "
                  "(Coriolis, centrifugal, gyroscopic or gravity): an engine defect, not the model's; report it, or "
                  "change MuJoCo version")
