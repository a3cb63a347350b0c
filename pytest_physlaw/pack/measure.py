"""What the model law pack measures of a model's solver and bodies, with MuJoCo's own functions only
(the runs themselves are `pytest_physlaw.pack.runs`).

- `agreement(model, state)`: converged cold solves of PGS, CG and Newton on one state, the lesson's
  measure: |qacc_solver - qacc_ref| / |qacc_smooth - qacc_ref|, the share of the constraint
  correction on which a solver differs from a Newton solve at tolerance 1e-14.
- `answer(...)`: a body's own answer to 1 N at its centre of mass, along an axis: the change of
  its centre-of-mass acceleration, J (qacc(f) - qacc(0)), at zero velocity, with contacts, joint
  limits, friction loss and gravity off (and equalities off unless the body is held by them: then
  Newton solves them to 1e-14, so that the answer is MuJoCo's converged one, not a solver residue),
  and what the proxies built from the soft mobility W_s (`equality="soft"`) answer there.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw import kit, mujoco_versions
from pytest_physlaw.pack import options, runs
from pytest_physlaw.pack.runs import Run, settled

DSBL = mujoco.mjtDisableBit
SOLVERS = kit.scenes("solver.options").SOLVER_CODES  # the scene kit's solver names -> mjtSolver codes
FREE_FLAGS = DSBL.mjDSBL_CONTACT | DSBL.mjDSBL_LIMIT | DSBL.mjDSBL_FRICTIONLOSS | DSBL.mjDSBL_GRAVITY
REFERENCE = (200, 1e-14)  # Newton's converged reference, as fixtures/solver/convergence.py takes it
CONVERGED = dict(zip(SOLVERS, ((2000, 1e-12), (500, 1e-12), (100, 1e-12))))  # PGS, CG, Newton: (iterations, tolerance)


def _solve(model: mujoco.MjModel, state: Run, solver: str, iterations: int, tolerance: float) -> mujoco.MjData:
    """One cold `mj_forward` at the run's last state with `solver` (other options the model's own)."""
    # noslip off: a pass after the solve, whose iterations MuJoCo counts as the solver's
    chosen = options.cold(model, {"solver": int(SOLVERS[solver]), "iterations": iterations, "tolerance": tolerance,
                                  "noslip_iterations": 0})
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:], data.act[:] = state.qpos, state.qvel, state.act
    with options.changed(model, chosen):
        mujoco.mj_forward(model, data)
    return data


class NoReference(Exception):
    """The model's features rule out the Newton solve the solvers are compared with."""


def agreement(model: mujoco.MjModel, state: Run) -> tuple[float, dict[str, float], dict[str, bool]]:
    """(scale |qacc_smooth - qacc_ref|, each solver's share of it off the reference, whether it converged); a
    solver MuJoCo refuses for this model (its features rule it out) is left out of both."""
    try:
        ref = _solve(model, state, "Newton", *REFERENCE)
    except mujoco.FatalError as exc:  # IPC on 3.14: CG alone
        raise NoReference(f"MuJoCo will not solve it with Newton, the converged reference ({exc})") from exc
    scale = float(np.linalg.norm(ref.qacc_smooth - ref.qacc))
    shares, converged = {}, {}
    for name, (iterations, tolerance) in CONVERGED.items():
        try:
            data = _solve(model, state, name, iterations, tolerance)
        except mujoco.FatalError:  # a solver the model's features rule out (IPC: CG, or Newton on 4)
            if int(model.opt.solver) == int(SOLVERS[name]):
                raise
            continue
        shares[name] = float(np.linalg.norm(data.qacc - ref.qacc)) / scale if scale > 0 else 0.0
        converged[name] = bool(np.all(data.solver_niter[: max(int(data.nisland), 1)] < iterations))
    return scale, shares, converged


