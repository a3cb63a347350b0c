"""Forward and inverse dynamics agree: at any state, `mj_inverse` given the acceleration `mj_forward` computed
returns the forces that produced it. Source: MuJoCo's documentation ("Computation": inverse dynamics, the
fwdinv diagnostic `mjData.solver_fwdinv`); the equation of motion M qacc + c = tau + J^T f.

Forward dynamics solves M qacc = qfrc_smooth + qfrc_constraint for qacc; inverse dynamics takes qacc and
returns qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint, recovering the constraint force
from qacc through the same soft-constraint model. Two parts are checked apart, at each exercised state (the start,
the driven run's states under seeded controls, the reaching run's at joint limits, force clamps and new contacts:
`fixtures.exercised`):

- the smooth dynamics: constraints off, inverse dynamics given forward dynamics' own unconstrained
  acceleration (`qacc_smooth` = M^-1 qfrc_smooth) returns the applied forces (actuators, qfrc_applied). Both
  sides are MuJoCo's mass matrix, bias and passive forces computed twice, the solver plays no part; they
  differ by round-off unless one path computes a term the other does not (a tendon's armature missing from
  inverse dynamics: MuJoCo 3.3.1-3.3.3).
- the constraint force: given the qacc of `mj_forward`, inverse dynamics recovers the solver's own constraint
  force (efc_force), to the solver's convergence: bounded over the states whose solve converged; a model whose
  `noslip_iterations` rewrite the friction forces after the solve is not invertible there and skips it.

Measured:
`pytest --physlaw-model=MODEL.xml -k inverse -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo documentation, Computation (inverse dynamics, fwdinv); the equation of motion"
ROUND_OFF = 1e-8  # of the state's force scale: the same terms computed twice differ by round-off only
RECOVERED = 1e-3  # of the force scale: a converged solve's constraint force, recovered from its qacc
ULPS = 64  # round-offs of a row's acceleration J qacc - aref, summed over the dofs, that its force may carry (x D)


def smooth_residual(model: mujoco.MjModel, data: mujoco.MjData, smooth: mujoco.MjModel | None = None
                    ) -> tuple[float, int]:
    """(|qfrc_inverse - applied forces|, a share of the largest smooth force; the worst dof) of `mj_inverse` given
    the unconstrained acceleration forward dynamics computed (`qacc_smooth` = M^-1 qfrc_smooth), constraints
    off: the solver plays no part, so both sides are MuJoCo's mass matrix, bias and passive force, computed twice.
    `smooth`: `smooth_model(model)` made once for many states (a copy of the dog's model takes 0.25 s)."""
    m = smooth_model(model) if smooth is None else smooth
    fwd = copy.copy(data)
    mujoco.mj_forward(m, fwd)
    applied = fwd.qfrc_actuator + fwd.qfrc_applied
    scale = max(float(np.max(np.abs(p))) for p in (fwd.qfrc_bias, fwd.qfrc_passive, applied, fwd.qfrc_smooth))
    inv = copy.copy(fwd)
    inv.qacc[:] = fwd.qacc_smooth
    mujoco.mj_inverse(m, inv)
    error = np.abs(inv.qfrc_inverse - applied)
    return float(np.max(error)) / max(scale, 1e-300), int(np.argmax(error))


def recovered_residual(model: mujoco.MjModel, data: mujoco.MjData, continuous: mujoco.MjModel | None = None
                       ) -> tuple[float, bool]:
    """(|inverse's constraint force - the solver's|, a share of the solver's largest, on efc_force; whether the
    forward solve converged before the cap) of `mj_inverse` given the qacc of `mj_forward`; (0, True) with no
    constraint force. `continuous`: `continuous_model(model)` made once for many states."""
    m = continuous_model(model) if continuous is None else continuous
    fwd = copy.copy(data)
    mujoco.mj_forward(m, fwd)
    niter = fwd.solver_niter[: max(int(fwd.nisland), 1)]
    converged = bool(np.all(niter < m.opt.iterations))
    force = fwd.efc_force[: fwd.nefc].copy()
    scale = float(np.max(np.abs(force), initial=0.0))
    if scale == 0:
        return 0.0, converged
    inv = copy.copy(fwd)
    mujoco.mj_inverse(m, inv)
    if inv.nefc != fwd.nefc:  # inverse dynamics found other constraints at the same state: all of it differs
        return float("inf"), converged
    # a row's force is -D (J qacc - aref): the round-off of its acceleration, times D, is what recovery cannot beat
    # (MuJoCo's SDF gears, model/plugin/sdf/gear.xml: contact rows with R = 8e-17, D = 1.25e16, 94 N of 8532 N)
    jac = mujoco_versions.constraint_jacobian(m, fwd)
    accel = np.abs(jac) @ np.abs(fwd.qacc) + np.abs(fwd.efc_aref[: fwd.nefc])
    unresolved = ULPS * np.finfo(float).eps * fwd.efc_D[: fwd.nefc] * accel
    error = np.maximum(np.abs(inv.efc_force[: inv.nefc] - force) - unresolved, 0.0)
    return float(np.max(error)) / scale, converged


def smooth_model(model: mujoco.MjModel) -> mujoco.MjModel:
    """`continuous_model` with constraints off."""
    m = continuous_model(model)
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return m


def continuous_model(model: mujoco.MjModel) -> mujoco.MjModel:
    """A copy whose inverse dynamics reads qacc as the continuous-time acceleration mj_forward gives. (The pack
    compiles a sleeping model awake, `pytest_physlaw.pack`: a sleeping tree's dofs are skipped by forward
    dynamics, not by inverse dynamics.)"""
    m = copy.copy(model)
    invdiscrete = getattr(mujoco.mjtEnableBit, "mjENBL_INVDISCRETE", None)
    if invdiscrete is not None:
        m.opt.enableflags &= ~int(invdiscrete)
    return m


@pytest.mark.law("model-inverse-dynamics", source=SOURCE)
def test_inverse_dynamics_returns_the_forces(law, pack_model, exercised, model_case) -> None:
    """At each exercised state (the driven and the reaching runs'), `mj_inverse` returns the forces forward dynamics applied:
    constraints off, given `qacc_smooth` it returns the actuator and applied forces to round-off; given the
    qacc of `mj_forward`, the constraint force it recovers is the solver's, to the solver's convergence where
    the solve converged (not checked under noslip)."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    smooth_copy, continuous = smooth_model(model), continuous_model(model)
    smooth, worst_dof = max(smooth_residual(model, state, smooth_copy) for state in exercised.states)
    law.check("smooth_residual", smooth, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|qfrc_inverse - (actuator + applied force)| at qacc_smooth, constraints off, a share of the "
                  f"largest smooth force; worst at dof {worst_dof} ({_dof_name(model, worst_dof)}); failing, "
                  f"MuJoCo {mujoco.__version__}'s forward and inverse dynamics disagree on the mass matrix, bias or passive "
                  "force there, an engine defect (not the model's): name it in a MuJoCo issue, or change MuJoCo version")
    if model.opt.noslip_iterations:
        return  # the noslip pass rewrites the solver's friction forces after the solve: not invertible
    found = [recovered_residual(model, state, continuous) for state in exercised.states]
    converged = [r for r, ok in found if ok]
    if converged:
        law.check("constraint_recovered", max(converged), le=RECOVERED, drift_abs=RECOVERED,
                  why="|inverse constraint force - the solver's| on efc_force, a share of the solver's largest, over the "
                      "states whose solve converged: soft constraints are invertible, so inverse dynamics recovers the "
                      "solver's force from qacc, to the solver's tolerance")


def _dof_name(model: mujoco.MjModel, dof: int) -> str:
    joint = int(model.dof_jntid[dof])
    return f"joint {model.joint(joint).name or str(joint)!r}" if joint >= 0 else f"dof {dof}"

