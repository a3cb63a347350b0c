"""The MuJoCo Warp adapter of the route laws: the user's model on MJWarp, a batch of worlds stepped together.

Imported only when a run asks for the route (`--physlaw-route=warp`) and `routes.common.unavailable` found
mujoco-warp of MuJoCo's release. It reuses the suite's MuJoCo Warp route (`fixtures/warp/route.py`, through
`pytest_physlaw.kit`): the device it picks (CUDA when Warp sees one, else the CPU), Warp's kernel cache
(`WARP_CACHE_PATH`, default the repo's `.warp_cache/`), its capture of the "solver iterations limit reached"
text MJWarp prints from its kernels, and its iteration-cap bit (`OverflowType.ITERATIONS`).

Each step is one captured graph replayed (a CUDA graph, or on the CPU warp-lang 1.19's recorded launches);
between steps the controls of the next step are written and what the laws read is copied out: every
world's state and bodies, its solver iterations, whether its solve stopped at the cap, its contact and
constraint-row counts, and MJWarp's own overflow bits (contacts beyond `naconmax`, rows beyond `njmax`,
broad- and narrow-phase buffers): MJWarp drops what does not fit and only sets a bit (and prints); before
3.9, which has no bits, the contact and row counters tell the two overflows (they count on past the capacity).
"""

from __future__ import annotations

import time

import mujoco
import numpy as np

from pytest_physlaw import kit
from pytest_physlaw.pack.routes.common import RouteRefused, RouteRun, RouteSetup, RouteUnsupported, World

route = kit.scenes("warp.route")  # sets WARP_CACHE_PATH's default before warp is imported
wp, mjw = route.wp, route.mjw

# MJWarp's capacity bits: what fills up and is dropped when a scene outgrows what put_data allocated
# (mujoco-warp before 3.9 has no `OverflowType` and no `Data.overflow`: no bits to read, and a capped solve is one
# whose iteration count reached the cap)
OVERFLOW = getattr(mjw, "OverflowType", None)
CAPACITY_BITS = {name: int(getattr(OVERFLOW, name)) for name in
                 ("NEFC", "NJMAX_NNZ", "BROADPHASE", "NARROWPHASE", "CCD", "HFIELD", "EPA_HORIZON", "NVMAX")
                 if hasattr(OVERFLOW, name)}
LS_BIT = int(getattr(OVERFLOW, "LS_ITERATIONS", 0))
# Before 3.9 MJWarp drops what does not fit without a bit, but its counters run on past the capacity (a contact or a
# row is counted with an atomic add before the capacity check): there the counts tell the same two overflows
COUNTED = () if OVERFLOW is not None else ("NARROWPHASE", "NEFC")


def counted_overflow(nacon: int, naconmax: int, nefc: np.ndarray, njmax: int) -> dict[str, bool]:
    """The overflows of one step read from MJWarp's counters: contacts of all worlds beyond `naconmax` (named as
    later releases' NARROWPHASE bit), a world's constraint rows beyond `njmax` (NEFC)."""
    return {"NARROWPHASE": nacon > naconmax, "NEFC": bool(np.any(nefc > njmax))}


def device_kind() -> str:
    return route.device_kind()


def versions() -> dict[str, str]:
    return route.versions()


def put(mjm: mujoco.MjModel, setup: RouteSetup, nworld: int, host: mujoco.MjData):
    """MJWarp model and data of `nworld` worlds with the setup's capacities; a refusal is RouteUnsupported."""
    if setup.precision != "float32":
        raise RouteUnsupported(f"MuJoCo Warp (mujoco-warp {mjw.__version__}) computes in float32 only: "
                               f"ini physlaw_route_precision = {setup.precision} is for MJX")
    try:
        m = mjw.put_model(mjm)
    except NotImplementedError as e:
        raise RouteUnsupported(f"MuJoCo Warp (mujoco-warp {mjw.__version__}) cannot run this model: {e} (its "
                               f"solvers: {', '.join(route.warp_solvers())})") from e
    if wp.get_device().is_cuda and not wp.is_conditional_graph_supported():
        m.opt.graph_conditional = False
    try:
        d = mjw.put_data(mjm, host, nworld=nworld, nconmax=setup.nconmax, njmax=setup.njmax)
    except ValueError as e:
        if "overflow" not in str(e):
            raise
        raise RouteRefused(f"mujoco-warp {mjw.__version__} refuses the capacity at the start state "
                           f"({setup.describe()}): {e}") from e
    return m, d


