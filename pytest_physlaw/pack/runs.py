"""The runs of a user's model that the pack's laws read, each with MuJoCo's own stepping only.

- `settled`: the model as it says, from its starting pose (`start`) with the controls the pose holds
  (a keyframe's `ctrl`, else zero), over the horizon; per step the solver's warm and cold iterations
  and whether an island stopped at the cap; every body's centre of mass; the start and end states.
- `driven` (the exercised run): the same start, controls drawn uniformly inside each actuator's `ctrlrange`
  (in [-1, 1] where the range is not limited) and redrawn every 50 ms, seeded; MuJoCo's warnings counted, and
  the state kept at each draw, for the laws that judge the engine's forces where bugs live (driven motion,
  self-contact, loaded loops), not only at rest.
- `halved`: a copy of the model whose timestep is a fraction of its own, for convergence laws.

The reaching run, which takes the model to its limits and saturations, is `reaching`; what the driven and reaching
runs covered is recorded step by step by `coverage.Coverage`.

The horizon (`PackSettings.horizon`) is the shorter of ini `physlaw_model_seconds` and ini
`physlaw_model_steps` timesteps, so a model with a 1e-4 s step is not run 10,000 steps by default.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw import kit, mujoco_versions
from pytest_physlaw.pack import options
from pytest_physlaw.pack.coverage import Coverage

DSBL = mujoco.mjtDisableBit
CONTROL_PERIOD = 0.05  # s between two draws of the exercised run's controls
# a state's every input to a forward pass: physics, controls, applied forces, mocap, equality activations, plugins
STATE_SPEC = int(getattr(mujoco.mjtState, "mjSTATE_INTEGRATION", mujoco.mjtState.mjSTATE_FULLPHYSICS
                         | mujoco.mjtState.mjSTATE_USER))


def keyframe_id(model: mujoco.MjModel, keyframe: str) -> int | None:
    """The keyframe to start from: "" -> 0 when the model has one, else None (qpos0); "qpos0" -> None; a
    name or an index of the model's keyframes; anything else a ValueError naming it."""
    if keyframe == "":
        return 0 if model.nkey else None
    if keyframe == "qpos0":
        return None
    if keyframe.isdigit() and int(keyframe) < model.nkey:
        return int(keyframe)
    found = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, keyframe)
    if found < 0:
        names = [model.key(k).name or str(k) for k in range(model.nkey)]
        raise ValueError(f"ini physlaw_model_keyframe = {keyframe!r}: the model has no such keyframe "
                         f"(it has {names or 'none'}; 'qpos0' starts from qpos0)")
    return found


def start(model: mujoco.MjModel, keyframe: str = "") -> mujoco.MjData:
    """A new MjData at the starting keyframe (`keyframe_id`) or at qpos0, forwarded."""
    data = mujoco.MjData(model)
    key = keyframe_id(model, keyframe)
    if key is not None:
        mujoco.mj_resetDataKeyframe(model, data, key)
    mujoco.mj_forward(model, data)
    return data


@dataclass(frozen=True)
class Run:
    """A settled run: per step the warm and cold iterations and whether an island hit the cap."""

    steps: int
    warm: np.ndarray
    cold: np.ndarray
    capped: np.ndarray
    qpos: np.ndarray
    qvel: np.ndarray
    act: np.ndarray
    nefc: int
    xpos: np.ndarray  # bodies' centres of mass (xipos) at the start and after each step: (steps + 1) x nbody x 3
    first: mujoco.MjData  # the start, forwarded
    final: mujoco.MjData  # the end, forwarded
    warnings: dict[str, int]


def _islands_capped(model: mujoco.MjModel, data: mujoco.MjData) -> bool:
    niter = data.solver_niter[: max(int(data.nisland), 1)]
    return bool(np.any(niter >= model.opt.iterations))


