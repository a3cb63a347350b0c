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

With `equality=True` the body's mobility is taken with the model's active equality constraints
(connect, weld, joint, tendon; `data.eq_active`) held rigid. MuJoCo gives their Jacobian G: the
rows of `efc_J` of type `mjCNSTR_EQUALITY` that `mj_makeConstraint` writes at the position stages
in `data` (on a copy, so `data` is not touched; sparse or dense `efc_J` alike). The constrained
mobility is the Schur complement

    W_c = W - J M^-1 G^T (G M^-1 G^T)^+ G M^-1 J^T,

taken in its half-solved form: with H = D^-1/2 L^-T [J; G]^T from `mj_solveM2`, W_c = P P^T
where P is H_J with its component in the row space of H_G removed. That row space comes from an
SVD of H_G, dropping singular values below `RANK_TOLERANCE` times the largest: redundant rows
(a `connect` whose out-of-plane row is zero in a planar linkage, two equalities saying the same
thing) are degenerate, not singular. W_c is positive semi-definite by construction, never a
dense inverse of M. A model with no active equality row gives the free W, bit for bit.

MuJoCo does not hold an equality rigid: its constraints are soft, each row regularised by its
impedance R = `efc_R` ((1 - d) / d times MuJoCo's diagonal estimate, d from `solimp`; `solref`
sets the reference acceleration, which a force does not change). With only equality rows active,
MuJoCo's acceleration under an added force J^T F is (M + G^T R^-1 G)^-1 J^T F, so the body answers
through the soft mobility (`equality="soft"`)

    W_s = W - J M^-1 G^T (G M^-1 G^T + R)^-1 G M^-1 J^T,

MuJoCo's own one-step answer to round-off (laws/coupling/test_equality.py). It is taken in the same
half-solved form, with a Cholesky factor of H_G H_G^T + R (positive definite: MuJoCo floors R at
mjMINVAL). W_s lies between W_c and W and tends to W_c as d tends to 1.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions

from ._inputs import equality_mode, matching_data, moving_body


