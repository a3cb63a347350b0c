"""A contact sees no common translation: when both sides of a contact move by the same velocity u, nothing slides,
sinks or parts there, so each of its constraint rows (normal, friction, torsion, rolling) reads zero velocity,
efc_J qvel_u = 0; nor a common turn about its normal (both sides spun together about the normal through the contact's
point): the two sides' points on the normal move alike, so nothing slides either. It is the contact's Jacobian checked against a second computation of the same motion: the free
joints' and the flex vertices' own velocities, which move a tree or an element's vertices rigidly by u. The same
statement is Newton's third law for the contact's force (what it pushes one side with, it pulls the other with): a
flex element whose contact spreads its force over its vertices by weights that do not sum to one fails it. Source:
Newton's third law; rigid-body kinematics; MuJoCo's documentation (Computation: the contact's rows of `efc_J`, a
flex element's contact interpolated over its vertices).

The measurement: at each state of `twofold_states` (three of them above 200 dofs), each contact whose two sides can
translate by a velocity of their own: a geom's side where its body's tree hangs from a free joint (its linear velocity
u, nothing else), a flex's side where each vertex of the touching element (or the touching vertex) is a body moved by
three slides under a static parent (their velocities solve A^T qvel = u); the world's side, or any other, leaves the
contact out. For u the world's three axes, |efc_J[rows] qvel_u| over the rows' size sum |J_ij| |qvel_u,j|. The turn:
each side's velocity field n x (x - p) (n the contact's normal, p its point): a free tree's angular velocity n and its
root's linear velocity n x (x_root - p), each slid vertex's n x (x_i - p); a flex side's rows past the sliding ones
(torsion, rolling: a vertex does not turn) leave the contact out of the turn. A flex element's contact spread over its
vertices by weights whose centre is not the contact's point (MuJoCo to 3.17 weighed them by inverse distance, round
10's mujoco-4.0.0-flex-contact-weights) slides under the turn; a cloth's contact turns about its element's normal (MuJoCo
4.0 weighs the vertices by the point projected along it); past an element's edge the contact's normal leans from the
element's and its point lies off the element's (clamped) one by (radius + |dist|) times the lean's sine. Bound: 100
nv eps (round-off of the products' sum), plus, for a flex's contact turned, that offset times the rows' translation
gain.

Measured figures and commands: docs/second-computations.md ("A contact sees no common translation").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import flex_carriers
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
                vert: int, normal: np.ndarray, point: np.ndarray) -> np.ndarray | None:
    """(5, nv): the qvel that moves one side of a contact by each world axis, then turns it about `normal` through
    `point`, then the turn's size per dof (the lever |x - point| of a linear dof, 1 of an angular one: the scale of
    its round-off, where the turn's own entries cancel); or None where it cannot translate."""
    motion = np.zeros((5, model.nv))
    if flex < 0:
        body = int(model.geom_bodyid[geom])
        if body not in roots:
            return None
        root, dof = int(model.body_rootid[body]), roots[body]
        motion[:3, dof:dof + 3] = np.eye(3)  # a free joint's linear velocity is in the world frame
        motion[3, dof:dof + 3] = np.cross(normal, data.xpos[root] - point)
        motion[3, dof + 3:dof + 6] = np.asarray(data.xmat[root]).reshape(3, 3).T @ normal  # angular: body frame
        motion[4, dof:dof + 6] = [*[np.linalg.norm(data.xpos[root] - point)] * 3, 1.0, 1.0, 1.0]
        return motion
    if flex_carriers.interpolated(model, flex):
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
    for axis, dof, body in zip(axes, dofs, bodies):
        wanted = np.vstack([np.eye(3), np.cross(normal, data.xpos[body] - point)])
        motion[:4, dof] = np.linalg.solve(axis.T, wanted.T).T  # velocity = axes^T qvel = each wanted velocity
        motion[4, dof] = np.linalg.norm(data.xpos[body] - point)
    return motion


def turn_axis(model: mujoco.MjModel, data: mujoco.MjData, c: int, flexes: np.ndarray,
              elems: np.ndarray) -> np.ndarray | None:
    """The axis a contact's two sides turn about together: its normal; on a cloth's (2D flex's) element, the
    element's normal, along which MuJoCo projects the contact's point onto the element for its vertices' weights (a
    deep contact's normal leans from it); None on a 1D or 3D flex's element (not turned)."""
    axis = np.array(data.contact.frame[c][:3])
    for flex, elem in zip(flexes, elems):
        if flex < 0 or elem < 0:
            continue
        dim = int(model.flex_dim[flex])
        if dim != 2:
            return None
        start = int(model.flex_elemdataadr[flex]) + int(elem) * 3
        bodies = np.asarray(model.flex_vertbodyid, dtype=int)[int(model.flex_vertadr[flex])
                                                              + np.asarray(model.flex_elem[start:start + 3])]
        corners = np.asarray(data.xpos)[bodies]
        normal = np.cross(corners[1] - corners[0], corners[2] - corners[0])
        if not np.linalg.norm(normal) > 0:
            return None
        axis = normal / np.linalg.norm(normal)
    return axis


