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


def _tree_columns(model: mujoco.MjModel, body_ids: np.ndarray) -> np.ndarray:
    """For each body, the dof indices of its kinematic tree, padded with `nv` (a column of zeros).

    J of a body is non-zero only on its ancestors' dofs, and L^-T only moves entries to ancestors,
    so X = D^-1/2 L^-T J^T lives inside the body's tree: W needs only those columns.
    """
    trees = model.body_treeid[body_ids]
    start = model.tree_dofadr[trees]
    count = model.tree_dofnum[trees]
    offsets = np.arange(int(count.max()))
    columns = start[:, None] + offsets[None, :]
    return np.where(offsets[None, :] < count[:, None], columns, model.nv)


def _mobility_of(model: mujoco.MjModel, data: mujoco.MjData, ids: np.ndarray) -> np.ndarray:
    if ids.size == 0:
        return np.zeros((0, 6, 6))
    _require_factorised(model, data)
    n, nv = ids.size, model.nv
    jac = np.zeros((n, 6, nv))
    for row, body_id in enumerate(ids):
        mujoco.mj_jacBodyCom(model, data, jac[row, :3], jac[row, 3:], body_id)
    solved = np.empty((6 * n, nv))
    mujoco.mj_solveM2(model, data, solved, jac.reshape(6 * n, nv), np.sqrt(data.qLDiagInv))
    half = np.zeros((n, 6, nv + 1))  # the last column stays zero: the padding target
    half[:, :, :nv] = solved.reshape(n, 6, nv)
    tree_half = np.take_along_axis(half, _tree_columns(model, ids)[:, None, :], axis=2)
    mobility = tree_half @ tree_half.transpose(0, 2, 1)
    return 0.5 * (mobility + mobility.transpose(0, 2, 1))


def mobility_many(model: mujoco.MjModel, data: mujoco.MjData, bodies: Sequence[int | str]) -> np.ndarray:
    """W = J M^-1 J^T (6 x 6, linear rows first) of each body in `bodies`, at the state in `data`.

    One `mj_jacBodyCom` per body, one batched `mj_solveM2` over all their Jacobian rows, then
    X X^T on each body's own tree dofs only. `bodies` holds ids or names. Returns (n, 6, 6).
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