def forward_position(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Run the stages W needs at `data.qpos`, as `mj_setConst` runs them (no collision, no constraints)."""
    data = matching_data(model, data)
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    if model.nflex:  # the flex edges' lengths and Jacobians (mj_fwdPosition's order): the flex edge equality rows
        mujoco.mj_flex(model, data)  # of mj_makeConstraint read them (zero rows without; 3.0 raises a FatalError)
    mujoco.mj_tendon(model, data)  # tendon armature enters M in mj_makeM
    mujoco_versions.make_mass(model, data)
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
    start, count = mujoco_versions.tree_dof_ranges(model, trees)
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
        mujoco_versions.solve_half(model, data, solved, packed.reshape(-1, nv), sqrt_inv_d)
    tree_half = half[slots[:, None, None], np.arange(6)[None, :, None], columns[:, None, :]]
    tree_half *= real[:, None, :]
    mobility = tree_half @ tree_half.transpose(0, 2, 1)
    return 0.5 * (mobility + mobility.transpose(0, 2, 1))


RANK_TOLERANCE = 1e-9  # of the largest singular value of H_G: round-off leaves a redundant row at ~1e-16


def equality_rows(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(G, R): MuJoCo's Jacobian rows (k x nv) of the active equality constraints at the stages in
    `data`, and their impedance `efc_R` (k), from `mj_makeConstraint` on a copy of `data`."""
    if model.neq == 0:
        return np.zeros((0, model.nv)), np.zeros(0)
    scratch = copy.copy(data)  # mj_makeConstraint rewrites the efc arrays; the caller's data keeps its own
    mujoco.mj_makeConstraint(model, scratch)
    nefc, nv = scratch.nefc, model.nv
    if mujoco.mj_isSparse(model):
        dense = mujoco_versions.sparse_to_dense(nefc, nv, scratch.efc_J, scratch.efc_J_rownnz, scratch.efc_J_rowadr,
                                                scratch.efc_J_colind)
    else:
        dense = scratch.efc_J[: nefc * nv].reshape(nefc, nv)
    rows = scratch.efc_type[:nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    return dense[rows].copy(), scratch.efc_R[:nefc][rows].copy()


def _row_space(rows: np.ndarray) -> np.ndarray:
    """An orthonormal basis (r x nv) of the row space of `rows`, rank revealed at `RANK_TOLERANCE`."""
    if rows.shape[0] == 0:
        return rows
    _, singular, basis = np.linalg.svd(rows, full_matrices=False)
    return basis[singular > RANK_TOLERANCE * singular[0]] if singular[0] > 0 else basis[:0]


def _held_mobility_of(
    model: mujoco.MjModel, data: mujoco.MjData, ids: np.ndarray, G: np.ndarray, R: np.ndarray | None
) -> np.ndarray:
    """W_c (R None: the rows G held rigid) or W_s (G held through the impedance R) of each body in `ids`:
    mj_solveM2 over G, then over the bodies' Jacobian rows in chunks."""
    n, nv = ids.size, model.nv
    sqrt_inv_d = np.sqrt(data.qLDiagInv)
    half_g = np.empty_like(G)
    mujoco_versions.solve_half(model, data, half_g, np.ascontiguousarray(G), sqrt_inv_d)
    if R is None:
        basis = _row_space(half_g)
    else:
        factor = np.linalg.cholesky(half_g @ half_g.T + np.diag(R))
    result = np.empty((n, 6, 6))
    per_chunk = max(1, _CHUNK_BYTES // (6 * nv * 8))
    for first in range(0, n, per_chunk):
        chunk = ids[first : first + per_chunk].tolist()
        rows = np.zeros((len(chunk), 6, nv))
        for i, body in enumerate(chunk):
            mujoco.mj_jacBodyCom(model, data, rows[i, :3], rows[i, 3:], body)
        half = np.empty_like(rows)
        mujoco_versions.solve_half(model, data, half.reshape(-1, nv), rows.reshape(-1, nv), sqrt_inv_d)
        if R is None:
            free_part = half - (half @ basis.T) @ basis  # the motion the equalities leave
            result[first : first + len(chunk)] = free_part @ free_part.transpose(0, 2, 1)
        else:  # X X^T - (X H_G^T) (H_G H_G^T + R)^-1 (H_G X^T), through the Cholesky factor
            held = np.linalg.solve(factor, (half @ half_g.T).transpose(0, 2, 1))
            result[first : first + len(chunk)] = half @ half.transpose(0, 2, 1) - held.transpose(0, 2, 1) @ held
    return 0.5 * (result + result.transpose(0, 2, 1))


def _mobility(model: mujoco.MjModel, data: mujoco.MjData, ids: np.ndarray, equality: bool | str) -> np.ndarray:
    """The free W of `ids`, or W_c (True) / W_s ("soft") when the model has an active equality row."""
    if equality and ids.size:
        _require_factorised(model, data)
        G, R = equality_rows(model, data)
        if G.shape[0] and np.any(G):
            return _held_mobility_of(model, data, ids, G, R if equality == "soft" else None)
    return _mobility_of(model, data, ids)


def mobility_many(
    model: mujoco.MjModel, data: mujoco.MjData, bodies: Sequence[int | str], *, equality: bool | str = False
) -> np.ndarray:
    """W = J M^-1 J^T (6 x 6, linear rows first) of each body in `bodies`, at the state in `data`.

    One `mj_jacBodyCom` per body, then one batched `mj_solveM2` over their Jacobian rows, with
    bodies of different kinematic trees packed into the same rows (M is block diagonal over trees),
    then X X^T over each body's own tree dofs only. `bodies` holds ids or names; an empty one gives
    shape (0, 6, 6). Returns (n, 6, 6). `equality=True`: W_c, the active equality constraints held
    rigid (the bodies' rows solved in chunks, not packed by tree: equalities may tie trees together);
    `equality="soft"`: W_s, held through MuJoCo's impedance (module docstring).
    """
    data = matching_data(model, data)
    equality = equality_mode(equality)
    if isinstance(bodies, (str, bytes, int, np.integer)) or not hasattr(bodies, "__iter__"):
        raise ValueError(f"bodies must be a sequence of body ids or names, got {bodies!r}")
    ids = np.array([moving_body(model, body, f"bodies[{i}]") for i, body in enumerate(bodies)], dtype=int)
    return _mobility(model, data, ids, equality)


def mobility(model: mujoco.MjModel, data: mujoco.MjData, body: int | str, *, equality: bool | str = False) -> np.ndarray:
    """W = J M^-1 J^T (6 x 6, linear rows first, world frame) of `body` at the state in `data`.

    `equality=True`: W_c, with the model's active equality constraints held rigid; `equality="soft"`:
    W_s, held as MuJoCo holds them, through their impedance `efc_R` (module docstring).
    """
    data = matching_data(model, data)
    equality = equality_mode(equality)
    return _mobility(model, data, np.array([moving_body(model, body)]), equality)[0]


def mobility0(model: mujoco.MjModel, body: int | str, *, equality: bool | str = False) -> np.ndarray:
    """W of `body` at `model.qpos0`, computed on a fresh MjData (the pose `body_invweight0` uses).

    `equality=True`: W_c there, with the equalities active at the start (`eq_active0`) held rigid;
    `equality="soft"`: W_s there.
    """
    moving_body(model, body)
    equality = equality_mode(equality)
    data = mujoco.MjData(model)
    forward_position(model, data)
    return mobility(model, data, body, equality=equality)
