"""An actuator's moment arm is the derivative of its length: the force it applies reaches each dof as
moment^T force, and by virtual work that moment is d(length)/dq (MuJoCo's `actuator_moment` and
`actuator_length`). Source: MuJoCo's documentation ("Computation": actuation model, transmissions); the principle
of virtual work.

The moment arms are the ones MuJoCo used at each exercised state (the driven run's under seeded controls and the
reaching run's at limits and saturation, `fixtures.exercised`), as its forward pass left them; the lengths' derivative is measured by central differences along
dof of the trees they act on (`mj_integratePos`, then MuJoCo's kinematics, tendons and transmission passes).
A transmission that keeps state from an earlier call, or differentiates its length wrongly, shows here: MuJoCo
3.0.0-3.2.4 added each slider-crank's moment to the row it left from the last step instead of clearing it first
(the moment grew step after step; changelog 3.2.5). Left out: transmissions without a length of the position
(a site without a reference site, a body's adhesion, a ball or free joint's), and a site transmission's rotational gear
(MuJoCo's moment there is the relative rotation's rate, not its axis-angle length's derivative: `site_transmission`
judges both).

Measured:
`pytest --physlaw-model=MODEL.xml -k moment -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import runs

SOURCE = "MuJoCo documentation, Computation (actuation model, transmissions); the principle of virtual work"
STEPS = (1e-5, 1e-6)  # rad or m along each dof: two central differences; what they disagree by is their own error
ROUND_OFF = 1e-5  # of the actuator's largest moment arm: beyond the differences' own error, what the arm may miss by
ULPS = 100  # a length summed over a tendon's segments and wraps is this many round-offs of itself uncertain
TRN = mujoco.mjtTrn


def measured(model: mujoco.MjModel) -> np.ndarray:
    """The actuators whose length is a function of the position: joint (hinge, slide), tendon, slider-crank, and
    site transmissions with a reference site and a translational gear alone."""
    kind, trnid = (mujoco_versions.per_control(model, f) for f in ("actuator_trntype", "actuator_trnid"))
    joint = np.isin(kind, [TRN.mjTRN_JOINT, TRN.mjTRN_JOINTINPARENT])
    scalar_joint = np.zeros(model.nu, dtype=bool)
    scalar_joint[joint] = np.isin(model.jnt_type[trnid[joint, 0]],
                                  [mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE])
    # a rotational gear's moment is the relative angular Jacobian, not its expmap length's derivative (exact only where
    # the frames align): judged by `site_transmission` instead
    turning = np.any(mujoco_versions.per_control(model, "actuator_gear")[:, 3:] != 0, axis=1)
    site = (kind == TRN.mjTRN_SITE) & (trnid[:, 1] >= 0) & ~turning
    return np.flatnonzero(scalar_joint | site | np.isin(kind, [TRN.mjTRN_TENDON, TRN.mjTRN_SLIDERCRANK]))


def lengths(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The actuators' lengths at `data`'s position: the passes a transmission reads (kinematics, the dofs' motion
    axes, tendons), then MuJoCo's transmission, on `data` itself (no collision, no constraint: a flex scene's dofs
    cost nothing here)."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_tendon(model, data)
    mujoco.mj_transmission(model, data)
    return data.actuator_length.copy()


def reached(model: mujoco.MjModel, moments: list[np.ndarray]) -> np.ndarray:
    """The dofs whose motion can change a measured actuator's length: those of every kinematic tree on which some
    measured actuator has a moment arm at some state (a moment misplaced onto another tree's dof is caught there
    too: it makes that tree reached)."""
    touched = np.flatnonzero(np.any([np.any(m != 0, axis=0) for m in moments], axis=0))
    trees = np.unique(model.dof_treeid[touched])
    return np.flatnonzero(np.isin(model.dof_treeid, trees))


def length_slope(model: mujoco.MjModel, data: mujoco.MjData, dofs: np.ndarray, step: float) -> np.ndarray:
    """(nu, nv) d(actuator_length)/dq at `data`'s position along `dofs` (0 along the others), by central
    differences of `step`."""
    slope = np.zeros((model.nu, model.nv))
    probe = copy.copy(data)
    for dof in dofs.tolist():
        ends = []
        for sign in (1.0, -1.0):
            probe.qpos[:] = data.qpos
            move = np.zeros(model.nv)
            move[dof] = sign * step
            mujoco.mj_integratePos(model, probe.qpos, move, 1.0)
            ends.append(lengths(model, probe))
        slope[:, dof] = (ends[0] - ends[1]) / (2 * step)
    return slope


def mismatch(moment: np.ndarray, model: mujoco.MjModel, data: mujoco.MjData, dofs: np.ndarray) -> np.ndarray:
    """(rows of `moment`) each row's largest |moment - slope| over the dofs beyond what the two central differences
    disagree by (their round-off at the short step, their curvature at the long one, a tendon's wrap switching
    sides between them) and what the lengths' own round-off makes of the long one (an arm of no length's change:
    a muscle across no dof), a share of the row's largest slope: zero where the arm is the length's derivative."""
    coarse, fine = (length_slope(model, data, dofs, h) for h in STEPS)
    noise = ULPS * np.finfo(float).eps * (np.abs(data.actuator_length) + 1.0) / STEPS[0]
    error = np.maximum(np.abs(moment - coarse) - np.abs(coarse - fine) - noise[:, None], 0.0)
    return np.max(error, axis=1) / np.maximum(np.max(np.abs(coarse), axis=1), 1e-9)


@pytest.mark.law("model-actuator-moments", source=SOURCE)
def test_moment_arms_are_the_lengths_derivative(law, pack_model, exercised, model_case) -> None:
    """At each exercised state (the driven and the reaching runs'), each actuator's moment arm on each dof, as MuJoCo's
    forward pass applied it, is the derivative of the actuator's length along that dof (central differences at two
    steps), to 1e-5 of its largest moment arm beyond what the two differences disagree by: the force an actuator
    applies does the work its length's change says."""
    model = pack_model.model
    actuators = measured(model)
    if not actuators.size:
        pytest.skip(f"{model_case}: no actuator whose length is a function of the position (joint, tendon, "
                    "slider-crank or site with a reference site and a translational gear alone)")
    moments = [runs.moments(model, state)[actuators] for state in exercised.states]
    dofs = reached(model, moments)
    worst = np.zeros(actuators.size)
    for state, moment in zip(exercised.states, moments):
        full = np.zeros((model.nu, model.nv))
        full[actuators] = moment
        worst = np.maximum(worst, mismatch(full, model, state, dofs)[actuators])
    a = int(actuators[int(np.argmax(worst))])
    name = mujoco_versions.control_name(model, a)
    kind = mujoco.mjtTrn(int(mujoco_versions.per_control(model, "actuator_trntype")[a])).name
    law.check("moment_error", worst, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"largest |actuator_moment - d(actuator_length)/dq| over the dofs and the states, beyond what central "
                  f"differences of {STEPS[0]:g} and {STEPS[1]:g} disagree by, a share of the actuator's largest moment "
                  f"arm; worst {name!r} ({kind}); "
                  f"failing, MuJoCo {mujoco.__version__} applies this actuator's force through another moment than its "
                  "length's: an engine defect where the transmission is MuJoCo's own (name it in a MuJoCo issue, or "
                  "change MuJoCo version)")
