"""Laws of the model's constraint solver, after Lesson 20.2 (MuJoCo's PGS, CG and Newton solvers) and
MuJoCo's documentation ("Computation", "Solver"): a step's solve is a converged answer, not a cap;
warm starts save work; converged solvers agree on one minimum; Newton needs few iterations.

Measured:
`pytest --physlaw-model=MODEL.xml -k solver`, see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import iterations, measure, roundoff, runs, stepping

SOURCE = "Lesson 20.2 (PGS, CG, Newton); MuJoCo documentation, Computation: Solver"
CAP_SHARE = 0.05  # of the steps: at most one in 20 may stop unconverged at the iteration cap
CAP_MOTION = 0.01  # of how far the bodies moved: raising the cap may move them no more than this
RAISED_CAP = 100  # MuJoCo's default iterations
AGREE = 10 * math.sqrt(measure.CONVERGED["PGS"][1])  # share of the correction (see the law)


def _solver_name(model: Any) -> str:
    return next(n for n, v in measure.SOLVERS.items() if int(v) == int(model.opt.solver))


@pytest.mark.law("model-solver-cap-share", source=SOURCE)
def test_solves_stop_below_the_iteration_cap(law, pack_model, settled, settled_nudged, settings, horizon,
                                             model_case) -> None:
    """At most one step in 20 stops at the iteration cap, or the cap does not change the motion: a capped
    solve leaves part of the constraint correction out (Lesson 20.2, part 1); the model's own solver,
    iterations and tolerance. A cap set on purpose (`iterations="2"`, as models tuned for GPU training
    ship) is a finding only where it moves the run: with more of the cap hit, the run is made again with
    the cap raised (to 100, or ten times the model's), and the bodies may move from where the capped run
    has them by at most a hundredth of how far they moved (the timestep law's measure)."""
    model = pack_model.model
    share = float(np.mean(settled.capped))
    cap = f"<option iterations={model.opt.iterations}> of {_solver_name(model)}"
    if share <= CAP_SHARE:
        law.check("cap_share", share, le=CAP_SHARE, drift_abs=1.0 / settled.steps,
                  drift=roundoff.drift(pack_model.config, share, float(np.mean(settled_nudged.capped))),
                  why=f"steps that stopped at {cap}")
        return
    law.check("cap_share", share, ge=0, drift_abs=1.0 / settled.steps,
              drift=roundoff.drift(pack_model.config, share, float(np.mean(settled_nudged.capped))),
              why=f"steps that stopped at {cap}, more than one in {round(1 / CAP_SHARE)}: judged by what the cap changes "
                  "(below)")
    raised, (shift, moved), raised_run = _uncapped_shift(model, settled, horizon, settings.keyframe)
    law.check("cap_motion_shift", shift / moved if moved > stepping.STILL else 0.0, le=CAP_MOTION, drift_abs=1e-9,
              why=f"the largest RMS shift of a body when the cap is raised to {raised} ({shift * 1000:.3g} mm) over the "
                  f"farthest any body moved ({moved * 1000:.3g} mm); if it fails, "
                  f"{iterations.covering_cap(model, raised_run, raised)}")


def _uncapped_shift(model: Any, settled: Any, horizon: int, keyframe: str
                    ) -> tuple[int, tuple[float, float], runs.Run]:
    """(the raised cap, `stepping.run_shift` between the model's run and the run with that cap, that run)."""
    m = copy.copy(model)
    m.opt.iterations = max(RAISED_CAP, 10 * int(model.opt.iterations))
    raised = runs.settled(m, horizon, keyframe, cold=False)
    return int(m.opt.iterations), stepping.run_shift(settled, raised), raised


@pytest.mark.law("model-warmstart", source=SOURCE)
def test_warmstart_saves_iterations(law, pack_model, settled, settled_nudged, model_case) -> None:
    """At the same states, a warm-started solve needs no more iterations than a cold one: PGS and CG
    start from the last step's answer (Lesson 20.2, part 2); Newton, a few iterations cold, loses at
    most half of one. Mean counts move under round-off by whole steps' counts: their drift is ten times
    what the nudged run's warm mean moved (`roundoff`)."""
    if mujoco_versions.barrier_contacts(pack_model.model):
        pytest.skip(f"{model_case}: its contacts are incremental potential contacts (<flag ipc>): each step minimizes "
                    "a barrier potential, not the soft-constraint problem whose warm start the lesson measures")
    cold, warm = float(np.mean(settled.cold)), float(np.mean(settled.warm))
    if cold == 0:
        rows = (f"{settled.nefc} constraint rows at the end, which the first guess already solved (their force is "
                "what the unconstrained motion gives, zero where nothing loads them)") if settled.nefc else "no constraint row"
        pytest.skip(f"{model_case}: no step of the run needed a solver iteration, cold or warm: {rows}; a warm start "
                    "has nothing to save")
    nudged_warm = float(np.mean(settled_nudged.warm))
    if _solver_name(pack_model.model) == "Newton":
        law.check("warm_minus_cold", warm - cold, le=0.5, unit="iterations/step", drift_abs=0.01,
                  drift=roundoff.drift(pack_model.config, warm - cold, nudged_warm - cold),
                  why="Newton starts at or near the minimum either way (quadratic convergence)")
    else:
        law.check("warm_over_cold", warm / cold, le=1.0,
                  drift=roundoff.drift(pack_model.config, warm / cold, nudged_warm / cold),
                  why="the warm start begins at the better of the last answer and qacc_smooth; the lesson's "
                      "tower of boxes: 0.54 (PGS), 0.60 (CG)")


@pytest.mark.law("model-solvers-agree", source=SOURCE)
def test_converged_solvers_agree_on_qacc(law, pack_model, settled, model_case) -> None:
    """At the settled state, the model's own solver run to convergence (cold, tolerance 1e-12) reaches
    the qacc of a Newton solve at 1e-14: the constrained problem is convex in qacc with one minimum.
    The other two solvers are run the same way (where MuJoCo runs them for this model: IPC rules out PGS) and recorded: whether each converged and, where it did,
    how far it lies; one the model does not use, stalling on an ill-conditioned problem, says nothing
    about the model.

    Measure: |qacc - qacc_ref| / |qacc_smooth - qacc_ref| (Lesson 20.2, part 1). Bound 10 sqrt(1e-12)
    = 1e-5: the solvers stop on the cost's improvement, and a cost within eps of its minimum leaves
    an error of order sqrt(eps) in qacc.
    """
    model = pack_model.model
    try:
        scale, shares, converged = measure.agreement(model, settled)
    except measure.NoReference as exc:
        pytest.skip(f"{model_case}: {exc}: no converged reference to agree with")
    if scale == 0:
        pytest.skip(f"{model_case}: no constraint force at the settled state (qacc_smooth is qacc)")
    own = _solver_name(model)
    law.check(f"{own}_converged", int(converged[own]), near=1, abs=0,
              why=f"the model's solver stopped on its tolerance before {measure.CONVERGED[own][0]} iterations")
    law.check(f"{own}_share", shares[own], le=AGREE, drift_abs=AGREE,  # a convergence residue: its bound gates it
              why="a cost within eps = 1e-12 of its minimum leaves about sqrt(eps) of the correction")
    for name in (n for n in shares if n != own):
        law.check(f"{name}_converged", int(converged[name]), ge=0, le=1,
                  why=f"recorded for the gate: the model does not use {name}; 1 where it converged before "
                      f"{measure.CONVERGED[name][0]} iterations")
        law.check(f"{name}_share", shares[name], ge=0, drift_abs=AGREE,
                  why=f"recorded for the gate: how far {name} ended from the reference (bounded only for the "
                      "model's own solver)")


@pytest.mark.law("model-newton-iterations", source=SOURCE)
def test_newton_never_stops_at_the_cap(law, pack_model, settled, settled_nudged, settings, horizon, model_case) -> None:
    """Newton, the model's other options kept, converges on every step before the iteration cap (its
    convergence is quadratic: Lesson 20.2, part 1); its mean iterations a step are recorded for the gate."""
    model = pack_model.model
    run = measure.newton_run(model, horizon, settings.keyframe, settled)
    if run is settled or np.any(settled.capped):  # one cap, judged once, by model-solver-cap-share
        law.check("capped_steps", int(np.sum(run.capped)), ge=0,
                  why=f"recorded: the model's own solves meet its cap (iterations={model.opt.iterations}) too, and "
                      "model-solver-cap-share judges that cap, by whether it changes the motion")
    else:
        law.check("capped_steps", int(np.sum(run.capped)), near=0, abs=0,
                  why=f"no Newton step stops unconverged at iterations={model.opt.iterations}, where the model's own "
                      f"{_solver_name(model)} converges on every step: Newton is losing its way")
    nudged = settled_nudged if run is settled else measure.newton_run(model, horizon, settings.keyframe, settled_nudged,
                                                                      nudge=roundoff.NUDGE)
    law.check("mean_iterations", float(np.mean(run.warm)), ge=0, unit="iterations/step", drift_abs=0.01,
              drift=roundoff.drift(pack_model.config, float(np.mean(run.warm)), float(np.mean(nudged.warm))),
              why="recorded for the gate: how hard the model's constraints are for Newton (its cap: the check above)")
