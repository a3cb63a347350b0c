"""Round 11 probes, area: actuation (actuators and transmissions: gain/bias types, activation dynamics, actearly,
control/force/activation clamping, gear, joint/tendon/site/slider-crank/body transmissions, muscles and their length
ranges, the position/velocity/intvelocity/damper/cylinder/pid shortcuts, actuator delays, actuator_force and
actuator_moment).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figures.
Run: python actuation.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _ctrladr(m, i):
  """First control of actuator i (multi-input actuators own a block of controls; 3.11.0 and later)."""
  return int(m.actuator_ctrladr[i]) if hasattr(m, "actuator_ctrladr") else i


def _outadr(m, i):
  """First force output of actuator i (multi-output actuators; 3.11.0 and later)."""
  return int(m.actuator_outadr[i]) if hasattr(m, "actuator_outadr") else i


def probe_delayed_pid_block(fname="mujoco-dc8bb136_trigger.xml"):
  """A delayed PID servo with inputs (pos, vel, ff) applies kp (pos - l) + kv (vel - v) + ff of its delayed controls.

  The shoulder PID of a two-link arm is commanded over a link with 10 ms latency (delay, nsample). The command is
  held constant for 1.5 s (hold the arm at 0.3 rad with a gravity feedforward of -3.4 N m), so once the latency
  has passed the delayed control block equals the live one, and the force is fixed by the PID law from the
  actuator's own length and velocity at every step: actuator_force = kp (u_pos - l) + kv (u_vel - v) + u_ff.
  Before 3.14.0 the control history kept one value per actuator: a delayed multi-input actuator read only its
  first input from the history and the others from uninitialized scratch memory (issue #3597), so the velocity
  setpoint and the feedforward were garbage and the arm settled at another angle.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  a = m.actuator("shoulder_servo").id
  e = m.actuator("elbow_servo").id
  ca, ce, oa = _ctrladr(m, a), _ctrladr(m, e), _outadr(m, a)
  kp, kv = -m.actuator_biasprm[a, 1], -m.actuator_biasprm[a, 2]
  u = np.array([0.3, 0.0, -3.4])
  delay = float(m.actuator_delay[a]) if hasattr(m, "actuator_delay") else 0.0
  worst, worst_t, worst_f, worst_law = 0.0, 0.0, 0.0, 0.0
  nstep = int(round(1.5 / m.opt.timestep))
  for _ in range(nstep):
    d.ctrl[ca:ca + 3] = u
    d.ctrl[ce] = 0.0
    mujoco.mj_step(m, d)
    if d.time > delay + 0.02:
      law = kp * (u[0] - d.actuator_length[oa]) + kv * (u[1] - d.actuator_velocity[oa]) + u[2]
      err = abs(d.actuator_force[oa] - law)
      if err > worst:
        worst, worst_t, worst_f, worst_law = err, d.time, d.actuator_force[oa], law
  last = abs(d.actuator_force[oa] - law)
  q = d.qpos[m.joint("shoulder").qposadr[0]]
  tag = "BUG" if worst > 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} shoulder PID (kp {kp:g}, kv {kv:g}, inputs pos vel ff, delay {delay * 1e3:g} ms) "
          f"holding 0.3 rad with ff -3.4 N m for 1.5 s: max |actuator_force - PID law of its controls| = "
          f"{worst:.4g} N m (at t={worst_t:.3f} s: {worst_f:.4f} vs {worst_law:.4f}; {last:.3g} N m at the last step); shoulder at {q:.4f} rad after "
          f"1.5 s; ok when < 1e-6 N m")


def _mass_matrix(m, d):
  """Dense joint-space inertia M (with armature) at the current state, column by column through mj_mulM."""
  M = np.zeros((m.nv, m.nv))
  for j in range(m.nv):
    e = np.zeros(m.nv)
    e[j] = 1.0
    col = np.zeros(m.nv)
    mujoco.mj_mulM(m, d, col, e)
    M[:, j] = col
  return M


