"""A flex's carriers: the bodies whose three slides carry its shape (its vertices, or its nodes where it is
interpolated), moved to given places from rest and read back as the world forces MuJoCo's passive pass puts on
them. One place for the flex laws that strain a flex by hand (`flex_material`, `flex_frame`)."""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np

from pytest_physlaw.pack import runs


def interpolated(model: mujoco.MjModel, flex: int) -> bool:
    """Whether the flex carries its shape on nodes (`flex_interp`: trilinear or quadratic; none before 3.8)."""
    return bool(int(np.asarray(getattr(model, "flex_interp", np.zeros(model.nflex)))[flex]))


def carriers(model: mujoco.MjModel, flex: int) -> np.ndarray:
    """The bodies that carry the flex's shape: its nodes where it is interpolated, else its vertices."""
    if interpolated(model, flex):
        first, count = int(model.flex_nodeadr[flex]), int(model.flex_nodenum[flex])
        return np.asarray(model.flex_nodebodyid[first:first + count], dtype=int)
    first, count = int(model.flex_vertadr[flex]), int(model.flex_vertnum[flex])
    return np.asarray(model.flex_vertbodyid[first:first + count], dtype=int)


def unfree(model: mujoco.MjModel, bodies: np.ndarray) -> str | None:
    """Why the carriers' passive forces are not the flex's alone, or None: a carrier not on three slides (pinned or
    radial), springs on its slides, a tendon on it, gravity compensation."""
    if np.any(np.asarray(model.body_dofnum)[bodies] != 3) or np.any(np.asarray(model.body_jntnum)[bodies] != 3):
        return "a vertex or node not on three slides (pinned or radial)"
    joints = np.concatenate([np.arange(model.body_jntadr[b], model.body_jntadr[b] + 3) for b in bodies])
    if np.any(np.asarray(model.jnt_stiffness)[joints] != 0):
        return "springs on its slides"
    trees = {int(model.body_treeid[b]) for b in bodies}
    if any(trees & runs.tendon_trees(model, k) for k in range(model.ntendon)):
        return "a tendon on its vertices"
    if np.any(np.asarray(getattr(model, "body_gravcomp", np.zeros(model.nbody)))[bodies] != 0):
        return "gravity compensation on its vertices"
    return None


def passive_forces(model: mujoco.MjModel, bodies: np.ndarray,
                   move: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the carriers' rest positions, the world force MuJoCo's passive pass puts on each) with each carrier moved by
    its slides to `move(rest positions)`, the rest of the model at qpos0, at rest (`qfrc_passive` through each
    carrier's slides' world axes: A^T f = qfrc)."""
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    rest = np.asarray(data.xpos)[bodies].copy()
    axes = [np.asarray(data.xaxis)[model.body_jntadr[b]:model.body_jntadr[b] + 3].copy() for b in bodies]
    for b, axis, x, y in zip(bodies, axes, rest, move(rest)):
        adr = np.asarray(model.jnt_qposadr)[model.body_jntadr[b]:model.body_jntadr[b] + 3]
        data.qpos[adr] = np.asarray(model.qpos0)[adr] + axis @ (y - x)
    data.qvel[:] = 0
    mujoco.mj_forward(model, data)
    found = np.array([np.linalg.solve(axis, np.asarray(data.qfrc_passive)[int(model.body_dofadr[b]):
                                                                      int(model.body_dofadr[b]) + 3])
                      for b, axis in zip(bodies, axes)])
    return rest, found
