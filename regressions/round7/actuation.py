"""Round 7 probes, area: actuation (actuators, transmissions, passive forces, integrators,
derivatives). Usage: python actuation.py <id> [model.xml]
Only mujoco and numpy (plus the standard library) are used."""
import os
import sys

import numpy as np
import mujoco

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round7")


def _load(cid, fname=None):
  path = os.path.join(HERE, fname or (cid + '_trigger.xml'))
  return mujoco.MjModel.from_xml_path(path)


def _reset(m, d):
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  else:
    mujoco.mj_resetData(m, d)


def _ctrl_nudges(m, ctrl, i, eps):
  """The nudges of control i that keep it inside its ctrlrange: (+eps, -eps) where possible."""
  lo, hi = m.actuator_ctrlrange[i]
  limited = bool(m.actuator_ctrllimited[i])
  fwd = (not limited) or (ctrl + eps <= hi and ctrl >= lo)
  back = (not limited) or (ctrl - eps >= lo and ctrl <= hi)
  return fwd, back


# --------------------------------------------------------------------------------------------
# mujoco-4.0.0-fd-ctrl-sensor-sign
# mjd_transitionFD(..., flg_centered=1, ..., C, D): D = d(sensordata)/d(ctrl).
# Expected from first principles: the centred difference of the sensors that mj_forward
# computes at the same state with ctrl +/- eps (one-sided where a control sits at an end of
# its ctrlrange, as transitionFD itself does).
def fd_ctrl_sensor_sign(fname=None):
  cid = 'mujoco-4.0.0-fd-ctrl-sensor-sign'
  m = _load(cid, fname)
  d = mujoco.MjData(m)
  eps = 1e-6
  _reset(m, d)
  nx = 2 * m.nv + m.na
  A = np.zeros((nx, nx)); B = np.zeros((nx, m.nu))
  C = np.zeros((m.nsensordata, nx)); D = np.zeros((m.nsensordata, m.nu))
  mujoco.mjd_transitionFD(m, d, eps, 1, A, B, C, D)

  _reset(m, d)
  ctrl0 = d.ctrl.copy()

  def sensors(ctrl):
    _reset(m, d)
    d.ctrl[:] = ctrl
    mujoco.mj_forward(m, d)
    return d.sensordata.copy()

  s0 = sensors(ctrl0)
  ref = np.zeros_like(D)
  for i in range(m.nu):
    fwd, back = _ctrl_nudges(m, ctrl0[i], i, eps)
    cp = ctrl0.copy(); cp[i] += eps
    cm = ctrl0.copy(); cm[i] -= eps
    if fwd and back:
      ref[:, i] = (sensors(cp) - sensors(cm)) / (2 * eps)
    elif fwd:
      ref[:, i] = (sensors(cp) - s0) / eps
    elif back:
      ref[:, i] = (s0 - sensors(cm)) / eps
  scale = np.max(np.abs(ref))
  err = np.abs(D - ref)
  k = np.unravel_index(np.argmax(err), err.shape)
  names = []
  for s in range(m.nsensor):
    nm = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SENSOR, s) or f'sensor{s}'
    names += [nm] * m.sensor_dim[s]
  act = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, k[1]) or f'actuator{k[1]}'
  return (f"worst |D - dsensor/dctrl| = {err[k] / scale:.3g} of max|dsensor/dctrl| "
          f"(d {names[k[0]]}/d ctrl[{act}]: transitionFD {D[k]:+.4g}, expected {ref[k]:+.4g}; "
          f"mujoco {mujoco.__version__})")


# --------------------------------------------------------------------------------------------
# mujoco-4.0.0-fd-implicit-ctrl-damping
# mjd_transitionFD's B = d(next state)/d(ctrl) must equal the centred difference of mj_step
# itself. With an implicit integrator a damper's velocity derivative (-kv * ctrl) depends on
# ctrl, so the implicit matrix (M - h D) changes with ctrl.
def fd_implicit_ctrl_damping(fname=None):
  cid = 'mujoco-4.0.0-fd-implicit-ctrl-damping'
  m = _load(cid, fname)
  d = mujoco.MjData(m)
  eps = 1e-6
  _reset(m, d)
  nx = 2 * m.nv + m.na
  A = np.zeros((nx, nx)); B = np.zeros((nx, m.nu))
  mujoco.mjd_transitionFD(m, d, eps, 1, A, B, None, None)

  _reset(m, d)
  ctrl0 = d.ctrl.copy()

  def step_qvel(ctrl):
    _reset(m, d)
    d.ctrl[:] = ctrl
    mujoco.mj_step(m, d)
    return d.qvel.copy()

  ref = np.zeros((m.nv, m.nu))
  for i in range(m.nu):
    cp = ctrl0.copy(); cp[i] += eps
    cm = ctrl0.copy(); cm[i] -= eps
    ref[:, i] = (step_qvel(cp) - step_qvel(cm)) / (2 * eps)
  Bv = B[m.nv:2 * m.nv]
  rel = np.abs(Bv - ref) / np.maximum(np.abs(ref), 1e-12)
  k = np.unravel_index(np.argmax(rel), rel.shape)
  act = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, k[1]) or f'actuator{k[1]}'
  return (f"worst |B - dqvel_next/dctrl| = {rel[k]:.3g} of |dqvel_next/dctrl| "
          f"(ctrl[{act}]: transitionFD {Bv[k]:+.5g}, centred mj_step {ref[k]:+.5g}; "
          f"mujoco {mujoco.__version__})")


CASES = {
    'mujoco-4.0.0-fd-ctrl-sensor-sign': fd_ctrl_sensor_sign,
    'mujoco-4.0.0-fd-implicit-ctrl-damping': fd_implicit_ctrl_damping,
}

if __name__ == '__main__':
  print(CASES[sys.argv[1]](*sys.argv[2:]))
