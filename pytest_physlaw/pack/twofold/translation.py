"""A contact sees no common translation: when both sides of a contact move by the same velocity u, nothing slides,
sinks or parts there, so each of its constraint rows (normal, friction, torsion, rolling) reads zero velocity,
efc_J qvel_u = 0. It is the contact's Jacobian checked against a second computation of the same motion: the free
joints' and the flex vertices' own velocities, which move a tree or an element's vertices rigidly by u. The same
statement is Newton's third law for the contact's force (what it pushes one side with, it pulls the other with): a
flex element whose contact spreads its force over its vertices by weights that do not sum to one fails it. Source:
Newton's third law; rigid-body kinematics; MuJoCo's documentation (Computation: the contact's rows of `efc_J`, a
flex element's contact interpolated over its vertices).

The measurement: at each state of `twofold_states` (three of them above 200 dofs), each contact whose two sides can
translate by a velocity of their own: a geom's side where its body's tree hangs from a free joint (its linear velocity
u, nothing else), a flex's side where each vertex of the touching element (or the touching vertex) is a body moved by
three slides under a static parent (their velocities solve A^T qvel = u); the world's side, or any other, leaves the
contact out. For u the world's three axes, |efc_J[rows] qvel_u| over the rows' size sum |J_ij| |qvel_u,j|. Bound: 100
nv eps (round-off of the products' sum).

Measured figures and commands: docs/second-computations.md ("A contact sees no common translation").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.flex_balance import slides, three_slides
from pytest_physlaw.pack.readouts.constraint import contact_rows
from pytest_physlaw.pack.twofold.states import for_solves

EPS = float(np.finfo(float).eps)
ULPS = 100.0
SOURCE = ("Newton's third law; rigid-body kinematics; MuJoCo documentation, Computation (contact rows of efc_J, "
          "flex contacts)")


def free_roots(model: mujoco.MjModel) -> dict[int, int]:
    """Each body whose tree hangs from a free joint at its root, with that joint's first dof."""
    roots = {}
    for body in range(1, model.nbody):
        root = int(model.body_rootid[body])
        first = int(model.body_jntadr[root])
        if int(model.body_jntnum[root]) == 1 and int(model.jnt_type[first]) == mujoco.mjtJoint.mjJNT_FREE:
            roots[body] = int(model.jnt_dofadr[first])
    return roots


def slid_vertex(model: mujoco.MjModel, body: int) -> bool:
    """Whether a flex vertex's body is moved by three slides of its own under a static parent."""
    return three_slides(model, body) and int(model.body_weldid[int(model.body_parentid[body])]) == 0


def side_motion(model: mujoco.MjModel, data: mujoco.MjData, roots: dict[int, int], geom: int, flex: int, elem: int,
                vert: int) -> np.ndarray | None:
    """(3, nv): the qvel that moves one side of a contact by each world axis, or None where it cannot translate."""
    motion = np.zeros((3, model.nv))
    if flex < 0:
        body = int(model.geom_bodyid[geom])
        if body not in roots:
            return None
        motion[:, roots[body]:roots[body] + 3] = np.eye(3)  # a free joint's linear velocity is in the world frame
        return motion
    if getattr(model, "flex_interp", None) is not None and int(model.flex_interp[flex]):
        return None  # interpolated: the element's points move with nodes, not with vertex bodies
    first = int(model.flex_vertadr[flex])
    if elem >= 0:
        dim = int(model.flex_dim[flex])
        start = int(model.flex_elemdataadr[flex]) + elem * (dim + 1)
        vertices = np.asarray(model.flex_elem[start:start + dim + 1], dtype=int)
    elif vert >= 0:
        vertices = np.array([vert])
    else:
        return None
    bodies = np.asarray(model.flex_vertbodyid, dtype=int)[first + vertices]
    if not all(slid_vertex(model, int(b)) for b in bodies):
        return None
    axes, dofs = slides(model, data, bodies)
    for axis, dof in zip(axes, dofs):
        motion[:, dof] = np.linalg.solve(axis.T, np.eye(3)).T  # velocity = axes^T qvel = each world axis
    return motion


def unmoved(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, int, int]:
    """(the largest |efc_J qvel_u| of a contact's rows over its round-off bound, the contact, how many judged) at a
    forwarded state."""
    if not data.ncon or not data.nefc:
        return 0.0, -1, 0
    jac = mujoco_versions.constraint_jacobian(model, data)
    roots = free_roots(model)
    flexes, elems, verts = mujoco_versions.contact_flex_parts(data)
    geoms = mujoco_versions.contact_geoms(data.contact)
    worst, where, judged = 0.0, -1, 0
    for c in range(data.ncon):
        if int(data.contact.efc_address[c]) < 0:
            continue
        sides = [side_motion(model, data, roots, int(geoms[c, k]), int(flexes[c, k]), int(elems[c, k]),
                             int(verts[c, k])) for k in range(2)]
        if sides[0] is None or sides[1] is None:
            continue
        # both sides' motions; where they share dofs (one tree, one flex) they are the same motion
        motion = np.where(sides[0] != 0, sides[0], sides[1])
        rows = jac[contact_rows(model, data, c)]
        seen = np.abs(rows @ motion.T)
        size = np.abs(rows) @ np.abs(motion.T)
        share = float(np.max(seen / np.maximum(ULPS * model.nv * EPS * size, 1e-300)))
        judged += 1
        if share >= worst:
            worst, where = share, c
    return worst, where, judged


@pytest.mark.law("model-contacts-see-no-common-translation", source=SOURCE)
def test_contacts_see_no_common_translation(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each contact between two sides that can translate (free trees, slid flex vertices) reads no
    velocity in any of its rows when both sides move by the same velocity, to 100 nv eps of the rows' size."""
    model = pack_model.model
    if not free_roots(model) and not model.nflex:
        pytest.skip(f"{model_case}: no free tree and no flex: no contact whose two sides can translate")
    worst, judged = (0.0, "-", 0.0), 0
    for state in for_solves(model, twofold_states):
        share, c, count = unmoved(model, state)
        judged += count
        if count and share >= worst[0]:
            pair = mujoco_versions.contact_geoms(state.contact)[c].tolist()
            names = " / ".join((mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or str(g)) if g >= 0 else "flex"
                               for g in pair)
            worst = (share, names, float(state.time))
    if not judged:
        pytest.skip(f"{model_case}: no contact between two sides that can translate at any state")
    share, names, t = worst
    law.check("common_translation_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |efc_J qvel| of a contact's rows when both its sides move by the same velocity, over "
                  f"100 nv eps of the rows' size, over {judged} contacts x states; worst {names} at t = {t:.3f} s; "
                  f"failing, MuJoCo {mujoco.__version__} builds this contact's rows so that a common translation "
                  "slides or sinks it: its force does not act and react alike on its two sides (an engine defect: "
                  "name it in a MuJoCo issue, or change MuJoCo version)")
