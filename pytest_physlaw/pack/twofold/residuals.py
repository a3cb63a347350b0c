"""Each equality constraint's residual changes as its Jacobian says: along the state's own motion the rate of the
residual MuJoCo's constraint rows hold (`efc_pos` of the equality rows: connect, weld, joint and tendon
equalities) is the Jacobian's prediction `efc_J qvel`. The solver relies on it: the reference acceleration
-b (J qvel) - k r treats J qvel as r's rate, so a Jacobian of another quantity than the residual makes a soft
constraint stiffer or softer than its solref, and a hard one drift. Source: MuJoCo's documentation (Computation:
constraint model, efc_J the residual's derivative; solver parameters: the reference acceleration); the residual's
rate measured by central differences along qvel (`rates.along_motion`).

Bound: |rate - efc_J qvel| <= 10 (the difference's own error + the product's round-off), per unit of the state's
largest dof speed: the difference's truncation (a third of what the steps H and H/2 differ by) and round-off
(100 eps S / (H/2), S the residual's operands: the model's extent, the bodies' positions, qpos, the tendon
lengths), and 100 eps |J_row|_1 for the product. The states: `twofold_states`, the three of `states.sampled`
above 200 dofs (flex scenes). Left out: states at rest, and tendon equality rows whose tendon
changes wrapping branch within the steps (no derivative there).

Not judged: flex equalities. A flexstrain row's residual is the element's strain in its corotational frame,
r = e . (R(x) x - x0), and its Jacobian is R^T e contracted with the nodes' Jacobians (engine_core_constraint.c,
mjEQ_FLEXSTRAIN): the rotation R is held fixed, so J qvel leaves out e . (dR/dt x), not small where a strained
element turns; the Jacobian is an approximation by design, not the residual's derivative. Flex edge and vertex
equalities (one row per edge, thousands on a flex scene) need MuJoCo's flex pass, not run here.

MuJoCo 3.0.0 scaled a weld's rotational Jacobian by its torquescale and not its rotational residual (commit
86d9c84e, changelog 3.0.1). Measured (`pytest-physlaw check MODEL.xml -k residual -p no:xdist`, each release's venv):
regressions/models/mujoco_86d9c84e_weld_torquescale.xml on 3.0.0 7.8e7 of the bound (the weld's rotational rows 0.8
of their rate off), on 3.0.1 0.013, its torquescale-1 twin 0.012 on both; the zoo (MuJoCo's models, gymnasium,
gymnasium-robotics, dm_control) 16 models judged on 3.14.0 and 11 on 4.0.1, none failed, worst 0.0999 (the
elasticity cable). More: docs/second-computations.md ("Rates along the motion").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.states import LARGE, sampled

SOURCE = ("MuJoCo documentation, Computation (constraint model: efc_J is the residual's derivative; the reference "
          "acceleration); central differences along qvel")
EQ = mujoco.mjtEq
JUDGED = (EQ.mjEQ_CONNECT, EQ.mjEQ_WELD, EQ.mjEQ_JOINT, EQ.mjEQ_TENDON)
C = 10.0  # the bound's factor over the measurement's own error


def equality_residuals(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(efc_pos of the equality rows, a branch label per row) at `data`'s position: MuJoCo's kinematics, tendon and
    constraint passes (`mj_makeConstraint`; contacts are the state's, the equality rows come first). A tendon
    equality's label carries its tendons' wrapping branches."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_tendon(model, data)
    mujoco.mj_makeConstraint(model, data)
    ne = int(data.ne)
    eqs = np.asarray(data.efc_id[:ne], dtype=np.int64)
    labels = eqs.copy()
    tendon_rows = np.flatnonzero(model.eq_type[eqs] == EQ.mjEQ_TENDON)
    if tendon_rows.size:
        branch = rates.branches(model, data)
        for r in tendon_rows.tolist():
            pair = [int(model.eq_obj1id[eqs[r]]), int(model.eq_obj2id[eqs[r]])]
            labels[r] = hash((int(eqs[r]), *(int(branch[t]) for t in pair if t >= 0)))
    return np.array(data.efc_pos[:ne], float), labels


def mismatch(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """At one state: (|rate - efc_J qvel| over its bound, the same as a share of the larger of the two, the rows'
    equality ids, rows left out) for the judged equality rows; None where the state is at rest."""
    ne = int(data.ne)
    eqs = np.asarray(data.efc_id[:ne], dtype=np.int64)
    judged = np.isin(model.eq_type[eqs], JUDGED)
    if not judged.any():
        return None
    size = np.abs(np.asarray(data.efc_pos[:ne], float)) + rates.operand_size(model, data)
    rate = rates.along_motion(model, data, equality_residuals, size)
    if rate is None:
        return None
    jac = mujoco_versions.constraint_jacobian(model, data, ne)
    predicted = jac @ (np.asarray(data.qvel, float) / rate.speed)
    product = rates.ULPS * rates.EPS * np.sum(np.abs(jac), axis=1)
    keep = judged & rate.defined
    apart = np.abs(rate.measured - predicted)[keep]
    over = apart / (C * (rate.error + product)[keep])
    share = apart / np.maximum(np.maximum(np.abs(rate.measured), np.abs(predicted))[keep], 1e-300)
    return over, share, eqs[keep], int(np.count_nonzero(judged & ~rate.defined))


@pytest.mark.law("model-constraint-residual-rates", source=SOURCE)
def test_constraint_residuals_change_as_their_jacobian_says(law, pack_model, twofold_states, model_case) -> None:
    """At each moving state, each equality row's residual (connect, weld, joint, tendon) changes along qvel as
    efc_J qvel says, to 10 x the central difference's own error."""
    model = pack_model.model
    if not np.isin(model.eq_type, JUDGED).any():
        pytest.skip(f"{model_case}: no connect, weld, joint or tendon equality")
    worst, left_out, judged = (0.0, 0.0, -1, 0.0), 0, 0
    for state in (twofold_states if model.nv <= LARGE else sampled(twofold_states)):  # flex scenes: three
        found = mismatch(model, state)
        if found is None:
            continue
        over, share, eqs, undefined = found
        left_out += undefined
        judged += over.size
        if over.size and float(np.max(over)) > worst[0]:
            k = int(np.argmax(over))
            worst = (float(over[k]), float(share[k]), int(eqs[k]), float(state.time))
    if not judged:
        pytest.skip(f"{model_case}: no state where an active equality row moves along the motion")
    ratio, share, eq, t = worst
    name = (model.equality(eq).name or str(eq)) if eq >= 0 else "-"
    kind = mujoco.mjtEq(int(model.eq_type[eq])).name if eq >= 0 else "-"
    law.check("rate_apart_over_error", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |d(efc_pos)/dt - efc_J qvel| of an equality row over 10 x the central difference's own "
                  f"error, over {judged} rows x states ({left_out} left out: a tendon's wrap changing branch within "
                  f"the steps); worst {name!r} ({kind}) at t = {t:.3f} s, {share:.3g} of its rate off; failing, MuJoCo "
                  f"{mujoco.__version__}'s constraint Jacobian is not the residual's derivative: the solver's reference "
                  "acceleration (-b J qvel - k r) damps and stiffens this constraint by another amount than its "
                  "solref says: an engine defect (name it in a MuJoCo issue, or change MuJoCo version)")
