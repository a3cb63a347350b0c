"""Fusing a body that has no joint into its parent (`<compiler fusestatic="true"/>`) is bookkeeping, no physics: at
every state the joint-space mass matrix and the bias force (gravity, Coriolis and centrifugal) of the model compiled
with its static bodies fused are those of the same model compiled without fusing, and so are its passive forces
(springs, dampers, gravity compensation; the inertia-box fluid force reads the fused body's box, and is left out),
actuator forces and sensor readings. Source: MuJoCo's XML reference
(compiler/fusestatic: a compile-time optimization that merges static bodies and their elements into their parent);
the composite body's mass, centre of mass and inertia are the rigid-body sums of its parts.

The two computations: the model's MJCF compiled by MjSpec as written, and again with `fusestatic` off
(`recompile.compiled`), the same joints in the same order; at the reference pose (`qpos0`, at rest) and at the
states of `twofold_states`, `mj_forward` of each gives the mass matrix (`mj_fullM`) and `qfrc_bias`. A model that
fuses nothing (fusestatic off, or no body to fuse) has one computation only and is skipped, naming why: its
physics does not take the fused compile's path.

The bound is the compiles' own error: MuJoCo diagonalizes each body's inertia by Jacobi rotations until the largest
off-diagonal entry is below 1e-12 (`mju_eig3`'s eigEPS, kg m^2), per body summed into the matrix, and two sound
compiles of one model differ by up to 3.8e-9 of the mass matrix's largest entry (MuJoCo's mannequin, fused against
unfused, on 3.11.0 to 3.13.0; 6.4e-11 dm_control's CMU humanoid on 3.5.0 and 3.10.0; 4.4e-16 on 3.14.0), so 1e-7 of it:
mass matrix nbody 1e-12 + 1e-7 max|M|; bias force nbody 1e-12 (1 + max|qvel|^2) + 1e-7 of the larger of
max|qfrc_bias| and the total mass times |g| times the model's extent. The defects measured are 4.8e-4 of the largest
entry and more (MuJoCo's mug on 3.5.0 to 3.10.0).

Measured: `pytest-physlaw check MODEL.xml -k fused`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import options, recompile
from pytest_physlaw.pack.twofold import states

SOURCE = "MuJoCo XML reference (compiler/fusestatic); changelog 3.6.0 (commit 84c8cf43), 3.11.0 (commit 0e1e0c7f)"
EIG_EPS = 1e-12  # kg m^2: mju_eig3 stops when the largest off-diagonal inertia entry is below mjMINVAL * 1000
COMBINED = 1e-7  # of the largest entry: two sound compiles differ by 3.8e-9 at most (mannequin, MuJoCo 3.11-3.13)


def _spec(path: str):
    spec = mujoco_versions.spec_from_file(path)
    if spec is None:
        raise ValueError(f"MuJoCo {mujoco.__version__} has no MjSpec (3.2 on): the model cannot be compiled anew")
    return spec


def as_written(path: str) -> mujoco.MjModel:
    """The MJCF at `path` compiled by MjSpec with its own settings (to compare with `unfused`, compiled alike)."""
    return _spec(path).compile()


def unfused(path: str) -> mujoco.MjModel:
    """The MJCF at `path` compiled by MjSpec with `fusestatic` off."""
    spec = _spec(path)
    mujoco_versions.spec_compiler(spec).fusestatic = False
    return spec.compile()


def fused_anyway(path: str) -> mujoco.MjModel:
    """The MJCF at `path` compiled by MjSpec with `fusestatic` on (for measuring a model that does not fuse as
    written: regressions/fused_compiles.py)."""
    spec = _spec(path)
    mujoco_versions.spec_compiler(spec).fusestatic = True
    return spec.compile()


def fuses(path: str) -> bool:
    """Whether the MJCF at `path` asks for its static bodies fused (MjSpec reads MuJoCo's default: off for MJCF,
    on for URDF); ValueError where this release has no MjSpec."""
    return bool(mujoco_versions.spec_compiler(_spec(path)).fusestatic)


def same_joints(first: mujoco.MjModel, second: mujoco.MjModel) -> bool:
    """Whether the two compiles have the same joints in the same order (names, types, coordinates): fusing removes
    bodies without joints only."""
    names = [[m.joint(j).name for j in range(m.njnt)] for m in (first, second)]
    return (first.nq, first.nv) == (second.nq, second.nv) and names[0] == names[1] \
        and np.array_equal(first.jnt_type, second.jnt_type)


def dynamics(model: mujoco.MjModel, qpos: np.ndarray, qvel: np.ndarray, ctrl: np.ndarray | None = None,
             act: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """{mass_matrix, bias_force, passive (qfrc_passive less qfrc_fluid: springs, dampers, gravity compensation),
    actuation (qfrc_actuator), readings (sensordata)} of `model` at (qpos, qvel) with
    the controls and activations given (none: zero): one `mj_forward` of a new mjData, constraints off (the
    readings compared are those of the same motion, not of two solves)."""
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = qpos, qvel
    if ctrl is not None:
        data.ctrl[:], data.act[:] = ctrl, act
    # the mass matrix, bias and actuator forces come before the constraint solve: one pass serves all four
    off = {"disableflags": int(model.opt.disableflags) | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)}
    with options.changed(model, off):
        mujoco.mj_forward(model, data)
    # passive forces less the fluid's: the inertia-box fluid model reads each body's box, which fusing changes
    fluid = np.array(data.qfrc_fluid) if hasattr(data, "qfrc_fluid") else np.zeros(model.nv)
    return {"mass_matrix": mujoco_versions.full_mass(model, data), "bias_force": np.array(data.qfrc_bias),
            "passive": np.array(data.qfrc_passive) - fluid, "actuation": np.array(data.qfrc_actuator),
            "readings": np.array(data.sensordata)}


def apart(fused: mujoco.MjModel, whole: mujoco.MjModel, at: list[tuple]) -> dict[str, tuple[float, float]]:
    """Each quantity's largest difference between the fused and the unfused compile over the states `at` ((qpos,
    qvel, ctrl, act, t); ctrl None: at rest, uncontrolled) over its bound (the module's docstring), and the time of
    the worst."""
    pairs = [(dynamics(fused, *state[:4]), dynamics(whole, *state[:4]), state[4]) for state in at]
    bodies = whole.nbody
    weight = float(np.sum(whole.body_mass)) * float(np.linalg.norm(whole.opt.gravity)) * float(whole.stat.extent)
    found: dict[str, tuple[float, float]] = {}
    for (f, w, t), (qpos, qvel, *_rest) in zip(pairs, at):
        mass_bound = bodies * EIG_EPS + COMBINED * float(np.max(np.abs(w["mass_matrix"]), initial=0.0))
        bias_scale = max(float(np.max(np.abs(w["bias_force"]), initial=0.0)), weight)
        speed = 1.0 + float(np.max(np.abs(qvel), initial=0.0)) ** 2
        bounds = {"mass_matrix": mass_bound, "bias_force": bodies * EIG_EPS * speed + COMBINED * bias_scale,
                  "passive": bodies * EIG_EPS * speed + COMBINED * max(
                      float(np.max(np.abs(w["passive"]), initial=0.0)), bias_scale),
                  "actuation": bodies * EIG_EPS + COMBINED * max(
                      float(np.max(np.abs(w["actuation"]), initial=0.0)), bias_scale)}
        for name, bound in bounds.items():
            share = float(np.max(np.abs(f[name] - w[name]), initial=0.0)) / bound
            if share >= found.get(name, (-1.0, 0.0))[0]:
                found[name] = (share, t)
    found["readings"] = _readings_apart(whole, [(f["readings"], w["readings"], t) for f, w, t in pairs])
    return found


def _readings_apart(model: mujoco.MjModel, pairs: list[tuple[np.ndarray, np.ndarray, float]]) -> tuple[float, float]:
    """The largest difference of a sensor's reading between the two compiles over COMBINED of that sensor's
    largest reading over the states (+ 1e-12), and its time."""
    if not pairs or not pairs[0][0].size or pairs[0][0].shape != pairs[0][1].shape:
        return 0.0, 0.0
    readings = np.abs(np.array([[*f, *w] for f, w, _ in pairs]))
    scale = np.zeros(model.nsensordata)
    for s in range(model.nsensor):
        block = slice(int(model.sensor_adr[s]), int(model.sensor_adr[s]) + int(model.sensor_dim[s]))
        n = model.nsensordata
        scale[block] = max(float(np.max(readings[:, block])), float(np.max(readings[:, n:][:, block])))
    worst = (0.0, 0.0)
    for f, w, t in pairs:
        share = float(np.max(np.abs(f - w) / (COMBINED * scale + 1e-12), initial=0.0))
        if share >= worst[0]:
            worst = (share, t)
    return worst


def _pair(pack_model, model_case: str) -> tuple[mujoco.MjModel, mujoco.MjModel]:
    """(the model as written, fused; the model compiled without fusing), once per model; skips naming why where
    there is no second computation."""
    cached = getattr(pack_model, "_physlaw_fused", None)
    if cached is None:
        path = str(pack_model.path)
        try:
            if not fuses(path):
                cached = "fuses no static body (compiler fusestatic is off): its physics takes no fused compile"
            else:
                cached = (recompile.compiled(as_written, path), recompile.compiled(unfused, path))
        except (ValueError, RuntimeError) as exc:  # a release without MjSpec, a compile MuJoCo refuses or crashes
            cached = f"MuJoCo {mujoco.__version__} cannot compile it anew through MjSpec: {exc}".replace("\n", " ")
        if not isinstance(cached, str):
            fused, whole = cached
            if fused.nbody != pack_model.model.nbody:  # 3.2's MjSpec compile does not fuse
                cached = (f"MuJoCo {mujoco.__version__}'s MjSpec compile fuses otherwise than its XML compile "
                          f"({fused.nbody} bodies against {pack_model.model.nbody}): no second computation")
            elif fused.nbody == whole.nbody:
                cached = "fuses no body: every body has a joint or is kept (fusestatic is on, nothing to merge)"
            elif not same_joints(fused, whole):
                cached = "its fused and unfused compiles list different joints (not compared)"
        pack_model._physlaw_fused = cached
    if isinstance(cached, str):
        pytest.skip(f"{model_case}: {cached}")
    return cached


@pytest.mark.law("model-fused-bodies-keep-the-dynamics", source=SOURCE)
def test_fusing_static_bodies_keeps_the_dynamics(law, pack_model, twofold_states, model_case) -> None:
    """A model that fuses its static bodies (`fusestatic`) has, at its reference pose and at every state its runs
    reach, the mass matrix, bias force, passive forces (the fluid's left out), actuator forces and sensor readings
    of the same model compiled without
    fusing, to the compile's own error: nbody 1e-12 kg m^2 + 1e-7 of the largest entry for the mass matrix, and
    alike for the forces and each sensor's readings."""
    fused, whole = _pair(pack_model, model_case)
    at = [(np.array(fused.qpos0), np.zeros(fused.nv), None, None, 0.0)]
    at += [(np.array(s.qpos), np.array(s.qvel), np.array(s.ctrl), np.array(s.act), float(s.time))
           for s in states.for_solves(pack_model.model, twofold_states)]
    found = apart(fused, whole, at)
    kept = whole.nbody - fused.nbody
    change = (f"an engine defect of MuJoCo {mujoco.__version__} (not the model's): fusing its {kept} static "
              "bodies into their parents changes the {what}; until it is fixed, set <compiler "
              "fusestatic=\"false\"/>, report it, or change MuJoCo version")
    what = {"mass_matrix": "dynamics (a fused body's mass, centre of mass or inertia combined wrong)",
            "bias_force": "dynamics (a fused body's mass, centre of mass or inertia combined wrong)",
            "passive": "passive forces (a fused body's gravity compensation, springs or dampers merged into a "
                       "parent that has other ones)",
            "actuation": "actuation (an actuator bound to a site, body or tendon of a fused body acts elsewhere)",
            "readings": "readings (a sensor bound to a site or body of a fused body reads another)"}
    for quantity in ("mass_matrix", "bias_force", "passive", "actuation", "readings"):
        worst, t = found[quantity]
        law.check(f"{quantity}_apart_over_bound", worst, le=1.0, drift_abs=1.0,
                  why=f"the largest {quantity.replace('_', ' ')} difference between the fused and the unfused "
                      f"compile over the compile's own error, worst of {len(at)} states (the reference pose "
                      f"and the runs') at t = {t:.3f} s; failing, {change.format(what=what[quantity])}")
