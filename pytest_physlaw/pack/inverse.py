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
from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import options

SOURCE = "MuJoCo documentation, Computation (inverse dynamics, fwdinv); the equation of motion"
ROUND_OFF = 1e-8  # of the state's force scale: the same terms computed twice differ by round-off only
RECOVERED = 1e-3  # of the force scale: a converged solve's constraint force, recovered from its qacc
SPREAD = 10.0  # the recovered force may differ by ten times what the forward solve's forces move when it goes on
TIGHTER = 1e-4  # the solve's own error: how far its forces move when it goes on to 1e-4 of its tolerance
ULPS = 64  # round-offs of a row's acceleration J qacc - aref, summed over the dofs, that its force may carry (x D)


def smooth_residual(model: mujoco.MjModel, data: mujoco.MjData, smooth: options.Options | None = None
                    ) -> tuple[float, int]:
    """(|qfrc_inverse - applied forces|, a share of the largest smooth force; the worst dof) of `mj_inverse` given
    the unconstrained acceleration forward dynamics computed (`qacc_smooth` = M^-1 qfrc_smooth), constraints
    off: the solver plays no part, so both sides are MuJoCo's mass matrix, bias and passive force, computed twice.
    `smooth`: the options `smooth_model(model)`, set on the model for these calls (`options.changed`)."""
    fwd = copy.copy(data)
    with options.changed(model, smooth_model(model) if smooth is None else smooth):
        mujoco.mj_forward(model, fwd)
        inv = copy.copy(fwd)
        inv.qacc[:] = fwd.qacc_smooth
        mujoco.mj_inverse(model, inv)
    applied = fwd.qfrc_actuator + fwd.qfrc_applied
    scale = max(float(np.max(np.abs(p))) for p in (fwd.qfrc_bias, fwd.qfrc_passive, applied, fwd.qfrc_smooth))
    error = np.abs(inv.qfrc_inverse - applied)
    return float(np.max(error)) / max(scale, 1e-300), int(np.argmax(error))


@dataclass(frozen=True)
class Recovered:
    """At one state: inverse dynamics' constraint force against the forward solve's, and the solve's own error,
    both a share of the solver's largest force, or of 1e-8 of the state's largest smooth force where that is more
    (0 with no constraint force)."""

    residual: float  # |inverse's efc_force - the solver's|
    own: float  # |the solver's efc_force - the same solve continued to TIGHTER of its tolerance|
    converged: bool  # the forward solve stopped on its tolerance, before the cap
    largest: float  # the solver's largest |efc_force| (N or N m)
    time: float

    @property
    def over_reach(self) -> float:
        """The residual over what the solve's own error allows (SPREAD x own + RECOVERED)."""
        return self.residual / (SPREAD * self.own + RECOVERED)


def tightened(model: mujoco.MjModel, tolerance: float | None = None) -> dict[str, float | int]:
    """The options of `continuous_model` whose solve stops at TIGHTER of the tolerance (the model's, or
    `tolerance`)."""
    return {**continuous_model(model), "tolerance": TIGHTER * float(tolerance or model.opt.tolerance)}


def recovered_residual(model: mujoco.MjModel, data: mujoco.MjData, tight: options.Options | None = None,
                       continuous: options.Options | None = None) -> Recovered:
    """`Recovered` of `mj_inverse` given the qacc of `mj_forward` at `data`; the solve's own error is how far its
    forces move when the same solve goes on from its own answer (warm), for up to another cap, to TIGHTER of its
    tolerance (`tight`: `tightened(model)`, `continuous`: `continuous_model(model)`: the options set on the model
    for these calls, `options.changed`)."""
    continuous = continuous_model(model) if continuous is None else continuous
    fwd = copy.copy(data)
    with options.changed(model, continuous):
        mujoco.mj_forward(model, fwd)
    niter = fwd.solver_niter[: max(int(fwd.nisland), 1)]
    converged = bool(np.all(niter < model.opt.iterations))
    force = fwd.efc_force[: fwd.nefc].copy()
    largest = float(np.max(np.abs(force), initial=0.0))
    if largest == 0:
        return Recovered(0.0, 0.0, converged, 0.0, float(data.time))
    # where the constraints carry round-off (a stack falling together at its start: 6.5e-15 N), a share of it is
    # round-off over round-off: the scale is at least round-off of the state's smooth force
    scale = max(largest, ROUND_OFF * float(np.max(np.abs(fwd.qfrc_smooth), initial=0.0)))
    on = copy.copy(data)
    on.qacc_warmstart[:] = fwd.qacc
    with options.changed(model, tight if tight is not None else tightened(model)):
        mujoco.mj_forward(model, on)
    inv = copy.copy(fwd)
    with options.changed(model, continuous):
        mujoco.mj_inverse(model, inv)
    if not inv.nefc == on.nefc == fwd.nefc:  # other constraints at the same state: all of it differs
        return Recovered(float("inf"), 0.0, converged, largest, float(data.time))
    # a row's force is -D (J qacc - aref): the round-off of its acceleration, times D, is what recovery cannot beat
    # (MuJoCo's SDF gears, model/plugin/sdf/gear.xml: contact rows with R = 8e-17, D = 1.25e16, 94 N of 8532 N)
    jac = mujoco_versions.constraint_jacobian(model, fwd)
    accel = np.abs(jac) @ np.abs(fwd.qacc) + np.abs(fwd.efc_aref[: fwd.nefc])
    unresolved = ULPS * np.finfo(float).eps * fwd.efc_D[: fwd.nefc] * accel
    error = np.maximum(np.abs(inv.efc_force[: inv.nefc] - force) - unresolved, 0.0)
    return Recovered(float(np.max(error)) / scale,
                     float(np.max(np.abs(on.efc_force[: on.nefc] - force))) / scale, converged, largest,
                     float(data.time))


