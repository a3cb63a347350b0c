"""The reaching run: a driven run that takes the model where engine bugs live, to its limits and saturations.

Seeded controls drawn inside their ranges (`runs.driven`) rarely reach an end: a joint's limit, an actuator's force
clamp, a muscle's length extreme, a tendon's range, two links of one robot touching. The reaching run drives the
model there with MuJoCo's own stepping, from the same start, in `PHASES` phases of equal length that each hold:

- every actuator's control at an end of its ctrlrange (of [-1, 1] where the range is not limited): all high, all
  low, then alternating high and low by actuator index, and the other way round; held, so that position servos
  drive their joints into the limits, force clamps (`forcerange`) and activation limits (`actrange`) bind and
  muscles reach their length extremes;
- every limited hinge or slide joint and limited tendon that no actuator moves pushed toward one limit by a
  generalised force (`qfrc_applied`, along the tendon's Jacobian for a tendon), with the same pattern of signs,
  sized to cross the range within a quarter of the phase against the start's bias force (gravity) and the
  coordinate's stiffness, through MuJoCo's own mass matrix (`mj_solveM`). A flex's nodes are left alone;
- every mocap body that carries a colliding geom swept (`sweeps`) through the nearest colliding geom of a tree it
  does not hold (not its own children's, not one an equality ties to it): out through that geom's centre to as far
  again in the first phase, back in the second, and so on, as a user drags a mocap gripper or paddle into a part;
  no faster than a quarter of the smaller geom's size a step, so that it cannot step over it.

Nothing else is moved by hand: bodies reach each other and their limits by the forces alone (no teleport into
penetration). MuJoCo's warnings end the run where they first occur, and so does a dof's speed over `RUNAWAY` (1000 rad/s or m/s:
a model blowing up before MuJoCo says so): a model pushed where it cannot go stops there;
the states kept before stay, less those of the last quarter phase before it (the run-up to the warning). (MuJoCo's
Newton's cradle, `model/replicate/newton_cradle.xml`, ran away in the third phase: 2e4 rad/s at its end, a bad qacc
warned in the fourth.)

Kept (forwarded copies, `qfrc_applied` included): the state at each phase's end (held at the ends) and, up to
`MAX_EVENT_STATES`, the states at which the run first reached something (a limit, a clamp, a geom pair: `coverage`),
at least a quarter of a phase apart: a bounded number, for the laws that judge the engine there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import runs
from pytest_physlaw.pack.coverage import Coverage, limited_joints, limited_tendons

PHASES = 4
MAX_EVENT_STATES = 8  # states kept where something was first reached, besides the PHASES phase ends
CROSSING = 0.25  # share of a phase in which a pushed coordinate would cross its range, unresisted
MARGIN = 2.0  # the push's bias, stiffness and inertia terms each taken this many times over
RUNAWAY = 1e3  # rad/s or m/s on a dof: no robot's motion, a model blowing up (MuJoCo warns only once it has)


@dataclass(frozen=True)
class Reached:
    """The reaching run's kept states (the phase ends and where something was first reached), what it covered,
    MuJoCo's warnings, and why it stopped early (None: it ran its length)."""

    states: list[mujoco.MjData]
    coverage: Coverage
    warnings: dict[str, int]
    stopped: str | None
    swept: dict[str, str] = field(default_factory=dict)  # mocap body: the body it was swept through


def signs(count: int, phase: int) -> np.ndarray:
    """+1 (high) or -1 (low) per actuator or pushed coordinate in `phase`: all high, all low, alternating, reversed."""
    if phase % PHASES == 0:
        return np.ones(count)
    if phase % PHASES == 1:
        return -np.ones(count)
    alternate = np.where(np.arange(count) % 2, -1.0, 1.0)
    return alternate if phase % PHASES == 2 else -alternate


def control_ends(model: mujoco.MjModel, sign: np.ndarray) -> np.ndarray:
    """Each actuator's control at the high (+1) or low (-1) end of its ctrlrange ([-1, 1] where not limited)."""
    low, high = np.asarray(model.actuator_ctrlrange, dtype=float).T
    limited = np.asarray(model.actuator_ctrllimited, dtype=bool)
    return np.where(sign > 0, np.where(limited, high, 1.0), np.where(limited, low, -1.0))


@dataclass(frozen=True)
class Pushes:
    """The unactuated coordinates pushed: joints' dofs and tendons, each with its force's size."""

    dofs: np.ndarray
    dof_force: np.ndarray
    tendons: np.ndarray
    tendon_force: np.ndarray