def _length_jacobian(m, d, a, eps=1e-6):
  """d actuator_length / d qvel of actuator a at d.qpos, by central differences of the positions (independent of
  actuator_moment)."""
  q0 = d.qpos.copy()
  J = np.zeros(m.nv)
  oa = _outadr(m, a)
  for j in range(m.nv):
    ls = []
    for sgn in (1.0, -1.0):
      dq = np.zeros(m.nv)
      dq[j] = sgn * eps
      q = q0.copy()
      mujoco.mj_integratePos(m, q, dq, 1.0)
      d.qpos[:] = q
      mujoco.mj_forward(m, d)
      ls.append(d.actuator_length[oa])
    J[j] = (ls[0] - ls[1]) / (2 * eps)
  d.qpos[:] = q0
  mujoco.mj_forward(m, d)
  return J


def probe_dampratio_reflected_mass(fname="mujoco-b3dd9e61_trigger.xml"):
  """A position servo with dampratio="1" on a tendon spanning two joints is critically damped.

  dampratio is documented in units of 2 sqrt(kp m), a harmonic oscillator's damping ratio, m the inertia the
  actuator moves. Along the actuator's length coordinate that inertia is the operational-space inertia
  m = (J M^-1 J^T)^-1 at qpos0 (J = d length / d q, here by finite differences; M the joint-space inertia with
  armature). The probe reads the compiled kv = -biasprm[2] and reports the damping ratio it gives,
  zeta = kv / (2 sqrt(kp m)), against the authored dampratio (1). It also releases the gripper from closed to the
  0.02 m command and reports the overshoot and the 2 % settling time of the tendon against those of a critically
  damped oscillator (no overshoot, 5.83 / omega_n). Before 3.15.0 the compiler summed dof_M0_j / J_j^2 over the
  dofs of the transmission: for two decoupled fingers on a 0.5/0.5 split that is 8 m_finger instead of 2 m_finger,
  so kv is twice the critical value and the grip closes overdamped (zeta = 2).
  """
  path = _path(fname)
  authored = 1.0
  m = mujoco.MjModel.from_xml_path(path)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  a = m.actuator("grip").id
  kp = m.actuator_gainprm[a, 0]
  kv = -m.actuator_biasprm[a, 2]
  J = _length_jacobian(m, d, a)
  M = _mass_matrix(m, d)
  m_refl = 1.0 / (J @ np.linalg.solve(M, J))
  zeta = kv / (2 * np.sqrt(kp * m_refl))
  # step response of the tendon from the closed gripper to 0.02 m
  target = 0.02
  omega = np.sqrt(kp / m_refl)
  mujoco.mj_resetData(m, d)
  oa = _outadr(m, a)
  ca = _ctrladr(m, a)
  lmax, tset = 0.0, None
  for _ in range(int(round(1.0 / m.opt.timestep))):
    d.ctrl[ca] = target
    mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    l = d.actuator_length[oa]
    lmax = max(lmax, l)
    if abs(l - target) > 0.02 * target:
      tset = None
    elif tset is None:
      tset = d.time
  tcrit = 5.8335 / omega
  tag = "BUG" if abs(zeta - authored) > 1e-6 else "ok"
  tset_s = f"{tset * 1e3:.1f} ms" if tset is not None else "> 1000 ms"
  return (f"{tag}: {mujoco.__version__} gripper servo on tendon 'split' (J = {np.array2string(J[np.abs(J) > 1e-9], precision=3)}),"
          f" kp {kp:g}, dampratio {authored:g}: compiled kv {kv:.4f} N s/m, reflected mass (J M^-1 J^T)^-1 = "
          f"{m_refl * 1e3:.2f} g, damping ratio kv / 2 sqrt(kp m) = {zeta:.4f}; step to 20 mm: overshoot "
          f"{max(0.0, lmax - target) * 1e3:.3f} mm, 2% settling {tset_s} (critical: {tcrit * 1e3:.1f} ms); "
          f"ok when the damping ratio is {authored:g} within 1e-6")


PROBES = {
    "mujoco-dc8bb136": probe_delayed_pid_block,
    "mujoco-b3dd9e61": probe_dampratio_reflected_mass,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
