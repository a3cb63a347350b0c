"""Each body's velocity is the rate of its pose: along a state's own motion, the linear and angular velocity MuJoCo
reports for a body's frame (`mj_objectVelocity`, read from `cvel`, which `mj_comVel` builds up the tree from each
joint's motion axes `cdof`) are the rates at which the body's position `xpos` and orientation `xmat` change (central
differences of MuJoCo's own kinematics at positions moved along qvel, `rates.along_motion`; the angular velocity
from dR/dt R^T). Every velocity-dependent force (damping, Coriolis, contact and friction velocities), every velocity
sensor and the reference accelerations read `cvel`; a release whose velocity pass moves a body otherwise than its
kinematics puts them all off together, and a run stays consistent with itself. Source: MuJoCo's documentation
(Computation: cvel, the spatial velocity of each body; `mj_objectVelocity`); rigid-body kinematics, v = dx/dt and
[w]x = dR/dt R^T.

Bound: |reported - rate| <= 10 (the difference's own error + the reported velocity's round-off), per unit of the
state's largest dof speed: the difference's truncation (a third of what the steps H and H/2 differ by) and
round-off (100 eps S / (H/2), S the positions' size; 1 for rotation entries; three entries make each angular
component), and 100 eps of |J| |qvel| (the body's Jacobians through `mj_jacBody`) for the velocity. States:
`twofold_states` (three of them above 200 dofs). Left out: states at rest, mocap bodies and the world.

Measured figures and commands: docs/second-computations.md ("Velocities are the poses' rates").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.states import LARGE, sampled

SOURCE = ("MuJoCo documentation, Computation (cvel, mj_objectVelocity); rigid-body kinematics (v = dx/dt, "
          "[w]x = dR/dt R^T); central differences along qvel")
C = 10.0  # the bound's factor over the measurement's own error


def poses(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(every body's xpos then xmat, flattened; one branch: poses are smooth) at `data`'s position: MuJoCo's
    kinematics pass."""
    mujoco.mj_kinematics(model, data)
    values = np.concatenate([np.asarray(data.xpos, float).ravel(), np.asarray(data.xmat, float).ravel()])
    return values, np.zeros(values.size, dtype=np.int64)


def moving_bodies(model: mujoco.MjModel) -> np.ndarray:
    """The bodies whose pose the state's qpos sets: not the world, not mocap bodies (moved by the user, not by
    qvel)."""
    return np.array([b for b in range(1, model.nbody) if int(model.body_mocapid[b]) < 0], dtype=int)