def warnings_of(data: mujoco.MjData) -> dict[str, int]:
    """MuJoCo's warnings raised so far in `data` (`mjData.warning`), by name, the ones that occurred."""
    return {mujoco.mjtWarning(i).name: int(data.warning[i].number)
            for i in range(len(data.warning)) if data.warning[i].number}


def settled(model: mujoco.MjModel, steps: int, keyframe: str = "", *, cold: bool = True, nudge: float = 0.0) -> Run:
    """`steps` steps from `start`; cold iterations re-solve each step's state with warmstart off (optional);
    `nudge`: the start's positions moved by that share of themselves (`nudged`), a change of round-off's size."""
    step_iterations = kit.scenes("settled").step_iterations
    data = start(model, keyframe)
    if nudge:
        nudged(model, data, nudge)
    first = copy.copy(data)
    mujoco.mj_forward(model, first)  # MuJoCo 3.0's copy of an MjData leaves its contacts zero (ncon kept)
    # MuJoCo counts the noslip pass's iterations in solver_niter too (Adroit's 3 Newton iterations read 23 with
    # noslip_iterations=20, "capped" at its cap of 20): the main solve is counted apart, on a copy of the same
    # state without noslip, which runs after the main solve and does not change it
    # (the model's options set for those solves and restored after each: the dog's model takes 0.06 s to copy)
    noslip = model.opt.noslip_iterations > 0
    main_options = options.without_noslip(model)
    cold_options = options.cold(model, main_options)
    scratch = mujoco.MjData(model) if cold else None
    main = mujoco.MjData(model) if noslip else None
    warm, cold_n, capped, xpos = [], [], [], [data.xipos.copy()]
    for _ in range(steps):
        if cold:
            _same_state(model, data, scratch)
            with options.changed(model, cold_options):
                mujoco.mj_forward(model, scratch)
            cold_n.append(step_iterations(scratch))
        if noslip:
            _same_state(model, data, main)
            with options.changed(model, main_options):
                mujoco.mj_forward(model, main)
        mujoco.mj_step(model, data)
        counted = main if noslip else data
        warm.append(step_iterations(counted))
        capped.append(_islands_capped(model, counted))
        xpos.append(data.xipos.copy())
    final = copy.copy(data)
    mujoco.mj_forward(model, final)
    return Run(steps, np.array(warm), np.array(cold_n), np.array(capped, dtype=bool), data.qpos.copy(),
               data.qvel.copy(), data.act.copy(), int(data.nefc), np.array(xpos), first, final,
               warnings_of(data))


def _same_state(model: mujoco.MjModel, source: mujoco.MjData, target: mujoco.MjData) -> None:
    """`target` (of a copy of `model`) given `source`'s whole state and inputs, warm start included (MuJoCo's
    `mj_getState` / `mj_setState`): what a copy of the MjData would hold for a forward pass, without copying its
    arena each step."""
    spec = STATE_SPEC
    state = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, source, state, spec)
    mujoco.mj_setState(model, target, state, spec)
    target.qacc_warmstart[:] = source.qacc_warmstart


def nudged(model: mujoco.MjModel, data: mujoco.MjData, share: float) -> None:
    """Move every position coordinate of `data` by `share` of itself (of 1 where it is smaller than 1), the
    signs alternating, and forward: the start another CPU's or another MuJoCo build's round-off would give."""
    signs = np.where(np.arange(model.nq) % 2, -1.0, 1.0)
    data.qpos[:] += share * signs * np.maximum(np.abs(data.qpos), 1.0)
    mujoco.mj_normalizeQuat(model, data.qpos)
    mujoco.mj_forward(model, data)


def seeded_controls(model: mujoco.MjModel, rng: np.random.Generator) -> np.ndarray:
    """One draw of controls: uniform inside each limited actuator's ctrlrange, in [-1, 1] otherwise."""
    low, high = model.actuator_ctrlrange.T
    limited = model.actuator_ctrllimited.astype(bool)
    return np.where(limited, rng.uniform(np.where(limited, low, -1), np.where(limited, high, 1)),
                    rng.uniform(-1, 1, model.nu))


