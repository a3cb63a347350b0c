"""Gravity compensation cancels the compensated share of each body's weight: the generalised force MuJoCo applies
for `gravcomp` is the force -gravcomp m g at each compensated body's centre of mass, mapped to the dofs through
that body's Jacobian. Source: MuJoCo's documentation (XML reference: body/gravcomp, joint/actuatorgravcomp;
"Computation": passive forces); the principle of virtual work (a force at a point acts on the dofs as J^T f).

The Jacobian is MuJoCo's own (`mj_jacBodyCom`); the applied force is what reaches the dofs, measured as the
passive and actuator forces with the model's gravcomp against without it, so the compensation counts whether it
comes as a passive force or through actuators (`actuatorgravcomp`), and only if it is delivered: a body without
joints of its own, welded into a jointed parent, is compensated all the same, its weight hanging on its parent's
dofs (MuJoCo 3.4.0 computed it in `qfrc_gravcomp` and never added it: issue #3066). Checked at each exercised
state (the start, the driven run's, the reaching run's at limits and saturation: `fixtures.exercised`).

Measured:
`pytest --physlaw-model=MODEL.xml -k gravcomp -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

SOURCE = "MuJoCo XML reference (body/gravcomp, joint/actuatorgravcomp); the principle of virtual work"
ROUND_OFF = 1e-9  # of the compensated weight's largest generalised force


def expected(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> np.ndarray:
    """sum over `bodies` of J_com^T (-gravcomp m g): the generalised force that compensates their weight share."""
    jacp, force = np.zeros((3, model.nv)), np.zeros(model.nv)
    for b in bodies.tolist():
        mujoco.mj_jacBodyCom(model, data, jacp, None, b)
        force += jacp.T @ (-model.body_gravcomp[b] * model.body_mass[b] * np.asarray(model.opt.gravity))
    return force


def delivered(model: mujoco.MjModel, data: mujoco.MjData, without: mujoco.MjModel) -> np.ndarray:
    """The generalised force that reaches the dofs because of gravity compensation at `data` (not changed): the
    passive and actuator forces MuJoCo applies, less the same state's with every `body_gravcomp` zeroed."""
    forces = []
    for m in (model, without):
        scratch = copy.copy(data)
        mujoco.mj_forward(m, scratch)
        forces.append(scratch.qfrc_passive + scratch.qfrc_actuator)
    return forces[0] - forces[1]


@pytest.mark.law("model-gravcomp", source=SOURCE)
def test_gravcomp_lifts_the_compensated_weight(law, pack_model, exercised, model_case) -> None:
    """At each exercised state (the driven and the reaching runs'), the force that gravity compensation adds to the dofs
    (passive and actuator forces, with against without the model's `gravcomp`) equals -gravcomp m g at each
    compensated body's centre of mass mapped through its Jacobian (`mj_jacBodyCom`), to round-off of that
    force. Dofs whose compensation goes through a force-limited actuator (`actuatorgravcomp` on a joint with
    `actuatorfrcrange`) may be clamped there: left out."""
    model = pack_model.model
    bodies = np.flatnonzero(np.asarray(model.body_gravcomp) != 0)
    if not bodies.size:
        pytest.skip(f"{model_case}: no body has gravcomp")
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY or not np.any(model.opt.gravity):
        pytest.skip(f"{model_case}: gravity is off (<option gravity> or <flag gravity=\"disable\">): nothing to compensate")
    without = copy.copy(model)
    without.body_gravcomp[:] = 0
    dofs = _unclamped_dofs(model)
    worst, at, worst_state = 0.0, 0, None
    for state in exercised.states:
        want = expected(model, state, bodies)
        error = np.abs(delivered(model, state, without) - want)[dofs]
        share = float(np.max(error, initial=0.0)) / max(float(np.max(np.abs(want))), 1e-300)
        if share >= worst:
            worst, at, worst_state = share, int(dofs[np.argmax(error)]) if error.size else 0, (state, want)
    missing = _dropped(model, *worst_state, bodies, without, dofs) if worst_state is not None else ""
    law.check("gravcomp_error", worst, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|force gravcomp adds to the dofs - sum J_com^T (-gravcomp m g)|, a share of the compensated weight's "
                  f"largest force, worst at dof {at}{missing}; failing, MuJoCo {mujoco.__version__} does not apply the "
                  "compensation the model declares: an engine defect (not the model's): name it in a MuJoCo issue, "
                  "or change MuJoCo version")


def _unclamped_dofs(model: mujoco.MjModel) -> np.ndarray:
    """The dofs whose compensation no actuator force range can clamp."""
    actgc = getattr(model, "jnt_actgravcomp", np.zeros(model.njnt))
    limited = getattr(model, "jnt_actfrclimited", np.zeros(model.njnt))
    clamped = (np.asarray(actgc) != 0) & (np.asarray(limited) != 0)
    return np.flatnonzero(~clamped[model.dof_jntid]) if model.nv else np.zeros(0, dtype=int)


def _dropped(model: mujoco.MjModel, data: mujoco.MjData, want: np.ndarray, bodies: np.ndarray,
             without: mujoco.MjModel, dofs: np.ndarray) -> str:
    """The compensated bodies whose own weight share the delivered force leaves out at the worst state (`want`:
    the whole compensation there), for the message."""
    got = delivered(model, data, without)[dofs]
    everyone = want[dofs]
    missing = []
    for b in bodies.tolist():
        alone = expected(model, data, np.array([b]))[dofs]
        if np.max(np.abs(alone), initial=0.0) > 0 and \
                np.max(np.abs(got - (everyone - alone))) < 1e-6 * np.max(np.abs(alone)):
            missing.append(model.body(b).name or f"body{b}")
    return f"; left out: the weight of {', '.join(repr(n) for n in missing)}" if missing else ""
