"""What MuJoCo reports of its constraint forces is what its solver applied. The generalised constraint force
`qfrc_constraint` is J^T efc_force, the rows' Jacobian transposed times their forces (MuJoCo's documentation,
"Computation": constraint forces); and each contact's force, as `mj_contactForce` decodes it into the contact
frame (normal, two tangents, torsion and rolling; summed over a pyramidal cone's edges, read off an elliptic cone's
rows), applied at the contact point between the two bodies, does the same generalised work as the contact's rows'
forces and its adhesive pull (geom and pair `adhesion`, MuJoCo 3.11 on: a passive force along the normal, which
`mj_contactForce`'s net interface force has taken off the normal force) (the principle of virtual work).

The second computations: `mj_mulJacTVec` (MuJoCo's own J^T product over the same rows), and for a contact the
bodies' Jacobians at the contact point (`mj_jac`), through which the decoded force and torque, turned to the world
by the contact's frame, reach the dofs. A row left out of qfrc_constraint, a force booked twice, a cone decoded
with the wrong friction or sign breaks them. Contacts with a flex (no body pair) and rows MuJoCo excluded
(`efc_address` < 0) are left out of the contact law, which judges the 16 most loaded contacts of each state. Bound: round-off of the sum, a share of the size of its
terms (|J|^T |f|).

Measured:
`pytest --physlaw-model=MODEL.xml -k readout -s`; see docs/second-computations.md ("Readouts").
"""

from __future__ import annotations


import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo documentation, Computation (constraint forces, contact frame and cones); mj_contactForce; virtual work"
ROUND_OFF = 1e-10  # of the size of the summed terms (|J|^T |f|): n eps of it is 1e-12 for n up to 4500 terms
MAX_CONTACTS = 16  # contacts judged per state, the most loaded (a decoding defect is no single contact's)
DRIVE = ("generalised_error", "contact_error")  # the measures, per state (for scripts over many models)