def unmoved(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, int, int, float, int, int]:
    """(the largest |efc_J qvel_u| of a contact's rows under a common translation over its round-off bound, the
    contact, how many judged; the same under a common turn about the normal) at a forwarded state."""
    if not data.ncon or not data.nefc:
        return 0.0, -1, 0, 0.0, -1, 0
    jac = mujoco_versions.constraint_jacobian(model, data)
    roots = free_roots(model)
    flexes, elems, verts = mujoco_versions.contact_flex_parts(data)
    geoms = mujoco_versions.contact_geoms(data.contact)
    found = [[0.0, -1, 0], [0.0, -1, 0]]  # translation, turn: worst share, its contact, judged
    for c in range(data.ncon):
        if int(data.contact.efc_address[c]) < 0:
            continue
        point = np.array(data.contact.pos[c])
        axis = turn_axis(model, data, c, flexes[c], elems[c])
        sides = [side_motion(model, data, roots, int(geoms[c, k]), int(flexes[c, k]), int(elems[c, k]),
                             int(verts[c, k]), np.zeros(3) if axis is None else axis, point) for k in range(2)]
        if sides[0] is None or sides[1] is None:
            continue
        # both sides' motions; where they share dofs (one tree, one flex) they are the same motion
        motion = np.where(sides[0] != 0, sides[0], sides[1])
        rows = jac[contact_rows(model, data, c)]
        seen = np.abs(rows @ motion[:4].T)
        size = np.abs(rows) @ np.abs(motion[[0, 1, 2, 4]].T)
        bound = ULPS * model.nv * EPS * size
        if axis is not None and (flexes[c] >= 0).any():
            # a contact past its element's edge: its normal leans from the element's by the angle whose sine is
            # |n x axis|, and its point lies off the element's along it by the radius and the depth (clamped weights)
            thick = max(float(model.flex_radius[f]) for f in flexes[c] if f >= 0) + abs(float(data.contact.dist[c]))
            lean = float(np.linalg.norm(np.cross(data.contact.frame[c][:3], axis)))
            bound[:, 3] += thick * lean * np.max(size[:, :3], axis=1) / 2  # the gain is both sides' (1 each)
        shares = seen / np.maximum(bound, 1e-300)
        # a vertex has no torsion or rolling; a turn needs an axis
        turns = axis is not None and (int(data.contact.dim[c]) <= 3 or (flexes[c] < 0).all())
        for k, share in enumerate((float(np.max(shares[:, :3])), float(np.max(shares[:, 3])) if turns else None)):
            if share is None:
                continue
            found[k][2] += 1
            if share >= found[k][0]:
                found[k][:2] = share, c
    return (*found[0], *found[1])


@pytest.mark.law("model-contacts-see-no-common-translation", source=SOURCE)
def test_contacts_see_no_common_translation(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each contact between two sides that can translate (free trees, slid flex vertices) reads no
    velocity in any of its rows when both sides move by the same velocity, or turn together about its normal
    through its point, to 100 nv eps of the rows' size."""
    model = pack_model.model
    if not free_roots(model) and not model.nflex:
        pytest.skip(f"{model_case}: no free tree and no flex: no contact whose two sides can translate")
    worst = {"translation": (0.0, "-", 0.0), "turn": (0.0, "-", 0.0)}
    judged = {"translation": 0, "turn": 0}
    for state in for_solves(model, twofold_states):
        found = unmoved(model, state)
        for kind, (share, c, count) in zip(worst, (found[:3], found[3:])):
            judged[kind] += count
            if count and share >= worst[kind][0]:
                pair = mujoco_versions.contact_geoms(state.contact)[c].tolist()
                names = " / ".join((mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or str(g)) if g >= 0
                                   else "flex" for g in pair)
                worst[kind] = (share, names, float(state.time))
    if not judged["translation"]:
        pytest.skip(f"{model_case}: no contact between two sides that can translate at any state")
    defect = (f"failing, MuJoCo {mujoco.__version__} builds this contact's rows so that a common {{motion}} "
              "slides or sinks it: its force does not act and react alike on its two sides{more} (an engine defect: "
              "name it in a MuJoCo issue, or change MuJoCo version)")
    share, names, t = worst["translation"]
    law.check("common_translation_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |efc_J qvel| of a contact's rows when both its sides move by the same velocity, over "
                  f"100 nv eps of the rows' size, over {judged['translation']} contacts x states; worst {names} at "
                  f"t = {t:.3f} s; " + defect.format(motion="translation", more=""))
    share, names, t = worst["turn"]
    law.check("common_turn_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"largest |efc_J qvel| of a contact's rows when both its sides turn together about its normal "
                  f"through its point, over 100 nv eps of the rows' size, over {judged['turn']} contacts x states; "
                  f"worst {names} at t = {t:.3f} s; " + defect.format(
                      motion="turn", more=" (a flex element's contact spread over its vertices by weights centred "
                                          "elsewhere than the contact: before 4.0, by inverse distance)"))
