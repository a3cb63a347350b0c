"""The MJX adapter of the route laws: the user's model on MJX (MuJoCo in JAX, its JAX implementation), a batch
of worlds `vmap`ped and stepped with `jax.lax.scan` inside one `jax.jit`, in float32 or float64.

Imported only when a run asks for the route (`--physlaw-route=mjx`) and `routes.common.unavailable` found
mujoco-mjx of MuJoCo's version with jax. It reuses the suite's MJX route (`fixtures/mjx/route.py`, through
`pytest_physlaw.kit`): JAX's persistent compilation cache (`JAX_COMPILATION_CACHE_DIR`, default the repo's
`.jax_cache/`), the precision switch (`enable_x64` only around the route's calls) and its reading of MJX's
solver iteration count, which MJX keeps only inside its solver loop (`route.solver_iterations`). MJX has no flag for a
solve stopped at the cap: a step that used all `opt.iterations` counts as capped, as the suite's MJX laws
count it.

MJX's JAX implementation evaluates every geom pair a model can collide each step and allocates a constraint
row for every contact it can make: no `nconmax`/`njmax` to outgrow. What it does drop is what a model's
`max_contact_points` and `max_geom_pairs` numerics (or ini `physlaw_route_nconmax`, written into the route's
copy of the model as `max_contact_points`) tell it to: it keeps the deepest contacts of each contact
dimension and drops the rest without a word. A step whose kept contacts are all touching has filled that
capacity; at such a step the route's pose is given to MuJoCo C, and where C finds more touching contacts of
that dimension than the capacity, the route dropped them.
"""

from __future__ import annotations

import time
from pathlib import Path

import mujoco
import numpy as np

from pytest_physlaw import kit
from pytest_physlaw.pack.routes.common import RouteRun, RouteSetup, RouteUnsupported, World

route = kit.scenes("mjx.route")  # sets JAX_COMPILATION_CACHE_DIR's default before jax is imported
jax, mjx = route.jax, route.mjx
jnp = jax.numpy
CAPACITY_NUMERICS = ("max_contact_points", "max_geom_pairs")


def device_kind() -> str:
    return route.device_kind()


def versions() -> dict[str, str]:
    return route.versions()


def numeric(mjm: mujoco.MjModel, name: str) -> int:
    """The model's custom numeric `name` (MJX's capacities), or -1 where it has none."""
    found = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_NUMERIC, name)
    return int(mjm.numeric_data[mjm.numeric_adr[found]]) if found >= 0 else -1


def with_contact_capacity(path: Path, mjm: mujoco.MjModel, nconmax: int) -> mujoco.MjModel:
    """`mjm` recompiled from its file with `max_contact_points` = `nconmax` (MJX's contact capacity), its
    solver options kept; MuJoCo C ignores the numeric."""
    spec = mujoco.MjSpec.from_file(str(path))
    for n in list(spec.numerics):
        if n.name == "max_contact_points":
            spec.delete(n)
    spec.add_numeric(name="max_contact_points", data=[float(nconmax)])
    out = spec.compile()
    out.opt.solver, out.opt.iterations, out.opt.ls_iterations = mjm.opt.solver, mjm.opt.iterations, mjm.opt.ls_iterations
    out.opt.timestep = mjm.opt.timestep
    return out


def _step(mx, d):
    """One MJX step and its solver iterations, read from MJX's own solver loop (`fixtures.mjx.route`). Where no
    loop ran: 0 for a model without constraint rows (MJX solves nothing), else the cap itself (a cap of 1 runs
    its one iteration outside a loop); -1 where the step solves more than once (RK4)."""
    found: list = []
    with route.solver_iterations(found):
        d = mjx.step(mx, d)
    if not found:
        rows = route.releases.implementation(d).efc_J.size  # static: the model's constraint rows
        return d, jnp.asarray(mx.opt.iterations if rows else 0)
    if len(found) == 1:
        return d, found[0]
    # RK4 solves inside a jax.lax.scan of its stages: those counts live in the scan's own trace and cannot be
    # read out of it; the step's count is unknown (-1), and the cap law says so
    return d, jnp.asarray(-1)


def _rollout(mx, d0, qpos, qvel, act, warm, ctrl, cap_points):
    """One world: from its start state, one step a row of `ctrl`; what the laws read, each step."""
    d = d0.replace(qpos=qpos, qvel=qvel, act=act, qacc_warmstart=warm)

    def one(d, c):
        d, niter = _step(mx, d.replace(ctrl=c))
        contact = route.releases.contact(d)
        touching = contact.dist < contact.includemargin
        full = jnp.asarray(False)
        if cap_points > 0:
            for dim in sorted(set(np.asarray(contact.dim).tolist())):
                in_dim = np.asarray(contact.dim) == dim
                if int(in_dim.sum()) >= cap_points:
                    full = full | (jnp.sum(touching & in_dim) >= cap_points)
        return d, (d.qpos, d.qvel, d.xipos, d.xquat, niter, jnp.sum(touching), full, d.act)

    d, out = jax.lax.scan(one, d, ctrl)
    return out, d.qfrc_constraint, route.releases.actuator_force(d)


