"""Each solver converged, at the states the model moves through: the constrained problem MuJoCo solves at a state is
convex in qacc with one minimum, so two solvers run cold to convergence reach the same qacc there: the model's
own solver at tolerance 1e-12 that of Newton at 1e-14 (CG's, where the model's own is Newton), whatever the state: at a joint limit, under a saturated actuator, in self-contact, as at
rest. Source: MuJoCo's documentation (Computation: the constraint solver); Lesson 20.2, part 1 (the measure).

`model-solvers-agree` compares the solvers at the settled end; this law takes the same pair to the loaded states
of `twofold_states` (the driven and reaching runs': where the constraint force is largest), where a release's
solver path for limits, equalities or many contacts is exercised and rest is not. The correction a share is
taken of has a floor at 1e-6 of the smooth acceleration: where the constraints carry almost nothing the correction is
round-off, and so is a share of it (MuJoCo's Newton cradle at rest: 5.3e-13 of an acceleration of 26, CG's answer
"1" of it off Newton's before the floor, 2.2e-15 after; the SDF gear and nut-and-bolt 0.0116 and 8.2e-5 before,
3.3e-6 and 1.7e-7 after).

Measured: `pytest --physlaw-model=MODEL.xml -k solvers_agree_in_motion`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import measure, options

SOURCE = "MuJoCo documentation, Computation (constraint solver); Lesson 20.2, part 1"
LOADED = 4  # states compared: those with the largest constraint force (each costs two converged cold solves)
AGREE = 1e-5  # 10 sqrt(1e-12): a cost within eps of its minimum leaves about sqrt(eps) of the correction
GO_ON = 1e-2  # the same solve gone on to a hundredth of its tolerance: how far its answer still moves
FLOOR = 1e-6  # of |qacc_smooth|: a correction below it is round-off (MuJoCo's Newton cradle at rest, 5.3e-13 of 26)
SOLVER_NAMES = {int(code): name for name, code in measure.SOLVERS.items()}


def loaded(states: list[mujoco.MjData], count: int = LOADED) -> list[mujoco.MjData]:
    """The `count` states with the largest constraint force (|qfrc_constraint|), the most loaded first."""
    load = [float(np.linalg.norm(s.qfrc_constraint)) for s in states]
    order = sorted(range(len(states)), key=lambda i: -load[i])
    return [states[i] for i in order[:count] if load[i] > 0]


def solve(model: mujoco.MjModel, state: mujoco.MjData, solver: str, iterations: int,
          tolerance: float) -> mujoco.MjData:
    """One cold `mj_forward` at `state` (its positions, velocities, activations, controls and applied forces) with
    `solver` at `iterations` and `tolerance`, the model's other options kept, noslip off (a pass after the solve)."""
    chosen = options.cold(model, {"solver": int(measure.SOLVERS[solver]), "iterations": iterations,
                                   "tolerance": tolerance, "noslip_iterations": 0})
    data = copy.copy(state)
    with options.changed(model, chosen):
        mujoco.mj_forward(model, data)
    return data


def second_solver(own: str) -> str:
    """The solver compared with Newton's converged reference: the model's own, or CG where that is Newton (Newton
    against itself would compare one algorithm with itself)."""
    return "CG" if own == "Newton" else own


def share_off(model: mujoco.MjModel, state: mujoco.MjData, own: str) -> tuple[float, bool, float, float]:
    """(|qacc_own - qacc_ref| / the scale, whether `own`'s solve converged before its cap, the scale: the constraint
    correction |qacc_smooth - qacc_ref|, floored at FLOOR of |qacc_smooth|, and `own`'s own error: how far its answer
    moves, over the scale, when the same solve goes on to GO_ON of its tolerance) at `state`; the shares are 0
    where there is no constraint correction."""
    ref = solve(model, state, "Newton", *measure.REFERENCE)
    correction = float(np.linalg.norm(ref.qacc_smooth - ref.qacc))
    scale = max(correction, FLOOR * float(np.linalg.norm(ref.qacc_smooth))) if correction > 0 else 0.0
    iterations, tolerance = measure.CONVERGED[own]
    data = solve(model, state, own, iterations, tolerance)
    further = solve(model, state, own, iterations, tolerance * GO_ON)
    converged = bool(np.all(data.solver_niter[: max(int(data.nisland), 1)] < iterations))
    if scale <= 0:
        return 0.0, converged, scale, 0.0
    own_error = float(np.linalg.norm(further.qacc - data.qacc)) / scale
    return float(np.linalg.norm(data.qacc - ref.qacc)) / scale, converged, scale, own_error


def bound(own_error: float) -> float:
    """A share's bound: AGREE, or ten times the solve's own error where that is larger (CG stops at 1e-12 with
    2.3e-5 of the correction still to go on a tendon-coupled arm, 4.2e-7 at 1e-14: MuJoCo 3.14.0)."""
    return max(AGREE, 10.0 * own_error)


@pytest.mark.law("model-solvers-agree-in-motion", source=SOURCE)
def test_converged_solvers_agree_where_the_model_moves(law, pack_model, twofold_states, model_case) -> None:
    """At the most loaded of the states the model moves through (joint limits, saturation, self-contact), the
    model's own solver (CG where that is Newton) run cold to tolerance 1e-12 reaches the qacc of Newton at 1e-14
    within 1e-5 of the constraint correction (10 sqrt(1e-12)), or ten times its own error where that is more (how
    far its answer moves when the solve goes on to a hundredth of its tolerance); a state where it does not converge in its
    iterations (PGS 2000, CG 500) is counted, not compared."""
    model = pack_model.model
    if int(model.opt.solver) not in SOLVER_NAMES:
        pytest.skip(f"{model_case}: solver {int(model.opt.solver)} is none of PGS, CG, Newton")
    own = second_solver(SOLVER_NAMES[int(model.opt.solver)])
    states = loaded(twofold_states)
    if not states:
        pytest.skip(f"{model_case}: no constraint force at any state the runs reached")
    try:
        found = [(share_off(model, s, own), float(s.time)) for s in states]
    except mujoco.FatalError as exc:  # IPC on 3.14 refuses Newton: no converged reference
        pytest.skip(f"{model_case}: MuJoCo will not solve it with Newton, the converged reference ({exc})")
    compared = [(share / bound(error), share, bound(error), t) for (share, ok, scale, error), t in found
                if ok and scale > 0]
    stalled = [t for (_, ok, _, _), t in found if not ok]
    worst = max(compared, default=(0.0, 0.0, AGREE, float("nan")))
    law.check(f"{own}_share_over_bound", np.array([c[0] for c in compared] or [0.0]), le=1.0, drift_abs=1.0,
              why=f"the worst of {len(compared)} loaded states at t = {worst[3]:.3g} s: {own} converged, "
                  f"{worst[1]:.3g} of the constraint correction off Newton at 1e-14, over its bound {worst[2]:.3g} "
                  f"(1e-5, or ten times how far {own}'s answer moves when its solve goes on to a hundredth of its "
                  "tolerance)"
                  + (f"; not converged in {measure.CONVERGED[own][0]} iterations at t = "
                     f"{', '.join(f'{t:.3g}' for t in stalled)} s (not compared)" if stalled else ""))
    law.check(f"{own}_stalled_states", len(stalled), ge=0, le=len(found), drift_abs=0.5,
              why=f"of the {len(found)} most loaded states, those where {own} did not converge to 1e-12 in "
                  f"{measure.CONVERGED[own][0]} iterations (recorded for the gate)")
