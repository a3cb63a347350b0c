"""Round 12 probes, area: actuation (actuator transmissions, gains and biases, shortcuts, activation dynamics,
control/force/activation limits and saturation, joint actuatorfrcrange, gear, delays).

Each probe takes an optional model filename (default: the case's trigger) and returns one line starting with
"BUG:" or "ok:" with the measured figure and the bound.
Run: python actuation.py <ID> [model.xml]
"""
import os
import sys

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):  # later layout: regressions/round12/actuation.py beside regressions/models/round12
  MODELS = os.path.join(os.path.dirname(_HERE), "models", "round12")


def _path(fname):
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(MODELS, fname)


def _load(fname):
  import mujoco
  return mujoco.MjModel.from_xml_path(_path(fname))


def _versions():
  import mujoco
  try:
    import importlib.metadata as md
    return f"mujoco-warp {md.version('mujoco-warp')} (mujoco {mujoco.__version__})"
  except Exception:  # pylint: disable=broad-except
    return f"mujoco {mujoco.__version__}"


# ---------------------------------------------------------------------------------------------------------------
# mujoco-warp-1149: implicit actuator damping of a velocity servo saturated by forcerange
# ---------------------------------------------------------------------------------------------------------------
def probe_warp_saturated_servo_damping(fname="mujoco-warp-1149_trigger.xml"):
  """Under implicitfast, a velocity servo clamped at its forcerange applies a constant torque: its force has no
  velocity derivative, so it must add no implicit damping. Each decoupled wheel (diagonal inertia I) must step as
    w' = w + h f / (I + h D),  D = kv if |f| is below the limit, else 0,
  with f the actuator force of the step. From rest with a 15 rad/s command the saturated wheel spins up at
  f_max / I. MuJoCo Warp 3.5.0 added kv to the implicit matrix even for a clamped force (fixed in #1149, 3.5.0.1),
  so the saturated wheels spin up (I + h kv) / I times slower.
  """
  import mujoco
  import mujoco_warp as mjw
  import warp as wp
  wp.config.quiet = True
  wp.set_device("cpu")
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  h = m.opt.timestep
  M = _fullM(mujoco, m, d)
  acts = [m.actuator(n).id for n in ("left_drive", "right_drive")]
  dofs = [int(m.jnt_dofadr[m.actuator_trnid[a, 0]]) for a in acts]
  kv = [float(m.actuator_gainprm[a, 0]) for a in acts]
  lim = [bool(m.actuator_forcelimited[a]) for a in acts]
  rng = [m.actuator_forcerange[a].copy() for a in acts]
  u = float(d.ctrl[acts[0]])
  wm, wd = mjw.put_model(m), mjw.put_data(m, d)
  nstep = int(round(1.0 / h))
  worst, worst_t, worst_rec = 0.0, 0.0, None
  t_reach = None
  for k in range(nstep):
    w0 = wd.qvel.numpy()[0].copy()
    mjw.step(wm, wd)
    w1 = wd.qvel.numpy()[0]
    f = wd.actuator_force.numpy()[0]
    for a, dof, g, l, r in zip(acts, dofs, kv, lim, rng):
      sat = l and (f[a] <= r[0] or f[a] >= r[1])
      D = 0.0 if sat else g
      law = w0[dof] + h * f[a] / (M[dof, dof] + h * D)
      err = abs(w1[dof] - law)
      if err > worst:
        worst, worst_t, worst_rec = err, (k + 1) * h, (w1[dof], law, sat)
    if t_reach is None and min(w1[dofs[0]], w1[dofs[1]]) >= 0.9 * u:
      t_reach = (k + 1) * h
  I = M[dofs[0], dofs[0]]
  if lim[0]:
    t_ref = 0.9 * u * I / rng[0][1]
    ref = f"saturated spin-up at f_max/I = {rng[0][1] / I:.1f} rad/s^2 reaches it at {t_ref * 1e3:.1f} ms"
  else:
    ref = "unsaturated servo"
  reach = f"{t_reach * 1e3:.1f} ms" if t_reach is not None else f"not within 1 s (w = {w1[dofs[0]]:.3f} rad/s)"
  rec = f" (t={worst_t:.3f} s: w' {worst_rec[0]:.4f} vs law {worst_rec[1]:.4f}, saturated={worst_rec[2]})" if worst_rec else ""
  tag = "BUG" if worst > 1e-4 else "ok"
  lims = f"forcerange +-{rng[0][1]:g} N m" if lim[0] else "no torque limit"
  return (f"{tag}: {_versions()} rover wheels, velocity servo kv {kv[0]:g}, {lims}"
          f", implicitfast h={h:g}, command {u:g} rad/s from rest: "
          f"max |w' - (w + h f/(I + h D))| = {worst:.3g} rad/s{rec}; 90% of command at {reach} "
          f"({ref}); ok when < 1e-4 rad/s")


