"""MuJoCo C's side of the route laws: the runs a route is compared with, and how far C itself spreads at the
route's precision.

The yardstick is C's own spread, not a fixed tolerance (MuJoCo Warp issue #530's lesson: a trajectory
that leaves C after 200 steps may be round-off amplified by the robot's own dynamics, or a different
solve; only C's spread at the route's precision tells which). For each world the route runs, C runs the
same start under the same controls (`track`), then an ensemble of C runs perturbed at the route's
precision (`envelope`): the start, and the state after every step, moved by `eps` relative (of 1 where a
coordinate is smaller), the signs seeded. Perturbing every step, not only the start, is what a float32
route does to itself each step; measured on ANYmal C (MuJoCo Warp, converged), a start-only ensemble
left the route 3,600x outside it after 500 steps, the every-step one 2x.

Controls are a function of time (`controls_at`): drawn uniformly inside each ctrlrange every 50 ms,
seeded, as the pack's exercised run draws them, so a route stepping with another timestep meets the same
controls at the same times.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw.pack import runs
from pytest_physlaw.pack.routes.common import World

MEMBERS = 8  # C runs in an envelope
ENVELOPE = 10.0  # a route's body may stray this many times C's own spread at its precision


@dataclass
class Track:
    """One C run: bodies and state at the start and after each step; the end forwarded."""

    qpos: np.ndarray  # (steps + 1, nq)
    qvel: np.ndarray
    xipos: np.ndarray  # (steps + 1, nbody, 3)
    xquat: np.ndarray  # (steps + 1, nbody, 4)
    final: mujoco.MjData
    kept: mujoco.MjData | None  # the state after step `keep`, when asked for
    seconds: float  # wall time of the steps


def controls_at(model: mujoco.MjModel, times: np.ndarray, seed: int) -> np.ndarray:
    """(len(times), nu): the controls in force at each time, redrawn every `runs.CONTROL_PERIOD`, seeded."""
    rng = np.random.default_rng(seed)
    periods = np.floor(np.asarray(times) / runs.CONTROL_PERIOD + 1e-9).astype(int)
    draws = [runs.seeded_controls(model, rng) for _ in range(int(periods.max()) + 1 if periods.size else 0)]
    return np.array([draws[p] for p in periods]).reshape(len(times), model.nu)


def world_of(name: str, data: mujoco.MjData, ctrl: np.ndarray) -> World:
    return World(name, data.qpos.copy(), data.qvel.copy(), data.act.copy(), data.qacc_warmstart.copy(), ctrl)


def _nudge(model: mujoco.MjModel, data: mujoco.MjData, eps: float, rng: np.random.Generator) -> None:
    data.qpos[:] += eps * rng.choice((-1.0, 1.0), model.nq) * np.maximum(np.abs(data.qpos), 1.0)
    data.qvel[:] += eps * rng.choice((-1.0, 1.0), model.nv) * np.maximum(np.abs(data.qvel), 1.0)
    mujoco.mj_normalizeQuat(model, data.qpos)


def start_data(model: mujoco.MjModel, world: World) -> mujoco.MjData:
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:], data.act[:] = world.qpos, world.qvel, world.act
    data.qacc_warmstart[:] = world.qacc_warmstart
    mujoco.mj_forward(model, data)
    return data


def track(model: mujoco.MjModel, world: World, *, eps: float = 0.0, seed: int = 0, keep: int | None = None) -> Track:
    """C from the world's start under its controls; `eps` > 0: the start and every step's state nudged."""
    data = start_data(model, world)
    rng = np.random.default_rng(seed)
    if eps:
        _nudge(model, data, eps, rng)
        mujoco.mj_forward(model, data)
    steps = world.ctrl.shape[0]
    qpos, qvel = np.empty((steps + 1, model.nq)), np.empty((steps + 1, model.nv))
    xipos, xquat = np.empty((steps + 1, model.nbody, 3)), np.empty((steps + 1, model.nbody, 4))
    qpos[0], qvel[0], xipos[0], xquat[0] = data.qpos, data.qvel, data.xipos, data.xquat
    kept, spent = None, 0.0
    for i in range(steps):
        if model.nu:
            data.ctrl[:] = world.ctrl[i]
        tick = time.perf_counter()
        mujoco.mj_step(model, data)
        spent += time.perf_counter() - tick
        if eps:
            _nudge(model, data, eps, rng)
        if keep == i + 1:
            kept = copy.copy(data)
        qpos[i + 1], qvel[i + 1] = data.qpos, data.qvel
        xipos[i + 1], xquat[i + 1] = data.xipos, data.xquat  # as the step saw them (before it integrated), as a route reads them
    final = copy.copy(data)
    mujoco.mj_forward(model, final)
    return Track(qpos, qvel, xipos, xquat, final, kept, spent)


@dataclass
class Envelope:
    """C's run of a world and how far C runs perturbed at the route's precision spread from it."""

    ref: Track
    members: list[Track]
    eps: float

    @property
    def spread_pos(self) -> np.ndarray:
        """(steps + 1, nbody) m: the farthest any member's body centre strays from the reference."""
        return np.max([np.linalg.norm(m.xipos - self.ref.xipos, axis=-1) for m in self.members], axis=0)

    @property
    def spread_rot(self) -> np.ndarray:
        """(steps + 1, nbody) rad: the largest rotation between a member's body and the reference's."""
        return np.max([rotation(m.xquat, self.ref.xquat) for m in self.members], axis=0)


