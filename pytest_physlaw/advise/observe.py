"""What a policy feels of one setting, measured: two runs of the model with the setting applied.

- the driven run's transitions (the pack's exercised run, `pack.runs`: the same start and seeded controls, redrawn
  every `runs.CONTROL_PERIOD`): from each of the *reference's* states at a draw, one control period under the
  setting, and every movable body's centre of mass (`xipos`) at its end, interpolated between the two steps around
  that instant. What a policy learns from is this transition; a long run's trajectories part by the accumulated
  shift of contact events (measured: the gymnasium ant at 10 ms RK4 sits 440 mm from its converged reference
  after 1 s, and halving a 0.6 ms step still moves it 70 mm), which no practical step resolves;
- the settled run (the start's controls held): the settled pose (bodies' centres of mass at the end), each body's
  creep over the run's second half, and the normal contact force each body bears, averaged over the last
  `FORCE_WINDOW` s (MuJoCo's `mj_contactForce`);
- over both, the share of steps whose solve the iteration cap stopped before MuJoCo's own stopping test was met
  (`step_capped`), the mean iterations a step, and the wall time a simulated second took.

A run that goes non-finite or raises MuJoCo's bad-acceleration warning is `diverged`: no distance is finite.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw import kit
from pytest_physlaw.advise.setting import Setting
from pytest_physlaw.pack import runs

STEP_CLOCK = [0.0]  # wall s spent in mj_step by the current observation (the rough cost: the engine's time only)
FORCE_WINDOW = 0.1  # s of the settled run's end over which contact forces are averaged (soft contacts ring)


@dataclass(frozen=True)
class Horizon:
    """Simulated seconds of each run, and the starting keyframe (the pack's ini `physlaw_model_keyframe` values)."""

    driven: float = 1.0  # 20 transitions of one control period each
    settled: float = 1.0
    keyframe: str = ""
    seed: int = 0


@dataclass(frozen=True)
class Observation:
    setting: Setting
    samples: np.ndarray  # driven run: (transitions, bodies, 3) centres of mass at each transition's end, m
    pose: np.ndarray  # settled run: (bodies, 3) at the end, m
    creep: np.ndarray  # settled run: (bodies,) displacement over the second half, m
    force: np.ndarray  # settled run: (bodies,) normal contact force borne, N, averaged over the end
    capped_share: float
    iterations: float  # mean solver iterations a step
    wall_per_second: float  # wall s in mj_step per simulated s (this process, these runs: a rough cost)
    diverged: str  # "" or why


def step_capped(model: mujoco.MjModel, data: mujoco.MjData) -> bool:
    """Whether the cap stopped an island's solve of the last step before MuJoCo's stopping test was met: the scene
    kit's own test (`fixtures.settled.step_capped`), which the lesson's laws count capped steps with."""
    return bool(kit.scenes("settled").step_capped(model, data))


def _step(m: mujoco.MjModel, data: mujoco.MjData) -> None:
    t0 = time.perf_counter()
    mujoco.mj_step(m, data)
    STEP_CLOCK[0] += time.perf_counter() - t0


def _iterations(data: mujoco.MjData) -> int:
    return int(np.sum(data.solver_niter[:max(int(data.nisland), 1)]))


UNSTABLE = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")  # MuJoCo resets the state after each of these


def _bad(data: mujoco.MjData, before: float | None = None) -> str:
    """Why the run is no longer the setting's physics: a non-finite state, MuJoCo's instability warnings (after
    which it resets the state to the model's qpos0 and time 0, and steps on), or time gone back."""
    if not (np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel))):
        return f"non-finite state at t = {data.time:.4g} s"
    for name in UNSTABLE:
        if data.warning[int(getattr(mujoco.mjtWarning, name))].number:
            return f"MuJoCo's {name} warning (unstable: the state was reset)"
    if before is not None and data.time <= before:
        return "time went back: MuJoCo reset the state"
    return ""