def pushes(model: mujoco.MjModel, data: mujoco.MjData, phase_seconds: float) -> Pushes:
    """The limited hinge and slide joints and limited tendons that no actuator moves at `data` (forwarded), and the
    force that would take each across its range in `CROSSING` of a phase: (inertia r / t^2 + |bias| + stiffness r),
    each term `MARGIN` times over; inertia is MuJoCo's (1 / J M^-1 J^T, `mj_solveM`)."""
    moments = runs.moments(model, data) if model.nu else np.zeros((0, model.nv))
    actuated = np.any(moments != 0, axis=0) if model.nu else np.zeros(model.nv, dtype=bool)
    nodes = runs.flex_nodes(model)
    joints = [j for j in limited_joints(model).tolist() if int(model.jnt_bodyid[j]) not in nodes]
    dofs = np.array([int(model.jnt_dofadr[j]) for j in joints if not actuated[model.jnt_dofadr[j]]], dtype=int)
    by_tendon = {int(model.actuator_trnid[a, 0]) for a in range(mujoco_versions.actuator_count(model))
                 if int(model.actuator_trntype[a]) == int(mujoco.mjtTrn.mjTRN_TENDON)}
    tendons = np.array([k for k in limited_tendons(model).tolist() if k not in by_tendon], dtype=int)
    t = CROSSING * phase_seconds
    rows = np.zeros((dofs.size + tendons.size, model.nv))
    rows[np.arange(dofs.size), dofs] = 1.0
    if tendons.size:
        rows[dofs.size:] = mujoco_versions.tendon_jacobian(model, data)[tendons]
    spans = np.concatenate([np.diff(model.jnt_range[model.dof_jntid[dofs]], axis=1).ravel(),
                            np.diff(model.tendon_range[tendons], axis=1).ravel()]) if rows.size else np.zeros(0)
    stiffness = np.concatenate([np.ravel(model.jnt_stiffness)[model.dof_jntid[dofs]],
                                np.ravel(model.tendon_stiffness)[tendons]]) if rows.size else np.zeros(0)
    force = np.zeros(rows.shape[0])
    if rows.size:
        solved = np.zeros_like(rows)
        mujoco.mj_solveM(model, data, solved, rows)
        mobility = np.maximum(np.einsum("ij,ij->i", rows, solved), 1e-300)
        norm2 = np.maximum(np.einsum("ij,ij->i", rows, rows), 1e-300)
        bias = np.abs(rows @ data.qfrc_bias) / norm2
        force = MARGIN * (spans / (t * t * mobility) + bias + stiffness * spans)
    return Pushes(dofs, force[: dofs.size], tendons, force[dofs.size:])


@dataclass(frozen=True)
class Sweeps:
    """Mocap bodies swept: their mocap ids, start positions and the far point's offset from the start (n x 3); the
    bodies swept through, by name."""

    mocap: np.ndarray
    start: np.ndarray
    reach: np.ndarray
    through: dict[str, str]

    def at(self, data: mujoco.MjData, phase: int, share: float) -> None:
        """Set the swept mocap bodies' positions `share` (0 to 1) of the way through `phase`: out, back, out, back."""
        if self.mocap.size:
            out = share if phase % 2 == 0 else 1.0 - share
            data.mocap_pos[self.mocap] = self.start + out * self.reach


def under(model: mujoco.MjModel, body: int, root: int) -> bool:
    """Whether `body` is `root` or one of its descendants."""
    while body > 0:
        if body == root:
            return True
        body = int(model.body_parentid[body])
    return False


def _held_trees(model: mujoco.MjModel, mocap_body: int) -> set[int]:
    """The trees a mocap body moves: its own children's, and those a connect or weld ties to it or its children."""
    held = {int(model.body_treeid[b]) for b in range(model.nbody) if under(model, b, mocap_body)}
    kinds = (int(mujoco.mjtEq.mjEQ_CONNECT), int(mujoco.mjtEq.mjEQ_WELD))
    for eq in range(model.neq):
        if int(model.eq_type[eq]) not in kinds:
            continue
        site = mujoco_versions.equality_objtype(model, eq) == int(mujoco.mjtObj.mjOBJ_SITE)
        ends = [int(model.site_bodyid[o]) if site else int(o) for o in (model.eq_obj1id[eq], model.eq_obj2id[eq])]
        if any(under(model, b, mocap_body) for b in ends):
            held |= {int(model.body_treeid[b]) for b in ends}
    return held - {-1}


