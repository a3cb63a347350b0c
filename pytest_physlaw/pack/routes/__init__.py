"""Laws of the user's robot on the routes policies are trained on, MuJoCo Warp and MJX, beside MuJoCo C
where it is validated and deployed: with the settings the user trains with (ini `physlaw_route_*`), the
robot runs there, one step agrees with C's within what the route's precision allows, its trajectory
under seeded controls stays inside C's own envelope at that precision, it settles as on C, the iteration
cap it trains with does not move where it settles, and what a step costs.

Source: MuJoCo Warp issues #318, #456, #529, #530 and MuJoCo issues #2548, #2778 (users comparing their
robot on MJWarp and MJX with C by hand); Isaac Lab's MuJoCo Warp tuning guide (fix the state, the seed and
the actions, then compare); MuJoCo Warp's and MJX's documentation (float32, solver tolerance, nconmax and
njmax, max_contact_points); Lesson 20.2 (an iteration cap leaves part of the constraint correction out).

Newton (`--physlaw-route=newton`, `newton`): Newton's SolverMuJoCo on MuJoCo's CPU backend, which judges Newton's
import, model conversion, controls and state round trip of the user's file (Newton issue #3017).

Run only with `--physlaw-route=warp` / `mjx` / `newton` (or ini `physlaw_model_routes`): without
one, these laws are not collected and nothing of a route is imported. Each law id ends with the device the
route ran on (`model-route-step[cpu]`), as the suite's own route laws do, and each case id is the model's
path and the route (`[robots/go2.xml:warp]`). Where a route is not installed (or is of another release
than MuJoCo), every law of that route skips naming the versions; where it refuses the model or a setting
(a geom pair, a solver, float64 on MuJoCo Warp), every law skips naming the feature and the route's version.

The yardstick of laws 2 to 5 is MuJoCo C's own spread at the route's precision (`reference`): C runs the
same start under the same controls, and an ensemble of C runs perturbed by the route's precision (float32:
1e-6 relative, MJWarp's tolerance and ~8 float32 epsilons; float64: 1e-12) at the start and after every
step shows how far round-off alone carries the robot; the route may stray `ENVELOPE` (10) times that.

Measured:
ANYmal C (Menagerie's MJX scene), 500 steps, MuJoCo Warp 3.14.0 on the CPU: converged (100 iterations), the
route's bodies stay within 0.3x (standing) and 2x (seeded controls) of a float32 every-step ensemble's
spread; at the scene's own 1 iteration the standing robot strays 255x and the seeded one 24,000x. MJX
float32, converged: 0.26x and 1.6x; MJX float64, converged, against 1e-12: 7e-5x and 0.004x.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from pytest_physlaw import options
from pytest_physlaw.pack import runs
from pytest_physlaw.pack.routes import reference
from pytest_physlaw.pack.fixtures import SEED
from pytest_physlaw.pack.routes.common import (
    CHECKED_SEEDED,
    CONVERGED_ITERATIONS,
    RouteRefused,
    RouteRun,
    RouteSetup,
    RouteUnsupported,
    World,
    read_setup,
    route_model,
    unavailable,
)

SOURCE = ("MuJoCo Warp issues #318 #456 #529 #530, MuJoCo issues #2548 #2778; Isaac Lab's MuJoCo Warp tuning "
          "guide; MuJoCo Warp and MJX documentation")
STEP_BOUND = reference.ENVELOPE  # one route step may differ from C's this many times C's own spread
ENVELOPE = reference.ENVELOPE
LOAD = 0.02  # of the weight: the pack's contact-load law's 2 %
REST_SPEED = 1e-3  # m/s, the pack's rest speed (pytest_physlaw.pack.settled_pose)
RATIO_DRIFT = 1.0  # a ratio to C's spread may double against a baseline before the gate flags it
LAW_IDS = ("model-route-runs", "model-route-step", "model-route-trajectory", "model-route-settled",
           "model-route-cap", "model-route-cost", "model-route-readouts", "model-route-rays",
           "model-route-set-const")
DEVICES = ("cpu", "cuda")


def route_law(law_id: str, source: str = SOURCE):
    """Mark a test as the route law `law_id`: its law marker (`law_id[device]`) is set per route case."""
    def mark(fn):
        fn.route_law = (law_id, source)
        return fn
    return mark


def law_ids() -> set[str]:
    """Every id a route law can have, for ini physlaw_model_accept."""
    return {f"{law}[{device}]" for law in LAW_IDS for device in DEVICES}


def adapter(route: str) -> ModuleType:
    """The route's adapter module (imports warp or jax)."""
    return importlib.import_module(f"pytest_physlaw.pack.routes.{route}")


