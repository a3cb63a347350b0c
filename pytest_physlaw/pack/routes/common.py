"""What the route laws share, without importing any route: the settings a policy is trained with on a route
(ini `physlaw_route_*`), the worlds a route run steps, what a run gives back, and whether a route can run here.

A route is MuJoCo Warp (`warp`: mujoco-warp on warp-lang), MJX (`mjx`: mujoco-mjx on jax) or Newton (`newton`:
Newton's SolverMuJoCo on MuJoCo's CPU backend). Whether it runs
is decided from the installed versions before anything is imported (`unavailable`), as the suite's own route
laws decide (`fixtures/warp/support.py`, `fixtures/mjx/versions.py`); without the packages, or with a
mismatch, every route law skips naming the versions found, and the pack still imports.

The route's model is the user's model with the settings the user trains with (`route_model`): solver,
iterations, line-search iterations and timestep, each the model's own unless the ini says otherwise. MuJoCo C
runs the model as the file says: it is what the policy meets when it is validated or deployed on C.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import mujoco
import numpy as np
import pytest

from pytest_physlaw import kit, options

# The relative size of what a route's arithmetic rounds off, by precision. float32: MuJoCo Warp solves to a
# tolerance of 1e-6 (put_model raises any below to 1e-6) and float32's epsilon is 1.2e-7; 1e-6 covers both.
# float64: what another CPU or build of MuJoCo C itself moves (pytest_physlaw.pack.roundoff.NUDGE).
PRECISION_EPS = {"float32": 1e-6, "float64": 1e-12}
PRECISIONS = tuple(PRECISION_EPS)
SOLVERS = {"CG": int(mujoco.mjtSolver.mjSOL_CG), "Newton": int(mujoco.mjtSolver.mjSOL_NEWTON),
           "PGS": int(mujoco.mjtSolver.mjSOL_PGS)}
# The constraint Jacobian's and the mass matrix's layout: a route computes each in its own kernels (MuJoCo Warp's
# sparse implicit matrix dropped actuator damping where its dense one did not: MJWarp #1333), so each is a path of its own.
JACOBIANS = {"dense": int(mujoco.mjtJacobian.mjJAC_DENSE), "sparse": int(mujoco.mjtJacobian.mjJAC_SPARSE),
             "auto": int(mujoco.mjtJacobian.mjJAC_AUTO)}
MIN_WORLDS = 3  # the laws' batch: the settled start, a moving state, a seeded-control run
DEFAULT_WORLDS = 4  # one more seeded-control run
CHECKED_SEEDED = 4  # seeded worlds checked against C's envelope (more worlds run, for capacity, unchecked)
CONVERGED_ITERATIONS = 100  # MuJoCo's default opt.iterations: law 5's converged reference where the cap is below


class RouteUnsupported(NotImplementedError):
    """The route refuses the model or the settings: the message names the feature and the route's version."""


class RouteRefused(ValueError):
    """The route refuses the settings for this model (a capacity below what its start already needs): a
    finding of law 1, not a feature the route lacks."""


@dataclass(frozen=True)
class RouteSetup:
    """The settings one route runs with: None is the route's own (the model's solver options, the route's
    default capacities)."""

    route: str
    solver: str | None = None
    iterations: int | None = None
    ls_iterations: int | None = None
    precision: str = "float32"
    nconmax: int | None = None
    njmax: int | None = None
    nworld: int = DEFAULT_WORLDS
    timestep: float | None = None
    jacobian: str | None = None

    @property
    def eps(self) -> float:
        return PRECISION_EPS[self.precision]

    def describe(self) -> str:
        """The settings that differ from the route's own, for messages: 'iterations=1, float32'."""
        parts = [f"{k}={getattr(self, k)}" for k in ("solver", "iterations", "ls_iterations", "nconmax", "njmax",
                                                       "timestep", "jacobian") if getattr(self, k) is not None]
        return ", ".join([*parts, f"{self.nworld} worlds", self.precision])