def newton_run(model: mujoco.MjModel, steps: int, keyframe: str, own: Run, nudge: float = 0.0) -> Run:
    """The run with Newton: the model's own run when it solves with Newton, else a new one (from a start
    nudged by `nudge`, as `runs.settled` takes it)."""
    if model.opt.solver == SOLVERS["Newton"]:
        return own
    m = copy.copy(model)
    m.opt.solver = SOLVERS["Newton"]
    return settled(m, steps, keyframe, cold=False, nudge=nudge)


# -- a body's answer ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class BodyAnswers:
    """At one pose: the body's answer along its mobile axis and what each proxy answers there (1/kg)."""

    held: bool  # whether equality constraints hold the body (W_c differs from W): W_s answers then
    axis: np.ndarray
    body: float
    tensor: float
    scalar: float


def measuring_model(model: mujoco.MjModel, held: bool) -> mujoco.MjModel:
    """A copy of `model` for answers: contacts, limits, friction loss, gravity (and equalities) off; a held
    body's equalities solved by Newton to REFERENCE's tolerance (the converged answer, not a residue)."""
    m = copy.copy(model)
    m.opt.disableflags |= FREE_FLAGS | (0 if held else DSBL.mjDSBL_EQUALITY)
    if held:
        m.opt.solver, (m.opt.iterations, m.opt.tolerance) = SOLVERS["Newton"], REFERENCE
    return m


@dataclass(frozen=True)
class Bodies:
    """A model's bodies as the proxy laws see them: its two measuring copies (free, held), which bodies
    equalities hold (W_c differs from W at qpos0 beyond round-off) and which can translate (W_tt not 0)."""

    measuring: dict[bool, mujoco.MjModel]
    held: frozenset[int]
    translating: frozenset[int]


def bodies(model: mujoco.MjModel, ids: list[int]) -> Bodies:
    """`Bodies` of `ids`, from two batched `mobility_many` calls at qpos0 (one copy of the model each)."""
    coupling = kit.coupling()
    measuring = {held: measuring_model(model, held) for held in (False, True)}
    m = measuring[True]
    data = mujoco.MjData(m)
    coupling.forward_position(m, data)
    W = coupling.mobility_many(m, data, ids)
    scale = np.maximum(np.max(np.abs(W), axis=(1, 2)), 1e-300)
    held: set[int] = set()
    if model.neq:
        Wc = coupling.mobility_many(m, data, ids, equality=True)
        held = {b for b, off, s in zip(ids, np.max(np.abs(W - Wc), axis=(1, 2)), scale) if off > 1e-9 * s}
    translating = {b for b, w, s in zip(ids, W, scale) if np.linalg.eigvalsh(w[:3, :3])[-1] > 1e-12 * s}
    return Bodies(measuring, frozenset(held), frozenset(translating))


def com_answer(model: mujoco.MjModel, data: mujoco.MjData, body: int, force: np.ndarray) -> np.ndarray:
    """The change of the body's COM acceleration under `force` (N, world) at its COM, at zero velocity."""
    jacp = np.zeros((3, model.nv))
    mujoco.mj_jacBodyCom(model, data, jacp, None, body)
    saved = data.xfrc_applied[body].copy()
    mujoco.mj_forward(model, data)
    before = data.qacc.copy()
    data.xfrc_applied[body, :3] += force
    mujoco.mj_forward(model, data)
    after = data.qacc.copy()
    data.xfrc_applied[body] = saved
    mujoco.mj_forward(model, data)
    return jacp @ (after - before)


def answers(bodies: Bodies, body: int, qpos: np.ndarray) -> BodyAnswers:
    """The body's and its proxies' answers at `qpos` (zero velocity) along the body's mobile axis there.

    The tensor proxy is built with pose="current" (W rebuilt at the pose), the scalar one at qpos0;
    a held body's both from the soft mobility (`equality="soft"`), as MuJoCo holds it.
    """
    coupling = kit.coupling()
    held = body in bodies.held
    m = bodies.measuring[held]
    data = mujoco.MjData(m)
    data.qpos[:] = qpos
    mujoco.mj_forward(m, data)
    equality = "soft" if held else False
    tensor = coupling.TensorProxy(m, body, pose="current", equality=equality)
    scalar = coupling.ScalarProxy(m, body, equality=equality)
    axis = coupling.mobile_axis(coupling.mobility(m, data, body, equality=equality))
    along = lambda a: float(axis @ a)  # noqa: E731
    return BodyAnswers(held, axis, along(com_answer(m, data, body, axis)), along(tensor.answer(axis, data)),
                       along(scalar.answer(axis, data)))


