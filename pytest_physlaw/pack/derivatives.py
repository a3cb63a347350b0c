"""The velocity derivative the implicit integrators step with is the derivative of the actuator force: under
`integrator="implicit"` or `"implicitfast"` MuJoCo steps with (M - h D) qacc = f, D = d(qfrc)/d(qvel) (`qDeriv`),
whose actuator part is d(moment^T actuator_force)/d(qvel); a force clamped at its `forcerange` does not change with
the velocity there. Source: MuJoCo's documentation ("Computation": numerical integration, the implicit and
implicitfast integrators; "forcerange"); the chain rule.

The first computation is MuJoCo's `qDeriv` after its implicit pass (`mj_implicit`, on a copy of the state) of a
copy of the model with passive forces off and `implicitfast` (no Coriolis derivative), so that D is the actuators'
alone; the second, central differences of moment^T actuator_force over each actuated dof's velocity, through MuJoCo's
own velocity and actuation passes (`mj_fwdVelocity`, `mj_fwdActuation`). Actuators whose gain is not fixed or
affine or whose bias is not affine (muscles, user and plugin actuators) are left out of both computations (their
gear zeroed in the copy). The bound: beyond what differences of two steps disagree by, 1e-6
of the largest entry. MuJoCo 3.4.0 and earlier kept an actuator's velocity term in D while `forcerange` clamped its
force (changelog 3.5.0, commit b4668294): a clamped motor was damped by the integrator as if unclamped. Clamps live
where the reaching run goes: checked at each exercised state. On regressions/models/mujoco_b4668294_clamped_motor_
damping.xml (a motor with back-EMF damping clamped just under its largest control), MuJoCo 3.4.0 misses by 1.0 of
the entry at the reaching run's states and by 4e-13 at the driven run's alone; 3.5.0 by 2.6e-9.

Measured:
`pytest --physlaw-model=MODEL.xml -k velocity_derivative -s`; see docs/checking-a-model.md.
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import runs

SOURCE = "MuJoCo documentation, Computation (numerical integration: implicit, implicitfast; forcerange); chain rule"
STEPS = (1e-6, 1e-7)  # of (1 + |qvel|) along each dof: two central differences, what they disagree by their error
ROUND_OFF = 1e-6  # of the largest entry: beyond the differences' own error, what D may miss by
IMPLICIT = {int(mujoco.mjtIntegrator.mjINT_IMPLICIT), int(mujoco.mjtIntegrator.mjINT_IMPLICITFAST)}
GAIN, BIAS = mujoco.mjtGain, mujoco.mjtBias


def differentiated(model: mujoco.MjModel) -> np.ndarray:
    """The actuators MuJoCo's velocity derivative differentiates: gain fixed or affine, bias none or affine."""
    gain = np.isin(mujoco_versions.per_control(model, "actuator_gaintype"), [int(GAIN.mjGAIN_FIXED), int(GAIN.mjGAIN_AFFINE)])
    bias = np.isin(mujoco_versions.per_control(model, "actuator_biastype"), [int(BIAS.mjBIAS_NONE), int(BIAS.mjBIAS_AFFINE)])
    return np.flatnonzero(gain & bias)


def actuators_only(model: mujoco.MjModel) -> mujoco.MjModel:
    """A copy whose implicit derivative is the `differentiated` actuators' alone: implicitfast (no Coriolis term),
    passive forces off, and the other actuators' gear zeroed. MuJoCo's qDeriv holds a muscle's velocity
    derivative too (measured on 3.2.2 to 3.14), which the second computation leaves out: left in, an implicit model with a muscle read 0.16 of the
    largest entry on every release (regressions/models/mujoco_0bcaa856_servo_then_muscle.xml); a zero gear is a zero
    moment arm, so such an actuator adds nothing to qDeriv and nothing to the differences."""
    m = copy.copy(model)
    others = np.setdiff1d(np.arange(model.nu), differentiated(model))
    m.actuator_gear[others] = 0
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    bits = mujoco.mjtDisableBit  # passive forces: one flag before MuJoCo 3.3?, spring and damper after
    m.opt.disableflags |= int(getattr(bits, "mjDSBL_PASSIVE", getattr(bits, "mjDSBL_DAMPER", 0)))
    m.dof_damping[:] = 0  # and the velocity-dependent passive forces zeroed, whichever flag this release has
    if m.ntendon:
        m.tendon_damping[:] = 0
    m.opt.density = m.opt.viscosity = 0.0
    return m