def generalised_error(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """(largest |qfrc_constraint - J^T efc_force| over the dofs, the size |J|^T |efc_force| of the terms summed,
    worst dof) at `state` (not changed)."""
    data = state  # read only: MuJoCo's calls here write nothing into it
    want = np.zeros(model.nv)
    if data.nefc:
        mujoco.mj_mulJacTVec(model, data, want, np.array(data.efc_force[: data.nefc]))
    size = abs_jt(model, data, np.abs(data.efc_force[: data.nefc]))
    error = np.abs(np.asarray(data.qfrc_constraint) - want)
    return float(np.max(error, initial=0.0)), float(np.max(size, initial=0.0)), int(np.argmax(error)) if model.nv else 0


def abs_jt(model: mujoco.MjModel, data: mujoco.MjData, weights: np.ndarray) -> np.ndarray:
    """|J|^T `weights` over the constraint rows, from MuJoCo's sparse rows where it keeps them (a sand castle's 7,500
    rows by 3,300 dofs is 200 MB dense)."""
    if not data.nefc:
        return np.zeros(model.nv)
    if not mujoco.mj_isSparse(model):
        return np.abs(mujoco_versions.constraint_jacobian(model, data)).T @ weights
    rownnz = np.asarray(data.efc_J_rownnz[: data.nefc])
    rowadr = np.asarray(data.efc_J_rowadr[: data.nefc])
    row = np.repeat(np.arange(data.nefc), rownnz)
    index = rowadr[row] + np.arange(row.size) - np.repeat(np.cumsum(rownnz) - rownnz, rownnz)
    values = np.abs(np.ravel(data.efc_J)[index]) * weights[row]
    return np.bincount(np.ravel(data.efc_J_colind)[index], weights=values, minlength=model.nv)


def jacobian_rows(model: mujoco.MjModel, data: mujoco.MjData, rows: slice) -> np.ndarray:
    """The constraint Jacobian's `rows`, dense (len, nv), read from MuJoCo's sparse or dense storage."""
    if not mujoco.mj_isSparse(model):
        return np.asarray(data.efc_J[: data.nefc * model.nv]).reshape(data.nefc, model.nv)[rows].copy()
    out = np.zeros((rows.stop - rows.start, model.nv))
    for k, r in enumerate(range(rows.start, rows.stop)):
        span = slice(int(data.efc_J_rowadr[r]), int(data.efc_J_rowadr[r]) + int(data.efc_J_rownnz[r]))
        out[k, np.ravel(data.efc_J_colind)[span]] = np.ravel(data.efc_J)[span]
    return out


def contact_rows(model: mujoco.MjModel, data: mujoco.MjData, c: int) -> slice:
    """The constraint rows of contact `c`: 1 (frictionless), 2 (condim - 1) pyramid edges, or condim (elliptic)."""
    dim, address = int(data.contact.dim[c]), int(data.contact.efc_address[c])
    n = 1 if dim == 1 else (dim if int(model.opt.cone) == int(mujoco.mjtCone.mjCONE_ELLIPTIC) else 2 * (dim - 1))
    return slice(address, address + n)


def contact_bodies(model: mujoco.MjModel, data: mujoco.MjData, c: int) -> tuple[int, int] | None:
    """The bodies of contact `c`'s two geoms, None where a side is a flex."""
    geoms = mujoco_versions.contact_geoms(data.contact)[c].tolist()
    flex = np.asarray(data.contact.flex[c], dtype=int).tolist() if hasattr(data.contact, "flex") else [-1, -1]
    if min(geoms) < 0 or max(flex) >= 0:
        return None
    return int(model.geom_bodyid[geoms[0]]), int(model.geom_bodyid[geoms[1]])


def decoded_generalised(model: mujoco.MjModel, data: mujoco.MjData, c: int, bodies: tuple[int, int]) -> np.ndarray:
    """The generalised force of `mj_contactForce`'s force and torque of contact `c`, turned to the world by the
    contact frame (rows: normal, tangents; geom1 pushes geom2 along the normal), on the second body at the contact
    point and opposite on the first."""
    # the contacts' arrays, not one contact's struct: MuJoCo 3.0's bindings read one contact's pos and frame wrong
    local = np.zeros(6)
    mujoco.mj_contactForce(model, data, c, local)
    frame, pos = np.asarray(data.contact.frame[c]).reshape(3, 3), np.asarray(data.contact.pos[c], dtype=float)
    force, torque = frame.T @ local[:3], frame.T @ local[3:]
    out = np.zeros(model.nv)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for body, sign in zip(bodies, (-1.0, 1.0)):
        mujoco.mj_jac(model, data, jacp, jacr, pos, body)
        out += sign * (jacp.T @ force + jacr.T @ torque)
    return out


def adhesion(model: mujoco.MjModel, data: mujoco.MjData, c: int) -> float:
    """The adhesive pull of contact `c` (geom or pair `adhesion`, MuJoCo 3.11 on; 0 before): MuJoCo applies it as a
    passive force along the normal and `mj_contactForce` reports the net interface force, the solver's normal force
    less it (changelog: "mj_contactForce reports the net interface force")."""
    return float(data.contact.adhesion[c]) if hasattr(data.contact, "adhesion") else 0.0


def normal_jacobian(model: mujoco.MjModel, jac: np.ndarray) -> np.ndarray:
    """The contact normal's Jacobian from the contact's rows `jac`: the first row (frictionless, elliptic), the mean
    of a pyramid's edges (each is J_n +- mu J_t)."""
    if len(jac) > 1 and int(model.opt.cone) == int(mujoco.mjtCone.mjCONE_PYRAMIDAL):
        return np.mean(jac, axis=0)
    return jac[0]


def loaded_contacts(model: mujoco.MjModel, data: mujoco.MjData) -> list[int]:
    """The contacts between bodies (no flex) with rows, the MAX_CONTACTS most loaded (sum of |f| over their rows)
    where there are more: a pile of 2,400 grains costs its mj_jac calls (over 3,300 dofs) for the contacts that carry the load."""
    if not data.ncon or not data.nefc:
        return []
    cons = data.contact
    address, dim = np.asarray(cons.efc_address), np.asarray(cons.dim)
    keep = (address >= 0) & np.all(mujoco_versions.contact_geoms(cons) >= 0, axis=1)
    if hasattr(cons, "flex"):
        keep &= np.all(np.asarray(cons.flex).reshape(-1, 2) < 0, axis=1)
    elliptic = int(model.opt.cone) == int(mujoco.mjtCone.mjCONE_ELLIPTIC)
    count = np.where(dim == 1, 1, dim if elliptic else 2 * (dim - 1))
    sums = np.concatenate([[0.0], np.cumsum(np.abs(np.asarray(data.efc_force[: data.nefc])))])
    ends = np.minimum(address + count, data.nefc)
    load = np.where(keep, sums[np.clip(ends, 0, data.nefc)] - sums[np.clip(address, 0, data.nefc)], -1.0)
    order = np.argsort(-load, kind="stable")
    return [int(c) for c in order[:MAX_CONTACTS] if keep[c]]


def contact_error(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """(largest |decoded contact force's generalised force - (J_rows^T f_rows + the adhesive pull)| over the
    contacts (`loaded_contacts`) and dofs, the largest size |J_rows|^T |f_rows| of a contact's terms, worst
    contact) at `state`; (0, 0, -1) where no contact between bodies has rows."""
    data = state  # read only: MuJoCo's calls here write nothing into it
    force = np.asarray(data.efc_force[: data.nefc])
    worst, size, at = 0.0, 0.0, -1
    for c in loaded_contacts(model, data):
        rows = contact_rows(model, data, c)
        jac = jacobian_rows(model, data, rows)
        want = jac.T @ force[rows] - adhesion(model, data, c) * normal_jacobian(model, jac)
        got = decoded_generalised(model, data, c, contact_bodies(model, data, c))
        error = float(np.max(np.abs(got - want), initial=0.0))
        size = max(size, float(np.max(np.abs(jac).T @ np.abs(force[rows]), initial=0.0)))
        if error >= worst:
            worst, at = error, c
    return worst, size, at


@pytest.mark.law("model-readout-constraint-force", source=SOURCE)
def test_qfrc_constraint_is_the_rows_forces(law, pack_model, readout_states, model_case) -> None:
    """At the start and at each state of the driven run, the generalised constraint force MuJoCo reports
    (`qfrc_constraint`) is J^T efc_force (`mj_mulJacTVec`), to round-off of the terms summed: the force that
    moved the dofs is the one the solver found."""
    model = pack_model.model
    found = [generalised_error(model, s) for s in readout_states]
    scale = max(f for _, f, _ in found)
    error, _, dof = max(found)
    if scale == 0 and error == 0:
        pytest.skip(f"{model_case}: no constraint row carries force in any state checked")
    law.check("qfrc_constraint_error", error / max(scale, np.finfo(float).tiny), le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|qfrc_constraint - J^T efc_force| (mj_mulJacTVec), a share of |J|^T |efc_force|; worst at dof {dof}; "
                  f"failing, MuJoCo {mujoco.__version__} reports another generalised constraint force than its rows' "
                  "forces apply: an engine defect (name it in a MuJoCo issue, or change MuJoCo version)")


@pytest.mark.law("model-readout-contact-force", source=SOURCE)
def test_contact_force_is_the_rows_forces(law, pack_model, readout_states, model_case) -> None:
    """At the start and at each state of the driven run, each contact's force and torque as `mj_contactForce`
    decodes them (contact frame; pyramidal edges summed, elliptic rows read), applied at the contact point to the
    two bodies through their Jacobians (`mj_jac`), is the generalised force of the contact's rows, J_rows^T f_rows,
    to round-off of those terms."""
    model = pack_model.model
    found = [contact_error(model, s) for s in readout_states]
    loaded = [(e, f, c, i) for i, (e, f, c) in enumerate(found) if c >= 0]
    if not loaded:
        pytest.skip(f"{model_case}: no contact between bodies with constraint rows in any state checked")
    scale = max(f for _, f, _, _ in loaded)
    error, _, contact, state = max(loaded)
    cone = mujoco.mjtCone(int(model.opt.cone)).name
    law.check("contact_force_error", error / max(scale, np.finfo(float).tiny), le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|J_contact^T frame^T mj_contactForce - J_rows^T f_rows| at the contact point, a share of |J_rows|^T "
                  f"|f_rows|; worst contact {contact} of state {state} ({cone}); failing, MuJoCo {mujoco.__version__}'s "
                  "mj_contactForce decodes another force than the contact's rows apply (frame, cone edges or friction): "
                  "touch sensors and contact readouts read wrong; an engine defect")