def _int(key: str, text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low:
        raise pytest.UsageError(f"ini physlaw_route_{key}: {text!r} must be a whole number >= {low}")
    return value


def _per_route(config: pytest.Config, key: str, route: str) -> str | None:
    """ini physlaw_route_<key> for `route`: a plain value for every route, or ROUTE=VALUE items."""
    text = str(config.getini(f"physlaw_route_{key}")).strip()
    if not text:
        return None
    items = text.split()
    if not any("=" in item for item in items):
        if len(items) != 1:
            raise pytest.UsageError(f"ini physlaw_route_{key} = {text!r}: one value, or ROUTE=VALUE items")
        return items[0]
    found = None
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or name not in options.ROUTES or not value:
            raise pytest.UsageError(f"ini physlaw_route_{key} = {text!r}: {item!r} is not ROUTE=VALUE "
                                    f"(routes: {', '.join(options.ROUTES)})")
        if name == route:
            found = value
    return found


def read_setup(config: pytest.Config, route: str) -> RouteSetup:
    """The settings of `route` from the ini; a bad value is a UsageError naming the key."""
    got = {key: _per_route(config, key, route) for key in options.ROUTE_KEYS}
    solver = got["solver"]
    if solver is not None and solver not in SOLVERS:
        raise pytest.UsageError(f"ini physlaw_route_solver: {solver!r} is not one of {', '.join(SOLVERS)}")
    jacobian = got["jacobian"]
    if jacobian is not None and jacobian not in JACOBIANS:
        raise pytest.UsageError(f"ini physlaw_route_jacobian: {jacobian!r} is not one of {', '.join(JACOBIANS)}")
    precision = got["precision"] or "float32"
    if precision not in PRECISIONS:
        raise pytest.UsageError(f"ini physlaw_route_precision: {precision!r} is not one of {', '.join(PRECISIONS)}")
    timestep = None
    if got["timestep"] is not None:
        try:
            timestep = float(got["timestep"])
        except ValueError:
            timestep = -1.0
        if not (math.isfinite(timestep) and timestep > 0):
            raise pytest.UsageError(f"ini physlaw_route_timestep: {got['timestep']!r} must be a number of seconds > 0")
    ints = {k: None if got[k] is None else _int(k, got[k], 1 if k in ("iterations", "ls_iterations", "nworld") else 0)
            for k in ("iterations", "ls_iterations", "nconmax", "njmax", "nworld")}
    return RouteSetup(route, solver, ints["iterations"], ints["ls_iterations"], precision, ints["nconmax"],
                      ints["njmax"], max(MIN_WORLDS, ints["nworld"] or DEFAULT_WORLDS), timestep, jacobian)


def unavailable(route: str) -> str | None:
    """Why `route` cannot run here (the versions found), or None; nothing of the route is imported."""
    if route == "warp":
        support = kit.scenes("warp.support")
        return support.why_unavailable(support.PACK_OLDEST)
    if route == "newton":  # the adapter decides from metadata at import; warp and newton are imported on a run
        from pytest_physlaw.pack.routes import newton_versions

        return newton_versions.unavailable()
    versions = kit.scenes("mjx.versions")
    return versions.unavailable_reason(oldest=versions.PACK_OLDEST, oldest_jax=versions.PACK_OLDEST_JAX)


def route_model(model: mujoco.MjModel, setup: RouteSetup, *, iterations: int | None = None) -> mujoco.MjModel:
    """A copy of `model` with the solver options the route is asked to run: solver, iterations (or
    `iterations`, for a converged reference), line-search iterations, timestep, Jacobian layout."""
    m = copy.copy(model)
    if setup.solver is not None:
        m.opt.solver = SOLVERS[setup.solver]
    if iterations is not None or setup.iterations is not None:
        m.opt.iterations = iterations if iterations is not None else setup.iterations
    if setup.ls_iterations is not None:
        m.opt.ls_iterations = setup.ls_iterations
    if setup.timestep is not None:
        m.opt.timestep = setup.timestep
    if setup.jacobian is not None:
        m.opt.jacobian = JACOBIANS[setup.jacobian]
    return m


@dataclass
class World:
    """One world of a route batch: its start state (from MuJoCo C) and its controls, one row a route step."""

    name: str
    qpos: np.ndarray
    qvel: np.ndarray
    act: np.ndarray
    qacc_warmstart: np.ndarray
    ctrl: np.ndarray  # (steps, nu)


@dataclass
class RouteRun:
    """What a route run gives back, arrays indexed by world first; step 0 is the start."""

    route: str
    device: str  # "cpu" or "cuda"
    versions: dict[str, str]
    precision: str
    timestep: float
    cap: int  # the solver's iteration cap the run had
    qpos: np.ndarray  # (nworld, steps + 1, nq)
    qvel: np.ndarray  # (nworld, steps + 1, nv)
    xipos: np.ndarray  # (nworld, steps + 1, nbody, 3): bodies' centres of mass
    xquat: np.ndarray  # (nworld, steps + 1, nbody, 4)
    qfrc_constraint: np.ndarray  # (nworld, nv) after the last step
    actuator_force: np.ndarray  # (nworld, nu) after the last step
    niter: np.ndarray  # (nworld, steps) solver iterations of each step
    capped: np.ndarray  # (nworld, steps) the step's solve stopped at the cap, unconverged
    overflow: dict[str, int]  # the route's own capacity counters: kind -> steps (or worlds) it fired
    contacts_max: int  # most contacts a world had in a step
    rows_max: int  # most constraint rows a world had in a step
    capacity: dict[str, int | None]  # "contacts", "rows": per world, None where the route has no such limit
    compile_seconds: float  # putting the model and the first step (kernels compiled or loaded)
    step_seconds: float  # wall time of one step of the whole batch
    notes: list[str] = field(default_factory=list)
    own_actuator_force: bool = True  # False where the route keeps none and actuator_force is MuJoCo C's (MJX 3.1)

    @property
    def steps(self) -> int:
        return self.niter.shape[1]

    @property
    def nworld(self) -> int:
        return self.niter.shape[0]
