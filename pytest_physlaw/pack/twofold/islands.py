"""The constraint solve by islands against one solve of the whole model: MuJoCo splits the constraint rows into
islands (trees coupled by constraints) and solves each apart (on unless `mjDSBL_ISLAND`); one solve of all the rows
at once is the same convex problem, block-diagonal in the islands, so both stop alike and reach the same qacc and
constraint force, to the solves' own convergence. Source: MuJoCo's documentation (Computation: constraint islands;
XML reference: option/flag/island).

The model's own setting is the first computation, islands the other way the second, compared at each state of
`twofold_states` by `paths.paths_at`. Where islands are on, the tolerance applies to each island's solve, and the
whole-model solve stops on the whole problem's cost: a loose tolerance can leave the two a few of its square roots
apart, which the paths' own errors (the solves continued to 1e-4 of the tolerance) measure.

Measured: `pytest --physlaw-model=MODEL.xml -k islands`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import paths, states

SOURCE = "MuJoCo documentation, Computation (constraint islands) and XML reference (option/flag/island)"


@pytest.mark.law("model-island-paths-agree", source=SOURCE)
def test_islands_and_one_solve_agree(law, pack_model, twofold_states, model_case) -> None:
    """Splitting the constraint solve into islands changes no answer: at each state the solve by islands and the one
    solve of the whole model, with the model's own solver and options, stop alike (neither at the iteration cap
    where the other converges in a tenth of it) and reach the same qacc and efc_force, to ten times the paths' own
    errors plus round-off (1e-9)."""
    model = pack_model.model
    toggled = mujoco_versions.islands_toggled(model)
    if toggled is None:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} has no island flag (mjDSBL_ISLAND, mjENBL_ISLAND)")
    if model.nv == 0:
        pytest.skip(f"{model_case}: no degree of freedom")
    on = mujoco_versions.islands_on(model)
    first, second = ("islands", "whole-model") if on else ("whole-model", "islands")
    models = paths.pair(model, {}, toggled)
    try:
        found = [paths.paths_at(models, s) for s in states.for_solves(model, twofold_states)]
    except paths.OutOfMemory as exc:
        pytest.skip(f"{model_case}: the model's arena holds one path's constraint rows and not the other's ({exc}); "
                    "raise <size memory> to compare the paths")
    flag = "island" if hasattr(mujoco.mjtDisableBit, "mjDSBL_ISLAND") else "island (enable)"
    change = (f"an engine defect of MuJoCo {mujoco.__version__}'s {first} solve, not the model's: until it is fixed, "
              f"turn <flag {flag}> the other way, report it, or change MuJoCo version")
    paths.judge(law, model, found, first, second, change)