# ---------------------------------------------------------------------------------------------------------------
# mujoco-warp-1143: implicit damping of an actearly actuator with a velocity-dependent gain
# ---------------------------------------------------------------------------------------------------------------
def _fullM(mujoco, m, d):
  M = np.zeros((m.nv, m.nv))
  try:
    mujoco.mj_fullM(m, d, M)
  except TypeError:
    mujoco.mj_fullM(m, M, d.qM)
  return M


def probe_warp_actearly_damper(fname="mujoco-warp-1143_trigger.xml"):
  """Under implicitfast the velocity derivative of an actuator force gain(v) * a must use the activation a that the
  force uses: with actearly that is the next step's activation a' = a + (u - a)(1 - exp(-h/tau)) (filterexact).
  The step must then be v' = v + h (M + h D)^-1 f, with D = diag(kv_hip, c a_eff) (joint transmissions, gear 1)
  and f = qfrc_smooth of the state, evaluated here by MuJoCo C on the route's state at every step. MuJoCo Warp
  3.5.0 - 3.6.0 used the current activation a in D while the force used a' (fixed by #1143, 3.7.0): when the
  MR damper is switched on (a = 0, a' = 0.63) its damping is explicit for one step and, being stiff, reverses
  and amplifies the knee's swing, adding energy.
  """
  import mujoco
  import mujoco_warp as mjw
  import warp as wp
  wp.config.quiet = True
  wp.set_device("cpu")
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  h = m.opt.timestep
  hip, knee = m.actuator("hip_servo").id, m.actuator("knee_mr_damper").id
  dh = int(m.jnt_dofadr[m.actuator_trnid[hip, 0]])
  dk = int(m.jnt_dofadr[m.actuator_trnid[knee, 0]])
  kv = -float(m.actuator_biasprm[hip, 2])
  c = -float(m.actuator_gainprm[knee, 2])
  tau = float(m.actuator_dynprm[knee, 0])
  early = bool(m.actuator_actearly[knee])
  adr = int(m.actuator_actadr[knee])
  wm, wd = mjw.put_model(m), mjw.put_data(m, d)
  c_d = mujoco.MjData(m)
  c_d.ctrl[:] = d.ctrl
  e0 = None
  emax_rise, worst, worst_t, worst_rec, nskip = 0.0, 0.0, 0.0, None, 0
  v0 = float(d.qvel[dk])
  vmax_first = 0.0
  nstep = int(round(1.0 / h))
  for k in range(nstep):
    c_d.qpos[:] = wd.qpos.numpy()[0]
    c_d.qvel[:] = wd.qvel.numpy()[0]
    c_d.act[:] = wd.act.numpy()[0]
    c_d.time = k * h
    mujoco.mj_forward(m, c_d)
    e = float(c_d.energy[0] + c_d.energy[1])
    if e0 is None:
      e0 = e
    emax_rise = max(emax_rise, e - e0)
    a = float(c_d.act[adr])
    u = float(np.clip(c_d.ctrl[knee], *m.actuator_ctrlrange[knee]))
    a_eff = a + (u - a) * (1 - np.exp(-h / tau)) if early else a
    D = np.zeros((m.nv, m.nv))
    D[dh, dh] = kv
    D[dk, dk] = c * a_eff
    law = c_d.qvel + h * np.linalg.solve(_fullM(mujoco, m, c_d) + h * D, c_d.qfrc_smooth)
    nefc = int(c_d.nefc)
    mjw.step(wm, wd)
    v1 = wd.qvel.numpy()[0]
    if k < 10:
      vmax_first = max(vmax_first, abs(float(v1[dk])))
    if nefc:
      nskip += 1
      continue
    err = float(np.max(np.abs(v1 - law)))
    if err > worst:
      worst, worst_t, worst_rec = err, (k + 1) * h, (float(v1[dk]), float(law[dk]))
  rec = f" (t={worst_t:.3f} s: knee w' {worst_rec[0]:.4f} vs law {worst_rec[1]:.4f} rad/s)" if worst_rec else ""
  tag = "BUG" if worst > 1e-3 else "ok"
  return (f"{tag}: {_versions()} leg, MR knee damper c {c:g} N m s, filterexact tau {tau * 1e3:g} ms, "
          f"actearly={early}, implicitfast h={h:g}, knee swinging at {v0:g} rad/s when the damper is switched on: "
          f"max |v' - (v + h (M + h D)^-1 f)| = {worst:.3g} rad/s{rec} over 1 s ({nskip} steps with active limits "
          f"skipped); max knee speed in the first 10 steps {vmax_first:.3f} rad/s; energy rise above the start "
          f"{emax_rise:.4f} J; ok when < 1e-3 rad/s")


