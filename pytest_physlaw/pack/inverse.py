"""Forward and inverse dynamics agree: at any state, `mj_inverse` given the acceleration `mj_forward` computed
returns the forces that produced it. Source: MuJoCo's documentation ("Computation": inverse dynamics, the
fwdinv diagnostic `mjData.solver_fwdinv`); the equation of motion M qacc + c = tau + J^T f.

Forward dynamics solves M qacc = qfrc_smooth + qfrc_constraint for qacc; inverse dynamics takes qacc and
returns qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint, recovering the constraint force
from qacc through the same soft-constraint model. Two parts are checked apart, at the start and at each state
of the driven run (seeded controls, limbs swinging and touching):

- the smooth dynamics: qfrc_inverse plus the constraint force inverse dynamics recovered equals the applied
  forces (actuators, qfrc_applied) plus the constraint force forward dynamics applied. Both sides are MuJoCo's
  own mass matrix, bias and passive forces computed twice; they differ by round-off unless one of the two
  paths computes a term the other does not (a tendon's armature missing from inverse dynamics: MuJoCo
  3.3.1-3.3.3).
- the constraint force: inverse dynamics recovers the solver's own constraint force from qacc, to the solver's
  convergence (recorded for the gate, bounded where the solve converged).

Measured:
`pytest --physlaw-model=MODEL.xml -k inverse -s`; see README ("Your own model").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

SOURCE = "MuJoCo documentation, Computation (inverse dynamics, fwdinv); the equation of motion"
ROUND_OFF = 1e-8  # of the state's force scale: the same terms computed twice differ by round-off only
RECOVERED = 1e-3  # of the force scale: a converged solve's constraint force, recovered from its qacc


def _scale(data: mujoco.MjData) -> float:
    """The state's force scale: the largest generalised force acting (inertial, bias, passive, actuator,
    constraint), so a residual reads as a share of the forces in play."""
    parts = (data.qfrc_bias, data.qfrc_passive, data.qfrc_actuator, data.qfrc_applied, data.qfrc_constraint,
             data.qfrc_smooth - data.qfrc_bias)
    return max(max(float(np.max(np.abs(p))) if p.size else 0.0 for p in parts), 1e-300)


def residuals(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, float, int, bool]:
    """(smooth residual, constraint residual, worst dof of the smooth one, whether the forward solve converged)
    at `data` (forwarded; not changed), shares of the state's force scale."""
    m = copy.copy(model)
    invdiscrete = getattr(mujoco.mjtEnableBit, "mjENBL_INVDISCRETE", None)
    if invdiscrete is not None:  # the continuous qacc of mj_forward, not a discrete step's
        m.opt.enableflags &= ~int(invdiscrete)
    fwd = copy.copy(data)
    mujoco.mj_forward(m, fwd)
    applied = fwd.qfrc_actuator + fwd.qfrc_applied
    constraint = fwd.qfrc_constraint.copy()
    niter = fwd.solver_niter[: max(int(fwd.nisland), 1)]
    converged = bool(np.all(niter < m.opt.iterations))
    scale = _scale(fwd)
    inv = copy.copy(fwd)
    mujoco.mj_inverse(m, inv)
    smooth = inv.qfrc_inverse + inv.qfrc_constraint - (applied + constraint)
    worst = int(np.argmax(np.abs(smooth))) if smooth.size else 0
    recovered = inv.qfrc_constraint - constraint
    return (float(np.max(np.abs(smooth))) / scale if smooth.size else 0.0,
            float(np.max(np.abs(recovered))) / scale if recovered.size else 0.0, worst, converged)


@pytest.mark.law("model-inverse-dynamics", source=SOURCE)
def test_inverse_dynamics_returns_the_forces(law, pack_model, driven, model_case) -> None:
    """At the start and at each state of the driven run, `mj_inverse` given the qacc of `mj_forward` returns the
    applied forces: its smooth forces (qfrc_inverse plus the constraint force it recovers) equal the actuator,
    applied and constraint forces forward dynamics used, to round-off; and the constraint force it recovers is
    the solver's, to the solver's convergence where the solve converged."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    found = [residuals(model, state) for state in driven.states]
    smooth, worst_dof = max((s, d) for s, _, d, _ in found)
    law.check("smooth_residual", smooth, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|qfrc_inverse + inverse constraint force - (actuator + applied + forward constraint force)|, a "
                  f"share of the state's largest force; worst at dof {worst_dof} ({_dof_name(model, worst_dof)}): "
                  f"MuJoCo {mujoco.__version__}'s forward and inverse dynamics disagree on the mass matrix, bias or "
                  "passive force there, an engine defect (not the model's): name it in a MuJoCo issue, or change "
                  "MuJoCo version")
    converged = [r for _, r, _, ok in found if ok]
    if converged:
        law.check("constraint_recovered", max(converged), le=RECOVERED, drift_abs=RECOVERED,
                  why="|inverse constraint force - the solver's|, a share of the largest force, over the states whose "
                      "solve converged: soft constraints are invertible, so inverse dynamics recovers the solver's "
                      "force from qacc to the solver's tolerance")


def _dof_name(model: mujoco.MjModel, dof: int) -> str:
    joint = int(model.dof_jntid[dof])
    return f"joint {model.joint(joint).name or str(joint)!r}" if joint >= 0 else f"dof {dof}"

