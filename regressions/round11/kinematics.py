"""Round 11 probes, area: kinematics (joints and kinematic trees, mass matrix and its factorization, bias forces,
and tendons: fixed and spatial tendons, wrapping over spheres and cylinders, pulleys, tendon lengths, velocities,
Jacobians and moment arms).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python kinematics.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  if os.path.isabs(fname) or os.path.exists(fname):
    return fname
  return os.path.join(MODELS, os.path.basename(fname))


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _kin(m, d):
  mujoco.mj_kinematics(m, d)
  mujoco.mj_comPos(m, d)
  mujoco.mj_tendon(m, d)


def _circle_wrap_length(p0, p1, r):
  """Shortest length from p0 to p1 (points in the frame of a cylinder on its z axis, radius r) that stays outside
  the cylinder: straight if the segment's projection clears the disc, otherwise tangent + arc + tangent in the
  projection plane, combined with the axial rise as a helix (MuJoCo's model of cylinder wrapping)."""
  a, b = p0[:2], p1[:2]
  d0, d1 = np.linalg.norm(a), np.linalg.norm(b)
  th = np.arccos(np.clip(a @ b / (d0 * d1), -1.0, 1.0))
  excess = th - np.arccos(r / d0) - np.arccos(r / d1)   # > 0: the segment crosses the disc
  if excess <= 0:
    return float(np.linalg.norm(p1 - p0)), excess
  planar = np.sqrt(d0 * d0 - r * r) + np.sqrt(d1 * d1 - r * r) + r * excess
  return float(np.hypot(planar, p1[2] - p0[2])), excess


def probe_wrap_onset(fname="mujoco-3.16.0-wrap-onset-long-way_trigger.xml"):
  """A cable over a guide roller has the length of the shortest path round the roller, also where it first touches it.

  The boom starts (keyframe 0) at some angle; the probe sweeps the hinge over +-1 urad around that angle (4001 poses
  and the keyframe itself) and compares ten_length with the shortest anchor-roller-tip path computed from the site
  and geom frames (straight while the cable's line clears the roller's disc, tangent-arc-tangent once it crosses
  it). Before 3.16.0, within about 1e-7 rad of wrap onset the outside-wrap solver (wrap_circle) marks the correct
  tangent solution as self-intersecting and takes the other one, or returns NaN: the cable comes out 25 mm too long
  (the long way round) or NaN. In the twin the keyframe is 0.074 rad away from onset and nothing is wrong.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  t = m.tendon("cable").id
  g = m.geom("roller").id
  a, s = m.site("anchor").id, m.site("tip").id
  r = m.geom_size[g][0]
  k = m.tendon_stiffness[t]
  qkey = float(m.key_qpos[0][0])

  def check(q):
    d.qpos[0] = q
    _kin(m, d)
    R = d.geom_xmat[g].reshape(3, 3)
    c = d.geom_xpos[g]
    ref, _ = _circle_wrap_length(R.T @ (d.site_xpos[a] - c), R.T @ (d.site_xpos[s] - c), r)
    return float(d.ten_length[t]), ref

  lkey, rkey = check(qkey)
  worst, worst_q, nbad, nnan = 0.0, qkey, 0, 0
  qs = np.concatenate([[qkey], qkey + np.linspace(-1e-6, 1e-6, 4001)])
  for q in qs:
    ln, ref = check(q)
    if not np.isfinite(ln):
      nnan += 1
      nbad += 1
      continue
    err = abs(ln - ref)
    if err > 1e-6:
      nbad += 1
    if err > worst:
      worst, worst_q = err, q
  bug = nnan > 0 or worst > 1e-6
  tag = "BUG" if bug else "ok"
  return (f"{tag}: {mujoco.__version__} spring cable over a guide roller, boom at {qkey:.10f} rad (keyframe) "
          f"+-1 urad, {len(qs)} poses: keyframe ten_length {lkey:.6f} m vs shortest path {rkey:.6f} m; "
          f"{nbad} poses wrong ({nnan} NaN), max |ten_length - shortest path| = {worst * 1e3:.3f} mm "
          f"at {worst_q:.10f} rad (spring force error {k * worst:.2f} N); ok when no NaN and all < 0.001 mm")


PROBES = {
    "mujoco-3.16.0-wrap-onset-long-way": probe_wrap_onset,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