def smooth_model(model: mujoco.MjModel) -> dict[str, int]:
    """The options of `continuous_model` with constraints off."""
    return {**continuous_model(model),
            "disableflags": int(model.opt.disableflags) | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)}


def continuous_model(model: mujoco.MjModel) -> dict[str, int]:
    """The options whose inverse dynamics reads qacc as the continuous-time acceleration mj_forward gives (for
    `options.changed`). (The pack compiles a sleeping model awake, `pytest_physlaw.pack`: a sleeping tree's dofs are
    skipped by forward dynamics, not by inverse dynamics.)"""
    invdiscrete = getattr(mujoco.mjtEnableBit, "mjENBL_INVDISCRETE", None)
    if invdiscrete is None:
        return {}
    return {"enableflags": int(model.opt.enableflags) & ~int(invdiscrete)}


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
    tight = tightened(model)
    found = [recovered_residual(model, state, tight, continuous) for state in exercised.states]
    converged = [r for r in found if r.converged]
    if converged:
        worst = max(converged, key=lambda r: r.over_reach)
        law.check("constraint_recovered_over_reach", worst.over_reach, le=1.0, drift_abs=1.0,
                  why=f"|inverse constraint force - the solver's| on efc_force, {worst.residual:.3g} of the solver's "
                      f"largest ({worst.largest:.3g}) at t = {worst.time:.3f} s, over {SPREAD:g} x the solve's own error "
                      f"there ({worst.own:.3g}: how far its forces move when it goes on to {TIGHTER:g} of its tolerance) "
                      f"+ {RECOVERED:g}, over the states whose solve converged; "
                      f"{_recovery_cause(model, worst, exercised.states[found.index(worst)])}")


def settling_tolerance(model: mujoco.MjModel, data: mujoco.MjData) -> float | None:
    """The loosest tolerance, a decade at a time below the model's (down to 1e-6 of it), at which the solve's own
    error at `data` is at most RECOVERED / SPREAD of its largest force; None where none is."""
    for decade in range(1, 7):
        tolerance = float(model.opt.tolerance) * 10.0 ** -decade
        continuous = {**continuous_model(model), "tolerance": tolerance}
        if recovered_residual(model, data, tightened(model, tolerance), continuous).own <= RECOVERED / SPREAD:
            return tolerance
    return None


def _recovery_cause(model: mujoco.MjModel, worst: Recovered, state: mujoco.MjData) -> str:
    """What the worst state's figures say: an engine defect, or the solve's own error (and the tolerance that
    settles it, measured at that state)."""
    if worst.over_reach > 1:
        return (f"failing, MuJoCo {mujoco.__version__}'s inverse dynamics recovers another force from the solver's qacc "
                "than the solver applied, beyond the solve's own error: an engine defect (not the model's): report it, "
                "or change MuJoCo version")
    if worst.residual <= RECOVERED:
        return "inverse dynamics recovers the solver's force"
    solver = mujoco.mjtSolver(int(model.opt.solver)).name.removeprefix("mjSOL_")
    settles = settling_tolerance(model, state)
    change = (f"at that state they settle to {RECOVERED / SPREAD:g} with <option tolerance=\"{settles:g}\"/>"
              if settles is not None else
              f"at that state no tolerance down to {model.opt.tolerance * 1e-6:g} settles them to {RECOVERED / SPREAD:g}")
    return (f"the residual is the forward solve's own error, not inverse dynamics': {solver} stops at tolerance "
            f"{model.opt.tolerance:g} before the forces (what touch sensors read) settle; {change}, or solve with Newton")


def _dof_name(model: mujoco.MjModel, dof: int) -> str:
    joint = int(model.dof_jntid[dof])
    return f"joint {model.joint(joint).name or str(joint)!r}" if joint >= 0 else f"dof {dof}"

