"""A Jacobian's time derivative is the Jacobian's rate: along a state's own motion, what `mj_jacDot` reports for the
point at each body's centre of mass (a point fixed in the body, moving with it) is the rate at which that point's
Jacobian (`mj_jac`, translation and rotation) changes, measured by central differences of MuJoCo's own kinematics at
positions moved along qvel (`rates.along_motion`, the point carried by the body). Operational-space controllers and
task-space accelerations (J qacc + Jdot qvel) read `mj_jacDot`; nothing in the step does, so a release whose
`mj_jacDot` is off runs consistent with itself and only this second computation shows it (MuJoCo 3.2.3 to 3.3.0 left
out the reference point's own motion: the whole term). Source: MuJoCo's documentation (API: mj_jacDot,
"time-derivative of the Jacobian of a point attached to a body"); the derivative of a position-dependent matrix
along the motion, dJ/dt = dJ/dq qdot.

Bound: |mj_jacDot - rate| <= 10 (the difference's own error + 100 eps of the Jacobian's size times |qvel|_1), per unit
of the state's largest dof speed: the difference's truncation (a third of what the steps H and H/2 differ by) and
round-off (100 eps of the entries' operands, the model's extent for translation and 1 for rotation, over H/2); the
reported derivative sums products of each dof's speed with axes and lever arms. States: `twofold_states` (three of
them above 200 dofs). Left out: states at rest, mocap bodies, the world, releases without `mj_jacDot` (before 3.2.3,
`mujoco_versions.has_jacobian_dot`).

Measured figures and commands: docs/second-computations.md ("A Jacobian's derivative is its rate").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.velocities import moving_bodies, worst_body

SOURCE = ("MuJoCo documentation, API (mj_jacDot: the time derivative of the Jacobian of a point attached to a body); "
          "dJ/dt = dJ/dq qdot, central differences along qvel")
C = 10.0  # the bound's factor over the measurement's own error


def anchors(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> np.ndarray:
    """Each body's centre of mass in its own frame (the point whose Jacobian is differentiated, carried by the body
    as it moves)."""
    mats = np.asarray(data.xmat, float).reshape(-1, 3, 3)[bodies]
    offset = np.asarray(data.xipos, float)[bodies] - np.asarray(data.xpos, float)[bodies]
    return np.einsum("kji,kj->ki", mats, offset)


def jacobians(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray, local: np.ndarray) -> np.ndarray:
    """(bodies, 2, 3, nv): each body's point's translation and rotation Jacobians (`mj_jac`) at `data`'s position,
    after MuJoCo's kinematics and centre-of-mass passes there."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    out = np.zeros((bodies.size, 2, 3, model.nv))
    for k, b in enumerate(bodies.tolist()):
        point = np.asarray(data.xpos[b], float) + np.asarray(data.xmat[b], float).reshape(3, 3) @ local[k]
        mujoco.mj_jac(model, data, out[k, 0], out[k, 1], point, b)
    return out


def reported(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> np.ndarray:
    """(bodies, 2, 3, nv): `mj_jacDot` at each body's centre of mass, as MuJoCo reports it at the state."""
    out = np.zeros((bodies.size, 2, 3, model.nv))
    for k, b in enumerate(bodies.tolist()):
        mujoco.mj_jacDot(model, data, out[k, 0], out[k, 1], np.array(data.xipos[b], float), b)
    return out


def mismatch(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """At one state: (|mj_jacDot - the Jacobian's rate| over the bound, the same as a share of the larger of the two,
    each of shape (bodies, 2): translation, rotation; the bodies); None where the state is at rest or no body
    moves."""
    bodies = moving_bodies(model)
    if not bodies.size:
        return None
    local = anchors(model, data, bodies)
    first: list[np.ndarray] = []  # along_motion's first call is at the state itself: its Jacobians size the bound

    def quantity(m: mujoco.MjModel, d: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        values = jacobians(m, d, bodies, local).ravel()
        first[:] = first or [values]
        return values, np.zeros(values.size, dtype=np.int64)

    shape = (bodies.size, 2, 3 * model.nv)
    size = np.broadcast_to(np.array([rates.operand_size(model, data), 1.0])[None, :, None], shape).ravel()
    rate = rates.along_motion(model, data, quantity, size)  # on a copy: the state's own passes stand
    if rate is None:
        return None
    measured, error = rate.measured.reshape(shape), rate.error.reshape(shape)
    got = reported(model, data, bodies).reshape(shape) / rate.speed
    jac = first[0].reshape(shape)
    spread = float(np.sum(np.abs(data.qvel))) / rate.speed  # |qvel|_1 per unit of its largest entry
    off = rates.ULPS * rates.EPS * np.max(np.abs(jac), axis=2) * spread
    apart = np.max(np.abs(got - measured), axis=2)
    bound = C * (np.max(error, axis=2) + off)
    larger = np.maximum(np.max(np.abs(got), axis=2), np.max(np.abs(measured), axis=2))
    return apart / bound, apart / np.maximum(larger, 1e-300), bodies


@pytest.mark.law("model-jacobian-dot-is-its-rate", source=SOURCE)
def test_jacobian_dot_is_the_jacobians_rate(law, pack_model, twofold_states, model_case) -> None:
    """At each moving state, `mj_jacDot` at each body's centre of mass is the rate of that point's Jacobian along
    qvel, to 10 x the central difference's own error."""
    model = pack_model.model
    if not mujoco_versions.has_jacobian_dot():
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} has no mj_jacDot (added in 3.2.3)")
    if not moving_bodies(model).size or model.nv == 0:
        pytest.skip(f"{model_case}: no body that the state's qpos moves")
    (ratio, share, body, part, t), judged = worst_body(model, twofold_states, mismatch, model_case)
    name = (model.body(body).name or str(body)) if body >= 0 else "-"
    which = ("translation", "rotation")[part]
    known = mujoco_versions.known_defect("model-jacobian-dot-is-its-rate", "jacobian_dot_apart_over_error")
    if known and ratio > 1.0:
        law.follows(*known)
    law.check("jacobian_dot_apart_over_error", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |mj_jacDot at a body's centre of mass - the rate of that point's Jacobian along qvel| "
                  f"over 10 x the central difference's own error, over {judged} bodies x states; worst {name!r} "
                  f"({which}) at t = {t:.3f} s, {share:.3g} of the derivative off; failing, MuJoCo "
                  f"{mujoco.__version__}'s mj_jacDot is not the derivative of its own Jacobian (3.2.3 to 3.3.0 left "
                  "out the "
                  "point's motion): task-space accelerations J qacc + Jdot qvel and operational-space controllers "
                  "built on it are off by that much (an engine defect: name it in a MuJoCo issue, or change MuJoCo "
                  "version)")