def contact_forces(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(nbody,) the normal force of every contact a body takes part in, summed (`mj_contactForce`)."""
    out = np.zeros(model.nbody)
    wrench = np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, wrench)
        c = data.contact[i]
        for geom in (c.geom1, c.geom2):
            if geom >= 0:
                out[model.geom_bodyid[geom]] += abs(wrench[0])
    return out


FIELDS = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "mocap_pos", "mocap_quat", "qfrc_applied", "xfrc_applied")


@dataclass(frozen=True)
class Driven:
    """The reference's driven run: its state at each control draw (the start of each transition) and every movable
    body's centre of mass one control period later (the end of each transition)."""

    states: list[dict[str, np.ndarray]]
    ends: np.ndarray  # (transitions, bodies, 3)
    diverged: str


def observe(model: mujoco.MjModel, setting: Setting, horizon: Horizon, bodies: np.ndarray,
            reference: Driven | None = None) -> tuple[Observation, Driven | None]:
    """Both runs of `model` with `setting` applied; the driven run's transitions start from `reference`'s states
    (None: this setting's own driven run is the reference, returned too). `bodies`: the ids compared."""
    m = setting.applied(model)
    STEP_CLOCK[0] = 0.0
    own = None
    if reference is None:
        own = _driven(m, horizon, bodies)
        ends, d_capped, d_iters, why = own.ends, [], [], own.diverged
    else:
        ends, d_capped, d_iters, why = _transitions(m, reference, bodies)
    pose, creep, force, s_capped, s_iters, why2 = (None, None, None, [], [], why) if why \
        else _settled(m, horizon, bodies)
    wall = STEP_CLOCK[0]
    capped, iters = d_capped + s_capped, d_iters + s_iters
    n = len(bodies)
    return Observation(setting, ends, np.full((n, 3), np.nan) if pose is None else pose,
                       np.full(n, np.nan) if creep is None else creep, np.full(n, np.nan) if force is None else force,
                       float(np.mean(capped)) if capped else 0.0, float(np.mean(iters)) if iters else 0.0,
                       wall / (horizon.driven + horizon.settled), why2), own


def _driven(m: mujoco.MjModel, horizon: Horizon, bodies: np.ndarray) -> Driven:
    """The driven run under seeded controls redrawn every control period; the state kept at each draw."""
    rng = np.random.default_rng(horizon.seed)
    data = runs.start(m, horizon.keyframe)
    count = max(1, int(round(horizon.driven / runs.CONTROL_PERIOD)))
    states, ends = [], np.full((count, len(bodies), 3), np.nan)
    for k in range(count):
        if m.nu:
            data.ctrl[:] = runs.seeded_controls(m, rng)
        states.append({f: getattr(data, f).copy() for f in FIELDS} | {"time": float(data.time)})
        end, why = _period(m, data, bodies)
        if why:
            return Driven(states, ends, why)
        ends[k] = end
    return Driven(states, ends, "")


def _period(m: mujoco.MjModel, data: mujoco.MjData, bodies: np.ndarray, capped: list | None = None,
            iters: list | None = None) -> tuple[np.ndarray, str]:
    """Step `data` one control period; the bodies' centres of mass at its end, interpolated between the two steps
    around that instant (so two timesteps are compared at the same time)."""
    target = data.time + runs.CONTROL_PERIOD
    previous = data.xipos[bodies].copy()
    while True:
        before = data.time
        _step(m, data)
        bad = _bad(data, before)
        if bad:
            return previous, bad
        if capped is not None:
            capped.append(step_capped(m, data))
            iters.append(_iterations(data))
        now = data.xipos[bodies]
        if data.time >= target - 1e-12:
            w = (target - before) / (data.time - before)
            return previous + w * (now - previous), ""
        previous = now.copy()


def _transitions(m: mujoco.MjModel, reference: Driven, bodies: np.ndarray) -> tuple[np.ndarray, list, list, str]:
    """From each of the reference's states, one control period under this setting."""
    data = mujoco.MjData(m)
    ends = np.full((len(reference.states), len(bodies), 3), np.nan)
    capped: list[bool] = []
    iters: list[int] = []
    for k, state in enumerate(reference.states):
        for f in FIELDS:
            getattr(data, f)[:] = state[f]
        data.time = state["time"]
        mujoco.mj_forward(m, data)
        end, why = _period(m, data, bodies, capped, iters)
        if why:
            return ends, capped, iters, why
        ends[k] = end
    return ends, capped, iters, ""


def _settled(m: mujoco.MjModel, horizon: Horizon, bodies: np.ndarray):
    data = runs.start(m, horizon.keyframe)
    steps = max(2, math.ceil(horizon.settled / m.opt.timestep - 1e-9))
    half = steps // 2
    window = max(1, min(steps - half, math.ceil(FORCE_WINDOW / m.opt.timestep)))
    capped, iters, forces = [], [], []
    middle = data.xipos[bodies].copy()
    for i in range(steps):
        _step(m, data)
        bad = _bad(data)
        if bad:
            return None, None, None, capped, iters, bad
        capped.append(step_capped(m, data))
        iters.append(_iterations(data))
        if i + 1 == half:
            middle = data.xipos[bodies].copy()
        if i >= steps - window:
            forces.append(contact_forces(m, data)[bodies])
    pose = data.xipos[bodies].copy()
    return pose, np.linalg.norm(pose - middle, axis=1), np.mean(forces, axis=0), capped, iters, ""


def movable_bodies(model: mujoco.MjModel) -> np.ndarray:
    """Bodies some degree of freedom moves (their tree has a dof): the ones whose motion is compared."""
    return np.array([b for b in range(1, model.nbody) if model.body_dofnum[b] > 0
                     or (model.body_parentid[b] > 0 and model.body_rootid[b] != b
                         and any(model.body_dofnum[a] > 0 for a in _ancestors(model, b)))], dtype=int)


def _ancestors(model: mujoco.MjModel, body: int) -> list[int]:
    out = []
    while body > 0:
        body = int(model.body_parentid[body])
        out.append(body)
    return out
