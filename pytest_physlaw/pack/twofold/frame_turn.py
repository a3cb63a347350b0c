"""Physics is frame-indifferent: the whole world turned by a rotation (every body hung from the world, every geom and
site of the world, gravity, wind and the magnetic field), the model at the turned state has the same mass matrix,
bias, passive and actuator forces, unconstrained accelerations, tendon and actuator lengths: space has no preferred
direction, and a robot set down facing another way is the same robot. Joint-space quantities are the same numbers,
but for a free joint's linear part, a world vector, turned with the world. A release that computes something in
world axes where it should in a body's (a flex's metric, a transmission's, a sensor's) runs consistent with itself in
the one orientation the file writes, and only the turned world shows it. Source: the isotropy of space (classical
mechanics' objectivity); MuJoCo's documentation (Computation: the world frame is arbitrary, joint coordinates are
relative to the parent body).

The two computations: the model as compiled, and the same model (turned in place, restored after) whose top-level bodies, world geoms and sites, the flex
vertices and nodes the world holds (pinned), the spring poses of top-level free joints (world poses) and the options'
gravity, wind and magnetic field are turned in place by a fixed generic rotation (0.7 rad about (1, 2, 3)), their
`sameframe` flags cleared (nothing turned is assumed in its body's frame). At `qpos0` and at each state of
`twofold_states` (three above 200 dofs), the state mapped into the turned world (a top-level free joint's position,
orientation and linear velocity turned, mocap poses turned; hinge, slide and ball coordinates are relative and
unchanged), one `mj_forward` of each; constraints are not compared (the contacts of two orientations differ by their
own round-off). Bound: 1e-6 of each quantity's scale (its largest value; the weight times the extent for forces,
gravity for accelerations, the extent for lengths): a turned state's round-off, carried by a flex's stiff forces (1e-16
to 1e-11 of the scale on rigid models, up to 2.5e-8 on MuJoCo's interpolated flexes: sphere_trilinear on 3.14.0).

Measured figures and commands: docs/second-computations.md ("A turned world").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold.states import for_solves

SOURCE = ("isotropy of space (objectivity); MuJoCo documentation, Computation (joint coordinates relative to the "
          "parent body)")
ROUND_OFF = 1e-6  # of each quantity's scale: 1e-16 to 1e-11 on rigid models, to 2.5e-8 on interpolated flexes (zoo)
AXIS = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)
ANGLE = 0.7  # rad: a generic turn, no half or quarter turn a special case could pass
FORCES = ("qfrc_bias", "qfrc_passive", "qfrc_actuator")
LENGTHS = ("ten_length", "actuator_length")


def turn() -> tuple[np.ndarray, np.ndarray]:
    """(rotation matrix, its quaternion)."""
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, AXIS, ANGLE)
    matrix = np.zeros(9)
    mujoco.mju_quat2Mat(matrix, quat)
    return matrix.reshape(3, 3), quat


def _times(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, np.asarray(first, float), np.asarray(second, float))
    return out


@contextlib.contextmanager
def turned(model: mujoco.MjModel) -> Iterator[mujoco.MjModel]:
    """`model` with its world turned in place (the module's docstring), restored on leaving: a copy would copy its
    meshes (the dog's 0.1 GB)."""
    rotation, quat = turn()
    kept: list[tuple] = []  # (array, rows, the rows' values before)

    def set_rows(array: np.ndarray, rows: np.ndarray | slice, value: np.ndarray) -> None:
        kept.append((array, rows, np.array(array[rows])))
        array[rows] = value

    try:
        top = np.flatnonzero(np.asarray(model.body_parentid) == 0)
        top = top[top > 0]  # the world is its own parent
        set_rows(model.body_pos, top, np.asarray(model.body_pos)[top] @ rotation.T)
        set_rows(model.body_quat, top, np.array([_times(quat, q) for q in np.asarray(model.body_quat)[top]]))
        for kind in ("geom", "site"):
            rows = np.flatnonzero(np.asarray(getattr(model, f"{kind}_bodyid")) == 0)
            pos, quats = getattr(model, f"{kind}_pos"), getattr(model, f"{kind}_quat")
            set_rows(pos, rows, np.asarray(pos)[rows] @ rotation.T)
            set_rows(quats, rows, np.array([_times(quat, q) for q in np.asarray(quats)[rows]]).reshape(-1, 4))
            set_rows(getattr(model, f"{kind}_sameframe"), rows, 0)
        for adr, _ in free_linear_dofs(model):  # a free joint's spring pulls toward a world pose
            spring = np.array(model.qpos_spring[adr:adr + 7])
            set_rows(model.qpos_spring, slice(adr, adr + 7),
                     np.concatenate([rotation @ spring[:3], _times(quat, spring[3:])]))
        for vertices, bodies in (("flex_vert", "flex_vertbodyid"), ("flex_node", "flex_nodebodyid")):
            if hasattr(model, vertices):  # a flex's vertices and nodes held by the world (pinned): world positions
                rows = np.flatnonzero(np.asarray(getattr(model, bodies)) == 0)
                set_rows(getattr(model, vertices), rows, np.asarray(getattr(model, vertices))[rows] @ rotation.T)
        for name in ("gravity", "wind", "magnetic"):
            set_rows(getattr(model.opt, name), slice(None), rotation @ getattr(model.opt, name))
        yield model
    finally:
        for array, rows, value in reversed(kept):
            array[rows] = value


def free_linear_dofs(model: mujoco.MjModel) -> list[tuple[int, int]]:
    """(qpos address, dof address) of each free joint of a top-level body: world-frame coordinates."""
    return [(int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])) for j in range(model.njnt)
            if int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_FREE
            and int(model.body_parentid[int(model.jnt_bodyid[j])]) == 0]


