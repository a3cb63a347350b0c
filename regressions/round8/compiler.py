"""Round 8 probes, area: compiler, sensors and the API beside the step.

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python compiler.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round8")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def _subtree(m, root):
  """Ids of the bodies in the subtree rooted at `root` (root included)."""
  out = []
  for b in range(m.nbody):
    i = b
    while i > 0:
      if i == root:
        out.append(b)
        break
      i = m.body_parentid[i]
  return out


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.14.0-spatial-tendon-force-sensor
# --------------------------------------------------------------------------------------------------------------------

def _tendon_scalar_force(m, d, t):
  """Scalar force of tendon t from first principles: spring (with dead band), damper and tendon actuators.

  Negative = tension (the tendon pulls to get shorter).
  """
  L = d.ten_length[t]
  lo, hi = m.tendon_lengthspring[t]
  k = m.tendon_stiffness[t]
  f = 0.0
  if L > hi:
    f -= k * (L - hi)
  elif L < lo:
    f -= k * (L - lo)
  f -= m.tendon_damping[t] * d.ten_velocity[t]
  for a in range(m.nu):
    if m.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_TENDON and m.actuator_trnid[a][0] == t:
      f += m.actuator_gear[a][0] * d.actuator_force[a]
  return f


def probe_spatial_tendon_force_sensor(fname="mujoco-3.14.0-spatial-tendon-force-sensor_trigger.xml"):
  """A boom hinged to a mast is held up by a cable (spatial tendon: spring + winch motor) to the mast top.

  First principles (Newton for the boom at rest): the hinge must push on the boom with
      F_hinge = m_boom * a_com - m_boom * g - F_cable,
  where F_cable = f * dL/dx_tip is the cable's pull on the boom tip (f the tendon's scalar force from its spring,
  damper and winch). The force sensor at a site on the boom reads the force its parent (the world, through the
  hinge) exerts on the boom. Before 3.14.0, mj_rnePostConstraint left spatial-tendon forces out of cfrc_ext, so
  the reaction computed for the hinge carries the cable's pull as if it went through the hinge.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  boom = m.body("boom").id
  site = m.site("root").id
  sub = _subtree(m, boom)
  mass = sum(m.body_mass[b] for b in sub)
  while d.time < 5.0:
    mujoco.mj_step(m, d)
  mujoco.mj_forward(m, d)

  def com(dd):
    return sum(m.body_mass[b] * dd.xipos[b] for b in sub) / mass

  # centre-of-mass acceleration by central differences of two more steps (the boom has settled: ~0)
  c0 = com(d)
  d1 = mujoco.MjData(m)
  d1.qpos[:], d1.qvel[:], d1.ctrl[:], d1.time = d.qpos, d.qvel, d.ctrl, d.time
  mujoco.mj_step(m, d1)
  c1 = com(d1)
  mujoco.mj_step(m, d1)
  c2 = com(d1)
  h = m.opt.timestep
  acc = (c2 - 2 * c1 + c0) / h**2

  # cable force on the boom subtree, from first principles
  f_cable = np.zeros(3)
  for t in range(m.ntendon):
    adr, num = m.tendon_adr[t], m.tendon_num[t]
    if num != 2 or any(m.wrap_type[adr + i] != mujoco.mjtWrap.mjWRAP_SITE for i in range(2)):
      continue  # only straight two-site spatial tendons (fixed tendons act at joints: no Cartesian force)
    f = _tendon_scalar_force(m, d, t)
    s0, s1 = m.wrap_objid[adr], m.wrap_objid[adr + 1]
    p0, p1 = d.site_xpos[s0], d.site_xpos[s1]
    u = (p1 - p0) / np.linalg.norm(p1 - p0)  # dL/dp1 = u, dL/dp0 = -u
    if m.site_bodyid[s1] in sub:
      f_cable += f * u
    if m.site_bodyid[s0] in sub:
      f_cable -= f * u

  expected = mass * acc - mass * m.opt.gravity - f_cable
  R = d.site_xmat[site].reshape(3, 3)
  a = m.sensor_adr[m.sensor("root_force").id]
  measured = R @ d.sensordata[a:a + 3]
  err = np.linalg.norm(measured - expected)
  return (f"hinge force on the boom (force sensor, world axes) = [{measured[0]:.3f} {measured[1]:.3f} "
          f"{measured[2]:.3f}] N; first principles m*a - m*g - F_cable = [{expected[0]:.3f} {expected[1]:.3f} "
          f"{expected[2]:.3f}] N (cable pull {np.linalg.norm(f_cable):.3f} N); error = {err:.3f} N")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-14c0b0c9: mj_setConst keeps stale sameframe flags