def reported(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(angular, linear) velocity of each body's frame in world orientation, as MuJoCo reports them
    (`mj_objectVelocity` of the xbody, flg_local 0)."""
    out = np.zeros((bodies.size, 6))
    for k, b in enumerate(bodies.tolist()):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_XBODY, b, out[k], 0)
    return out[:, :3], out[:, 3:]


def round_off(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(angular, linear) round-off scale of each reported velocity: 100 eps |J| |qvel| over the body's Jacobians."""
    qvel = np.abs(np.asarray(data.qvel, float))
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    ang, lin = np.zeros(bodies.size), np.zeros(bodies.size)
    for k, b in enumerate(bodies.tolist()):
        mujoco.mj_jacBody(model, data, jacp, jacr, b)
        ang[k], lin[k] = float(np.max(np.abs(jacr) @ qvel)), float(np.max(np.abs(jacp) @ qvel))
    return rates.ULPS * rates.EPS * ang, rates.ULPS * rates.EPS * lin


def mismatch(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """At one state: (|reported - rate| over its bound, the same as a share of the larger of the two, both per body
    and (angular, linear), shape (bodies, 2); the bodies); None where the state is at rest or no body moves."""
    bodies = moving_bodies(model)
    if not bodies.size:
        return None
    nb = model.nbody
    size = np.concatenate([np.full(3 * nb, rates.operand_size(model, data)), np.ones(9 * nb)])
    rate = rates.along_motion(model, data, poses, size)
    if rate is None:
        return None
    lin_rate = rate.measured[:3 * nb].reshape(nb, 3)[bodies]
    lin_error = rate.error[:3 * nb].reshape(nb, 3)[bodies]
    mat_rate = rate.measured[3 * nb:].reshape(nb, 3, 3)[bodies]
    mat_error = rate.error[3 * nb:].reshape(nb, 9)[bodies]
    mats = np.asarray(data.xmat, float).reshape(nb, 3, 3)[bodies]
    spin = mat_rate @ np.transpose(mats, (0, 2, 1))  # dR/dt R^T = [w]x
    ang_rate = 0.5 * np.stack([spin[:, 2, 1] - spin[:, 1, 2], spin[:, 0, 2] - spin[:, 2, 0],
                               spin[:, 1, 0] - spin[:, 0, 1]], axis=1)
    ang_error = 3 * np.max(mat_error, axis=1)  # each component: three products of an entry's error with |R| <= 1
    ang, lin = reported(model, data, bodies)
    ang_off, lin_off = round_off(model, data, bodies)
    ang, lin, ang_off, lin_off = ang / rate.speed, lin / rate.speed, ang_off / rate.speed, lin_off / rate.speed
    apart = np.stack([np.max(np.abs(ang - ang_rate), axis=1), np.max(np.abs(lin - lin_rate), axis=1)], axis=1)
    bound = C * np.stack([ang_error + ang_off, np.max(lin_error, axis=1) + lin_off], axis=1)
    larger = np.stack([np.maximum(np.max(np.abs(ang), axis=1), np.max(np.abs(ang_rate), axis=1)),
                       np.maximum(np.max(np.abs(lin), axis=1), np.max(np.abs(lin_rate), axis=1))], axis=1)
    return apart / bound, apart / np.maximum(larger, 1e-300), bodies


def worst_body(model: mujoco.MjModel, states: list, measure, model_case: str) -> tuple[tuple, int]:
    """Run `measure(model, state)` (-> None, or (over the bound, share, bodies) with the first two of shape (bodies,
    parts)) over the states (three above 200 dofs: flex scenes): ((ratio, share, body, part, time) of the worst, how
    many bodies x states were judged); skips, naming why, where no state moves."""
    worst, judged = (0.0, 0.0, -1, 0, 0.0), 0
    for state in (states if model.nv <= LARGE else sampled(states)):
        found = measure(model, state)
        if found is None:
            continue
        over, share, bodies = found
        judged += bodies.size
        if float(np.max(over)) > worst[0]:
            k, part = np.unravel_index(int(np.argmax(over)), over.shape)
            worst = (float(over[k, part]), float(share[k, part]), int(bodies[k]), int(part), float(state.time))
    if not judged:
        pytest.skip(f"{model_case}: no state where the model moves")
    return worst, judged


@pytest.mark.law("model-body-velocities-are-pose-rates", source=SOURCE)
def test_body_velocities_are_the_poses_rates(law, pack_model, twofold_states, model_case) -> None:
    """At each moving state, each body's angular and linear velocity as MuJoCo reports them (cvel, through
    `mj_objectVelocity`) are the rates of its orientation and position along qvel, to 10 x the central difference's
    own error."""
    model = pack_model.model
    if not moving_bodies(model).size or model.nv == 0:
        pytest.skip(f"{model_case}: no body that the state's qpos moves")
    (ratio, share, body, part, t), judged = worst_body(model, twofold_states, mismatch, model_case)
    name = (model.body(body).name or str(body)) if body >= 0 else "-"
    which = ("angular", "linear")[part]
    law.check("velocity_apart_over_error", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |velocity MuJoCo reports (cvel) - its pose's rate along qvel| of a body over 10 x the "
                  f"central difference's own error, over {judged} bodies x states; worst {name!r} ({which}) at "
                  f"t = {t:.3f} s, {share:.3g} of its velocity off; failing, MuJoCo {mujoco.__version__}'s velocity "
                  "pass moves this body otherwise than its kinematics: damping, Coriolis forces, contact velocities "
                  "and velocity sensors read that velocity (an engine defect: name it in a MuJoCo issue, or change "
                  "MuJoCo version)")
