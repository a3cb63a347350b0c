"""The Newton adapter of the route laws: the user's MJCF imported by Newton (`ModelBuilder.add_mjcf`) and run by
`SolverMuJoCo` on MuJoCo's own CPU backend (`use_mujoco_cpu=True`), beside MuJoCo C running the same file.

What this route judges is Newton's coupling, not another integrator: Newton's MJCF import, its conversion of its
model back to a MuJoCo model (an MjSpec it compiles, then the properties it syncs into it through
`notify_model_changed`, which the solver calls on its own model while it is built), its controls (imported with
`ctrl_direct`, so each actuator stays the file's) and its state, which makes a round trip through Newton's float32
joint arrays every step (hence float32's precision). MuJoCo C computes each step in float64.

Newton's import is not MuJoCo's compiler; where it differs in what the laws compare, the route refuses the model
(every law skips naming it) instead of reporting the difference as a finding: a body tree, joint types or
actuator count other than the file's, or solver options the file sets that Newton's model does not keep (the
file's options are passed to `SolverMuJoCo`, as a user who wants the file's physics does). Newton's converted
model names bodies and joints by their path ("robot_worldbody_torso_arm"): they are matched to the file's in
order, their names checked where the file names them.

Each world runs alone on the one CPU model (MuJoCo's CPU backend steps one world): reset, the start state put
into MuJoCo's data and turned into Newton's state by Newton's own conversion, then stepped by `solver.step`
under the world's controls; the state and bodies the laws read are MuJoCo's data of Newton's model. MuJoCo C
allocates contacts and rows as it goes (no capacity to overflow); its warnings for a full arena are counted.

Availability is decided from installed metadata before Newton is imported: newton, warp-lang, mujoco-warp (the
solver builds its MJWarp model even on the CPU backend). A MuJoCo release other than the one Newton declares is
a note in the run, not a refusal: Newton itself only warns, and the laws judge what it computes.
"""

from __future__ import annotations

import inspect
import os
import time
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from pytest_physlaw.pack.routes.common import RouteRun, RouteSetup, RouteUnsupported, World
from pytest_physlaw.pack.routes.newton_versions import declared_mismatch, unavailable, versions  # noqa: F401  (the adapter's interface)

NEEDS_SOURCE = True  # the route imports the model's file, not the compiled MjModel (`routes._run` passes it)
# Solver options the file sets and Newton's model must keep: (MjOption field, SolverMuJoCo keyword or None where
# the solver takes none). Each keyword is passed only where the installed Newton's SolverMuJoCo takes it.
OPTIONS = (("integrator", "integrator"), ("solver", "solver"), ("cone", "cone"), ("jacobian", "jacobian"),
           ("iterations", "iterations"), ("ls_iterations", "ls_iterations"), ("tolerance", "tolerance"),
           ("ls_tolerance", "ls_tolerance"), ("impratio", "impratio"), ("density", "density"),
           ("viscosity", "viscosity"), ("wind", "wind"), ("magnetic", "magnetic"), ("ccd_iterations", "ccd_iterations"),
           ("ccd_tolerance", "ccd_tolerance"), ("gravity", None), ("disableflags", None), ("enableflags", None),
           ("noslip_iterations", None))
WARNINGS = ("mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL")  # MuJoCo C's arena filled: contacts or rows dropped
CACHE = Path(__file__).resolve().parents[3] / ".warp_cache"


def device_kind() -> str:
    return "cpu"  # MuJoCo's CPU backend, wherever Newton's own kernels run


def _import() -> tuple[Any, Any]:
    """newton and its SolverMuJoCo, warp quiet and its kernel cache set first."""
    os.environ.setdefault("WARP_CACHE_PATH", str(CACHE))
    import warp as wp

    wp.config.quiet = True  # warp-lang before 1.14 prints its banner and each module load unless quiet
    if hasattr(wp, "LOG_WARNING"):  # later releases log them at INFO
        wp.config.log_level = wp.LOG_WARNING
    import newton
    from newton.solvers import SolverMuJoCo

    return newton, SolverMuJoCo