def adapter_offering(route_case: Any, function: str, why_none: str) -> ModuleType:
    """The route's adapter where the route runs here and offers `function` (a second computation of its own); else a
    skip naming why: the versions found, or `why_none`."""
    if route_case.why_not:
        pytest.skip(f"{route_case.route}: {route_case.why_not}")
    module = adapter(route_case.route)
    if not hasattr(module, function):
        pytest.skip(f"{route_case.route}: {why_none}")
    return module


@dataclass(frozen=True)
class RouteCase:
    route: str
    setup: RouteSetup
    device: str
    why_not: str | None  # the route cannot run here: the versions found

    def __repr__(self) -> str:
        return self.route


class RoutePlugin:
    """Registered with the pack: parametrizes the route laws over the run's routes, and leaves them out of
    the collection entirely when the run names no route."""

    def __init__(self, config: pytest.Config) -> None:
        self.routes = options.model_routes(config)
        self.setups = {r: read_setup(config, r) for r in self.routes}
        self.cases: dict[str, RouteCase] = {}
        self.used: dict[str, RouteCase] = {}

    def case(self, route: str) -> RouteCase:
        if route not in self.cases:
            why = unavailable(route)
            device = "cpu" if why else adapter(route).device_kind()
            self.cases[route] = RouteCase(route, self.setups[route], device, why)
        return self.cases[route]

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector: Any, name: str, obj: object) -> Any:
        if getattr(obj, "route_law", None) is not None and not self.routes:
            return []
        return None

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        law = getattr(metafunc.function, "route_law", None)
        if law is None or "route_case" not in metafunc.fixturenames:
            return
        rel = metafunc.definition.parent.rel
        params = []
        for route in self.routes:
            case = self.case(route)
            params.append(pytest.param(case, id=f"{rel}:{route}",
                                       marks=pytest.mark.law(f"{law[0]}[{case.device}]", source=law[1])))
        metafunc.parametrize("route_case", params, scope="module")

    @pytest.hookimpl(optionalhook=True)
    def pytest_physlaw_environment(self, config: pytest.Config) -> dict[str, Any]:
        """The routes this process ran the model laws on: device and versions."""
        out: dict[str, Any] = {}
        for route, case in self.used.items():
            out[f"route_{route}_device"] = case.device
            try:
                out.update({f"route_{route}_{k}": v for k, v in adapter(route).versions().items()})
            except Exception:  # an environment entry never fails the run
                pass
        return out


# ---------------------------------------------------------------------------------------------- fixtures


@dataclass
class Reference:
    """MuJoCo C's side of one model at one route precision and timestep (see `reference`)."""

    c_timestep: float
    route_timestep: float
    worlds: list[World]  # the route's batch: settled start, moving state, seeded-control runs
    envelopes: dict[int, reference.Envelope]  # world index -> C's run and envelope (settled and checked seeded)
    one_steps: dict[int, reference.OneStep]  # world index -> C's one step (settled start, moving state)
    moving_at: int  # the C step the moving state was taken at
    c_step_seconds: float
    build_seconds: float = 0.0  # wall time of all of C's runs here
    notes: list[str] = field(default_factory=list)


