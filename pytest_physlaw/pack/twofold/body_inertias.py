"""The mass matrix is its bodies' inertias: at any state the joint-space inertia MuJoCo builds by its composite-rigid-
body pass (`mj_crb`, `mj_makeM`; `qM`, expanded by `mj_fullM`) equals the sum over the bodies of m Jp^T Jp + Jr^T
(R I R^T) Jr, each body's mass and principal inertia seen through its own centre-of-mass Jacobians (`mj_jacBodyCom`,
`ximat`), plus the armature: each dof's own, each tendon's (armature ten_J^T ten_J, between a dof and its ancestors:
MuJoCo drops a tendon's inertia across two branches, named), and what each actuator with a joint or tendon
transmission reflects to its target (armature gear^2, 3.7 on). The kinetic energy's definition, so
an error of the tree pass, of a shortcut for simple bodies or of an armature term left out shows as a matrix that is
not its bodies'. Source: Featherstone, Rigid Body Dynamics Algorithms (the joint-space inertia as the sum of the
bodies'); MuJoCo's documentation (Computation: the equations of motion; XML reference: joint, tendon and actuator
armature).

Bound: each entry within 100 (nbody + nv) eps of the sum of its terms' magnitudes and of its two dofs' (the geometric
mean of their diagonal terms: the composite pass shifts inertia between frames, so an entry that no body reaches
reads round-off of its dofs' own). States: those of `twofold_states` (the start, middle and end above 200 dofs),
forwarded anew, on an awake copy of the model where trees may sleep (a sleeping tree's inertia is not rebuilt).

Measured figures and commands: docs/second-computations.md ("The mass matrix is its bodies' inertias").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import states

SOURCE = ("Featherstone, Rigid Body Dynamics Algorithms (joint-space inertia); MuJoCo documentation (Computation; XML "
          "reference: joint, tendon, actuator armature)")
EPS = float(np.finfo(float).eps)
C = 100.0
TRN = mujoco.mjtTrn
REFLECTED = (int(TRN.mjTRN_JOINT), int(TRN.mjTRN_JOINTINPARENT), int(TRN.mjTRN_TENDON))


def armatures(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(per dof, per tendon) armature: the element's own plus armature gear^2 of each actuator whose transmission is
    that joint (on each of its dofs) or tendon; and the actuators with armature on another transmission (named)."""
    dof = np.array(model.dof_armature, float)
    tendon = np.array(getattr(model, "tendon_armature", np.zeros(model.ntendon)), float)
    reflected = getattr(model, "actuator_armature", None)
    other = []
    for a in np.flatnonzero(reflected if reflected is not None else []):
        kind, target = int(model.actuator_trntype[a]), int(model.actuator_trnid[a, 0])
        added = float(reflected[a]) * float(model.actuator_gear[a, 0]) ** 2
        if kind == int(TRN.mjTRN_TENDON):
            tendon[target] += added
        elif kind in REFLECTED:
            dof[np.asarray(model.dof_jntid) == target] += added  # each dof of the joint
        else:
            other.append(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, int(a)) or f"actuator {a}")
    return dof, tendon, other