def _builder(newton: Any, gravity: np.ndarray) -> Any:
    """A ModelBuilder with the file's gravity: Newton 1.2-1.3 take it as a number along the up axis (z), later
    releases as a vector."""
    annotation = str(inspect.signature(newton.ModelBuilder).parameters["gravity"].annotation)
    if "float" in annotation and "Vec" not in annotation:
        if np.any(gravity[:2]):
            raise RouteUnsupported(f"newton {newton.__version__} takes gravity along its up axis only; the file's "
                                   f"gravity is {gravity.tolist()}")
        return newton.ModelBuilder(gravity=float(gravity[2]))
    return newton.ModelBuilder(gravity=tuple(float(g) for g in gravity))


def _option_kwargs(solver_cls: Any, mjm: mujoco.MjModel) -> dict[str, Any]:
    """The file's solver options as SolverMuJoCo's keywords, those the installed Newton takes."""
    taken = inspect.signature(solver_cls).parameters
    out: dict[str, Any] = {}
    for field, keyword in OPTIONS:
        if keyword is None or keyword not in taken or not hasattr(mjm.opt, field):
            continue
        value = getattr(mjm.opt, field)
        out[keyword] = tuple(float(v) for v in value) if np.ndim(value) else value
    multiccd = getattr(mujoco.mjtDisableBit, "mjDSBL_MULTICCD", None)
    if "enable_multiccd" in taken and multiccd is not None:  # Newton turns MuJoCo's multi-contact CCD off unless asked
        out["enable_multiccd"] = not mjm.opt.disableflags & int(multiccd)
    return out