def build_reference(model: Any, keyframe: str, horizon: int, setup: RouteSetup) -> Reference:
    started = time.perf_counter()
    dt = float(model.opt.timestep)
    route_dt = setup.timestep or dt
    route_steps = max(1, int(round(horizon * dt / route_dt)))
    eps = setup.eps
    start = runs.start(model, keyframe)
    c_times, r_times = np.arange(horizon) * dt, np.arange(route_steps) * route_dt
    hold = start.ctrl.copy()
    settled_c = reference.world_of("settled", start, np.repeat(hold[None], horizon, axis=0))
    envelopes = {0: reference.envelope(model, settled_c, eps, SEED)}
    worlds = [reference.world_of("settled", start, np.repeat(hold[None], route_steps, axis=0)), None]
    seeded = setup.nworld - 2
    mid = max(1, horizon // 2)
    first_seeded = None
    for k in range(seeded):
        seed = SEED + 1 + k
        worlds.append(reference.world_of(f"seeded-{k + 1}", start, reference.controls_at(model, r_times, seed)))
        if k < CHECKED_SEEDED:
            world = reference.world_of(f"seeded-{k + 1}", start, reference.controls_at(model, c_times, seed))
            envelopes[2 + k] = reference.envelope(model, world, eps, seed, keep=mid if k == 0 else None)
            first_seeded = first_seeded or envelopes[2 + k]
    moving = first_seeded.ref.kept
    t_mid = mid * dt
    moving_c = reference.world_of("moving", moving, reference.controls_at(model, t_mid + c_times[:1], SEED + 1))
    worlds[1] = reference.world_of("moving", moving, reference.controls_at(model, t_mid + r_times, SEED + 1))
    one_steps = {0: reference.one_step(model, settled_c, eps, SEED), 1: reference.one_step(model, moving_c, eps, SEED + 1)}
    return Reference(dt, route_dt, worlds, envelopes, one_steps, mid, envelopes[0].ref.seconds / max(horizon, 1),
                     time.perf_counter() - started)


@pytest.fixture(scope="module")
def route_references(pack_model: Any) -> dict:
    """C's references of this model, shared by the routes that run at the same precision and timestep."""
    return {}


@pytest.fixture(scope="module")
def route_reference(pack_model: Any, settings: Any, horizon: int, route_case: RouteCase,
                    route_references: dict) -> Reference:
    if route_case.why_not:
        pytest.skip(f"{route_case.route}: {route_case.why_not}")
    setup = route_case.setup
    key = (setup.eps, setup.timestep, setup.nworld)
    if key not in route_references:
        route_references[key] = build_reference(pack_model.model, settings.keyframe, horizon, setup)
    return route_references[key]


@dataclass
class Outcome:
    run: RouteRun | None  # None where the route refused the settings
    model: Any  # the route's MjModel (the user's settings applied)
    seconds: float  # wall time of the whole route run, compile included
    refused: str | None = None  # why the route refused the settings (law 1 fails on it; the others skip)


def _route_model(pack_model: Any, setup: RouteSetup, iterations: int | None = None) -> Any:
    m = route_model(pack_model.model, setup, iterations=iterations)
    if setup.route == "mjx" and setup.nconmax is not None:
        m = adapter("mjx").with_contact_capacity(pack_model.path, m, setup.nconmax)
    return m


def _run(route_case: RouteCase, model: Any, worlds: list[World], source: Any) -> Outcome:
    tick = time.perf_counter()
    module = adapter(route_case.route)
    extra = {"source": source} if getattr(module, "NEEDS_SOURCE", False) else {}  # Newton imports the file itself
    try:
        run = module.run(model, worlds, route_case.setup, **extra)
    except RouteUnsupported as e:
        pytest.skip(f"{route_case.route}: {e}")
    except RouteRefused as e:
        return Outcome(None, model, time.perf_counter() - tick, str(e))
    return Outcome(run, model, time.perf_counter() - tick)


def ran(outcome: Outcome, route_case: RouteCase) -> RouteRun:
    """The run, or skip: the route refused the settings (law 1 fails on that)."""
    if outcome.run is None:
        pytest.skip(f"{route_case.route}: not run, the route refused the settings (law model-route-runs fails on "
                    f"it): {outcome.refused}")
    return outcome.run


@pytest.fixture(scope="module")
def route_run(request: pytest.FixtureRequest, pack_model: Any, route_case: RouteCase,
              route_reference: Reference) -> Outcome:
    """The route's batch of worlds over the horizon, with the user's settings."""
    plugin = request.config.pluginmanager.get_plugin(f"physlaw-routes-{id(request.config)}")
    if plugin is not None:
        plugin.used[route_case.route] = route_case
    return _run(route_case, _route_model(pack_model, route_case.setup), route_reference.worlds, pack_model.path)


@pytest.fixture(scope="module")
def route_converged(pack_model: Any, route_case: RouteCase, route_reference: Reference, route_run: Outcome) -> Outcome:
    """The same batch with the iteration cap raised to MuJoCo's default 100 (the run itself where its cap
    is already that high): law 5's converged reference."""
    if ran(route_run, route_case).cap >= CONVERGED_ITERATIONS:
        return route_run
    return _run(route_case, _route_model(pack_model, route_case.setup, CONVERGED_ITERATIONS), route_reference.worlds,
                pack_model.path)


# ---------------------------------------------------------------------------------------------- laws


def _where(model: Any, leave: reference.Leave, index: tuple[int, int, int], timestep: float) -> str:
    step, body, which = index
    name = model.body(body + 1).name or f"body{body + 1}"
    unit, scale = ("mm", 1000.0) if which == 0 else ("mrad", 1000.0)
    return (f"{reference.fmt_time(step, timestep)}, body {name!r}, {reference.FIELDS[which]}: "
            f"{scale * leave.deviation[index]:.3g} {unit} from C against C's spread {scale * leave.spread[index]:.3g} {unit}")


@route_law("model-route-runs")
def test_route_runs_the_model(law, pack_model, route_case, route_run) -> None:
    """The model converts and runs on the route with the settings you train with: every world's state stays
    finite, and no contact or constraint row is dropped for want of capacity (MuJoCo Warp's overflow bits;
    MJX's max_contact_points checked against MuJoCo C's contacts at the route's pose)."""
    if route_run.run is None:
        law.check("refused", 1, le=0, drift_abs=0.5, why=route_run.refused)
        return
    run = route_run.run
    worlds = [w for w in range(run.nworld) if not reference.finite(run.qpos[w], run.qvel[w])]
    law.check("nonfinite_worlds", len(worlds), le=0, drift_abs=0.5,
              why=f"{run.nworld} worlds of {run.steps} steps ({route_case.setup.describe()}); "
                  + (f"not finite: {worlds}" if worlds else "every state finite"))
    for kind, count in sorted(run.overflow.items()):
        law.check(f"{kind.lower()}_overflow_steps", count, le=0, unit="steps", drift_abs=0.5,
                  why=f"steps at which the route's own {kind} counter fired: it dropped contacts or rows that did "
                      "not fit (raise ini physlaw_route_nconmax / physlaw_route_njmax to what the scene needs)")
    contacts, rows = run.capacity.get("contacts"), run.capacity.get("rows")
    if contacts:
        law.check("contacts_over_capacity", run.contacts_max / contacts, le=1.0, drift_abs=0.01,
                  why=f"most contacts a world had ({run.contacts_max}) over the route's capacity per world ({contacts})")
    else:
        law.check("contacts_max", run.contacts_max, ge=0, drift_abs=0.5,
                  why="most touching contacts a world had; the route has no contact capacity here (MJX's JAX "
                      "implementation evaluates every geom pair each step; Newton's MuJoCo CPU backend allocates as "
                      "it goes)")
    if rows:
        law.check("rows_over_capacity", run.rows_max / rows, le=1.0, drift_abs=0.01,
                  why=f"most constraint rows a world had ({run.rows_max}) over njmax ({rows})")


def noted(run: RouteRun) -> str:
    """The route's own notes on how it ran (a GPU's reduced matmul precision, a capacity filled), for a message."""
    return "; " + "; ".join(run.notes) if run.notes else ""


@route_law("model-route-step")
def test_one_route_step_agrees_with_c(law, pack_model, route_case, route_run, route_reference) -> None:
    """From the same states (the settled start, and a moving state of a seeded-control run), one route step
    lands where C's step lands, within 10 times how far C's own step moves when its start moves at the
    route's precision: the largest joint-space difference of qpos and of qvel over that spread."""
    run, model, ref = ran(route_run, route_case), pack_model.model, route_reference
    eps = route_case.setup.eps
    ratios, devs = {"qpos": [], "qvel": []}, {"qpos": [], "qvel": []}
    for w, one in sorted(ref.one_steps.items()):
        dq = float(np.max(np.abs(reference.qpos_error(model, one.qpos, run.qpos[w, 1]))))
        dv = float(np.max(np.abs(run.qvel[w, 1] - one.qvel))) if model.nv else 0.0
        devs["qpos"].append(dq)
        devs["qvel"].append(dv)
        ratios["qpos"].append(dq / max(one.spread_qpos, one.floor_qpos))
        ratios["qvel"].append(dv / max(one.spread_qvel, one.floor_qvel))
    spreads = {"qpos": [max(o.spread_qpos, o.floor_qpos) for o in ref.one_steps.values()],
               "qvel": [max(o.spread_qvel, o.floor_qvel) for o in ref.one_steps.values()]}
    timing = ("" if ref.route_timestep == ref.c_timestep else
              f"; the route steps {ref.route_timestep:g} s, the model {ref.c_timestep:g} s")
    for name in ("qpos", "qvel"):
        law.check(f"{name}_over_c_spread", np.array(ratios[name]), le=STEP_BOUND, drift=RATIO_DRIFT, drift_abs=1.0,
                  why=f"[settled start, moving state at C step {ref.moving_at}]: route minus C "
                      f"{', '.join(f'{d:.3g}' for d in devs[name])} against C's spread at {eps:g} relative "
                      f"{', '.join(f'{s:.3g}' for s in spreads[name])}{timing}{noted(run)}")


@route_law("model-route-trajectory")
def test_route_trajectory_stays_in_c_envelope(law, pack_model, route_case, route_run, route_reference) -> None:
    """Under the same seeded controls (and standing, under the start's own), each body's centre and
    orientation on the route stay within 10 times the spread of C runs perturbed at the route's precision,
    at every step of the horizon; the failure names the first step, body and field where it leaves."""
    run, model, ref = ran(route_run, route_case), pack_model.model, route_reference
    worst, where, first = [], [], None
    for w, env in sorted(ref.envelopes.items()):
        leave = reference.compare(env, ref.c_timestep, run.xipos[w], run.xquat[w], run.timestep)
        lost = np.flatnonzero(~np.all(np.isfinite(leave.ratio), axis=(1, 2)))
        if lost.size:  # the world's state went NaN or infinite: it left everything from there on
            leave.ratio[lost[0]:] = np.inf
            where.append(f"{ref.worlds[w].name} not finite from {reference.fmt_time(int(lost[0]), run.timestep)}")
            worst.append(np.inf)
            first = first if first is not None and first[0] <= lost[0] else (int(lost[0]), where[-1])
            continue
        index = leave.worst()
        worst.append(float(leave.ratio[index]))
        where.append(f"{ref.worlds[w].name} worst at {_where(model, leave, index, run.timestep)}")
        out = leave.first(ENVELOPE)
        if out is not None and (first is None or out[0] < first[0]):
            first = (out[0], f"{ref.worlds[w].name} leaves first at {_where(model, leave, out, run.timestep)}")
    law.check("trajectory_over_c_envelope", np.array(worst), le=ENVELOPE, drift=RATIO_DRIFT, drift_abs=1.0,
              why=(first[1] + "; " if first else "") + "; ".join(where)
              + f" ({run.steps} route steps, {route_case.setup.describe()}){noted(run)}")


@route_law("model-route-settled")
def test_route_settles_as_c(law, pack_model, route_case, route_run, route_reference) -> None:
    """Held at the start's controls over the horizon, the robot ends where C's does (each body's centre within
    10 times C's own spread at the route's precision), its contacts carry a resting floating base's weight
    as C's do (within 2 % of the weight), and its position servos stand off their targets as C's do."""
    run, model, ref = ran(route_run, route_case), pack_model.model, route_reference
    env = ref.envelopes[0]
    leave = reference.compare(env, ref.c_timestep, run.xipos[0], run.xquat[0], run.timestep)
    end = len(leave.ratio) - 1
    body = int(np.argmax(leave.ratio[end, :, 0]))
    law.check("pose_over_c_spread", leave.ratio[end, :, 0], le=ENVELOPE, drift=RATIO_DRIFT, drift_abs=1.0,
              why=f"at the end ({reference.fmt_time(end, run.timestep)}) body "
                  f"{model.body(body + 1).name or body + 1!r}: {1000 * leave.deviation[end, body, 0]:.3g} mm from C's "
                  f"settled pose, C's spread {1000 * leave.spread[end, body, 0]:.3g} mm")
    law.check("pose_mm", 1000 * float(np.max(leave.deviation[end, :, 0])), ge=0, unit="mm", drift=RATIO_DRIFT,
              drift_abs=1000 * ENVELOPE * float(np.max(leave.spread[end, :, 0])),
              why="the farthest any body ends from C's settled pose, recorded for the gate")
    final = env.ref.final
    resting = reference.rest_roots(model, final, REST_SPEED)
    if resting:
        route_load = np.array([reference.root_load(model, run.qfrc_constraint[0], r) for r in resting])
        c_load = np.array([reference.root_load(model, final.qfrc_constraint, r) for r in resting])
        law.check("load_minus_c", route_load - c_load, near=0.0, abs=LOAD,
                  why=f"constraint force carrying each resting floating base, over its weight: route "
                      f"{', '.join(f'{v:.4f}' for v in route_load)}, C {', '.join(f'{v:.4f}' for v in c_load)}")
    errors = reference.servo_errors(model, run.actuator_force[0])
    if errors.size:
        c_errors = reference.servo_errors(model, final.actuator_force)
        spread = np.max([np.abs(reference.servo_errors(model, m.final.actuator_force) - c_errors)
                         for m in env.members], axis=0)
        allowed = ENVELOPE * np.maximum(spread, env.eps * np.maximum(np.abs(c_errors), 1.0))
        diff = np.abs(errors - c_errors)
        worst = int(np.argmax(diff / allowed))
        name = model.actuator(int(np.flatnonzero(model.actuator_biasprm[:, 1] < 0)[worst])).name or str(worst)
        law.check("servo_error_over_c_spread", diff / allowed * ENVELOPE, le=ENVELOPE, drift=RATIO_DRIFT, drift_abs=1.0,
                  why=f"servo standing error (force / kp) against C's, over C's spread; worst {name!r}: route "
                      f"{errors[worst]:.4g}, C {c_errors[worst]:.4g}")


@route_law("model-route-cap")
def test_route_iteration_cap(law, pack_model, route_case, route_run, route_converged, route_reference) -> None:
    """The share of the route's steps whose solve stopped at the iteration cap you train with is recorded, and
    the cap may not move where the robot settles: the settled run with the cap ends within 10 times C's own
    spread at the route's precision of the same route run with the cap raised to 100 (Lesson 20.2: a capped
    solve leaves part of the constraint correction out)."""
    run, conv, model, ref = ran(route_run, route_case), route_converged.run, pack_model.model, route_reference
    share = float(np.mean(run.capped))
    if np.all(run.niter < 0):
        run.notes.append("MJX's RK4 solves inside a scan of its stages: its iteration counts cannot be read, the "
                         "share is of steps known to be capped (none)")
    law.check("capped_share", share, ge=0, le=1, drift_abs=1.0 / run.capped.size,
              why=f"world-steps that stopped at the cap ({run.cap} iterations, mean {float(np.mean(run.niter)):.2f} "
                  f"a step; with 100: {float(np.mean(conv.capped)):.3f} capped, mean {float(np.mean(conv.niter)):.2f})"
                  + ("; " + "; ".join(run.notes) if run.notes else ""))
    env = ref.envelopes[0]
    end = min(run.steps, conv.steps)
    gap = np.linalg.norm(run.xipos[0, end, 1:] - conv.xipos[0, end, 1:], axis=-1)
    times = np.array([end * run.timestep])
    floor = env.eps * np.maximum(np.abs(conv.xipos[0, end, 1:]).max(axis=-1), 1.0)
    spread = np.maximum(reference.at_times(env.spread_pos, ref.c_timestep, times)[0, 1:], floor)
    body = int(np.argmax(gap / spread))
    law.check("settled_gap_over_c_spread", gap / spread, le=ENVELOPE, drift=RATIO_DRIFT, drift_abs=1.0,
              why=(f"cap {run.cap} against 100: body {model.body(body + 1).name or body + 1!r} settles "
                   f"{1000 * gap[body]:.3g} mm apart, C's spread {1000 * spread[body]:.3g} mm"
                   if conv is not run else f"the cap ({run.cap}) is already the converged reference's"))


@route_law("model-route-cost")
def test_route_cost(law, pack_model, route_case, route_run, route_reference) -> None:
    """What the route costs beside C on this machine: putting the model and compiling (or loading) its step, and
    one step of the batch, per world and against C's step; recorded, not gated (timings vary run to run)."""
    run, ref = ran(route_run, route_case), route_reference
    per_world = run.step_seconds / run.nworld
    law.check("compile_s", run.compile_seconds, ge=0, unit="s", drift=None,
              why="model put on the route and its step compiled or loaded from the cache")
    law.check("step_ms", 1000 * run.step_seconds, ge=0, unit="ms", drift=None,
              why=f"one step of all {run.nworld} worlds on {run.device}")
    law.check("world_step_over_c", per_world / max(ref.c_step_seconds, 1e-12), ge=0, drift=None,
              why=f"one world's share of a route step against one C step ({1000 * ref.c_step_seconds:.3g} ms)")
    law.check("route_run_s", route_run.seconds, ge=0, unit="s", drift=None,
              why=f"the whole batch on the route: put, compile or load, {run.steps} steps of {run.nworld} worlds, read back")
    law.check("c_reference_s", ref.build_seconds, ge=0, unit="s", drift=None,
              why=f"MuJoCo C's runs these laws compare with ({len(ref.envelopes)} worlds, each with "
                  f"{reference.MEMBERS} perturbed runs), shared by routes of one precision")