def analytic(m: mujoco.MjModel, state: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """((nv, nv) MuJoCo's qDeriv at `state` (not changed) under `m`, dense; the entries its sparse index holds)."""
    data = copy.copy(state)
    mujoco.mj_forward(m, data)
    mujoco.mj_implicit(m, data)  # computes qDeriv at the state it integrates from
    return mujoco_versions.velocity_derivative(m, data), mujoco_versions.velocity_derivative_pattern(m, data)


def differenced(m: mujoco.MjModel, state: mujoco.MjData, actuators: np.ndarray, dofs: np.ndarray,
                step: float) -> np.ndarray:
    """(nv, nv) d(moment^T actuator_force)/d(qvel) over `actuators`, along `dofs` (0 along the others), by central
    differences of `step` (1 + |qvel|), through MuJoCo's velocity and actuation passes at `state`'s position."""
    data = copy.copy(state)
    mujoco.mj_forward(m, data)
    moment = runs.moments(m, data)[actuators]
    out = np.zeros((m.nv, m.nv))
    qvel = state.qvel.copy()
    for dof in dofs.tolist():
        h = step * (1.0 + abs(float(qvel[dof])))
        ends = []
        for sign in (1.0, -1.0):
            data.qvel[:] = qvel
            data.qvel[dof] += sign * h
            mujoco.mj_fwdVelocity(m, data)
            mujoco.mj_fwdActuation(m, data)
            ends.append(np.array(data.qfrc_actuator))  # what the step applies: a joint's actuatorfrcrange clamped
        out[:, dof] = (ends[0] - ends[1]) / (2 * h)
    return out


def beyond_range(model: mujoco.MjModel, state: mujoco.MjData) -> list[mujoco.MjData]:
    """Copies of `state` with every limited control half its range below its range, then above (a policy's output
    beyond what the actuator takes: MuJoCo clamps it before it acts); none where no control is limited."""
    flags = np.asarray(mujoco_versions.per_control(model, "actuator_ctrllimited")).astype(bool)
    limited = np.flatnonzero(flags)
    if not limited.size or state.ctrl.size != flags.size:
        return []
    low, high = np.asarray(mujoco_versions.per_control(model, "actuator_ctrlrange"), float)[limited].T
    out = []
    for ctrl in (low - 0.5 * (high - low), high + 0.5 * (high - low)):
        data = copy.copy(state)
        data.ctrl[limited] = ctrl
        out.append(data)
    return out


def mismatch(m: mujoco.MjModel, state: mujoco.MjData, actuators: np.ndarray) -> tuple[float, int, float]:
    """(|qDeriv - differences| beyond the differences' own disagreement, a share of the largest entry; the worst
    dof; the largest derivative outside qDeriv's sparse index, a share of the largest entry) at `state`. Only the
    entries MuJoCo's index holds are compared, the rest named: the index has no slot for the cross terms of a tendon
    that couples two trees' dofs, as the mass matrix has none for a tendon's armature across branches (MuJoCo's flex
    gripper, its grasp tendon between the hand and a flex vertex: 0.37 of the largest entry, 3.11 to 3.14)."""
    data = copy.copy(state)
    mujoco.mj_forward(m, data)
    dofs = np.flatnonzero(np.any(runs.moments(m, data)[actuators] != 0, axis=0))
    if not dofs.size:
        return 0.0, 0, 0.0
    coarse, fine = (differenced(m, state, actuators, dofs, h) for h in STEPS)
    got, held = analytic(m, state)
    scale = max(float(np.max(np.abs(coarse))), float(np.max(np.abs(got))), 1e-300)
    outside = float(np.max(np.abs(np.where(held, 0.0, coarse)), initial=0.0)) / scale
    error = np.where(held, np.maximum(np.abs(got - coarse) - np.abs(coarse - fine), 0.0), 0.0)
    return float(np.max(error)) / scale, int(np.unravel_index(np.argmax(error), error.shape)[1]), outside


@pytest.mark.law("model-velocity-derivative", source=SOURCE)
def test_velocity_derivative_is_the_actuator_forces(law, pack_model, exercised, model_case) -> None:
    """Under an implicit integrator, at each exercised state (the driven and the reaching runs'), MuJoCo's velocity
    derivative of the actuator forces (`qDeriv`, passive forces off) equals central differences of the generalized
    actuator force (`qfrc_actuator`, a joint's actuatorfrcrange clamped) over the actuated dofs' velocities, to 1e-6
    of its largest entry beyond the differences' own error, also with the controls beyond their range: a force
    clamped at its forcerange, or a control clamped to its ctrlrange, has no velocity derivative."""
    model = pack_model.model
    if int(model.opt.integrator) not in IMPLICIT:
        pytest.skip(f"{model_case}: integrator {mujoco.mjtIntegrator(int(model.opt.integrator)).name}: no velocity "
                    "derivative steps this model (implicit and implicitfast only)")
    if not hasattr(mujoco, "mj_implicit"):
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__}'s Python bindings have no mj_implicit (qDeriv not "
                    "readable)")
    actuators = differentiated(model)
    if not actuators.size:
        pytest.skip(f"{model_case}: no actuator with a fixed or affine gain and a bias none or affine")
    m = actuators_only(model)
    states = [*exercised.states, *beyond_range(model, exercised.states[-1])]
    found = [mismatch(m, state, actuators) for state in states]
    worst, dof, _ = max(found)
    outside = max(x[2] for x in found)
    dropped = (f"; left out: derivatives outside qDeriv's sparse index, up to {outside:.3g} of the largest entry "
               f"(MuJoCo {mujoco.__version__}'s index has no slot there: a tendon coupling two trees' dofs loses its "
               "cross terms)") if outside > ROUND_OFF else ""
    law.check("derivative_error", worst, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|qDeriv - d(qfrc_actuator)/d(qvel)| (central differences) beyond the differences' own "
                  f"disagreement, a share of the largest entry, worst along dof {dof}; failing, MuJoCo "
                  f"{mujoco.__version__}'s implicit integrator steps with another damping than its actuators have (a "
                  "clamped force's velocity term kept: fixed in 3.5.0; the unclamped control's, in 3.13.0; a joint's "
                  "clamp, in 4.0.0): an engine defect (not the model's): name it in "
                  "a MuJoCo issue, or change MuJoCo version" + dropped)