def _differs(a: Any, b: Any) -> bool:
    """Whether two option values differ beyond float32's rounding (Newton keeps its options in float32)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return not np.allclose(a, b, rtol=1e-6, atol=1e-12)


def build(mjm: mujoco.MjModel, source: str | Path) -> tuple[Any, Any, Any]:
    """Newton's model of the file and its MuJoCo solver on the CPU backend, with `mjm`'s solver options:
    (model, solver, newton); RouteUnsupported where Newton refuses the model or keeps another structure."""
    newton, solver_cls = _import()
    version = newton.__version__
    builder = _builder(newton, np.asarray(mjm.opt.gravity, dtype=float))
    try:
        builder.add_mjcf(str(source), ctrl_direct=True)
        model = builder.finalize(device="cpu")
        solver = solver_cls(model, use_mujoco_cpu=True, **_option_kwargs(solver_cls, mjm))
    except (NotImplementedError, ValueError, KeyError) as e:
        raise RouteUnsupported(f"newton {version} cannot import or convert this model: {type(e).__name__}: {e}") from e
    check_structure(mjm, solver.mj_model, version)
    return model, solver, newton


def check_structure(mjm: mujoco.MjModel, got: mujoco.MjModel, version: str) -> None:
    """Refuse (RouteUnsupported) where Newton's MuJoCo model is not the file's tree, joints, actuators or options."""
    where = f"newton {version}'s model of the file"
    sizes = {k: (getattr(mjm, k), getattr(got, k)) for k in ("nbody", "njnt", "nq", "nv", "nu", "na")}
    off = [f"{k} {theirs} (the file: {ours})" for k, (ours, theirs) in sizes.items() if ours != theirs]
    if off:
        raise RouteUnsupported(f"{where} has {', '.join(off)}")
    if not np.array_equal(mjm.body_parentid, got.body_parentid) or not np.array_equal(mjm.jnt_type, got.jnt_type):
        raise RouteUnsupported(f"{where} has another body tree or other joint types (Newton's import reorders or "
                               "converts them)")
    for kind, n in (("body", mjm.nbody), ("joint", mjm.njnt)):
        for i in range(1 if kind == "body" else 0, n):
            name = getattr(mjm, kind)(i).name
            theirs = getattr(got, kind)(i).name
            if name and not (theirs == name or theirs.endswith("_" + name) or theirs.endswith("/" + name)):
                raise RouteUnsupported(f"{where} puts {kind} {theirs!r} where the file has {name!r}")
    options = [f"{field} {getattr(got.opt, field)} (the file: {getattr(mjm.opt, field)})" for field, _ in OPTIONS
               if hasattr(mjm.opt, field) and _differs(getattr(mjm.opt, field), getattr(got.opt, field))]
    if options:
        raise RouteUnsupported(f"{where} runs other solver options than the file's: {'; '.join(options)}")


def _start(solver: Any, model: Any, world: World, version: str) -> Any:
    """Newton's state of the world's start, from MuJoCo's data through Newton's own conversion."""
    mjm, d = solver.mj_model, solver.mj_data
    mujoco.mj_resetData(mjm, d)
    d.qpos[:], d.qvel[:], d.act[:] = world.qpos, world.qvel, world.act
    d.qacc_warmstart[:] = world.qacc_warmstart
    mujoco.mj_forward(mjm, d)
    state = model.state()
    try:
        solver._update_newton_state(model, state, d, state_prev=state)  # Newton's MuJoCo-to-Newton conversion
    except AttributeError as e:
        raise RouteUnsupported(f"newton {version} has no MuJoCo-to-Newton state conversion "
                               f"the route can start a world with: {e}") from e
    return state


def _float32_only(setup: RouteSetup) -> None:
    if setup.precision != "float32":
        raise RouteUnsupported("Newton keeps its state in float32 between SolverMuJoCo's steps: ini "
                               f"physlaw_route_precision = {setup.precision} is for MJX")


def run(mjm: mujoco.MjModel, worlds: list[World], setup: RouteSetup, *, source: str | Path) -> RouteRun:
    """Each world from its start under its controls on Newton's SolverMuJoCo (MuJoCo CPU backend), one step a row."""
    _float32_only(setup)
    started = time.perf_counter()
    model, solver, newton = build(mjm, source)
    steps, n = worlds[0].ctrl.shape[0], len(worlds)
    shape = lambda *s: np.zeros((n, steps + 1, *s))  # noqa: E731
    qpos, qvel, xipos, xquat = shape(mjm.nq), shape(mjm.nv), shape(mjm.nbody, 3), shape(mjm.nbody, 4)
    niter, capped = np.zeros((n, steps), dtype=int), np.zeros((n, steps), dtype=bool)
    overflow = {name.split("_", 1)[1]: 0 for name in WARNINGS}
    qfrc, force = np.zeros((n, mjm.nv)), np.zeros((n, mjm.nu))
    contacts_max = rows_max = 0
    compile_seconds = stepping = 0.0
    dt, d = float(mjm.opt.timestep), solver.mj_data
    control = model.control()
    for w, world in enumerate(worlds):
        state_in, state_out = _start(solver, model, world, newton.__version__), model.state()
        if w == 0:
            compile_seconds = time.perf_counter() - started
        qpos[w, 0], qvel[w, 0], xipos[w, 0], xquat[w, 0] = d.qpos, d.qvel, d.xipos, d.xquat
        counts = {name: int(d.warning[int(getattr(mujoco.mjtWarning, name))].number) for name in WARNINGS}
        for i in range(steps):
            if mjm.nu:
                control.mujoco.ctrl.assign(np.asarray(world.ctrl[i], dtype=np.float32))
            tick = time.perf_counter()
            solver.step(state_in, state_out, control, None, dt)
            stepping += time.perf_counter() - tick
            state_in, state_out = state_out, state_in
            # MuJoCo's data after its step: the bodies as the step saw them (before it integrated), as C's are kept
            qpos[w, i + 1], qvel[w, i + 1], xipos[w, i + 1], xquat[w, i + 1] = d.qpos, d.qvel, d.xipos, d.xquat
            niter[w, i] = int(d.solver_niter[0])
            capped[w, i] = d.nefc > 0 and niter[w, i] >= mjm.opt.iterations
            contacts_max, rows_max = max(contacts_max, int(d.ncon)), max(rows_max, int(d.nefc))
            for name in WARNINGS:
                number = int(d.warning[int(getattr(mujoco.mjtWarning, name))].number)
                overflow[name.split("_", 1)[1]] += int(number > counts[name])
                counts[name] = number
        qfrc[w], force[w] = d.qfrc_constraint, d.actuator_force
    notes = [n for n in (declared_mismatch(),) if n]
    return RouteRun(route="newton", device="cpu", versions=versions(), precision="float32", timestep=dt,
                    cap=int(mjm.opt.iterations), qpos=qpos, qvel=qvel, xipos=xipos, xquat=xquat, qfrc_constraint=qfrc,
                    actuator_force=force, niter=niter, capped=capped, overflow=overflow, contacts_max=contacts_max,
                    rows_max=rows_max, capacity={"contacts": None, "rows": None}, compile_seconds=compile_seconds,
                    step_seconds=stepping / max(steps, 1), notes=notes)


