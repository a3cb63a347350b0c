"""Generic laws of an MJCF model: its solver (Lesson 20.2), its bodies' proxies, its own figures.

The scene is settled as the model says: its own timestep, integrator and solver options, from
keyframe 0 (or qpos0 when it has none), for ini `physlaw_model_seconds` (default 1 s) of
simulated time. Each case id starts with the model's path relative to the rootdir; body laws add
the body's name. Source: Lesson 20.2 (solver laws); issue 8 and seed 004 (proxy laws).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from pytest_physlaw.pack import measure

SOLVER = "Lesson 20.2 on the user's model"
PROXY = "seed 004 and issue 8 on the user's model"
CAP_SHARE = 0.05  # of the steps: at most one in 20 may stop unconverged at the iteration cap
NEWTON_MEAN = 3.0  # iterations per step; the lesson's tower: 1 cold, 0.22 warm
TOLERANCE = 0.10  # the platen law's 10 %
ROUND_OFF = 1e-9  # relative: 3 lambda_max / trace(W_tt) lies in [1, 3] but for a few ulps
AGREE = 10 * math.sqrt(measure.CONVERGED["PGS"][1])  # share of the correction (see the law)
SEED = 2024  # the seeded pose of each body is drawn with SEED + the body's id


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    node = metafunc.definition.parent
    if "model_case" in metafunc.fixturenames:
        metafunc.parametrize("model_case", [node.rel], ids=[node.rel])
    if "body_case" in metafunc.fixturenames:
        cases = [(b, name) for b, name in node.bodies]
        ids = [f"{node.rel}:{name}" for _, name in cases]
        if node.skipped_bodies:
            cases.append((None, f"{node.skipped_bodies} more"))
            ids.append(f"{node.rel}:+{node.skipped_bodies} bodies")
        metafunc.parametrize("body_case", cases, ids=ids)


@pytest.fixture(scope="module")
def pack_model(request: pytest.FixtureRequest) -> Any:
    """The model's collector: `.model` (compiled), `.rel` (its path), `.bodies`."""
    return request.node


@pytest.fixture(scope="module")
def seconds(request: pytest.FixtureRequest) -> float:
    from pytest_physlaw import options

    return options.model_seconds(request.config)


@pytest.fixture(scope="module")
def settled(pack_model: Any, seconds: float) -> measure.Run:
    """The model's own run over the horizon, warm and cold iterations per step."""
    return measure.run(pack_model.model, seconds)


def _solver_name(model: Any) -> str:
    return next(n for n, v in measure.SOLVERS.items() if int(v) == int(model.opt.solver))


@pytest.mark.law("model-solver-cap-share", source=SOLVER)
def test_solves_stop_below_the_iteration_cap(law, pack_model, settled, model_case) -> None:
    """At most one step in 20 stops at the iteration cap (a capped solve leaves part of the correction
    missing: Lesson 20.2, part 1); the model's own solver, iterations and tolerance."""
    model = pack_model.model
    law.check("cap_share", float(np.mean(settled.capped)), le=CAP_SHARE,
              why=f"steps of {_solver_name(model)} that stopped at iterations={model.opt.iterations}; "
                  "measured 0.015 on gymnasium's humanoid (PGS, 50)")


@pytest.mark.law("model-warmstart", source=SOLVER)
def test_warmstart_saves_iterations(law, pack_model, settled, model_case) -> None:
    """At the same states, a warm-started solve needs no more iterations than a cold one: PGS and CG
    save iterations (Lesson 20.2, part 2); Newton, a few iterations cold, loses at most half of one."""
    cold, warm = float(np.mean(settled.cold)), float(np.mean(settled.warm))
    if cold == 0:
        pytest.skip(f"{model_case}: no step of the run needed a solver iteration (no constraint was active)")
    if _solver_name(pack_model.model) == "Newton":
        law.check("warm_minus_cold", warm - cold, le=0.5, unit="iterations/step",
                  why="Newton starts at or near the minimum either way; measured +0.07 (walker2d) to -0.5")
    else:
        law.check("warm_over_cold", warm / cold, le=1.0,
                  why="the warm start begins at the better of the last answer and qacc_smooth; the lesson's "
                      "tower: 0.54 (PGS), 0.60 (CG); measured 0.89 on gymnasium's humanoid (PGS)")


@pytest.mark.law("model-solvers-agree", source=SOLVER)
def test_converged_solvers_agree_on_qacc(law, pack_model, settled, model_case) -> None:
    """At the settled state, PGS, CG and Newton run to convergence (cold, tolerance 1e-12) agree on qacc
    with a Newton solve at 1e-14: the constrained problem is convex in qacc with one minimum.

    Measure: |qacc - qacc_ref| / |qacc_smooth - qacc_ref| (Lesson 20.2, part 1). Bound 10 sqrt(1e-12)
    = 1e-5: the solvers stop on the cost's improvement, and a cost within eps of its minimum leaves
    an error of order sqrt(eps) in qacc.
    """
    scale, shares, converged = measure.agreement(pack_model.model, settled)
    if scale == 0:
        pytest.skip(f"{model_case}: no constraint force at the settled state (qacc_smooth is qacc)")
    for name, share in shares.items():
        law.check(f"{name}_converged", int(converged[name]), near=1, abs=0,
                  why=f"the solve stopped on its tolerance before {measure.CONVERGED[name][0]} iterations")
        law.check(f"{name}_share", share, le=AGREE, drift_abs=AGREE,  # a convergence residue: its bound gates it
                  why="measured at most 2.7e-7 (PGS) on gymnasium's models")


