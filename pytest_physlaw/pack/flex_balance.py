"""A deformable's elastic forces are internal: over the vertices of a flex (a cloth, a rope, a soft solid) the forces
its stretching and bending put on them sum to no force and no torque, at every state, however the flex is turned or
bent (Newton's third law; the elastic energy of MuJoCo's flex depends on the vertices' relative positions only, so
its gradient moves no centre of mass and turns nothing). A release that adds an element's force in the wrong frame,
to the wrong vertex or with the wrong sign keeps every run consistent with itself, and only the balance shows it.
Source: Newton's third law; MuJoCo's documentation (Modeling: deformable objects, flex; `qfrc_spring`, the passive
forces of springs, flex elasticity among them).

The measurement: at each state of `twofold_states`, each flex vertex's force in the world from its body's three slide
dofs (`qfrc_spring` = A^T F, A the slides' world axes `xaxis`); then the net force and the net torque about the
vertices' centroid. Bound: 100 x the vertices' count x eps of the forces' own size plus the flex's weight (the loads
it is made for; a flex at rest in its reference shape has forces of round-off only), for the torque times each
vertex's distance from the centroid.

Judged: a flex whose every vertex is a body of its own with three slide dofs and no joint spring (`dof="full"`).
Left out, naming why: a pinned vertex (its force goes to a body without dofs: the flex then balances against the
pin), a vertex shared with another flex, radial dofs, interpolated flexes (`dof="trilinear"`, `"quadratic"`: their
elasticity is linear in the nodes' displacements, not invariant to turning, by design), and a vertex a stiff tendon
pulls (its spring shares `qfrc_spring`), and passive contacts (`<contact passive="true"/>`: its
contacts' forces join the passive forces, from outside the flex).

Measured figures and commands: docs/second-computations.md ("A flex's forces are internal").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import flex_carriers

EPS = float(np.finfo(float).eps)
ULPS = 100.0  # per vertex: the sum of n forces each with round-off of its own
SOURCE = ("Newton's third law; MuJoCo documentation, Modeling: deformable objects (flex), qfrc_spring (passive "
          "forces of flex elasticity)")


def vertex_bodies(model: mujoco.MjModel, flex: int) -> np.ndarray:
    """The bodies that carry a flex's vertices, in order."""
    start, count = int(model.flex_vertadr[flex]), int(model.flex_vertnum[flex])
    return np.asarray(model.flex_vertbodyid[start:start + count], dtype=int)


def three_slides(model: mujoco.MjModel, body: int) -> bool:
    """Whether a body is moved by three slide joints of its own (a flex vertex with `dof="full"`)."""
    first, count = int(model.body_jntadr[body]), int(model.body_jntnum[body])
    return (count == 3 and int(model.body_dofnum[body]) == 3
            and all(int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_SLIDE for j in range(first, first + count)))