@dataclass(frozen=True)
class Driven:
    """A run under seeded controls: MuJoCo's warnings, and the state just before each new draw of the controls
    (forwarded copies, the first the start): driven motion, where limbs swing, touch each other and load loops."""

    warnings: dict[str, int]
    states: list[mujoco.MjData]
    coverage: Coverage | None = None  # what the run reached, step by step (`coverage.Coverage`)


def driven(model: mujoco.MjModel, steps: int, keyframe: str, seed: int, *, seeded: bool = True) -> Driven:
    """`steps` steps from `start` under seeded controls redrawn every `CONTROL_PERIOD` (with `seeded=False`, the
    start's controls held); a forwarded copy of the state is kept at each redraw, and what the run reached is
    recorded after each step (`coverage.Coverage`)."""
    rng = np.random.default_rng(seed)
    data = start(model, keyframe)
    period = max(1, int(round(CONTROL_PERIOD / model.opt.timestep)))
    states = []
    reached = Coverage(model)
    reached.see(data)
    for i in range(steps):
        if i % period == 0:
            if seeded and model.nu:
                data.ctrl[:] = seeded_controls(model, rng)
            kept = copy.copy(data)
            mujoco.mj_forward(model, kept)
            states.append(kept)
        mujoco.mj_step(model, data)
        reached.see(data)
    return Driven(warnings_of(data), states, reached)


def moments(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(nu, nv) each actuator's moment arm on each dof at `data`'s last forward pass: MuJoCo's sparse
    `actuator_moment`, dense."""
    return mujoco_versions.actuator_moments(model, data)


def servos(model: mujoco.MjModel) -> np.ndarray:
    """Position servos: a fixed gain and an affine bias that pulls back on the actuator's length (-kp)."""
    per = lambda name: mujoco_versions.per_control(model, name)  # noqa: E731 (controls, not actuators)
    return np.flatnonzero((per("actuator_gaintype") == mujoco.mjtGain.mjGAIN_FIXED)
                          & (per("actuator_biastype") == mujoco.mjtBias.mjBIAS_AFFINE)
                          & (per("actuator_gainprm")[:, 0] > 0) & (per("actuator_biasprm")[:, 1] < 0))


def held(model: mujoco.MjModel, steps: int, keyframe: str) -> tuple[mujoco.MjData, mujoco.MjData]:
    """(start, end) of a run from `start` whose position servos target the starting pose itself (the control
    at which each pushes nothing there, inside its ctrlrange), the other actuators at the start's controls."""
    data = start(model, keyframe)
    first = copy.copy(data)
    s = servos(model)
    bias, gain = (mujoco_versions.per_control(model, f) for f in ("actuator_biasprm", "actuator_gainprm"))
    target = -(bias[s, 0] + bias[s, 1] * data.actuator_length[s]) / gain[s, 0]
    limited = model.actuator_ctrllimited[s].astype(bool)
    low, high = model.actuator_ctrlrange[s].T
    data.ctrl[s] = np.where(limited, np.clip(target, low, high), target)
    actadr, actnum = (mujoco_versions.per_control(model, f) for f in ("actuator_actadr", "actuator_actnum"))
    for a in s:  # a filtered servo starts with its activation at its control
        if actadr[a] >= 0:
            data.act[actadr[a]: actadr[a] + actnum[a]] = data.ctrl[a]
    for _ in range(steps):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return first, data


def halved(model: mujoco.MjModel, factor: int = 2) -> dict[str, float]:
    """The options that step `model` at its timestep / `factor` (for `options.changed`)."""
    return {"timestep": float(model.opt.timestep) / factor}


def floating_roots(model: mujoco.MjModel) -> list[int]:
    """Bodies whose joint is free and whose parent is the world: the roots of floating trees."""
    free = int(mujoco.mjtJoint.mjJNT_FREE)
    return [int(model.jnt_bodyid[j]) for j in range(model.njnt)
            if int(model.jnt_type[j]) == free and model.body_parentid[model.jnt_bodyid[j]] == 0]


def flex_nodes(model: mujoco.MjModel) -> set[int]:
    """The bodies that move a flex: its vertices' (`flex_vertbodyid`) or, where its vertices are interpolated
    (`dof="trilinear"`, `"quadratic"`), its control nodes' (`flex_nodebodyid`, MuJoCo 3.3 on): the soft body's
    nodes, whose mass and inertia the flex's compiler sets and whose contacts are the flex's (its own contype and
    conaffinity, not a geom's)."""
    ids = [np.asarray(getattr(model, name, []), dtype=int) for name in ("flex_vertbodyid", "flex_nodebodyid")]
    return set(np.concatenate(ids).tolist()) - {0, -1}


def falling_roots(model: mujoco.MjModel) -> list[int]:
    """Roots of trees that gravity can move down: a free joint's, or a root body with a slide joint along gravity
    (a planar walker's rootz: gymnasium's Hopper, dm_control's walker). What holds them up is contact alone. A
    flex's nodes are left out: the flex holds them (a soft bunny's vertex bodies slide freely along gravity)."""
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    g = np.asarray(model.opt.gravity, dtype=float)
    down = g / np.linalg.norm(g) if np.any(g) else np.array([0.0, 0.0, -1.0])
    roots = set(floating_roots(model))
    for j in range(model.njnt):
        body = int(model.jnt_bodyid[j])
        if (model.body_parentid[body] == 0 and int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_SLIDE)
                and abs(float(data.xaxis[j] @ down)) > 0.5 and not model.jnt_limited[j]):
            roots.add(body)
    return sorted(roots - flex_nodes(model))


