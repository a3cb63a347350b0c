"""Round 9 probes, area: sensorsapi (sensors other than those already in the corpus, and the API functions users
call beside the step: Jacobians, rays, object velocities, energies, contact forces, quaternion helpers, resets).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python sensorsapi.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round9")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _multiray(m, d, pnt, vec, bodyexclude):
  """mj_multiRay over the rows of vec; the signature gained a normal argument in 3.5.0."""
  n = len(vec)
  geomid = np.zeros(n, np.int32)
  dist = np.zeros(n)
  try:
    mujoco.mj_multiRay(m, d, pnt, vec.ravel(), None, 1, bodyexclude, geomid, dist, n, mujoco.mjMAXVAL)
  except TypeError:
    mujoco.mj_multiRay(m, d, pnt, vec.ravel(), None, 1, bodyexclude, geomid, dist, None, n, mujoco.mjMAXVAL)
  return dist, geomid


def _ray_box(pnt, vec, center, rot, half):
  """Entry distance of the ray pnt + t vec into the box (slab method), inf when it misses."""
  o = rot.T @ (pnt - center)
  w = rot.T @ vec
  tmin, tmax = -np.inf, np.inf
  for k in range(3):
    if abs(w[k]) < 1e-14:
      if abs(o[k]) > half[k]:
        return np.inf
      continue
    t1, t2 = (-half[k] - o[k]) / w[k], (half[k] - o[k]) / w[k]
    tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
  if tmin > tmax or tmin <= 0:
    return np.inf
  return tmin


def _ray_floor(pnt, vec, half):
  """Distance to the z=0 floor plane of half-extent half (a plane geom is finite for rays), inf when it misses."""
  if vec[2] >= 0:
    return np.inf
  t = -pnt[2] / vec[2]
  p = pnt + t * vec
  return t if (abs(p[0]) <= half[0] and abs(p[1]) <= half[1]) else np.inf


def probe_70bc7be4(fname="mujoco-70bc7be4_trigger.xml"):
  """mj_multiRay must return, for every ray, the distance to the first surface it meets.

  A lidar (site "lidar") casts a 9 x 9 grid of rays (azimuth -40..40 deg, elevation -20..20 deg, 10 and 5 deg steps)
  with mj_multiRay, excluding the robot's own body, towards a wall (box) ahead over a floor plane. Each ray's distance
  is computed independently from geometry: slab intersection with the wall box and intersection with the finite
  floor plane, the nearer of the two (-1 when neither). Before 3.5.0 mj_multiRay culled each geom by the azimuth and
  elevation range of its bounding box's eight corners only; a wide wall seen from close by reaches higher (and lower)
  elevations along its top (bottom) edge than at its corners, so rays aimed there were culled and missed the wall.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  pnt = d.site("lidar").xpos.copy()
  az = np.deg2rad(np.arange(-40, 41, 10))
  el = np.deg2rad(np.arange(-20, 21, 5))
  vec = np.array([[np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)] for e in el for a in az])
  dist, _ = _multiray(m, d, pnt, vec, m.body("robot").id)
  g = m.geom("wall").id
  f = m.geom("floor").id
  wall_c, wall_r, wall_h = d.geom_xpos[g], d.geom_xmat[g].reshape(3, 3), m.geom_size[g]
  nwall = nbad = 0
  worst = 0.0
  worst_txt = ""
  for i, v in enumerate(vec):
    tw = _ray_box(pnt, v, wall_c, wall_r, wall_h)
    tf = _ray_floor(pnt, v, m.geom_size[f][:2])
    exp = min(tw, tf)
    exp = exp if np.isfinite(exp) else -1.0
    nwall += tw < tf
    err = abs(dist[i] - exp)
    if err > 1e-6:
      nbad += 1
      if err > worst:
        worst = err
        e_deg = np.rad2deg(np.arcsin(v[2]))
        a_deg = np.rad2deg(np.arctan2(v[1], v[0]))
        worst_txt = f"worst ray az {a_deg:.0f} el {e_deg:.0f} deg: {dist[i]:.3f} m where {exp:.3f} m is right"
  tag = "BUG" if nbad else "ok"
  line = (f"{tag}: {mujoco.__version__} lidar {len(vec)} rays (wall first for {nwall}): mj_multiRay disagrees with "
          f"the geometric ray-box/ray-plane distance on {nbad} rays")
  if nbad:
    line += "; " + worst_txt
  return line + "; ok when 0"


def probe_a206daa4(fname="mujoco-a206daa4_trigger.xml"):
  """A rigid rotation of a trilinear (corotational) flex must produce no elastic force.

  The keyframe places the jelly block's 8 interpolation nodes at a rigid rotation of their rest positions (checked here:
  orthogonal Procrustes fit of keyframe node positions to rest positions, residual ~0, and its rotation angle). At that
  state, with qvel = 0 (no damping force), the elastic generalized force on the node slides must be zero. The
  corotational frame of each element is taken with mju_mat2Rot from an identity initial guess; before 4.0.0
  mju_mat2Rot stopped at once when the guess was exactly 180 deg from the answer (a stationary point), so a block
  turned half a turn about a coordinate axis was treated as if inverted through itself. The figure is the largest
  elastic force, against the block's weight, and how far the nodes move in the next 0.5 s (mm settling when right).
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  nodes = [b for b in range(m.nbody) if m.body_jntnum[b] == 3 and
           all(m.jnt_type[m.body_jntadr[b] + k] == mujoco.mjtJoint.mjJNT_SLIDE for k in range(3))]
  mujoco.mj_resetData(m, d)
  mujoco.mj_kinematics(m, d)
  X0 = np.array([d.xpos[b].copy() for b in nodes])
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  X1 = np.array([d.xpos[b].copy() for b in nodes])
  # rigid fit X1 ~ c1 + R (X0 - c0)
  A, B = X0 - X0.mean(0), X1 - X1.mean(0)
  U, _, Vt = np.linalg.svd(B.T @ A)
  R = U @ np.diag([1, 1, np.linalg.det(U @ Vt)]) @ Vt
  resid = np.abs(B - A @ R.T).max()
  angle = np.rad2deg(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1)))
  frc = getattr(d, "qfrc_spring", None)
  frc = d.qfrc_passive if frc is None else frc
  dofs = [m.body_dofadr[b] + k for b in nodes for k in range(3)]
  fmax = np.abs(frc[dofs]).max()
  weight = np.sum(m.body_mass) * np.linalg.norm(m.opt.gravity)
  q0 = d.qpos.copy()
  for _ in range(int(round(0.5 / m.opt.timestep))):
    mujoco.mj_step(m, d)
  move = 0.0
  mujoco.mj_kinematics(m, d)
  X2 = np.array([d.xpos[b].copy() for b in nodes])
  move = np.abs(X2 - X1).max()
  tag = "BUG" if fmax > 1e-6 * max(weight, 1.0) else "ok"
  return (f"{tag}: {mujoco.__version__} keyframe = rigid turn of {angle:.0f} deg of the rest shape (fit residual "
          f"{resid:.1e} m): largest elastic node force {fmax:.1f} N where 0 is right (block weight {weight:.2f} N); "
          f"nodes move up to {move * 1000:.0f} mm in the next 0.5 s; ok when the force is under 1e-6 x weight")


CASES = {
    "mujoco-70bc7be4": probe_70bc7be4,
    "mujoco-a206daa4": probe_a206daa4,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