def _forward(model: mujoco.MjModel, state: mujoco.MjData, turned_world: bool) -> dict[str, np.ndarray]:
    rotation, quat = turn()
    data = mujoco.MjData(model)
    for name in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat"):
        getattr(data, name)[:] = getattr(state, name)
    if turned_world:
        for adr, dof in free_linear_dofs(model):
            data.qpos[adr:adr + 3] = rotation @ state.qpos[adr:adr + 3]
            data.qpos[adr + 3:adr + 7] = _times(quat, state.qpos[adr + 3:adr + 7])
            data.qvel[dof:dof + 3] = rotation @ state.qvel[dof:dof + 3]
        for k in range(model.nmocap):
            data.mocap_pos[k] = rotation @ state.mocap_pos[k]
            data.mocap_quat[k] = _times(quat, state.mocap_quat[k])
    mujoco.mj_forward(model, data)
    out = {name: np.array(getattr(data, name)) for name in ("qacc_smooth", *FORCES, *LENGTHS)}
    out["mass_matrix"] = mujoco_versions.full_mass(model, data)
    if turned_world:  # a free joint's linear part back into the unturned world
        for _, dof in free_linear_dofs(model):
            for name in ("qacc_smooth", *FORCES):
                out[name][dof:dof + 3] = rotation.T @ out[name][dof:dof + 3]
            block = out["mass_matrix"]
            block[dof:dof + 3, :] = rotation.T @ block[dof:dof + 3, :]
            block[:, dof:dof + 3] = block[:, dof:dof + 3] @ rotation
    return out


def apart(model: mujoco.MjModel, states: list[mujoco.MjData]) -> tuple[float, str, float]:
    """(the largest difference of a quantity between the model and its world turned over ROUND_OFF of its scale,
    which quantity, at which time) over `states`; a quantity's scale is its largest value over the states, with a
    floor (the module's docstring)."""
    firsts = [_forward(model, s, False) for s in states]
    with turned(model):
        seconds = [_forward(model, s, True) for s in states]
    pairs = [(f, t, float(s.time)) for f, t, s in zip(firsts, seconds, states)]
    extent = max(float(model.stat.extent), 1e-9)
    gravity = float(np.linalg.norm(model.opt.gravity))
    weight = float(np.sum(model.body_mass)) * gravity * extent
    floors = {"qacc_smooth": gravity, **{n: weight for n in FORCES}, **{n: extent for n in LENGTHS}}
    worst = (0.0, "", 0.0)
    for name in pairs[0][0]:
        scale = max(max(float(np.max(np.abs(f[name]), initial=0.0)) for f, _, _ in pairs), floors.get(name, 0.0),
                    1e-300)
        for first, second, t in pairs:
            share = float(np.max(np.abs(first[name] - second[name]), initial=0.0)) / (ROUND_OFF * scale)
            if share > worst[0]:
                worst = (share, name, t)
    return worst


@pytest.mark.law("model-physics-is-frame-indifferent", source=SOURCE)
def test_physics_is_frame_indifferent(law, pack_model, twofold_states, model_case) -> None:
    """At qpos0 and each state, the model with its whole world turned has the same mass matrix, bias, passive and
    actuator forces, unconstrained accelerations, tendon and actuator lengths (a free joint's linear part turned
    with the world), to 1e-6 of each quantity's scale."""
    model = pack_model.model
    at = [mujoco.MjData(model)] + list(for_solves(model, twofold_states))  # qpos0, then the runs' states
    share, name, t = apart(model, at)
    law.check("turned_apart_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a joint-space quantity between the model and the model with its "
                  f"world turned 0.7 rad about (1, 2, 3), over 1e-6 of its scale, at qpos0 and {len(at) - 1} "
                  f"states: {name or 'none'} at t = {t:.3f} s; failing, MuJoCo {mujoco.__version__} computes "
                  "something in the world's axes that belongs to a body's (the same robot facing another way "
                  "moves otherwise): an engine defect, name it in a MuJoCo issue, or change MuJoCo version")
