"""Round 8 probes, area: actuation (actuators, transmissions, passive forces, integrators, inverse dynamics,
analytic derivatives).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python actuation.py <ID> [model.xml]
"""
import math
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round8")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def probe_rk4_ball_order(fname="mujoco-4.0.0-rk4-ball-order_trigger.xml"):
  """RK4 is a fourth-order method: halving the step must cut the global error 16 times (order 4).

  We integrate the scene from its keyframe for 0.5 s with the model's RK4 at h = 4 ms and 2 ms and compare the
  joint speeds with a reference run at h/32 = 62.5 us (same integrator). The observed order is
  log2(err(4 ms) / err(2 ms)); from first principles it is 4. A method that only reaches order 2 gives 2.
  """
  m = _load(fname)

  def run(h, T=0.5):
    m.opt.timestep = h
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(int(round(T / h))):
      mujoco.mj_step(m, d)
    return d.qvel.copy()

  ref = run(0.002 / 32)
  e4 = float(np.abs(run(0.004) - ref).max())
  e2 = float(np.abs(run(0.002) - ref).max())
  order = math.log2(e4 / e2)
  return (f"RK4 observed order {order:.2f} (expected 4): max |qvel - ref| after 0.5 s = {e4:.3e} at h=4ms, "
          f"{e2:.3e} at h=2ms [mujoco {mujoco.__version__}]")


def probe_so3_site_quat_order(fname="mujoco-3.15.0-so3-site-quat-order_trigger.xml"):
  """An <orientation> servo between a site and a refsite, commanded ctrl = 0 (frames aligned), no gravity load
  (gravcomp = 1), damped: after 4 s the tool frame must coincide with the target frame.

  First principles: the servo's error is the rotation vector log(q_target^-1 q_tool) of the two site frames
  (site_xmat); at rest the servo torque kp*error is zero only when that error is zero. We report the residual
  angle between the two frames at t = 4 s, and the servo's own error (actuator_length) against the rotation vector
  computed from site_xmat at t = 0.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  s, r = m.site("tool").id, m.site("target").id

  def rel_rotvec():
    qs, qr, v = np.zeros(4), np.zeros(4), np.zeros(3)
    mujoco.mju_mat2Quat(qs, d.site_xmat[s])
    mujoco.mju_mat2Quat(qr, d.site_xmat[r])
    mujoco.mju_subQuat(v, qs, qr)
    return v

  mujoco.mj_forward(m, d)
  err0 = float(np.abs(d.actuator_length[:3] - rel_rotvec()).max())
  while d.time < 4.0:
    mujoco.mj_step(m, d)
  ang = float(np.degrees(np.linalg.norm(rel_rotvec())))
  return (f"tool-target misalignment at rest after 4 s: {ang:.3f} deg (expected ~0); at t=0 the servo error "
          f"differs from log(q_target^-1 q_tool) by {err0:.3f} rad (expected 0) [mujoco {mujoco.__version__}]")


def probe_site_refsite_rot_gear(fname="mujoco-3.15.0-site-refsite-rot-gear_trigger.xml"):
  """Three position servos on a site transmission with a refsite and rotational gear (the 3 axes of the target
  frame), commanded ctrl = 0, no gravity load (gravcomp = 1), damped wrist: after 4 s the tool frame must coincide
  with the target frame.

  First principles: for rotational gear g the transmission length is g . log(q_target^-1 q_tool) of the two site
  frames (site_xmat); the servos are at rest only when all three components are zero. We report the residual angle
  between the frames at t = 4 s, and the three actuator lengths against log(q_target^-1 q_tool) at t = 0.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  s, r = m.site("tool").id, m.site("target").id

  def rel_rotvec():
    qs, qr, v = np.zeros(4), np.zeros(4), np.zeros(3)
    mujoco.mju_mat2Quat(qs, d.site_xmat[s])
    mujoco.mju_mat2Quat(qr, d.site_xmat[r])
    mujoco.mju_subQuat(v, qs, qr)
    return v

  mujoco.mj_forward(m, d)
  err0 = float(np.abs(d.actuator_length[:3] - rel_rotvec()).max())
  while d.time < 4.0:
    mujoco.mj_step(m, d)
  ang = float(np.degrees(np.linalg.norm(rel_rotvec())))
  return (f"tool-target misalignment at rest after 4 s: {ang:.3f} deg (expected ~0); at t=0 the rotational "
          f"transmission lengths differ from log(q_target^-1 q_tool) by {err0:.3f} rad (expected 0) "
          f"[mujoco {mujoco.__version__}]")


CASES = {
    "mujoco-4.0.0-rk4-ball-order": probe_rk4_ball_order,
    "mujoco-3.15.0-so3-site-quat-order": probe_so3_site_quat_order,
    "mujoco-3.15.0-site-refsite-rot-gear": probe_site_refsite_rot_gear,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