def slides(model: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(axes, dofs) of bodies each moved by three slides: (n, 3, 3), the rows each slide's world axis (a body's
    velocity is axes^T qvel, a world force F is axes @ F in its dofs), and (n, 3) their dofs."""
    joints = np.asarray(model.body_jntadr[bodies], dtype=int)[:, None] + np.arange(3)
    return np.asarray(data.xaxis, float)[joints], np.asarray(model.jnt_dofadr, dtype=int)[joints]


def why_not(model: mujoco.MjModel, flex: int) -> str | None:
    """Why a flex cannot be judged, or None: every vertex its own body moved by three spring-free slides."""
    if flex_carriers.interpolated(model, flex):
        return ("interpolated (trilinear or quadratic dofs): its elasticity is linear in the nodes, not "
                "turning-invariant")
    passive = getattr(model, "flex_passive", None)
    if passive is not None and int(passive[flex]):
        return "passive contacts (`<contact passive>`: its contact forces are passive forces too, from outside it)"
    bodies = vertex_bodies(model, flex)
    if len(set(bodies.tolist())) < bodies.size or np.any(bodies == 0):
        return "a vertex is pinned or shared (its force goes to a body the balance cannot see)"
    for body in bodies.tolist():
        if not three_slides(model, body):
            return f"vertex body {body} is not moved by three slide joints of its own (radial or pinned dofs)"
        first = int(model.body_jntadr[body])
        if np.any(np.asarray(model.jnt_stiffness[first:first + 3]) != 0.0):
            return f"vertex body {body}'s slides have springs of their own"
    return None


def imbalance(model: mujoco.MjModel, data: mujoco.MjData, flex: int) -> tuple[float, float]:
    """(net force over its bound, net torque over its bound) of the flex's spring forces on its vertices, in the
    world, at a forwarded state."""
    bodies = vertex_bodies(model, flex)
    axes, dofs = slides(model, data, bodies)
    generalized = np.asarray(data.qfrc_spring, float)[dofs]  # (n, 3) = axes @ F
    forces = np.linalg.solve(axes, generalized[:, :, None])[:, :, 0]
    points = np.asarray(data.xpos, float)[bodies]
    arms = points - points.mean(axis=0)
    reach = np.linalg.norm(arms, axis=1)
    weight = float(np.sum(model.body_mass[bodies])) * float(np.linalg.norm(model.opt.gravity))
    size = float(np.sum(np.linalg.norm(forces, axis=1))) + weight
    scale = ULPS * bodies.size * EPS
    net = float(np.linalg.norm(forces.sum(axis=0)))
    torque = float(np.linalg.norm(np.cross(arms, forces).sum(axis=0)))
    moment = float(np.sum(reach * np.linalg.norm(forces, axis=1))) + weight * float(reach.max(initial=0.0))
    return net / max(scale * size, 1e-300), torque / max(scale * moment, 1e-300)


def stiff_tendon_vertices(model: mujoco.MjModel, data: mujoco.MjData) -> set[int]:
    """Dofs a tendon with a spring moves at this state (its spring force shares `qfrc_spring`)."""
    stiff = [t for t in range(model.ntendon) if float(model.tendon_stiffness[t]) != 0.0]
    if not stiff:
        return set()
    jac = np.asarray(data.ten_J, float).reshape(model.ntendon, model.nv)[stiff]
    return set(np.flatnonzero(np.any(jac != 0.0, axis=0)).tolist())


@pytest.mark.law("model-flex-forces-are-internal", source=SOURCE)
def test_flex_forces_are_internal(law, pack_model, twofold_states, model_case) -> None:
    """At each state, the spring forces of each free flex (stretching and bending) on its vertices sum to no force
    and no torque, to 100 x vertices x eps of their size and the flex's weight."""
    model = pack_model.model
    if not model.nflex:
        pytest.skip(f"{model_case}: no flex (no cloth, rope or soft body whose forces to balance)")
    reasons = {f: why_not(model, f) for f in range(model.nflex)}
    judged = [f for f, reason in reasons.items() if reason is None]
    if not judged:
        pytest.skip(f"{model_case}: no flex judged: " + "; ".join(f"flex {f}: {r}" for f, r in reasons.items()))
    worst = {"force": (0.0, -1, 0.0), "torque": (0.0, -1, 0.0)}  # (share of the bound, flex, time)
    loaded = set()
    # each judged flex's vertex dofs, fixed by the model
    vertex_dofs = {f: (np.asarray(model.body_dofadr[vertex_bodies(model, f)], dtype=int)[:, None]
                       + np.arange(3)).ravel() for f in judged}
    for state in twofold_states:
        pulled = stiff_tendon_vertices(model, state)
        for f in judged:
            dofs = vertex_dofs[f]
            if pulled and pulled & set(dofs.tolist()):
                continue
            if not np.any(np.asarray(state.qfrc_spring)[dofs]):
                continue  # no elastic force at this state: nothing to balance
            loaded.add(f)
            for key, value in zip(("force", "torque"), imbalance(model, state, f)):
                if value >= worst[key][0]:
                    worst[key] = (value, f, float(state.time))
    if not loaded:
        pytest.skip(f"{model_case}: no elastic force on a judged flex at any state (no stiffness, or stiffness "
                    "only through edge equalities)")
    for key, quantity, what in (("force", "net_force_over_round_off", "|sum of the flex's spring forces on its "
                                 "vertices| over 100 x vertices x eps of their size and its weight"),
                                ("torque", "net_torque_over_round_off", "|sum of their torques about the vertices' "
                                 "centroid| over the same bound times each vertex's arm")):
        value, flex, t = worst[key]
        name = (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_FLEX, flex) or str(flex)) if flex >= 0 else "-"
        law.check(quantity, value, le=1.0, drift_abs=1.0,
                  why=f"{what}; worst flex {name!r} at t = {t:.3f} s, over {len(judged)} flex(es) x "
                      f"{len(twofold_states)} states ({len(loaded)} loaded); failing, MuJoCo "
                      f"{mujoco.__version__}'s flex elasticity pushes or turns the flex as a whole (an engine "
                      "defect: name it in a MuJoCo issue, or change MuJoCo version)")
