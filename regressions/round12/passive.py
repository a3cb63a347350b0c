"""Round 12 probes, area: passive (passive forces and integrators: joint and tendon springs and dampers, armature,
gravity compensation, fluid models (inertia box and ellipsoid), wind, density/viscosity, the Euler / implicit /
implicitfast / RK4 integrators and their damping and derivative handling, mj_integratePos, energy, and sleeping
where it touches these).

Each probe takes an optional model filename (default: the case's trigger) and returns one line starting "BUG:" or
"ok:" with the measured figure and the bound.
Run: python passive.py <ID> [model.xml]
"""
import os
import re
import sys

import mujoco
import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):
  MODELS = os.path.join(os.path.dirname(_HERE), "models", "round12")


def _path(fname):
  if os.path.isabs(fname) or os.path.exists(fname):
    return fname
  return os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


# ---------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-setconst-fluid-added-mass
# ---------------------------------------------------------------------------------------------------------------

def _fluid(d):
  # qfrc_fluid exists from 3.0.1; before it the springs and dampers of the two models are identical, so
  # qfrc_passive differs only by the fluid force
  return d.qfrc_fluid if hasattr(d, "qfrc_fluid") else d.qfrc_passive


def _lamb_virtual_mass(semiaxes):
  """Added mass per unit fluid density of an ellipsoid along its axes (Lamb): V k_i / (2 - k_i), with
  k_i = a b c int_0^inf dl / ((a_i^2 + l) sqrt((a^2 + l)(b^2 + l)(c^2 + l))), V = 4/3 pi a b c."""
  a, b, c = semiaxes
  lam = np.concatenate([[0.0], np.logspace(-14, 8, 200001)])
  vol = 4.0 / 3.0 * np.pi * a * b * c
  out = []
  for ai in semiaxes:
    f = 1.0 / ((ai * ai + lam) * np.sqrt((a * a + lam) * (b * b + lam) * (c * c + lam)))
    k = a * b * c * np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(lam))
    out.append(vol * k / (2.0 - k))
  return np.array(out)


_FIN_SCALE = np.array([1.5, 1.0, 1.6])  # randomized fin: 50 % longer, 60 % taller, same thickness


def probe_setconst_fluid_added_mass(fname="mujoco-3.16.0-setconst-fluid-added-mass_trigger.xml"):
  """Domain randomization of a fin's size must give the fluid forces of a fin compiled at that size.

  The documented workflow for changing a model constant at run time is: edit mjModel, then mj_setConst. Here the
  swimmer's tail fin geom is enlarged in place (geom_size), mj_setConst is called, and the swimmer is run from its
  keyframe for 1.5 s. At every step the probe evaluates, at the same state, the fluid force (qfrc_fluid) of a second
  model compiled from the same XML with the enlarged fin written in it (another MuJoCo path: the compiler computes
  every size-dependent fluid constant from scratch). The fin's mass and inertia are authored (<inertial>), so the
  two models differ in nothing else. The ellipsoid fluid model reads the semi-axes from geom_size at run time but
  its added mass and added inertia (geom_fluid[6:12], Lamb's virtual-mass coefficients of the ellipsoid) are
  compiled constants: if mj_setConst leaves them at the old size, the added-mass forces (the gyroscopic-like
  terms of a body moving and turning in water) are those of the old fin.
  """
  path = _path(fname)
  xml = open(path).read()
  m = mujoco.MjModel.from_xml_path(path)
  d = mujoco.MjData(m)
  fin = m.geom("fin").id
  old = m.geom_size[fin].copy()
  new = old * _FIN_SCALE
  # the same model, compiled with the enlarged fin written in the XML
  pat = re.compile(r'(<geom name="fin"[^>]*?size=")([^"]*)(")')
  xml2 = pat.sub(lambda mo: mo.group(1) + " ".join(f"{x:.10g}" for x in new) + mo.group(3), xml, count=1)
  cwd = os.getcwd()
  try:
    os.chdir(os.path.dirname(path))
    m2 = mujoco.MjModel.from_xml_string(xml2)
  finally:
    os.chdir(cwd)
  d2 = mujoco.MjData(m2)
  # randomize in place, then mj_setConst (documented way to refresh derived constants)
  m.geom_size[fin] = new
  mujoco.mj_setConst(m, d)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  vm_set = m.geom_fluid[fin, 6:9].copy()
  ellipsoid = m.geom_fluid[fin, 0] > 0
  vm_lamb = _lamb_virtual_mass(new) if ellipsoid else np.zeros(3)
  vm_rel = np.max(np.abs(vm_set - vm_lamb) / np.maximum(vm_lamb, 1e-30)) if ellipsoid else 0.0
  worst, worst_t, fmax = 0.0, 0.0, 0.0
  nstep = int(round(1.5 / m.opt.timestep))
  for _ in range(nstep):
    mujoco.mj_forward(m, d)
    d2.qpos[:] = d.qpos
    d2.qvel[:] = d.qvel
    d2.time = d.time
    mujoco.mj_forward(m2, d2)
    f1, f2 = _fluid(d), _fluid(d2)
    err = np.max(np.abs(f1 - f2))
    fmax = max(fmax, np.max(np.abs(f2)))
    if err > worst:
      worst, worst_t = err, d.time
    mujoco.mj_step(m, d)
  # end state of the two models run side by side
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_resetDataKeyframe(m2, d2, 0)
  dyaw = 0.0
  for _ in range(nstep):
    mujoco.mj_step(m, d)
    mujoco.mj_step(m2, d2)
    dyaw = max(dyaw, abs(d.qpos[7] - d2.qpos[7]))
  bound = 1e-9 * max(fmax, 1e-12)
  tag = "BUG" if (worst > bound or vm_rel > 1e-3) else "ok"
  fs = "ellipsoid" if ellipsoid else "inertia-box"
  return (f"{tag}: {mujoco.__version__} swimmer, tail fin ({fs} fluid model) resized "
          f"{np.round(old, 4).tolist()} -> {np.round(new, 4).tolist()} m + mj_setConst, 1.5 s from the keyframe: "
          f"max |qfrc_fluid - qfrc_fluid of the fin compiled at that size| = {worst:.4g} (at t = {worst_t:.3f} s; "
          f"max |qfrc_fluid| {fmax:.4g}); fin added mass per density after mj_setConst "
          f"{np.array2string(vm_set, precision=3)} m^3 vs Lamb's closed form for the new fin "
          f"{np.array2string(vm_lamb, precision=3)} m^3 (worst relative error {vm_rel:.3g}, ok when < 1e-3); "
          f"the two runs' tail angles differ by up to {np.degrees(dyaw):.3g} deg; force ok when < {bound:.1e}")