@pytest.mark.law("model-newton-iterations", source=SOLVER)
def test_newton_takes_few_iterations_a_step(law, pack_model, settled, seconds, model_case) -> None:
    """Newton, the model's other options kept, solves each step in a few iterations (quadratic
    convergence; the lesson's tower: 1 cold, 0.22 warm) and never at the cap."""
    run = measure.newton_run(pack_model.model, seconds, settled)
    law.check("mean_iterations", float(np.mean(run.warm)), le=NEWTON_MEAN, unit="iterations/step",
              why="measured at most 1.4 on gymnasium's models (humanoidstandup)")
    law.check("capped_steps", int(np.sum(run.capped)), near=0, abs=0, why="no Newton step stops unconverged")


@pytest.mark.law("model-figures", source="the model file")
def test_model_figures(law, pack_model, settled, model_case) -> None:
    """The model's own figures, for the gate to see them move: total mass, nv, nefc after settling and
    the settled pose's drift (the farthest any body moved over the last tenth of the run)."""
    model = pack_model.model
    law.check("total_mass", float(np.sum(model.body_mass)), gt=0, unit="kg", why="a model with mass")
    law.check("nv", int(model.nv), ge=1, why="degrees of freedom: a movable body exists")
    law.check("nefc", settled.nefc, ge=0, why="constraint rows after settling")
    tail = max(1, settled.steps // 10)
    moved = np.linalg.norm(settled.xpos[-1] - settled.xpos[-1 - tail if settled.steps > tail else 0], axis=1)
    law.check("drift_mm", 1000 * float(np.max(moved)), ge=0, unit="mm", drift_abs=1e-3,
              why=f"over the last {tail} of {settled.steps} steps")


def _body(pack_model: Any, body_case: tuple[int | None, str]) -> int:
    body, name = body_case
    if body is None:
        pytest.skip(f"{pack_model.rel}: {name} movable bodies not checked (the pack checks the first "
                    "MAX_BODIES = 30 of a model)")
    if not measure.translates(pack_model.model, body):
        pytest.skip(f"{pack_model.rel}: body {name!r}: its centre of mass cannot translate (W_tt = 0 at qpos0): "
                    "no answer along an axis to compare")
    return body


def _answers(pack_model: Any, body: int, qpos: np.ndarray) -> measure.BodyAnswers:
    try:
        return measure.answers(pack_model.model, body, qpos, measure.is_held(pack_model.model, body))
    except ValueError as exc:  # the coupling API refuses what it cannot measure, naming why
        pytest.skip(f"{pack_model.rel}: body {pack_model.model.body(body).name!r}: {exc}")


@pytest.mark.law("model-tensor-proxy-answers", source=PROXY)
def test_tensor_proxy_answers_like_the_body(law, pack_model, body_case) -> None:
    """The current-pose tensor proxy answers 1 N along the body's mobile axis as MuJoCo moves the body,
    within 10 %, at qpos0 and at a seeded pose within the joint ranges. A body held by equality
    constraints is compared with MuJoCo's constrained answer, its proxy built with equality=True."""
    body = _body(pack_model, body_case)
    model = pack_model.model
    for pose, qpos in (("qpos0", model.qpos0), ("seeded", measure.seeded_pose(model, SEED + body))):
        a = _answers(pack_model, body, qpos)
        held = " (held by its equality constraints)" if a.held else ""
        law.check(f"answer_{pose}", a.tensor, near=a.body, rel=TOLERANCE, unit="1/kg",
                  why=f"the platen law's 10 %{held}; measured equal to 2e-13 on gymnasium's bodies")


@pytest.mark.law("model-scalar-over-axis", source=PROXY)
def test_scalar_proxy_error_along_the_axis(law, pack_model, body_case) -> None:
    """Along the body's mobile axis the scalar proxy answers 1/r of what the body's mobility W does,
    r = scalar/axis mass = 3 lambda_max / trace(W_tt): between 1 (isotropic, a free body) and 3 (one
    axis); recorded so that the gate sees it move. Held bodies: W_c (equality=True). W's own answer is
    the current-pose tensor proxy's at qpos0 (model-tensor-proxy-answers compares it with MuJoCo's)."""
    body = _body(pack_model, body_case)
    a = _answers(pack_model, body, pack_model.model.qpos0)
    law.check("scalar_over_axis", a.tensor / a.scalar, ge=1 - ROUND_OFF, le=3 * (1 + ROUND_OFF),
              why="1: isotropic, 3: one free axis; measured 1.001 to 3.000 on gymnasium's bodies")