def world_inertia(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> np.ndarray:
    """The body's inertia about its centre of mass in world axes, R I R^T (`ximat`, `body_inertia`)."""
    turn = np.asarray(data.ximat[body], float).reshape(3, 3)
    return turn @ np.diag(model.body_inertia[body]) @ turn.T


def from_bodies(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(M, S) at `data`'s forward pass: the joint-space inertia summed over the bodies and the armature, and the sum
    of its terms' magnitudes (the round-off's scale)."""
    nv = model.nv
    total, scale = np.zeros((nv, nv)), np.zeros((nv, nv))
    jacp, jacr = np.zeros((3, nv)), np.zeros((3, nv))
    for b in range(1, model.nbody):
        mass, principal = float(model.body_mass[b]), np.asarray(model.body_inertia[b], float)
        if mass == 0.0 and not principal.any():
            continue
        mujoco.mj_jacBodyCom(model, data, jacp, jacr, b)
        reach = np.flatnonzero(np.any(jacp != 0.0, axis=0) | np.any(jacr != 0.0, axis=0))
        if reach.size == 0:
            continue
        inertia = world_inertia(model, data, b)
        p, r = jacp[:, reach], jacr[:, reach]
        block = np.ix_(reach, reach)
        total[block] += mass * p.T @ p + r.T @ inertia @ r
        # MuJoCo's pass holds inertia about its tree's centre of mass (`subtree_com` of the root): the terms it sums
        # carry the body's offset from there, rho, as lever arms (manipulator's fingertip: 7.4e-8 read 5e-13 off)
        rho = float(np.linalg.norm(data.xipos[b] - data.subtree_com[model.body_rootid[b]]))
        lever = np.abs(p) + rho * np.abs(r)
        scale[block] += mass * lever.T @ lever + np.abs(r).T @ np.abs(inertia) @ np.abs(r)
    dof, tendon, _ = armatures(model)
    total[np.diag_indices(nv)] += dof
    scale[np.diag_indices(nv)] += dof
    if tendon.any():
        rows = mujoco_versions.tendon_jacobian(model, data)
        chain = chains(model)
        for t in np.flatnonzero(tendon):
            # MuJoCo adds a tendon's armature within the tree's pattern only (mj_tendonArmature): the entries between
            # dofs of two branches are dropped, a projection MuJoCo Warp matches (mujoco_warp #1554)
            total += tendon[t] * np.outer(rows[t], rows[t]) * chain
            scale += tendon[t] * np.outer(np.abs(rows[t]), np.abs(rows[t])) * chain
    return total, scale


def chains(model: mujoco.MjModel) -> np.ndarray:
    """(nv, nv) True where one dof is the other or its ancestor (`dof_parentid`): the entries the mass matrix holds."""
    held = np.eye(model.nv, dtype=bool)
    for dof in range(model.nv):
        parent = int(model.dof_parentid[dof])
        while parent >= 0:
            held[dof, parent] = held[parent, dof] = True
            parent = int(model.dof_parentid[parent])
    return held


def branching_tendons(model: mujoco.MjModel, data: mujoco.MjData) -> list[str]:
    """The tendons with armature whose Jacobian at `data` couples dofs of two branches: the inertia MuJoCo drops."""
    tendon = armatures(model)[1]
    if not tendon.any():
        return []
    rows, chain = mujoco_versions.tendon_jacobian(model, data), chains(model)
    return [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_TENDON, int(t)) or f"tendon {t}" for t in np.flatnonzero(tendon)
            if np.any((np.outer(rows[t], rows[t]) != 0) & ~chain)]


def apart(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, tuple[int, int], float, float]:
    """(the worst |mj_fullM - sum| over its bound, its entry (i, j), MuJoCo's value, the sum's) at a copy of `state`
    forwarded anew (pass an awake model where trees may sleep: a sleeping tree's inertia is not rebuilt)."""
    data = copy.copy(state)
    mujoco.mj_forward(model, data)
    return compare(model, data)


def compare(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, tuple[int, int], float, float]:
    """`apart` at `data`'s last forward pass."""
    built = mujoco_versions.full_mass(model, data)
    summed, scale = from_bodies(model, data)
    # an entry's round-off scale is its terms' and its dofs' own: the pass shifts inertia between frames, so an entry
    # no body reaches can read eps of its diagonal (the quadruped's: 4.4e-16 where the terms sum to 0)
    diagonal = np.sqrt(np.diag(scale))
    bound = C * (model.nbody + model.nv) * EPS * (scale + np.outer(diagonal, diagonal)) + 1e-300
    ratio = np.abs(built - summed) / bound
    i, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return float(ratio[i, j]), (int(i), int(j)), float(built[i, j]), float(summed[i, j])


@pytest.mark.law("model-mass-matrix-is-its-bodies", source=SOURCE)
def test_mass_matrix_is_its_bodies(law, pack_model, twofold_states, model_case) -> None:
    """At each state the joint-space inertia (`mj_fullM`) is the sum of each body's mass and inertia through its
    centre-of-mass Jacobians, plus the dofs', tendons' and actuators' armature, to 100 (nbody + nv) eps of each entry's
    terms and its dofs' own."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    other = armatures(model)[2]
    if other:
        pytest.skip(f"{model_case}: actuators with armature on a transmission that is not a joint or tendon "
                    f"({', '.join(other[:3])}): what they reflect is not documented")
    awake = mujoco_versions.awake(model) if mujoco_versions.sleeping(model) else model
    found = [(apart(awake, s), float(s.time)) for s in states.for_solves(model, twofold_states)]
    (ratio, (i, j), built, summed), t = max(found, key=lambda f: f[0][0])
    dof_name = _dof_name(model, i) + ("" if i == j else f" x {_dof_name(model, j)}")
    dropped = branching_tendons(model, twofold_states[0])
    note = (f"; tendons whose armature couples two branches ({', '.join(dropped[:3])}): MuJoCo keeps their inertia "
            "between a dof and its ancestors only, not the documented 1/2 armature v^2 across branches (compared as "
            "MuJoCo holds it)") if dropped else ""
    law.check("apart_over_round_off", ratio, le=1.0, drift_abs=1.0,
              why=f"|mj_fullM - sum of the bodies' inertias and armature| over 100 (nbody + nv) eps of the terms, worst "
                  f"at t = {t:.3f} s, entry {dof_name}: MuJoCo {built:.9g}, the bodies' {summed:.9g}; failing, MuJoCo "
                  f"{mujoco.__version__} builds another inertia than its bodies and armature have (a term left out, "
                  "a shortcut's error): an engine defect, not the model's; report it, or change MuJoCo version" + note)


def _dof_name(model: mujoco.MjModel, dof: int) -> str:
    joint = int(model.dof_jntid[dof])
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, joint) or f"joint {joint}"
    return f"dof {dof} ({name})"
