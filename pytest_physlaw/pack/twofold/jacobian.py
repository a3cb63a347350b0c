"""Dense against sparse constraint Jacobian: MuJoCo stores the constraint rows' Jacobian dense (nefc x nv) or
sparse (compressed rows, the default from 60 dofs: `opt.jacobian`, mjJAC_AUTO), and every solver (PGS, CG,
Newton) has a path for each storage: the same convex problem, the same algorithm, the same stopping rule. At the
same state and settings the two paths stop alike and reach the same qacc and constraint force, to the solves' own
convergence. Source: MuJoCo's documentation (Computation: the constraint solver; XML reference: option/jacobian).

The path the model runs (`mj_isSparse`) is the first computation, the other storage the second, compared at each
state of `twofold_states` by `paths.paths_at` (each path's own error: how far its answer moves when its solve
goes on to 1e-4 of the tolerance). MuJoCo 4.0.0's Newton, sparse, on a 13-dof tree whose limbs a connect ties across branches
(`regressions/models/mujoco_4_0_0_sparse_newton_tree.xml`) stops after 16 iterations 1.69 of the constraint
correction off the dense path's, which converges in 2.

Measured: `pytest --physlaw-model=MODEL.xml -k jacobian`; figures in docs/second-computations.md.
"""

from __future__ import annotations


import mujoco
import pytest

from pytest_physlaw.pack.twofold import paths, states

SOURCE = "MuJoCo documentation, Computation (constraint solver) and XML reference (option/jacobian)"
JAC = mujoco.mjtJacobian


def stored(sparse: bool) -> dict[str, int]:
    """The option that stores the constraint Jacobian sparse or dense."""
    return {"jacobian": int(JAC.mjJAC_SPARSE if sparse else JAC.mjJAC_DENSE)}


@pytest.mark.law("model-jacobian-paths-agree", source=SOURCE)
def test_dense_and_sparse_jacobian_solve_alike(law, pack_model, twofold_states, model_case) -> None:
    """The constraint solve does not depend on how MuJoCo stores the constraint Jacobian: at each state the dense
    and the sparse path, with the model's own solver and options, stop alike (neither at the iteration cap where
    the other converges in a tenth of it) and reach the same qacc and efc_force, to ten times the paths' own errors
    (how far each answer moves when its solve goes on to 1e-4 of the tolerance) plus round-off (1e-9)."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    sparse = bool(mujoco.mj_isSparse(model))
    first, second = ("sparse", "dense") if sparse else ("dense", "sparse")
    try:
        models = paths.pair(model, stored(sparse), stored(not sparse))
        found = [paths.paths_at(models, s) for s in states.for_solves(model, twofold_states)]
    except paths.OutOfMemory as exc:
        pytest.skip(f"{model_case}: the model's arena holds its {first} constraint rows but not the {second} path's "
                    f"({exc}); raise <size memory> to compare the paths")
    change = (f"an engine defect of MuJoCo {mujoco.__version__}'s {first} path, not the model's: until it is fixed, "
              f"set <option jacobian=\"{second}\"/> (the other storage), report it, or change MuJoCo version")
    paths.judge(law, model, found, first, second, change)