def run(mjm: mujoco.MjModel, worlds: list[World], setup: RouteSetup) -> RouteRun:
    """Step `worlds` together on MJWarp, each from its start state under its controls, one step a row."""
    steps = worlds[0].ctrl.shape[0]
    n = len(worlds)
    device = route.best_device()
    host = mujoco.MjData(mjm)
    host.qpos[:] = worlds[0].qpos
    mujoco.mj_forward(mjm, host)
    shape = lambda *s: np.zeros((n, steps + 1, *s))  # noqa: E731
    qpos, qvel, xipos, xquat = shape(mjm.nq), shape(mjm.nv), shape(mjm.nbody, 3), shape(mjm.nbody, 4)
    niter, capped = np.zeros((n, steps), dtype=int), np.zeros((n, steps), dtype=bool)
    overflow = {name: 0 for name in (*CAPACITY_BITS, *COUNTED)}
    ls_capped = 0
    contacts_max = rows_max = 0
    ctrl = np.stack([w.ctrl for w in worlds]).astype(np.float32)  # (n, steps, nu)
    started = time.perf_counter()
    with wp.ScopedDevice(device), route.captured_stdout() as printed:
        m, d = put(mjm, setup, n, host)
        d.qpos.assign(np.stack([w.qpos for w in worlds]).astype(np.float32))
        d.qvel.assign(np.stack([w.qvel for w in worlds]).astype(np.float32))
        if mjm.na:
            d.act.assign(np.stack([w.act for w in worlds]).astype(np.float32))
        d.qacc_warmstart.assign(np.stack([w.qacc_warmstart for w in worlds]).astype(np.float32))
        if mjm.nu:
            d.ctrl.assign(ctrl[:, 0])
        mjw.kinematics(m, d)
        graph = None
        if wp.get_device(device).is_cuda or route.CPU_GRAPHS:
            with wp.ScopedCapture() as capture:
                mjw.step(m, d)
            graph = capture.graph
        else:
            mjw.forward(m, d)  # compiles or loads the kernels; the step below recomputes it
        wp.synchronize()
        compile_seconds = time.perf_counter() - started
        flags = getattr(d, "overflow", None)
        if flags is not None:
            flags.zero_()

        def record(i: int) -> None:
            qpos[:, i], qvel[:, i] = d.qpos.numpy(), d.qvel.numpy()
            xipos[:, i], xquat[:, i] = d.xipos.numpy(), d.xquat.numpy()

        record(0)
        stepping = 0.0
        for i in range(steps):
            if mjm.nu:
                d.ctrl.assign(ctrl[:, i])
            tick = time.perf_counter()
            if graph is not None:
                wp.capture_launch(graph)
            else:
                mjw.step(m, d)
            wp.synchronize()
            stepping += time.perf_counter() - tick
            record(i + 1)
            niter[:, i] = d.solver_niter.numpy()
            bits = flags.numpy().copy() if flags is not None else np.zeros(n, dtype=np.int32)
            capped[:, i] = (bits & route.ITERATIONS_BIT) != 0 if flags is not None else niter[:, i] >= mjm.opt.iterations
            ls_capped += int(np.count_nonzero(bits & LS_BIT)) if LS_BIT else 0
            for name, bit in CAPACITY_BITS.items():
                overflow[name] += int(np.any(bits & bit))
            if bits.any():
                flags.zero_()
            nacon, nefc = int(d.nacon.numpy()[0]), d.nefc.numpy()
            if nacon:
                per_world = np.bincount(d.contact.worldid.numpy()[:nacon], minlength=n)
                contacts_max = max(contacts_max, int(per_world.max()))
            rows_max = max(rows_max, int(nefc.max()))
            if COUNTED:
                for name, over in counted_overflow(nacon, int(d.naconmax), nefc, int(d.njmax)).items():
                    overflow[name] += int(over)
        qfrc, force = d.qfrc_constraint.numpy().copy(), d.actuator_force.numpy().copy()
    notes = []
    if ls_capped:
        notes.append(f"the line search stopped at its cap (ls_iterations {mjm.opt.ls_iterations}) in "
                     f"{ls_capped} world-steps")
    tolerance = float(m.opt.tolerance.numpy()[0])
    if tolerance > mjm.opt.tolerance:
        notes.append(f"MJWarp solves to tolerance {tolerance:g} (the model asks {mjm.opt.tolerance:g})")
    return RouteRun(route="warp", device=route.device_kind(device), versions=route.versions(), precision="float32",
                    timestep=float(mjm.opt.timestep), cap=int(mjm.opt.iterations), qpos=qpos, qvel=qvel,
                    xipos=xipos, xquat=xquat, qfrc_constraint=qfrc, actuator_force=force, niter=niter,
                    capped=capped, overflow=overflow, contacts_max=contacts_max, rows_max=rows_max,
                    capacity={"contacts": int(d.naconmax // n), "rows": int(d.njmax)},
                    compile_seconds=compile_seconds, step_seconds=stepping / max(steps, 1),
                    notes=notes + ([f"{printed[0].count(route.CAP_WARNING)} iteration-limit warnings printed"]
                                   if printed and printed[0].count(route.CAP_WARNING) else []))


def ray_types() -> frozenset[int]:
    """The geom types MuJoCo Warp's `ray` intersects (mujoco_warp's ray.py: every primitive, meshes and height
    fields; not SDFs or flexes)."""
    g = mujoco.mjtGeom
    return frozenset(int(t) for t in (g.mjGEOM_PLANE, g.mjGEOM_SPHERE, g.mjGEOM_CAPSULE, g.mjGEOM_ELLIPSOID,
                                      g.mjGEOM_CYLINDER, g.mjGEOM_BOX, g.mjGEOM_MESH, g.mjGEOM_HFIELD))


def rays(mjm: mujoco.MjModel, host: mujoco.MjData, pnts: np.ndarray, vecs: np.ndarray,
         setup: RouteSetup) -> tuple[np.ndarray, np.ndarray]:
    """(distance, geom id; -1 where none) of each ray `pnts[i] + x vecs[i]` by MuJoCo Warp's `ray`, at `host`'s
    forwarded poses (MuJoCo C's, put on the route), one ray at a time. A release without `ray`, or with another
    signature, is RouteUnsupported."""
    if not hasattr(mjw, "ray"):
        raise RouteUnsupported(f"mujoco-warp {mjw.__version__} has no ray")
    dist, geomid = np.full(len(pnts), -1.0), np.full(len(pnts), -1, dtype=int)
    with wp.ScopedDevice(route.best_device()), route.captured_stdout():
        m, d = put(mjm, setup, 1, host)
        for i, (origin, direction) in enumerate(zip(pnts, vecs)):  # `ray` casts one ray a world on every release
            pnt = wp.array(np.asarray(origin, dtype=np.float32).reshape(1, 1, 3), dtype=wp.vec3)
            vec = wp.array(np.asarray(direction, dtype=np.float32).reshape(1, 1, 3), dtype=wp.vec3)
            try:
                found = mjw.ray(m, d, pnt, vec)
            except TypeError as e:
                raise RouteUnsupported(f"mujoco-warp {mjw.__version__}'s ray takes other arguments: {e}") from e
            dist[i], geomid[i] = float(found[0].numpy().ravel()[0]), int(found[1].numpy().ravel()[0])
        return dist, geomid


def set_const(mjm: mujoco.MjModel, edited: mujoco.MjModel, fields: tuple[str, ...], constants: tuple[str, ...],
              setup: RouteSetup) -> dict[str, np.ndarray]:  # every field the law edits (no SET_CONST_EDITS)
    """MuJoCo Warp's `constants` of `mjm` put on the route with `fields` set to `edited`'s (every world alike) and
    `set_const` called, each as float64 of C's shape (its first world; one this release's model lacks is left out).
    A release without `set_const` is RouteUnsupported."""
    if not hasattr(mjw, "set_const"):
        raise RouteUnsupported(f"mujoco-warp {mjw.__version__} has no set_const")
    with wp.ScopedDevice(route.best_device()), route.captured_stdout():
        m, d = put(mjm, setup, 1, mujoco.MjData(mjm))
        for name in fields:
            array = getattr(m, name, None)
            if array is None:
                raise RouteUnsupported(f"mujoco-warp {mjw.__version__}'s model has no {name} to edit")
            shape = array.numpy().shape
            value = np.asarray(getattr(edited, name), dtype=np.float32)
            batched = int(np.prod(shape)) != value.size  # a leading axis of worlds (batched fields)
            array.assign((np.broadcast_to(value, (shape[0], *value.shape)) if batched else value).reshape(shape).copy())
        mjw.set_const(m, d)
        wp.synchronize()
        out = {}
        for name in constants:
            array = getattr(m, name, None)
            if array is not None:
                values, like = array.numpy(), np.asarray(getattr(mjm, name))
                first = values[0] if values.size != like.size else values  # the first world of a batched field
                out[name] = np.asarray(first, dtype=float).reshape(like.shape)
        return out
