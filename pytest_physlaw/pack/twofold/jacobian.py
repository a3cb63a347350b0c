"""Dense against sparse constraint Jacobian: MuJoCo stores the constraint rows' Jacobian dense (nefc x nv) or
sparse (compressed rows, the default from 60 dofs: `opt.jacobian`, mjJAC_AUTO), and every solver (PGS, CG,
Newton) has a path for each storage: the same convex problem, the same algorithm, the same stopping rule. At the
same state and settings the two paths stop alike and reach the same qacc and constraint force, to the solves' own
convergence. Source: MuJoCo's documentation (Computation: the constraint solver; XML reference: option/jacobian).

The path the model runs (`mj_isSparse`) is the first computation, the other storage the second. At each state
(`twofold_states`) both paths solve with the model's own options (solver, tolerance, iterations, the state's warm
start); each path's own error is how far its answer moves when its solve is continued from there for another cap of
iterations with no stopping tolerance. Two paths heading for one minimum differ by no more than those errors
(plus round-off); paths that head for different answers do. MuJoCo 4.0.0's Newton, sparse, on a 13-dof tree whose limbs a
connect ties across branches (`regressions/models/mujoco_4_0_0_sparse_newton_tree.xml`) stops at its 100-iteration
cap where the dense path converges in 2, or stops after 16 iterations 1.69 of the constraint correction off.

Measured: `pytest --physlaw-model=MODEL.xml -k jacobian`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

SOURCE = "MuJoCo documentation, Computation (constraint solver) and XML reference (option/jacobian)"
JAC = mujoco.mjtJacobian
SPREAD = 10.0  # the paths may differ by ten times what continuing their solves moves them
ROUND_OFF = 1e-9  # of the correction (qacc) or the largest force: converged paths differ by round-off (zoo: 1e-12)


def _islands_iterations(model: mujoco.MjModel, data: mujoco.MjData) -> int:
    return int(np.max(data.solver_niter[: max(int(data.nisland), 1)]))


def solve(model: mujoco.MjModel, state: mujoco.MjData, sparse: bool, *, iterations: int | None = None,
          tolerance: float | None = None, warm: np.ndarray | None = None) -> mujoco.MjData:
    """`mj_forward` on a copy of `state` with the Jacobian stored sparse or dense, the model's other options kept
    (or `iterations`, `tolerance`; `warm`: the solve starts from this qacc)."""
    m = copy.copy(model)
    m.opt.jacobian = JAC.mjJAC_SPARSE if sparse else JAC.mjJAC_DENSE
    if iterations is not None:
        m.opt.iterations = iterations
    if tolerance is not None:
        m.opt.tolerance = tolerance
    data = copy.copy(state)
    if warm is not None:
        data.qacc_warmstart[:] = warm
    mujoco.mj_forward(m, data)
    return data


@dataclass(frozen=True)
class PathsAt:
    """At one state: each path's iterations, whether either stopped at the cap while the other converged in a
    tenth of it, and the paths' distance on qacc (a share of the constraint correction) and on efc_force (of the largest
    force), each with the two paths' own errors summed, on the same scale."""

    iterations: tuple[int, int]  # (first, second)
    capped_apart: bool
    qacc_apart: float
    qacc_own: float
    force_apart: float
    force_own: float


class DenseOutOfMemory(Exception):
    """The model's arena (`<size memory>`) holds the sparse rows but not the dense nefc x nv Jacobian."""


