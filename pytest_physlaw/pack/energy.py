"""Laws of energy and momentum: a model moving passively gains no energy beyond its integrator's error,
and a floating base in free flight keeps its momentum. Sources: MuJoCo's documentation ("Computation":
the energy flag, `mjData.energy` = potential, kinetic; passive forces), textbook mechanics (the work of
passive forces, Newton's third law: internal forces change no momentum).

Passive run: from the starting pose, actuation, contacts, equalities and joint limits off (the soft
constraints hold energy that `mjData.energy` does not count), gravity, springs, damping and friction
loss kept. Free flight: each tree whose root joint is free, gravity, contacts, fluid and wind off, and the
equalities that tie a tree to the world or to another tree (those inside a tree, and its joint limits, hold
the robot together and are internal: kept), the free joint's own damping, friction loss, stiffness and armature zeroed (they act against
the world), seeded velocities, the starting controls held (actuators are internal forces; controls
redrawn in steps would make stiff servos' impulses, which no timestep of a real robot resolves).
The integrator's error is told from a physical gain by halving the timestep: an error shrinks with it.

Measured:
`pytest --physlaw-model=MODEL.xml -k "energy or momentum" -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import mujoco
import numpy as np
import pytest

from pytest_physlaw import kit, mujoco_versions
from pytest_physlaw.pack import options, runs
from pytest_physlaw.pack.fixtures import SEED

SOURCE = "MuJoCo documentation, Computation (energy flag, passive forces); Newton's laws of motion"
GAIN = 1.0  # of the peak kinetic energy: a gain above the energy in motion itself is an integration that diverges
HALVING = 0.75  # an integrator error at dt / 2 is at most 3/4 of the one at dt (first order: 1/2)
ROUND_OFF = 1e-9  # relative: a gain or a loss of momentum below this is round-off
DRIFT = 0.1  # of the momentum: what the integrator may lose over the horizon
FD_ROUND_OFF = 1e-6  # a share of the speed a step: below this, a central difference's round-off
DSBL, ENBL = mujoco.mjtDisableBit, mujoco.mjtEnableBit
QUIET = DSBL.mjDSBL_CONTACT | DSBL.mjDSBL_EQUALITY | DSBL.mjDSBL_LIMIT


@pytest.mark.law("model-passive-energy", source=SOURCE)
def test_passive_motion_gains_no_energy(law, pack_model, settings, horizon, model_case) -> None:
    """Moving passively (no actuation, no soft constraints), whatever energy the model gains over its start
    shrinks when the timestep is halved, or over the next halving where flailing links make the first uneven
    (the integrator's error), and never exceeds its peak kinetic energy: damping and friction loss only take energy out; a gain that stays is a force doing work.
    (Flailing freely, an arm's light distal links spin faster than its timestep resolves: the integrator's
    error may be large there, so its size is recorded, not bounded to a share.)"""
    model = pack_model.model
    start, energy, kinetic = _passive(model, horizon, settings.keyframe)
    peak = float(np.max(kinetic))
    if peak <= ROUND_OFF * max(abs(start), 1.0):
        pytest.skip(f"{model_case}: nothing moves passively from the start (peak kinetic energy {peak:.3g} J)")
    gain = max(float(np.max(energy)) - start, 0.0)
    law.check("energy_gain", gain / peak, le=GAIN, drift_abs=ROUND_OFF,
              why="gain over the start, a share of the peak kinetic energy, recorded for the gate")
    law.check("energy_end", (float(energy[-1]) - start) / peak, le=GAIN, drift_abs=ROUND_OFF,
              why="energy at the end against the start, recorded for the gate (damping, friction loss)")
    excess, figures = _excess_over_halvings(gain / peak, lambda k: _passive_gain(model, k, horizon, settings.keyframe) / peak)
    law.check("gain_half_step_excess", excess, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"gain at half the timestep less {HALVING:g} of the gain at the timestep, a share of the peak kinetic "
                  f"energy ({figures}): an integrator's error shrinks with its timestep, over the second halving where "
                  "flailing links the step does not resolve make the first uneven; a gain that does not shrink is a "
                  "force doing work (a negative damping, a wind, an actuator left on)")


@pytest.mark.law("model-passive-dissipates", source=SOURCE + "; the second law of thermodynamics (a passive "
                  "element delivers no power)")
def test_passive_forces_dissipate(law, pack_model, linearized, model_case) -> None:
    """The model's passive forces (joint and tendon damping, fluid drag) take energy out of any motion: their
    slope over velocity, C = -d(qfrc_passive)/dqvel at the start, has no negative mode. Measured in the mass
    matrix's metric, the least eigenvalue of M^-1/2 C M^-1/2 is the fastest rate at which passive forces could
    speed a motion up; times the timestep it may not exceed round-off. A negative damping is an engine in a
    joint: it speeds its joint up by a share of its speed every step."""
    damping = (linearized.passive_damping + linearized.passive_damping.T) / 2
    if not np.any(damping):
        pytest.skip(f"{model_case}: no passive damping (no joint or tendon damping, no fluid)")
    half = np.linalg.inv(np.linalg.cholesky(linearized.mass))  # M = L L^T; L^-1 C L^-T has M^-1 C's eigenvalues
    least = float(np.linalg.eigvalsh(half @ damping @ half.T)[0]) * pack_model.model.opt.timestep
    law.check("least_damping_rate_dt", least, ge=-FD_ROUND_OFF, drift_abs=FD_ROUND_OFF,
              why="least eigenvalue of M^-1 C times the timestep: below 0 some motion is pushed, not braked, by that "
                  "share of its speed each step; set every <joint damping> and <tendon damping> >= 0")


@pytest.mark.law("model-free-flight-momentum", source=SOURCE)
def test_floating_base_keeps_its_momentum(law, pack_model, settings, horizon, model_case) -> None:
    """A floating base in free flight (no gravity, contact or other external force) keeps its linear and
    angular momentum whatever its joints and its servos, holding their starting controls, do: to within a
    tenth over the run, and what it loses shrinks when the timestep is halved, or over the next halving where
    a joint limit's impact lands at another point of the step (the integrator's error, not a force). Its seeded velocities keep its own equality constraints (a linkage's loop stays closed:
    the constraints' soft spring is not kicked); actuators that push it from outside (rotors) are off; a
    tree a tendon ties to the world or to another tree is not in free flight and is left out."""
    model = pack_model.model
    roots = runs.floating_roots(model)
    if not roots:
        pytest.skip(f"{model_case}: no floating base (no tree whose root joint is a free joint)")
    tied = _tendon_tied_trees(model)
    free = [r for r in roots if int(model.body_treeid[r]) not in tied]
    if not free:
        pytest.skip(f"{model_case}: every floating tree is tied by a tendon to the world or to another tree "
                    f"(body {model.body(roots[0]).name!r}'s): none is in free flight")
    drift = _flight_drift(model, free, horizon, settings.keyframe)
    for name, value in drift.items():
        law.check(name, value, le=DRIFT, drift_abs=ROUND_OFF,
                  why="largest change over the run, a share of the starting momentum, worst floating tree")
    flights: dict[int, dict[str, float]] = {}

    def flight(k: int) -> dict[str, float]:  # the drift at dt / k, each run once
        if k not in flights:
            with options.changed(model, runs.halved(model, k)):  # _flight_drift copies it, halved
                flights[k] = _flight_drift(model, free, k * horizon, settings.keyframe)
        return flights[k]

    for name, value in drift.items():
        excess, figures = _excess_over_halvings(value, lambda k: flight(k)[name])
        law.check(f"{name}_half_step_excess", excess, le=ROUND_OFF, drift_abs=ROUND_OFF,
                  why=f"the loss at half the timestep less {HALVING:g} of the loss at the timestep ({figures}): an "
                      "integrator's error shrinks with its timestep, over the second halving where a joint limit's "
                      "impact lands elsewhere in the step in the first; a loss that does not shrink is a force acting "
                      "from outside the tree (an actuator's, a tendon's to the world)")


# -- measurements ------------------------------------------------------------------------------------

def _excess_over_halvings(at_dt: float, at: Callable[[int], float]) -> tuple[float, str]:
    """(how much an error at dt / 2 exceeds HALVING of the one at dt, the figures), `at(k)` the error at dt / k.
    Where the first halving does not shrink it, the second is judged (dt / 4 against dt / 2): a motion the step
    does not resolve (flailing light links, an impact's timing) makes the first uneven, and an integrator's error
    still shrinks over the next; a force's work or impulse shrinks over neither."""
    half = at(2)
    excess, figures = half - HALVING * at_dt, f"{at_dt:.3g} at dt, {half:.3g} at dt/2"
    if excess > ROUND_OFF:
        quarter = at(4)
        excess, figures = quarter - HALVING * half, figures + f", {quarter:.3g} at dt/4: judged on the second halving"
    return excess, figures


def _passive_gain(model: mujoco.MjModel, k: int, horizon: int, keyframe: str) -> float:
    """The passive run's gain over its start at dt / k (J)."""
    with options.changed(model, runs.halved(model, k)):  # _passive copies it, halved
        start, energy, _ = _passive(model, k * horizon, keyframe)
    return max(float(np.max(energy)) - start, 0.0)


def _passive(model: mujoco.MjModel, steps: int, keyframe: str) -> tuple[float, np.ndarray, np.ndarray]:
    """(energy at the start, total energy after each step, kinetic energy after each step) of the passive run:
    `mjData.energy` (gravity's potential counts every body, compensated or not) plus what the compensation the
    passive run applies has done: its potential where it is a field on the body (`_gravcomp_weights`), the work
    summed step by step where only part of the body's chain gets it (`_projected_gravcomp`)."""
    m = copy.copy(model)
    m.opt.disableflags |= DSBL.mjDSBL_ACTUATION | QUIET
    m.opt.enableflags |= ENBL.mjENBL_ENERGY
    data = runs.start(m, keyframe)
    data.qvel[:] = 0
    mujoco.mj_forward(m, data)
    lifted, projected = _gravcomp_weights(m), _projected_gravcomp(m)
    start = sum(mujoco_versions.energy(m, data)) + float(lifted @ data.xipos.ravel())
    total, kinetic, work = np.empty(steps), np.empty(steps), 0.0
    for i in range(steps):
        force = _compensation_on(m, data, projected) if projected else None
        mujoco.mj_step(m, data)
        if force is not None:  # semi-implicit Euler: the step moves qpos by dt qvel(new)
            work += float(force @ data.qvel) * m.opt.timestep
        potential, kinetic[i] = mujoco_versions.energy(m, data)
        total[i] = potential + kinetic[i] + float(lifted @ data.xipos.ravel()) - work
    return start, total, kinetic


def _gravcomp_weights(model: mujoco.MjModel) -> np.ndarray:
    """(nbody * 3) the constant force field of gravity compensation the passive run applies, per body centre of
    mass, flattened: its potential is this dotted with `xipos` (a body compensated by `gravcomp` is pushed by
    -gravcomp m g, which `mjData.energy` does not count: a buoyant body rising gains counted energy, and its
    potential pays it back). Zero where gravity is off, as MuJoCo then applies none, and for a body whose
    compensation reaches any of its chain's dofs through the actuators (`actuatorgravcomp`): the passive run
    turns actuation off and MuJoCo drops it there (all of it: no field; part: `_projected_gravcomp`)."""
    if model.opt.disableflags & DSBL.mjDSBL_GRAVITY:
        return np.zeros(3 * model.nbody)
    weights = (model.body_gravcomp * model.body_mass)[:, None] * np.asarray(model.opt.gravity)[None, :]
    weights[[b for b in range(model.nbody) if np.any(_chain_dofs(model, b) & _dropped(model))]] = 0.0
    return weights.ravel()


def _dropped(model: mujoco.MjModel) -> np.ndarray:
    """(nv,) bool: the dofs on which the passive run has no gravity compensation (added through actuators,
    which it turns off)."""
    return mujoco_versions.actuator_gravcomp_dofs(model)


def _chain_dofs(model: mujoco.MjModel, body: int) -> np.ndarray:
    """(nv,) bool: the dofs that move `body` (its own joints' and its ancestors')."""
    dofs = np.zeros(model.nv, dtype=bool)
    while body > 0:
        start = int(model.body_dofadr[body])
        if start >= 0:
            dofs[start:start + int(model.body_dofnum[body])] = True
        body = int(model.body_parentid[body])
    return dofs


def _projected_gravcomp(model: mujoco.MjModel) -> list[int]:
    """Compensated bodies whose chain has dofs of both kinds: the passive run applies their compensation on some
    dofs only, a force that is no gradient of a potential (its work is summed)."""
    if model.opt.disableflags & DSBL.mjDSBL_GRAVITY or not np.any(model.opt.gravity):
        return []
    dropped = _dropped(model)
    return [b for b in range(1, model.nbody) if model.body_gravcomp[b] * model.body_mass[b] > 0
            and np.any(_chain_dofs(model, b) & dropped) and np.any(_chain_dofs(model, b) & ~dropped)]


def _compensation_on(model: mujoco.MjModel, data: mujoco.MjData, bodies: list[int]) -> np.ndarray:
    """(nv,) the generalized force of `bodies`' compensation (-gravcomp m g at the centre of mass, MuJoCo's
    `mj_jacBodyCom`) on the dofs where the passive run applies it."""
    jacp, force = np.zeros((3, model.nv)), np.zeros(model.nv)
    for b in bodies:
        mujoco.mj_jacBodyCom(model, data, jacp, None, b)
        force += jacp.T @ (-model.body_gravcomp[b] * model.body_mass[b] * np.asarray(model.opt.gravity))
    return np.where(_dropped(model), 0.0, force)


def _flight_model(model: mujoco.MjModel) -> mujoco.MjModel:
    """The model in free flight: no gravity, contact, fluid or wind; equalities that tie a tree to the world,
    a mocap body or another tree off; the constraints inside one tree (its joint limits, its joint, tendon,
    connect and weld equalities) kept: they hold the robot together and are internal forces."""
    m = copy.copy(model)
    m.opt.disableflags |= DSBL.mjDSBL_CONTACT | DSBL.mjDSBL_GRAVITY
    for e in range(m.neq):
        trees = runs.equality_trees(m, e)
        if len(trees) != 1 or -1 in trees:
            m.eq_active0[e] = 0
    m.opt.density, m.opt.viscosity, m.opt.wind[:] = 0.0, 0.0, 0.0
    pushing = np.unique(mujoco_versions.control_actuators(m)[_pushing_from_outside(m)])  # controls -> actuators
    m.actuator_gainprm[pushing], m.actuator_biasprm[pushing] = 0.0, 0.0
    free = m.jnt_type == mujoco.mjtJoint.mjJNT_FREE
    m.jnt_stiffness[free] = 0.0
    for j in np.flatnonzero(free):
        dofs = slice(m.jnt_dofadr[j], m.jnt_dofadr[j] + 6)
        m.dof_damping[dofs], m.dof_frictionloss[dofs], m.dof_armature[dofs] = 0.0, 0.0, 0.0
    return m


def _momenta(model: mujoco.MjModel, data: mujoco.MjData, roots: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Linear (mass times COM velocity) and angular momentum (about the COM) of each root's subtree."""
    mujoco.mj_subtreeVel(model, data)
    return data.subtree_linvel[roots] * model.body_subtreemass[roots][:, None], data.subtree_angmom[roots].copy()


def _flight_drift(model: mujoco.MjModel, roots: list[int], steps: int, keyframe: str) -> dict[str, float]:
    """Largest change of each floating tree's momenta over the flight, a share of its start, worst tree."""
    m = _flight_model(model)
    rng = np.random.default_rng(SEED)
    data = runs.start(m, keyframe)
    data.qvel[:] = _consistent(m, data, rng.normal(scale=0.5, size=m.nv))  # rad/s and m/s: every joint moving
    mujoco.mj_forward(m, data)
    linear0, angular0 = _momenta(m, data, roots)
    worst_linear, worst_angular = np.zeros(len(roots)), np.zeros(len(roots))
    for _ in range(steps):
        mujoco.mj_step(m, data)
        mujoco.mj_forward(m, data)
        linear, angular = _momenta(m, data, roots)
        worst_linear = np.maximum(worst_linear, np.linalg.norm(linear - linear0, axis=1))
        worst_angular = np.maximum(worst_angular, np.linalg.norm(angular - angular0, axis=1))
    scale = lambda v: np.maximum(np.linalg.norm(v, axis=1), 1e-300)  # noqa: E731
    return {"linear_momentum_drift": float(np.max(worst_linear / scale(linear0))),
            "angular_momentum_drift": float(np.max(worst_angular / scale(angular0)))}


def _pushing_from_outside(model: mujoco.MjModel) -> np.ndarray:
    """Actuators whose force reaches a free joint's translational dofs at the start: they push a tree from
    outside (a rotor's thrust, a site actuator without a reference site); a joint's or a tendon's between
    the tree's own bodies puts equal and opposite forces on it and none there."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    moment = runs.moments(model, data)
    free = [d for j in np.flatnonzero(model.jnt_type == mujoco.mjtJoint.mjJNT_FREE)
            for d in range(model.jnt_dofadr[j], model.jnt_dofadr[j] + 3)]
    return np.any(np.abs(moment[:, free]) > 0, axis=1) if free else np.zeros(model.nu, dtype=bool)


def _tendon_tied_trees(model: mujoco.MjModel) -> set[int]:
    """Trees a tendon ties to the world or to another tree (its sites, joints or wrapping geoms on more than
    one tree, or on the world): such a tendon's spring, damper or limit is a force from outside."""
    tied: set[int] = set()
    for t in range(model.ntendon):
        trees = runs.tendon_trees(model, t)
        if len(trees) > 1:
            tied |= trees - {-1}
    return tied


def _consistent(model: mujoco.MjModel, data: mujoco.MjData, qvel: np.ndarray) -> np.ndarray:
    """`qvel` with the part that its active equality constraints forbid taken out, in the mass matrix's metric
    (the velocity a perfectly plastic impulse of those constraints would leave): v - M^-1 G^T (G M^-1 G^T)^+ G v,
    G MuJoCo's equality rows (`coupling.equality_rows`), M^-1 by `mj_solveM`."""
    rows, _ = kit.coupling().equality_rows(model, data)
    if not rows.shape[0]:
        return qvel
    solved = np.zeros((rows.shape[0], model.nv))
    mujoco.mj_solveM(model, data, solved, rows)  # rows of M^-1 G^T, one per constraint row
    return qvel - solved.T @ (np.linalg.pinv(rows @ solved.T) @ (rows @ qvel))