# ---------------------------------------------------------------------------------------------------------------
# mujoco-3.14.0-ellipsoid-fluid-deriv
# ---------------------------------------------------------------------------------------------------------------

def _dense_qderiv(m, d):
  """qDeriv (held in the sparsity of D) as a dense nv x nv matrix; the index arrays live in mjData before 3.3.6."""
  out = np.zeros((m.nv, m.nv))
  src = m if hasattr(m, "D_rownnz") else d
  for i in range(m.nv):
    for k in range(src.D_rownnz[i]):
      adr = src.D_rowadr[i] + k
      out[i, src.D_colind[adr]] = d.qDeriv[adr]
  return out


def probe_ellipsoid_fluid_deriv(fname="mujoco-3.14.0-ellipsoid-fluid-deriv_trigger.xml"):
  """The implicit integrator's velocity derivative must be the derivative of the forces it integrates.

  integrator="implicit" steps with (M - h qDeriv) where qDeriv = d(qfrc_passive + qfrc_actuator - qfrc_bias)/d qvel.
  The probe runs the underwater arm for 2 s from its keyframe and, every 10th step, compares the qDeriv that
  mj_step used (read after the step; it is computed at the step's initial state) with a centred finite difference
  of qfrc_passive - qfrc_bias (no actuators) at that state, taken with mj_forward on a second mjData (h = 1e-6).
  The fluid force is smooth in the velocity away from v = 0, so the two must agree to about 1e-6 of the largest
  entry. Before 3.14.0 the analytical derivative of the ellipsoid model's viscous drag clamps the dimensional
  product proj_num^3 proj_denom (~size^20 v^8) at mjMINVAL^2, so for decimetre links moving at a few cm/s the
  derivative of the projected-area term is scaled down while the force itself is right.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  d2 = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  eps = 1e-6
  worst, worst_t, worst_v, dmax = 0.0, 0.0, 0.0, 0.0
  nstep = int(round(2.0 / m.opt.timestep))
  for k in range(nstep):
    q0, v0, t0 = d.qpos.copy(), d.qvel.copy(), d.time
    mujoco.mj_step(m, d)
    if k % 10:
      continue
    qd = _dense_qderiv(m, d)
    fd = np.zeros((m.nv, m.nv))
    for i in range(m.nv):
      col = []
      for s in (1.0, -1.0):
        d2.qpos[:] = q0
        d2.qvel[:] = v0
        d2.qvel[i] += s * eps
        mujoco.mj_forward(m, d2)
        col.append(d2.qfrc_passive - d2.qfrc_bias)
      fd[:, i] = (col[0] - col[1]) / (2 * eps)
    err = np.max(np.abs(qd - fd))
    dmax = max(dmax, np.max(np.abs(fd)))
    if err > worst:
      worst, worst_t, worst_v = err, t0, np.max(np.abs(v0))
  rel = worst / max(dmax, 1e-300)
  tag = "BUG" if rel > 1e-5 else "ok"
  fs = "ellipsoid" if np.any(m.geom_fluid[:, 0] > 0) else "inertia-box"
  return (f"{tag}: {mujoco.__version__} underwater two-joint arm ({fs} fluid model, integrator implicit), 2 s from "
          f"the keyframe: max |qDeriv - finite difference of qfrc_passive - qfrc_bias| = {worst:.3g} N m s "
          f"(at t = {worst_t:.3f} s, joint speeds up to {worst_v:.3g} rad/s; largest derivative entry {dmax:.3g}): "
          f"relative {rel:.3g}; ok when < 1e-5")


PROBES = {
    "mujoco-3.16.0-setconst-fluid-added-mass": probe_setconst_fluid_added_mass,
    "mujoco-3.14.0-ellipsoid-fluid-deriv": probe_ellipsoid_fluid_deriv,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