# What a user edits in Newton's own model and reaches MuJoCo by `notify_model_changed`: the bodies' masses and inertia
# tensors (BODY_INERTIAL_PROPERTIES). Its joints' reference pose and armature reach it by other flags, not judged here.
SET_CONST_EDITS = ("body_mass", "body_inertia")


def set_const(mjm: mujoco.MjModel, edited: mujoco.MjModel, fields: tuple[str, ...], constants: tuple[str, ...],
              setup: RouteSetup, *, source: str | Path) -> dict[str, np.ndarray]:
    """MuJoCo's `constants` of Newton's model of the file after every body's mass and inertia tensor in Newton's
    model are scaled as `edited`'s (one factor for all) and `notify_model_changed(BODY_INERTIAL_PROPERTIES)` is
    called, which syncs them into its MuJoCo model and recomputes the constants there (on the CPU backend:
    `mj_setConst` on Newton's MuJoCo model)."""
    import warp as wp

    _float32_only(setup)
    if set(fields) - set(SET_CONST_EDITS):
        raise RouteUnsupported(f"Newton's route edits only {', '.join(SET_CONST_EDITS)} (asked: {', '.join(fields)})")
    moving = np.asarray(mjm.body_mass) > 0
    factor = float(np.sum(edited.body_mass) / max(float(np.sum(mjm.body_mass)), 1e-300))
    if not np.allclose(np.asarray(edited.body_mass)[moving], factor * np.asarray(mjm.body_mass)[moving], rtol=1e-12):
        raise RouteUnsupported("Newton's route scales every body's mass by one factor; the edit does not")
    model, solver, newton = build(mjm, source)
    # the notification's flags: newton.ModelFlags (1.7), earlier newton.solvers.SolverNotifyFlags
    notify = getattr(newton, "ModelFlags", None) or getattr(getattr(newton, "solvers", None), "SolverNotifyFlags", None)
    inertial = getattr(notify, "BODY_INERTIAL_PROPERTIES", None)
    if inertial is None:
        raise RouteUnsupported(f"newton {newton.__version__} has no BODY_INERTIAL_PROPERTIES notification")
    with wp.ScopedDevice("cpu"):
        mass = model.body_mass.numpy() * factor
        inertia = model.body_inertia.numpy() * factor
        model.body_mass.assign(mass)
        model.body_inertia.assign(inertia)
        # the inverses Newton keeps beside them, kept consistent (its own solvers read them)
        if getattr(model, "body_inv_mass", None) is not None:
            model.body_inv_mass.assign(np.where(mass > 0, 1.0 / np.where(mass > 0, mass, 1.0), 0.0))
        if getattr(model, "body_inv_inertia", None) is not None:
            model.body_inv_inertia.assign(np.array([np.linalg.pinv(i) for i in inertia.reshape(-1, 3, 3)],
                                                   dtype=inertia.dtype).reshape(inertia.shape))
        solver.notify_model_changed(inertial)
    got = solver.mj_model
    return {name: np.array(getattr(got, name), dtype=float) for name in constants if hasattr(got, name)}