# --------------------------------------------------------------------------------------------------------------------

def probe_14c0b0c9(fname="mujoco-14c0b0c9_trigger.xml"):
  """Payload randomization: slide the forearm clamp's centre of mass 0.25 m out along the forearm at run time.

  The documented workflow is to edit mjModel (body_ipos) and call mj_setConst. First principles: the forearm's
  centre of mass is then at xpos + R * body_ipos, and with the arm at rest the elbow's gravity load is
      qfrc_bias[elbow] = -((x_com - x_elbow) x (m g)) . axis.
  Before 3.11.0 mj_setConst did not recompute body_sameframe, so a body compiled with its inertial frame at its
  body frame keeps the 'same frame' shortcut: xipos stays at the elbow and the payload's weight loads nothing.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  fore = m.body("forearm").id
  elbow = m.joint("elbow").id
  m.body_ipos[fore] = [0.25, 0.0, 0.0]
  mujoco.mj_setConst(m, d)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  # some motion under the servos, then freeze the state to read the static gravity load
  while d.time < 1.0:
    mujoco.mj_step(m, d)
  d.qvel[:] = 0
  mujoco.mj_forward(m, d)
  com_true = d.xpos[fore] + d.xmat[fore].reshape(3, 3) @ m.body_ipos[fore]
  axis = d.xaxis[elbow]
  anchor = d.xanchor[elbow]
  grav = m.body_mass[fore] * m.opt.gravity
  tau_expected = -np.dot(np.cross(com_true - anchor, grav), axis)
  tau = d.qfrc_bias[m.jnt_dofadr[elbow]]
  com_err = np.linalg.norm(d.xipos[fore] - com_true)
  return (f"after body_ipos edit + mj_setConst: elbow gravity load qfrc_bias = {tau:.4f} N m, first principles "
          f"{tau_expected:.4f} N m (error {abs(tau - tau_expected):.4f} N m); forearm xipos off its true centre of "
          f"mass by {1000 * com_err:.1f} mm")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-4.0.0-static-body-accelerometer
# --------------------------------------------------------------------------------------------------------------------

def probe_static_body_accelerometer(fname="mujoco-4.0.0-static-body-accelerometer_trigger.xml"):
  """An arm on a pedestal sweeps back and forth; an IMU (accelerometer) is mounted on the pedestal.

  First principles: an accelerometer reads its proper acceleration R^T (a - g) in its own frame; a site at rest
  reads R^T (-g): 9.81 m/s^2 pointing up. a is taken from second differences of the site's world position along
  the trajectory (zero for a site at rest). In 3.3.7 commit 12f0e3df9 added a 'static body: quick return' to
  mj_objectAcceleration that returns zero for bodies welded to the world, dropping the gravity term that the
  world's cacc carries; an accelerometer on such a body then reads 0.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  h = m.opt.timestep
  base = m.site("base_imu").id
  adr = m.sensor_adr[m.sensor("base_acc").id]
  arm = [m.actuator("shoulder_servo").id, m.actuator("elbow_servo").id]
  c0 = d.ctrl[arm].copy()
  xs, mats, readings = [], [], []
  while d.time < 3.0:
    d.ctrl[arm] = c0 + 0.6 * np.sin(2.0 * d.time)  # the arm servos follow a slow sweep
    mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    xs.append(d.site_xpos[base].copy())
    mats.append(d.site_xmat[base].reshape(3, 3).copy())
    readings.append(d.sensordata[adr:adr + 3].copy())
  g = m.opt.gravity
  err, worst, move = -1.0, None, 0.0
  for k in range(1, len(xs) - 1):
    acc = (xs[k + 1] - 2 * xs[k] + xs[k - 1]) / h**2
    expect = mats[k].T @ (acc - g)
    e = np.linalg.norm(readings[k] - expect)
    if e > err:
      err, worst = e, (readings[k], expect)
    move = max(move, np.linalg.norm(xs[k] - xs[0]))
  r, ex = worst
  return (f"pedestal IMU over a 3 s arm sweep (pedestal moved {1000 * move:.3f} mm): worst |accelerometer| = "
          f"{np.linalg.norm(r):.3f} m/s^2 where first principles |R^T(a - g)| = {np.linalg.norm(ex):.3f} m/s^2; "
          f"max error {err:.3f} m/s^2")

CASES = {
    "mujoco-3.14.0-spatial-tendon-force-sensor": probe_spatial_tendon_force_sensor,
    "mujoco-14c0b0c9": probe_14c0b0c9,
    "mujoco-4.0.0-static-body-accelerometer": probe_static_body_accelerometer,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
