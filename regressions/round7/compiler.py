"""Round-7 probes: compiler, sensors and the API functions beside the step.  mujoco + numpy only.

usage: python compiler.py <id> [model.xml]
"""
import os
import sys
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round7")


def _path(name):
  return os.path.join(HERE, name)


def _load(name):
  return mujoco.MjModel.from_xml_path(_path(name))


def _full_m(m, d):
  M = np.zeros((m.nv, m.nv))
  try:
    mujoco.mj_fullM(m, M, d.qM)
  except Exception:  # newer signature mj_fullM(m, d, dst)
    mujoco.mj_fullM(m, d, M)
  return M


def _quat2mat(q):
  R = np.zeros(9)
  mujoco.mju_quat2Mat(R, np.asarray(q, dtype=float))
  return R.reshape(3, 3)


# ---------------------------------------------------------------------------
# mujoco-ec322641: mj_mulM2 (multiply by M^(1/2)) leaves the off-diagonal
# factor terms unscaled by sqrt(D).  Law: with M = L' D L the vector
# r = M^(1/2) v must satisfy |r|^2 = v' M v (twice the kinetic energy at
# qvel = v), with M taken from mj_fullM.  Checked along a short simulation.
def mulM2(model_file='mulM2_trigger.xml'):
  m = _load(model_file)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  rng = np.random.default_rng(1)
  worst, at = 0.0, 0.0
  for _ in range(250):
    mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    M = _full_m(m, d)
    for v in [d.qvel.copy()] + [rng.standard_normal(m.nv) for _ in range(3)]:
      r = np.zeros(m.nv)
      mujoco.mj_mulM2(m, d, r, v)
      ref = float(v @ M @ v)
      err = abs(float(r @ r) - ref) / max(ref, 1e-12)
      if err > worst:
        worst, at = err, d.time
  return ('mj_mulM2: worst | |M^1/2 v|^2 - v\'Mv | = %.3g of v\'Mv at t=%.3f s' % (worst, at))


# ---------------------------------------------------------------------------
# mujoco-3.14.0-mesh-site-frame: a site that carries a mesh gets the mesh's
# canonicalization frame folded into its own pos/quat, so its sensors report
# in a rotated, shifted frame.  Reference from first principles: the site frame
# is the body frame composed with the pos/quat authored in the XML.  Compared:
# framepos, framequat (angle of the relative rotation), and the gyro
# (R_site' omega_body).
def mesh_site(model_file='meshsite_trigger.xml'):
  m = _load(model_file)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  site = ET.parse(_path(model_file)).getroot().find(".//site[@name='imu']")
  pos_auth = np.array([float(x) for x in site.get('pos').split()])
  q_auth = np.array([float(x) for x in site.get('quat').split()])
  q_auth /= np.linalg.norm(q_auth)
  sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, 'imu')
  bid = m.site_bodyid[sid]

  def sens(name):
    i = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, name)
    a = m.sensor_adr[i]
    return d.sensordata[a:a + m.sensor_dim[i]].copy()

  worst_ang = worst_pos = worst_gyro = 0.0
  for _ in range(300):
    mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    Rb = d.xmat[bid].reshape(3, 3)
    p_ref = d.xpos[bid] + Rb @ pos_auth
    q_ref = np.zeros(4)
    mujoco.mju_mulQuat(q_ref, d.xquat[bid], q_auth)
    R_ref = _quat2mat(q_ref)
    R_meas = _quat2mat(sens('imu_quat'))
    c = np.clip((np.trace(R_ref.T @ R_meas) - 1) / 2, -1, 1)
    worst_ang = max(worst_ang, np.degrees(np.arccos(c)))
    worst_pos = max(worst_pos, np.linalg.norm(sens('imu_pos') - p_ref))
    w = np.zeros(6)
    mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, bid, w, 0)  # world frame
    g_ref = R_ref.T @ w[:3]
    worst_gyro = max(worst_gyro, np.linalg.norm(sens('imu_gyro') - g_ref) / max(np.linalg.norm(g_ref), 1e-9))
  return ('mesh site: sensor frame off the authored frame by %.2f deg and %.2f mm; '
          'worst gyro error %.3g of |omega|' % (worst_ang, 1000 * worst_pos, worst_gyro))


# ---------------------------------------------------------------------------
# mujoco-db72d0d5: mj_geomDistance through the native convex solver returns
# DBL_MAX instead of distmax when the geoms are farther apart than distmax
# (issue #2710).  Reference from first principles: the scene's two boxes are
# axis-aligned and one slides vertically, so their true gap is the vertical
# gap of their faces; the documented result is min(gap, distmax).  distmax is
# the distance sensor's cutoff; the sensor itself is checked too.
def geom_distance(model_file='geomdist_trigger.xml'):
  m = _load(model_file)
  d = mujoco.MjData(m)
  g1 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, 'crate')
  g2 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, 'table')
  s = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, 'gap')
  cutoff = m.sensor_cutoff[s]
  worst, at, got = -1.0, 0.0, 0.0
  for _ in range(400):
    mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    gap = (d.geom_xpos[g1][2] - m.geom_size[g1][2]) - (d.geom_xpos[g2][2] + m.geom_size[g2][2])
    ref = min(gap, cutoff)
    fromto = np.zeros(6)
    dist = mujoco.mj_geomDistance(m, d, g1, g2, cutoff, fromto)
    for val in (dist, d.sensordata[m.sensor_adr[s]]):
      err = abs(val - ref) if np.isfinite(val) else np.inf
      if err > worst:
        worst, at, got = err, d.time, val
  return ('mj_geomDistance(distmax=%.2f): worst |dist - min(gap, distmax)| = %.3g m at t=%.3f s '
          '(returned %.4g)' % (cutoff, worst, at, got))


CASES = {
    'mujoco-ec322641': mulM2,
    'mujoco-3.14.0-mesh-site-frame': mesh_site,
    'mujoco-db72d0d5': geom_distance,
}


if __name__ == '__main__':
  case = sys.argv[1]
  args = sys.argv[2:]
  try:
    print(CASES[case](*args))
  except Exception as e:  # a release that cannot load the model
    print('%s: ERROR %s' % (case, str(e).replace('\n', ' ')[:160]))
