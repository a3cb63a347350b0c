"""The body wrenches MuJoCo reports for its constraints are the forces its solver applied: each contact's and each
connect or weld equality's force, as `mj_rnePostConstraint` books it on the bodies (`cfrc_ext`, from which the
`force`, `torque` and contact sensors and `cfrc_int` read), maps back through the bodies' Jacobians to the
generalised constraint force J^T f of those rows. Source: MuJoCo's documentation ("Computation": the constraint
force J^T f; mjData.cfrc_ext, mj_rnePostConstraint); the principle of virtual work.

A wrench booked on the wrong body, with the wrong lever arm or without its friction, breaks this equality:
MuJoCo 3.2.3-3.2.4 booked site-defined connect and weld forces on the bodies whose ids equal the sites' (issue
#2179), and releases up to 3.13.0 booked a weld's force with other arms than the solver applied it (found on
gymnasium-robotics' Fetch, a mocap weld: 0.33 % of the force; a torque sensor at a free ball joint of a welded
arm reads 0.03 N m on 3.13.0, 9e-9 on 3.14.0: `regressions/`). Rows of joint, tendon and flex equalities, limits and friction loss act on dofs, not bodies: left out;
so are contacts with a flex. Checked at each exercised state (the start, the driven run's, the reaching run's at
limits, saturation and new contacts: `fixtures.exercised`) and at the settled end.

Measured:
`pytest --physlaw-model=MODEL.xml -k wrench -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo documentation, Computation (constraint forces; cfrc_ext, mj_rnePostConstraint); virtual work"
ROUND_OFF = 1e-8  # of the rows' largest generalised force
CNSTR = mujoco.mjtConstraint
CONTACTS = {int(CNSTR.mjCNSTR_CONTACT_FRICTIONLESS), int(CNSTR.mjCNSTR_CONTACT_PYRAMIDAL),
            int(CNSTR.mjCNSTR_CONTACT_ELLIPTIC)}
BODY_EQUALITIES = {int(mujoco.mjtEq.mjEQ_CONNECT), int(mujoco.mjtEq.mjEQ_WELD)}


def _rows(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The constraint rows whose force MuJoCo books on bodies: contacts between geoms, connect and weld."""
    kinds, ids = data.efc_type[: data.nefc], data.efc_id[: data.nefc]
    keep = np.zeros(data.nefc, dtype=bool)
    flexes = mujoco_versions.contact_flexes(data)  # 3.0's single MjContact reads a cloth's contact as a geom's
    for r, (kind, i) in enumerate(zip(kinds.tolist(), ids.tolist())):
        if kind in CONTACTS:
            keep[r] = bool(np.all(flexes[i] < 0))
        elif kind == int(CNSTR.mjCNSTR_EQUALITY):
            keep[r] = int(model.eq_type[i]) in BODY_EQUALITIES
    return keep


def mismatch(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """(|sum_b J_b^T cfrc_ext_b - J_rows^T f_rows|, the scale its round-off goes with, worst dof) at `state` (not
    changed); the scale is the largest generalised constraint force of any row (the wrenches are booked beside the
    others': a Newton's cradle's balls touch with 1e-13 N while tendon limits carry them), 0 where no contact, connect
    or weld row carries force."""
    data = copy.copy(state)
    data.xfrc_applied[:] = 0  # cfrc_ext books applied wrenches too: none, so it holds constraint forces only
    mujoco.mj_forward(model, data)
    keep = _rows(model, data)
    if not np.any(keep):
        return 0.0, 0.0, 0
    jac = mujoco_versions.constraint_jacobian(model, data)
    want = jac[keep].T @ data.efc_force[: data.nefc][keep]
    booked = _constraint_wrenches(model, data, keep)
    got = np.zeros(model.nv)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for b in np.flatnonzero(np.any(booked[1:] != 0, axis=1)) + 1:
        mujoco.mj_jac(model, data, jacp, jacr, data.subtree_com[model.body_rootid[b]], int(b))
        got += jacr.T @ booked[b, :3] + jacp.T @ booked[b, 3:]
    error = np.abs(got - want)
    force = float(np.max(np.abs(want)))
    scale = max(force, float(np.max(np.abs(data.qfrc_constraint)))) if force > 0 else 0.0
    return float(np.max(error)), scale, int(np.argmax(error))


def _constraint_wrenches(model: mujoco.MjModel, data: mujoco.MjData, rows: np.ndarray) -> np.ndarray:
    """(nbody, 6) the part of `cfrc_ext` (after `mj_rnePostConstraint`) that the forces of `rows` make: as booked,
    less the same state's with those rows' efc_force zeroed. MuJoCo books other forces there too (3.14 books the
    actuator force a spatial tendon pulls its bodies with: Myosuite's hand, muscles only, no contact, read a
    'mismatch' of 5.2 against a constraint force of 0)."""
    mujoco.mj_rnePostConstraint(model, data)
    booked = data.cfrc_ext.copy()
    force = data.efc_force.copy()  # on `data` itself: MuJoCo 3.0's copy of an MjData zeroes its contacts
    data.efc_force[: data.nefc][rows] = 0
    mujoco.mj_rnePostConstraint(model, data)
    unloaded = data.cfrc_ext.copy()
    data.efc_force[:] = force  # the solver's forces back; cfrc_ext is read from the result, not from `data`
    return booked - unloaded


@pytest.mark.law("model-constraint-wrenches", source=SOURCE)
def test_reported_constraint_wrenches_are_the_applied_forces(law, pack_model, exercised, settled, model_case) -> None:
    """At each exercised state (the driven and the reaching runs') and at the settled end, the bodies' constraint wrenches
    (`cfrc_ext` after `mj_rnePostConstraint`), mapped through each body's Jacobian, sum to the generalised force
    J^T f of the contact, connect and weld rows, to round-off of that force."""
    model = pack_model.model
    found = [mismatch(model, s) for s in [*exercised.states, settled.final]]
    loaded = [(e, f, d) for e, f, d in found if f > 0]
    if not loaded:
        pytest.skip(f"{model_case}: no contact, connect or weld force in any state checked")
    scale = max(f for _, f, _ in loaded)
    error, _, dof = max(loaded)
    law.check("wrench_mismatch", error / scale, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|sum_b J_b^T cfrc_ext_b - J^T f| over contact, connect and weld rows, a share of the largest such "
                  f"force; worst at dof {dof}; failing, MuJoCo {mujoco.__version__} books those forces on other bodies or with "
                  "other arms than its solver applied them, so force, torque and contact sensors read wrong: an "
                  "engine defect (not the model's): name it in a MuJoCo issue, or change MuJoCo version")