# ---------------------------------------------------------------------------------------------------------------
# mujoco-warp-3.15.0-muscle-implicit: implicitfast without the muscles' force-velocity derivative
# ---------------------------------------------------------------------------------------------------------------
def _smooth_damping_fd(mujoco, m, d, eps=1e-6):
  """D = -d(qfrc_actuator + qfrc_passive)/d qvel at the state of d, by central differences in MuJoCo C."""
  D = np.zeros((m.nv, m.nv))
  d2 = mujoco.MjData(m)
  for j in range(m.nv):
    f = []
    for sgn in (1.0, -1.0):
      d2.qpos[:], d2.qvel[:], d2.act[:], d2.ctrl[:] = d.qpos, d.qvel, d.act, d.ctrl
      d2.qvel[j] += sgn * eps
      mujoco.mj_forward(m, d2)
      f.append(d2.qfrc_actuator + d2.qfrc_passive)
    D[:, j] = -(f[0] - f[1]) / (2 * eps)
  return D


def probe_warp_muscle_implicit(fname="mujoco-warp-3.15.0-muscle-implicit_trigger.xml"):
  """implicitfast steps v' = v + h (M + h D)^-1 qfrc_smooth, where D = -d(qfrc_actuator + qfrc_passive)/dqvel
  holds every actuator's velocity derivative (MuJoCo C's mjd_actuator_vel includes the muscle force-velocity
  curve, mjd_muscleGain_vel). Here D is taken by central differences of MuJoCo C's forces on the route's state at
  every step, and M and qfrc_smooth from MuJoCo C on the same state. MuJoCo Warp up to 3.14.0 gave muscles no
  velocity derivative (gain 0 for gaintype muscle in _qderiv_actuator_passive_vel), so their force-velocity damping
  was explicit; 3.15.0 added muscle_gain_vel_deriv. A finger held by co-contracted muscles is then unstable.
  """
  import mujoco
  import mujoco_warp as mjw
  import warp as wp
  wp.config.quiet = True
  wp.set_device("cpu")
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  h = m.opt.timestep
  wm, wd = mjw.put_model(m), mjw.put_data(m, d)
  c_d = mujoco.MjData(m)
  c_d.ctrl[:] = d.ctrl
  worst, worst_t, worst_rec, nskip, vmax, t_end = 0.0, 0.0, None, 0, 0.0, None
  D0 = _smooth_damping_fd(mujoco, m, d)
  stiff = float(np.max(np.real(np.linalg.eigvals(np.linalg.solve(_fullM(mujoco, m, d), D0))))) * h
  nstep = int(round(1.0 / h))
  for k in range(nstep):
    c_d.qpos[:] = wd.qpos.numpy()[0]
    c_d.qvel[:] = wd.qvel.numpy()[0]
    c_d.act[:] = wd.act.numpy()[0]
    if not (np.all(np.isfinite(c_d.qpos)) and np.all(np.isfinite(c_d.qvel))):
      t_end = k * h
      break
    mujoco.mj_forward(m, c_d)
    nefc = int(c_d.nefc)
    D = _smooth_damping_fd(mujoco, m, c_d)
    law = c_d.qvel + h * np.linalg.solve(_fullM(mujoco, m, c_d) + h * D, c_d.qfrc_smooth)
    mjw.step(wm, wd)
    v1 = wd.qvel.numpy()[0]
    vmax = max(vmax, float(np.max(np.abs(v1))))
    if nefc:
      nskip += 1
      continue
    err = float(np.max(np.abs(v1 - law)))
    if err > worst:
      worst, worst_t, worst_rec = err, (k + 1) * h, (v1.copy(), law.copy())
    if not np.all(np.isfinite(v1)):
      t_end = (k + 1) * h
      break
  vmax_force = float(np.max(m.actuator_gainprm[:, 2]))
  rec = (f" (t={worst_t:.3f} s: v' {np.array2string(worst_rec[0], precision=3)} vs law "
         f"{np.array2string(worst_rec[1], precision=3)} rad/s)") if worst_rec else ""
  end = f"; non-finite state at t={t_end:.3f} s" if t_end is not None else ""
  tag = "BUG" if worst > 0.05 else "ok"
  return (f"{tag}: {_versions()} finger, co-contracted muscles (force {vmax_force:g} N, vmax "
          f"{m.actuator_gainprm[0, 6]:g} L0/s), implicitfast h={h:g}, h * max eig(M^-1 D) = {stiff:.2f} at the "
          f"keyframe: max |v' - (v + h (M + h D)^-1 f)| = {worst:.3g} rad/s{rec} over 1 s ({nskip} steps with "
          f"active constraints skipped); max joint speed {vmax:.3g} rad/s{end}; ok when < 0.05 rad/s (float32 route: about 1e-3 "
          f"rad/s of rounding at these speeds)")


PROBES = {
    "mujoco-warp-1149": probe_warp_saturated_servo_damping,
    "mujoco-warp-1143": probe_warp_actearly_damper,
    "mujoco-warp-3.15.0-muscle-implicit": probe_warp_muscle_implicit,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
