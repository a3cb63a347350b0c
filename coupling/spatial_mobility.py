"""The mobility W = J M^-1 J^T of a MuJoCo body: how its centre of mass answers a wrench there.

W is the 6 x 6 inverse spatial inertia of the body seen through its joints: the acceleration
(linear first, then angular, world frame) of its centre of mass per unit force and torque applied
there, at zero velocity. J is the body's Jacobian at its centre of mass from `mj_jacBodyCom`
(translation rows first) and M^-1 J^T comes from MuJoCo's own factorisation of M: W = X X^T with
X = D^-1/2 L^-T J^T from `mj_solveM2`, the half solve MuJoCo offers for exactly this product. No
dense inverse of M is ever formed.

What `data` must hold: the position stages at its current `qpos`, i.e. `mj_kinematics`,
`mj_comPos` (for `cdof`, `subtree_com`), `mj_makeM` and `mj_factorM` (for `qLD`, `qLDiagInv`).
`mj_forward` and `mj_fwdPosition` do all of them. After `mj_step` they lag `qpos` by one step
(the step integrates after computing them): call `mj_forward` first when that matters. A data
whose mass matrix was never factorised is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from coupling._inputs import matching_data, moving_body


def forward_position(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Run the stages W needs at `data.qpos`, as `mj_setConst` runs them (no collision, no constraints)."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_tendon(model, data)  # tendon armature enters M in mj_makeM
    mujoco.mj_makeM(model, data)
    mujoco.mj_factorM(model, data)


def _require_factorised(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    if model.nv and not np.all(data.qLDiagInv > 0.0):
        raise ValueError(
            "data: its mass matrix is not factorised (qLDiagInv is not positive); "
            "call mujoco.mj_forward(model, data) after setting qpos"
        )


def _slots(trees: np.ndarray) -> np.ndarray:
    """For each body, how many bodies of the same kinematic tree come before it in the list."""
    order = np.argsort(trees, kind="stable")
    ordered = trees[order]
    group_starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    first_of_group = np.repeat(group_starts, np.diff(np.r_[group_starts, trees.size]))
    slots = np.empty(trees.size, dtype=int)
    slots[order] = np.arange(trees.size) - first_of_group
    return slots


_CHUNK_BYTES = 1 << 19  # rows per mj_solveM2 call: about 512 KiB, so the column-wise sweep stays in cache


def _mobility_of(model: mujoco.MjModel, data: mujoco.MjData, ids: np.ndarray) -> np.ndarray:
    """W of each body in `ids` (checked ids), packed: one row block holds one body of every tree.

    M, and so its factor L^T D L, is block diagonal over kinematic trees, and a body's J^T and
    X = D^-1/2 L^-T J^T are non-zero only on its own tree's dofs. Bodies of different trees can
    therefore share the same 6 rows of the batched mj_solveM2 without touching each other
    (bit for bit what separate solves give), and W = X X^T is taken over the body's tree dofs only.
    """
    n, nv = ids.size, model.nv
    if n == 0:
        return np.zeros((0, 6, 6))
    _require_factorised(model, data)
    trees = model.body_treeid[ids]
    start, count = model.tree_dofadr[trees], model.tree_dofnum[trees]
    slots = _slots(trees)
    offsets = np.arange(int(count.max()))
    columns = np.minimum(start[:, None] + offsets[None, :], nv - 1)
    real = (offsets[None, :] < count[:, None]).astype(float)
    sqrt_inv_d = np.sqrt(data.qLDiagInv)
    slot_count = int(slots.max()) + 1
    per_chunk = max(1, _CHUNK_BYTES // (6 * nv * 8))
    half = np.empty((slot_count, 6, nv))
    by_slot = np.argsort(slots, kind="stable")
    bounds = np.searchsorted(slots[by_slot], np.arange(0, slot_count + per_chunk, per_chunk))
    scratch = np.zeros((6, nv))
    body_ids, rows, tree_start, tree_end = ids.tolist(), slots.tolist(), start.tolist(), (start + count).tolist()
    for chunk, first in enumerate(range(0, slot_count, per_chunk)):
        packed = np.zeros((min(slot_count, first + per_chunk) - first, 6, nv))
        filled = [False] * packed.shape[0]
        for body in by_slot[bounds[chunk] : bounds[chunk + 1]].tolist():
            row = rows[body] - first
            if not filled[row]:  # the row's first body writes its whole Jacobian in place
                mujoco.mj_jacBodyCom(model, data, packed[row, :3], packed[row, 3:], body_ids[body])
                filled[row] = True
            else:  # later bodies of the row (other trees) add their tree's columns only
                mujoco.mj_jacBodyCom(model, data, scratch[:3], scratch[3:], body_ids[body])
                tree = slice(tree_start[body], tree_end[body])
                packed[row, :, tree] = scratch[:, tree]
        solved = half[first : first + len(filled)].reshape(-1, nv)
        mujoco.mj_solveM2(model, data, solved, packed.reshape(-1, nv), sqrt_inv_d)
    tree_half = half[slots[:, None, None], np.arange(6)[None, :, None], columns[:, None, :]]
    tree_half *= real[:, None, :]
    mobility = tree_half @ tree_half.transpose(0, 2, 1)
    return 0.5 * (mobility + mobility.transpose(0, 2, 1))


def mobility_many(model: mujoco.MjModel, data: mujoco.MjData, bodies: Sequence[int | str]) -> np.ndarray:
    """W = J M^-1 J^T (6 x 6, linear rows first) of each body in `bodies`, at the state in `data`.

    One `mj_jacBodyCom` per body, then one batched `mj_solveM2` over their Jacobian rows, with
    bodies of different kinematic trees packed into the same rows (M is block diagonal over trees),
    then X X^T over each body's own tree dofs only. `bodies` holds ids or names; an empty one gives
    shape (0, 6, 6). Returns (n, 6, 6).
    """
    data = matching_data(model, data)
    if isinstance(bodies, (str, bytes, int, np.integer)) or not hasattr(bodies, "__iter__"):
        raise ValueError(f"bodies must be a sequence of body ids or names, got {bodies!r}")
    ids = np.array([moving_body(model, body, f"bodies[{i}]") for i, body in enumerate(bodies)], dtype=int)
    return _mobility_of(model, data, ids)


def mobility(model: mujoco.MjModel, data: mujoco.MjData, body: int | str) -> np.ndarray:
    """W = J M^-1 J^T (6 x 6, linear rows first, world frame) of `body` at the state in `data`."""
    data = matching_data(model, data)
    return _mobility_of(model, data, np.array([moving_body(model, body)]))[0]


def mobility0(model: mujoco.MjModel, body: int | str) -> np.ndarray:
    """W of `body` at `model.qpos0`, computed on a fresh MjData (the pose `body_invweight0` uses)."""
    moving_body(model, body)
    data = mujoco.MjData(model)
    forward_position(model, data)
    return mobility(model, data, body)