def sweeps(model: mujoco.MjModel, data: mujoco.MjData, phase_steps: int) -> Sweeps:
    """Each mocap body with a colliding geom (its own or a jointless child's), swept at `data` (forwarded) through the
    nearest colliding geom of a moving tree it does not hold: to twice that geom's offset from the start, or as far
    as a quarter of the smaller geom's bounding radius (`geom_rbound`) a step allows over `phase_steps`."""
    colliding = (np.asarray(model.geom_contype) | np.asarray(model.geom_conaffinity)) != 0
    geom_body, tree = np.asarray(model.geom_bodyid), np.asarray(model.body_treeid)
    nodes = runs.flex_nodes(model)
    ids, starts, reaches, through = [], [], [], {}
    for body in np.flatnonzero(np.asarray(model.body_mocapid) >= 0).tolist():
        own = [g for g in np.flatnonzero(colliding).tolist() if under(model, int(geom_body[g]), body)]
        held = _held_trees(model, body)
        targets = [g for g in np.flatnonzero(colliding).tolist() if tree[geom_body[g]] >= 0
                   and int(tree[geom_body[g]]) not in held and int(geom_body[g]) not in nodes]
        if not own or not targets:
            continue
        mocap = int(model.body_mocapid[body])
        start = np.array(data.mocap_pos[mocap], dtype=float)
        offsets = np.asarray(data.geom_xpos)[targets] - start
        nearest = int(np.argmin(np.einsum("ij,ij->i", offsets, offsets)))
        reach = 2.0 * offsets[nearest]
        size = min(float(np.min(model.geom_rbound[own])), float(model.geom_rbound[targets[nearest]]))
        longest = 0.25 * size * phase_steps
        length = float(np.linalg.norm(reach))
        if length > longest > 0:
            reach *= longest / length
        ids.append(mocap)
        starts.append(start)
        reaches.append(reach)
        name = lambda b: model.body(b).name or f"body{b}"  # noqa: E731
        through[name(body)] = name(int(geom_body[targets[nearest]]))
    if not ids:
        return Sweeps(np.zeros(0, dtype=int), np.zeros((0, 3)), np.zeros((0, 3)), {})
    return Sweeps(np.array(ids), np.array(starts), np.array(reaches), through)


def _warned(data: mujoco.MjData) -> int:
    return int(sum(data.warning[i].number for i in range(len(data.warning))))


def _kept(model: mujoco.MjModel, data: mujoco.MjData) -> mujoco.MjData:
    kept = copy.copy(data)
    mujoco.mj_forward(model, kept)
    return kept


def reaching(model: mujoco.MjModel, steps: int, keyframe: str = "",
             watch: Callable[[mujoco.MjData, Sweeps], None] | None = None) -> Reached:
    """`steps` steps from `runs.start` in `PHASES` held phases (module docstring); the kept states and coverage;
    `watch(data, sweeps)` is called after each step (a law that judges every step, not the kept states)."""
    data = runs.start(model, keyframe)
    coverage = Coverage(model)
    coverage.see(data)
    phase_steps = max(1, steps // PHASES)
    push = pushes(model, data, phase_steps * model.opt.timestep)
    sweep = sweeps(model, data, phase_steps)
    gap = max(1, phase_steps // 4)
    states: list[mujoco.MjData] = []
    steps_at: list[int] = []  # the step each kept state follows
    events, last, stopped = 0, -gap, None
    warned = _warned(data)
    for phase in range(PHASES):
        if model.nu:
            data.ctrl[:] = control_ends(model, signs(model.nu, phase))
        dof_push = signs(push.dofs.size, phase) * push.dof_force
        tendon_push = signs(push.tendons.size, phase) * push.tendon_force
        for i in range(phase * phase_steps, (phase + 1) * phase_steps):
            sweep.at(data, phase, (i - phase * phase_steps + 1) / phase_steps)
            data.qfrc_applied[:] = 0
            data.qfrc_applied[push.dofs] = dof_push
            if push.tendons.size:  # along the tendon's Jacobian at the state: a tendon pulls as it runs
                jac = mujoco_versions.tendon_jacobian(model, data)[push.tendons]
                data.qfrc_applied += tendon_push @ jac
            mujoco.mj_step(model, data)
            if watch is not None:
                watch(data, sweep)
            runaway = float(np.max(np.abs(data.qvel), initial=0.0)) > RUNAWAY
            if _warned(data) > warned or runaway:  # the model went where it cannot: stop, keep what came before
                why = f"a speed over {RUNAWAY:g}" if runaway else ", ".join(runs.warnings_of(data))
                stopped = f"{why} at step {i} (phase {phase + 1} of {PHASES})"
                states = [s for s, at in zip(states, steps_at) if at <= i - gap]  # not the run-up to it
                break
            new = coverage.see(data)
            if new and events < MAX_EVENT_STATES and i - last >= gap:
                states.append(_kept(model, data))
                steps_at.append(i)
                events, last = events + 1, i
        if stopped:
            break
        states.append(_kept(model, data))
        steps_at.append((phase + 1) * phase_steps - 1)
    return Reached(states, coverage, runs.warnings_of(data), stopped, sweep.through)


@dataclass(frozen=True)
class Exercised:
    """The states the engine laws judge: the driven run's (the start first, then one per draw of the controls) and
    the reaching run's kept states (`Reached.states`), forwarded copies in that order; what both runs covered; why
    the reaching run stopped early (None: it ran its length); the mocap bodies it swept, each with the body it was
    swept through."""

    states: list[mujoco.MjData]
    coverage: Coverage
    stopped: str | None
    swept: dict[str, str] = field(default_factory=dict)


def exercised(driven: runs.Driven, reached: Reached) -> Exercised:
    covered = reached.coverage if driven.coverage is None else driven.coverage.merge(reached.coverage)
    return Exercised([*driven.states, *reached.states], covered, reached.stopped, reached.swept)