_ROLLOUTS: dict[int, object] = {}


def rollout(cap_points: int):
    """The jitted batch of `_rollout` for a contact capacity (-1: none): worlds mapped, the model shared."""
    if cap_points not in _ROLLOUTS:
        def batch(mx, d0, qpos, qvel, act, warm, ctrl):
            return _rollout(mx, d0, qpos, qvel, act, warm, ctrl, cap_points)

        _ROLLOUTS[cap_points] = jax.jit(jax.vmap(batch, in_axes=(None, None, 0, 0, 0, 0, 0)))
    return _ROLLOUTS[cap_points]


def muscles_undifferentiated(mjm: mujoco.MjModel) -> str | None:
    """Where MJX's implicit step is not C's: mujoco-mjx's velocity derivative (`mjx/_src/derivative.py`, 3.14.0)
    takes the affine gains' and biases' velocity terms only, where MuJoCo C's also differentiates a muscle's
    force-velocity curve. Measured (the corpus's muscle arm, implicitfast, one step from a moving state, float64):
    qvel 1.4e-3 from C; the same arm on Euler 5.7e-14, without its muscle 1.4e-17."""
    muscles = int(np.count_nonzero(np.asarray(mjm.actuator_gaintype) == int(mujoco.mjtGain.mjGAIN_MUSCLE)))
    if not muscles or mjm.opt.integrator != int(mujoco.mjtIntegrator.mjINT_IMPLICITFAST):
        return None
    return (f"the model steps implicitfast with {muscles} muscle(s): MJX's implicit derivative leaves out the "
            "muscles' force-velocity term that MuJoCo C's includes, so its step is not C's (the Euler integrator "
            "steps alike on both)")


def traced(mjm: mujoco.MjModel, cap_points: int, precision: str, args: tuple):
    """The batch as a function of its flat input arrays, compiled. MJX's step takes long to trace for a model
    with many geom pairs (Menagerie's Panda with a cube: ~100 s here, where the compiled step loads from
    JAX's cache in ~1 s), so the traced batch is kept too (`route.kept_trace`, keyed by the model, the
    capacity, the precision, the batch's shapes, the versions and this adapter's source): a warm run loads
    it and traces nothing of MJX."""
    return route.kept_trace(rollout(cap_points), args, mjm, (cap_points, precision), sources=(Path(__file__),))


def put(mjm: mujoco.MjModel):
    try:
        return mjx.put_model(mjm)
    except NotImplementedError as e:
        raise RouteUnsupported(f"MJX (mujoco-mjx {route.versions().get('mujoco-mjx')}, JAX implementation) cannot run "
                               f"this model: {e} (its solvers: {', '.join(route.mjx_solvers())})") from e


def run(mjm: mujoco.MjModel, worlds: list[World], setup: RouteSetup) -> RouteRun:
    """Step `worlds` together on MJX, each from its start state under its controls, one step a row."""
    steps, n = worlds[0].ctrl.shape[0], len(worlds)
    cap_points = numeric(mjm, "max_contact_points")
    started = time.perf_counter()
    with route._precision(setup.precision):
        mx = put(mjm)
        d0 = mjx.make_data(mx)
        dtype = d0.qpos.dtype
        stack = lambda name: jnp.asarray(np.stack([getattr(w, name) for w in worlds]), dtype=dtype)  # noqa: E731
        args = (mx, d0, stack("qpos"), stack("qvel"), stack("act"), stack("qacc_warmstart"),
                jnp.asarray(np.stack([w.ctrl for w in worlds]), dtype=dtype))
        leaves, tree = jax.tree_util.tree_flatten(args)
        try:
            compiled = traced(mjm, cap_points, setup.precision, args)
            compile_seconds = time.perf_counter() - started
            tick = time.perf_counter()
            out, qfrc, force = jax.block_until_ready(compiled(*leaves))
        except (TypeError, ValueError):
            # jax turned parts of some models (gym's Ant) into extra arguments of the program, which neither a
            # compiled program called on its own arguments nor an export takes: jit's own call, traced each run
            flat = route.flat(rollout(cap_points), tree)
            jax.block_until_ready(flat(*leaves))
            compile_seconds = time.perf_counter() - started
            tick = time.perf_counter()
            out, qfrc, force = jax.block_until_ready(flat(*leaves))
        run_seconds = time.perf_counter() - tick
    qpos, qvel, xipos, xquat, niter, touching, full, act = (np.asarray(a) for a in out)
    start = _start_bodies(mjm, worlds)

    def with_start(first: np.ndarray, rest: np.ndarray) -> np.ndarray:
        return np.concatenate([first[:, None], rest.astype(float)], axis=1)

    niter = niter.reshape(n, steps)
    own_force = force is not None
    if force is None:  # MJX 3.1 keeps no actuator force: C's actuator model on the route's own state of the last
        # step's start (where a step computes its forces), under the last step's controls
        before = [with_start(np.stack([getattr(w, k) for w in worlds]), v)[:, -2] for k, v in
                  (("qpos", qpos), ("qvel", qvel), ("act", act))]
        force = _c_actuator_force(mjm, *before, np.stack([w.ctrl[-1] for w in worlds]))
    overflow = {}
    notes = [n for n in (route.reduced_matmul(route.device_kind(), setup.precision), muscles_undifferentiated(mjm))
             if n]
    if cap_points > 0 or numeric(mjm, "max_geom_pairs") > 0:
        filled = int(np.count_nonzero(full))
        dropped = _dropped_steps(mjm, qpos, full, cap_points) if filled else 0
        overflow = {"contacts_dropped": dropped}
        if filled:
            notes.append(f"max_contact_points {cap_points} filled in {filled} world-steps")
    return RouteRun(route="mjx", device=route.device_kind(), versions=route.versions(), precision=setup.precision,
                    timestep=float(mjm.opt.timestep), cap=int(mjm.opt.iterations),
                    qpos=with_start(np.stack([w.qpos for w in worlds]), qpos),
                    qvel=with_start(np.stack([w.qvel for w in worlds]), qvel),
                    xipos=with_start(start[0], xipos), xquat=with_start(start[1], xquat),
                    qfrc_constraint=np.asarray(qfrc, dtype=float), actuator_force=np.asarray(force, dtype=float),
                    niter=niter, capped=niter >= int(mjm.opt.iterations), overflow=overflow,
                    contacts_max=int(np.max(touching)) if touching.size else 0, rows_max=0,
                    capacity={"contacts": cap_points if cap_points > 0 else None, "rows": None},
                    compile_seconds=compile_seconds, step_seconds=run_seconds / max(steps, 1), notes=notes,
                    own_actuator_force=own_force)