def movable_bodies(model: mujoco.MjModel) -> list[int]:
    """Ids of the bodies that can move (a degree of freedom in their chain; not static, not mocap)."""
    return [b for b in range(1, model.nbody) if model.body_dofnum[model.body_weldid[b]] > 0]


def seeded_pose(model: mujoco.MjModel, seed: int) -> np.ndarray:
    """A pose drawn with `seed`: each limited hinge or slide uniform in its range, an unlimited hinge in
    [-pi, pi], an unlimited slide qpos0 +- 0.1, a ball or free joint turned by a uniform random rotation."""
    rng = np.random.default_rng(seed)
    qpos = model.qpos0.copy()
    hinge, slide, free = (int(k) for k in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE,
                                           mujoco.mjtJoint.mjJNT_FREE))
    for j in range(model.njnt):
        a, kind = int(model.jnt_qposadr[j]), int(model.jnt_type[j])  # int: numpy ints miss pybind enums in `in`
        if kind in (hinge, slide):
            if model.jnt_limited[j]:
                qpos[a] = rng.uniform(*model.jnt_range[j])
            else:
                qpos[a] = rng.uniform(-np.pi, np.pi) if kind == hinge else qpos[a] + rng.uniform(-0.1, 0.1)
        else:
            q = rng.normal(size=4)
            start = a + 3 if kind == free else a  # a free joint keeps its position
            qpos[start:start + 4] = q / np.linalg.norm(q)
    return qpos


# -- the model linearized at its start ----------------------------------------------------------------

FD_STEP = 1e-6  # rad or m, m/s: the central difference of MuJoCo's forces


@dataclass(frozen=True)
class Linearized:
    """The model at its start pose and zero velocity: its mass matrix (`mj_fullM`, armature in), and minus the
    slopes of MuJoCo's forces over qpos (stiffness K) and qvel (damping C) by central differences: of
    qfrc_actuator + qfrc_passive (servos, springs, dampers), and of qfrc_passive alone (`passive_damping`)."""

    mass: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    passive_damping: np.ndarray


def linearize(model: mujoco.MjModel, keyframe: str) -> Linearized:
    """`Linearized` at the starting keyframe, force limits off (a servo saturated at the start is stiff again
    once it nears its target); positions move through `mj_integratePos`, so that ball and free joints stay
    on their manifold."""
    m = copy.copy(model)
    m.actuator_forcelimited[:] = 0
    data = runs.start(m, keyframe)
    data.qvel[:] = 0
    mujoco.mj_forward(m, data)
    mass = mujoco_versions.full_mass(m, data)

    def forces(qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        trial = copy.copy(data)
        trial.qpos[:], trial.qvel[:] = qpos, qvel
        mujoco.mj_forward(m, trial)
        return trial.qfrc_actuator + trial.qfrc_passive, trial.qfrc_passive.copy()

    n = m.nv
    stiff, damp, passive = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        ends = []
        for sign in (1.0, -1.0):
            qpos, dq = data.qpos.copy(), np.zeros(n)
            dq[i] = sign * FD_STEP
            mujoco.mj_integratePos(m, qpos, dq, 1.0)
            ends.append(forces(qpos, data.qvel)[0])
        stiff[:, i] = -(ends[0] - ends[1]) / (2 * FD_STEP)
        dv = np.zeros(n)
        dv[i] = FD_STEP
        (up, up_passive), (down, down_passive) = forces(data.qpos, dv), forces(data.qpos, -dv)
        damp[:, i], passive[:, i] = -(up - down) / (2 * FD_STEP), -(up_passive - down_passive) / (2 * FD_STEP)
    return Linearized(mass, stiff, damp, passive)