def envelope(model: mujoco.MjModel, world: World, eps: float, seed: int, *, keep: int | None = None) -> Envelope:
    ref = track(model, world, keep=keep)
    return Envelope(ref, [track(model, world, eps=eps, seed=seed * 1000 + k) for k in range(MEMBERS)], eps)


def rotation(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """The angle (rad) of the rotation between unit quaternions (w, x, y, z), element-wise on the last axis."""
    w1, v1 = q1[..., :1], q1[..., 1:]
    w2, v2 = q2[..., :1], q2[..., 1:]
    w = w1 * w2 + np.sum(v1 * v2, axis=-1, keepdims=True)  # conj(q1) q2
    v = w1 * v2 - w2 * v1 - np.cross(v1, v2)
    return 2 * np.arctan2(np.linalg.norm(v, axis=-1), np.abs(w[..., 0]))


def at_times(values: np.ndarray, c_timestep: float, times: np.ndarray) -> np.ndarray:
    """`values` (one row per C step, from time 0) at `times`, linearly between C's steps (a quaternion row is
    renormalised by the caller's use: `rotation` takes the angle of nearly unit quaternions)."""
    s = np.clip(np.asarray(times) / c_timestep, 0, len(values) - 1)
    lo = np.floor(s + 1e-9).astype(int)
    hi = np.minimum(lo + 1, len(values) - 1)
    w = (s - lo).reshape(-1, *([1] * (values.ndim - 1)))
    return (1 - w) * values[lo] + w * values[hi]


@dataclass
class Leave:
    """A route trajectory against C's envelope: per route step and body, deviation over allowed spread."""

    ratio: np.ndarray  # (steps + 1, nbody - 1, 2): position, rotation
    deviation: np.ndarray  # same shape: m, rad
    spread: np.ndarray  # C's spread (its floor included), same shape

    def first(self, limit: float) -> tuple[int, int, int] | None:
        """(step, body index among the moving ones, field) where the ratio first exceeds `limit`."""
        over = np.argwhere(self.ratio > limit)
        return None if not over.size else tuple(int(i) for i in over[0])

    def worst(self) -> tuple[int, int, int]:
        return tuple(int(i) for i in np.unravel_index(int(np.argmax(self.ratio)), self.ratio.shape))


FIELDS = ("position", "rotation")


def compare(env: Envelope, c_timestep: float, xipos: np.ndarray, xquat: np.ndarray, route_timestep: float) -> Leave:
    """The route's bodies (one row per route step) against `env`, at the route's times; world body left out."""
    times = np.arange(len(xipos)) * route_timestep
    times = times[times <= (len(env.ref.xipos) - 1) * c_timestep + 1e-12]
    n = len(times)
    ref_pos = at_times(env.ref.xipos, c_timestep, times)[:, 1:]
    ref_quat = at_times(env.ref.xquat, c_timestep, times)[:, 1:]
    ref_quat = ref_quat / np.linalg.norm(ref_quat, axis=-1, keepdims=True)
    dev_pos = np.linalg.norm(xipos[:n, 1:] - ref_pos, axis=-1)
    dev_rot = rotation(xquat[:n, 1:] / np.linalg.norm(xquat[:n, 1:], axis=-1, keepdims=True), ref_quat)
    floor_pos = env.eps * np.maximum(np.abs(ref_pos).max(axis=-1), 1.0)
    spread_pos = np.maximum(at_times(env.spread_pos, c_timestep, times)[:, 1:], floor_pos)
    spread_rot = np.maximum(at_times(env.spread_rot, c_timestep, times)[:, 1:], env.eps)
    deviation = np.stack([dev_pos, dev_rot], axis=-1)
    spread = np.stack([spread_pos, spread_rot], axis=-1)
    return Leave(deviation / spread, deviation, spread)


def qpos_error(model: mujoco.MjModel, q_from: np.ndarray, q_to: np.ndarray) -> np.ndarray:
    """(nv,) the joint-space difference q_to - q_from (quaternions as rotation vectors)."""
    out = np.zeros(model.nv)
    mujoco.mj_differentiatePos(model, out, 1.0, q_from, q_to)
    return out


@dataclass
class OneStep:
    """C's step from a world's start, and how far the same step moves when the start moves at the route's
    precision: the largest change of any coordinate over `MEMBERS` nudged starts."""

    qpos: np.ndarray
    qvel: np.ndarray
    spread_qpos: float
    spread_qvel: float
    floor_qpos: float
    floor_qvel: float


def one_step(model: mujoco.MjModel, world: World, eps: float, seed: int) -> OneStep:
    one = World(world.name, world.qpos, world.qvel, world.act, world.qacc_warmstart, world.ctrl[:1])
    ref = track(model, one)
    moved = []
    for k in range(MEMBERS):
        data = start_data(model, one)
        _nudge(model, data, eps, np.random.default_rng(seed * 1000 + k))
        if model.nu:
            data.ctrl[:] = one.ctrl[0]
        mujoco.mj_step(model, data)
        moved.append((np.max(np.abs(qpos_error(model, ref.qpos[1], data.qpos))),
                      np.max(np.abs(data.qvel - ref.qvel[1])) if model.nv else 0.0))
    spread = np.max(moved, axis=0)
    scale = lambda x: eps * max(1.0, float(np.max(np.abs(x))) if np.size(x) else 1.0)  # noqa: E731
    return OneStep(ref.qpos[1], ref.qvel[1], float(spread[0]), float(spread[1]), scale(ref.qpos[1]), scale(ref.qvel[1]))


def servo_errors(model: mujoco.MjModel, actuator_force: np.ndarray) -> np.ndarray:
    """How far each position servo stands off its target (force / kp: load over gain), as the pack's
    settled-pose law reads it."""
    servo = np.flatnonzero(model.actuator_biasprm[:, 1] < 0)
    return np.asarray(actuator_force)[..., servo] / -model.actuator_biasprm[servo, 1]


def root_load(model: mujoco.MjModel, qfrc_constraint: np.ndarray, root: int) -> float:
    """The constraint force on a floating tree along gravity's opposite, over its weight: the translational
    dofs of its free joint carry the sum of the external constraint forces on the tree (internal ones cancel)."""
    gravity = float(np.linalg.norm(model.opt.gravity))
    up = -model.opt.gravity / gravity
    adr = model.jnt_dofadr[model.body_jntadr[root]]
    return float(np.asarray(qfrc_constraint)[adr:adr + 3] @ up) / (model.body_subtreemass[root] * gravity)


def rest_roots(model: mujoco.MjModel, data: mujoco.MjData, speed: float) -> list[int]:
    """Floating roots whose tree is slower than `speed` (m/s) everywhere in `data`, where gravity acts."""
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY or not np.linalg.norm(model.opt.gravity):
        return []
    vel = np.zeros((model.nbody, 6))
    for b in range(model.nbody):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_XBODY, b, vel[b], 0)
    body_speed = np.linalg.norm(vel[:, 3:], axis=1)
    return [r for r in runs.floating_roots(model) if float(np.max(body_speed[model.body_rootid == r])) < speed]


def finite(*arrays: np.ndarray) -> bool:
    return all(np.all(np.isfinite(a)) for a in arrays)


def fmt_time(steps: int, timestep: float) -> str:
    return f"step {steps} ({steps * timestep:.4g} s)" if math.isfinite(timestep) else f"step {steps}"