def paths_at(model: mujoco.MjModel, state: mujoco.MjData) -> PathsAt:
    """`PathsAt` of `state`: the model's path first (`mj_isSparse`), the other storage second."""
    first_sparse = bool(mujoco.mj_isSparse(model))
    try:
        first, second = solve(model, state, first_sparse), solve(model, state, not first_sparse)
        # each path's own error: its solve continued for another cap from its answer, no stopping tolerance
        first_on = solve(model, state, first_sparse, tolerance=0.0, warm=first.qacc)
        second_on = solve(model, state, not first_sparse, tolerance=0.0, warm=second.qacc)
    except mujoco.FatalError as exc:
        if "out of memory" in str(exc):
            raise DenseOutOfMemory(str(exc).splitlines()[0]) from exc
        raise
    cap = int(model.opt.iterations)
    its = (_islands_iterations(model, first), _islands_iterations(model, second))
    capped_apart = any(its[a] >= cap and its[1 - a] <= cap // 10 for a in (0, 1))
    correction = float(np.linalg.norm(second.qacc_smooth - second.qacc))
    if not first.nefc == second.nefc == first_on.nefc == second_on.nefc:  # other rows at one state: all differs
        return PathsAt(its, capped_apart, float("inf"), 0.0, float("inf"), 0.0)
    share = lambda a, b: float(np.linalg.norm(a - b)) / correction if correction > 0 else 0.0  # noqa: E731
    n = second.nefc
    largest = float(np.max(np.abs(second.efc_force[:n]), initial=0.0))
    force = lambda a, b: float(np.max(np.abs(a[:n] - b[:n]), initial=0.0)) / largest if largest > 0 else 0.0  # noqa: E731
    return PathsAt(its, capped_apart, share(first.qacc, second.qacc),
                   share(first_on.qacc, first.qacc) + share(second_on.qacc, second.qacc),
                   force(first.efc_force, second.efc_force),
                   force(first_on.efc_force, first.efc_force) + force(second_on.efc_force, second.efc_force))


def over_reach(apart: float, own: float) -> float:
    """The paths' distance over what their own errors allow (SPREAD x own + ROUND_OFF)."""
    return apart / (SPREAD * own + ROUND_OFF)


@pytest.mark.law("model-jacobian-paths-agree", source=SOURCE)
def test_dense_and_sparse_jacobian_solve_alike(law, pack_model, twofold_states, model_case) -> None:
    """The constraint solve does not depend on how MuJoCo stores the constraint Jacobian: at each state the dense
    and the sparse path, with the model's own solver and options, stop alike (neither at the iteration cap where
    the other converges in a tenth of it) and reach the same qacc and efc_force, to ten times the paths' own errors
    (how far each answer moves when its solve goes on for another cap) plus round-off (1e-9)."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    try:
        found = [paths_at(model, s) for s in twofold_states]
    except DenseOutOfMemory as exc:
        pytest.skip(f"{model_case}: the model's arena holds its sparse constraint rows but not the dense "
                    f"nefc x nv Jacobian ({exc}); raise <size memory> to compare the paths")
    found = [f for f in found if f.iterations != (0, 0) or f.qacc_apart > 0]
    if not found:
        pytest.skip(f"{model_case}: no state with a constraint row to solve")
    first = "sparse" if mujoco.mj_isSparse(model) else "dense"
    second = "dense" if first == "sparse" else "sparse"
    solver = mujoco.mjtSolver(int(model.opt.solver)).name.removeprefix("mjSOL_")
    change = (f"an engine defect of MuJoCo {mujoco.__version__}'s {first} path, not the model's: until it is fixed, "
              f"set <option jacobian=\"{second}\"/> (the other storage), report it, or change MuJoCo version")
    capped = [f for f in found if f.capped_apart]
    worst_cap = max(capped or found, key=lambda f: abs(f.iterations[0] - f.iterations[1]))
    law.check("capped_apart", len(capped), near=0, abs=0,
              why=f"states where one path stopped at {solver}'s cap (iterations={model.opt.iterations}) and the "
                  f"other converged in a tenth of it (iterations {first}/{second}: {worst_cap.iterations[0]}/"
                  f"{worst_cap.iterations[1]} at the worst of {len(found)} states); failing, {change}")
    for name, apart, own in (("qacc", "qacc_apart", "qacc_own"), ("force", "force_apart", "force_own")):
        worst = max(found, key=lambda f: over_reach(getattr(f, apart), getattr(f, own)))
        ratio = over_reach(getattr(worst, apart), getattr(worst, own))
        scale = "the constraint correction |qacc_smooth - qacc|" if name == "qacc" else "the largest efc_force"
        law.check(f"{name}_apart_over_reach", ratio, le=1.0, drift_abs=1.0,
                  why=f"the {first} path's {name} off the {second} path's, {getattr(worst, apart):.3g} of {scale}, "
                      f"over {SPREAD:g} x the paths' own errors ({getattr(worst, own):.3g}: how far their answers move "
                      f"when their solves go on for another cap) + {ROUND_OFF:g}; failing, {change}")