def _c_actuator_force(mjm: mujoco.MjModel, qpos: np.ndarray, qvel: np.ndarray, act: np.ndarray,
                      ctrl: np.ndarray) -> np.ndarray:
    """(nworld, nu) the actuator forces MuJoCo C computes at each world's state under its controls."""
    data = mujoco.MjData(mjm)
    forces = []
    for q, v, a, c in zip(qpos, qvel, act, ctrl):
        data.qpos[:], data.qvel[:], data.act[:], data.ctrl[:] = q, v, a, c
        mujoco.mj_forward(mjm, data)
        forces.append(data.actuator_force.copy())
    return np.array(forces).reshape(len(qpos), mjm.nu)


def _start_bodies(mjm: mujoco.MjModel, worlds: list[World]) -> tuple[np.ndarray, np.ndarray]:
    """(xipos, xquat) of each world's start, from MuJoCo C's kinematics."""
    data = mujoco.MjData(mjm)
    xipos, xquat = [], []
    for w in worlds:
        data.qpos[:] = w.qpos
        mujoco.mj_kinematics(mjm, data)
        xipos.append(data.xipos.copy())
        xquat.append(data.xquat.copy())
    return np.array(xipos), np.array(xquat)


def _dropped_steps(mjm: mujoco.MjModel, qpos: np.ndarray, full: np.ndarray, cap_points: int) -> int:
    """World-steps with a filled contact capacity at whose pose MuJoCo C finds more touching contacts of one
    dimension than the capacity: those the route dropped."""
    data = mujoco.MjData(mjm)
    dropped = 0
    for w, s in zip(*np.nonzero(full)):
        data.qpos[:] = qpos[w, s]
        mujoco.mj_fwdPosition(mjm, data)
        dims = [int(data.contact.dim[i]) for i in range(data.ncon) if data.contact.dist[i] < data.contact.includemargin[i]]
        if dims and max(np.bincount(dims)) > cap_points:
            dropped += 1
    return dropped


def ray_types() -> frozenset[int]:
    """The geom types MJX's `ray` intersects (its own table, `_RAY_FUNC`; the rest it passes over)."""
    from mujoco.mjx._src import ray as mjx_ray  # the table is private: read where it is, else the 3.1 set

    table = getattr(mjx_ray, "_RAY_FUNC", None)
    if table:
        return frozenset(int(t) for t in table)
    g = mujoco.mjtGeom
    return frozenset(int(t) for t in (g.mjGEOM_PLANE, g.mjGEOM_SPHERE, g.mjGEOM_CAPSULE, g.mjGEOM_BOX, g.mjGEOM_MESH))


def rays(mjm: mujoco.MjModel, host: mujoco.MjData, pnts: np.ndarray, vecs: np.ndarray,
         setup: RouteSetup) -> tuple[np.ndarray, np.ndarray]:
    """(distance, geom id; -1 where none) of each ray `pnts[i] + x vecs[i]` by MJX's `ray`, at `host`'s forwarded
    poses (MuJoCo C's, put on the route), all rays in one vmapped call at the setup's precision."""
    with route._precision(setup.precision):
        mx = put(mjm)
        dx = mjx.put_data(mjm, host)
        cast = jax.jit(jax.vmap(lambda p, v: mjx.ray(mx, dx, p, v)))
        dtype = dx.geom_xpos.dtype
        dist, geomid = cast(jnp.asarray(pnts, dtype=dtype), jnp.asarray(vecs, dtype=dtype))
        return np.asarray(dist, dtype=float), np.asarray(geomid, dtype=int)