def equality_trees(model: mujoco.MjModel, eq: int) -> set[int]:
    """The kinematic trees (`body_treeid`; -1 for the world and anything fixed to it, mocap bodies included)
    whose bodies an equality constraint acts on: its bodies, its sites' or joints' bodies, or every body
    a tendon of it passes (a site or a wrapping geom on the world puts the world in). A flex: the world."""
    kind, objtype = int(model.eq_type[eq]), mujoco_versions.equality_objtype(model, eq)
    kinds, tree = mujoco.mjtEq, lambda body: int(model.body_treeid[body])
    if kind in (int(kinds.mjEQ_CONNECT), int(kinds.mjEQ_WELD)):
        to_body = model.site_bodyid if objtype == int(mujoco.mjtObj.mjOBJ_SITE) else range(model.nbody)
        return {tree(to_body[o]) for o in (model.eq_obj1id[eq], model.eq_obj2id[eq])}
    if kind == int(kinds.mjEQ_JOINT):
        return {tree(model.jnt_bodyid[j]) for j in (model.eq_obj1id[eq], model.eq_obj2id[eq]) if j >= 0}
    if kind == int(kinds.mjEQ_TENDON):
        return {t for tendon in (model.eq_obj1id[eq], model.eq_obj2id[eq]) if tendon >= 0
                for t in tendon_trees(model, int(tendon))}
    return {-1}


def tendon_trees(model: mujoco.MjModel, tendon: int) -> set[int]:
    """The trees (-1: the world) of the joints, sites and wrapping geoms a tendon passes."""
    owner = {int(mujoco.mjtWrap.mjWRAP_JOINT): model.jnt_bodyid, int(mujoco.mjtWrap.mjWRAP_SITE): model.site_bodyid,
             int(mujoco.mjtWrap.mjWRAP_SPHERE): model.geom_bodyid, int(mujoco.mjtWrap.mjWRAP_CYLINDER): model.geom_bodyid}
    wraps = range(model.tendon_adr[tendon], model.tendon_adr[tendon] + model.tendon_num[tendon])
    return {int(model.body_treeid[owner[int(model.wrap_type[w])][model.wrap_objid[w]]])
            for w in wraps if int(model.wrap_type[w]) in owner}
