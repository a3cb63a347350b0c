"""Probes for collision-detection bug cases. Usage: python probe.py <id> [model.xml]
Only mujoco and numpy are used. Each probe returns a one-line string with numbers."""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round6")  # the scenes


def _load(fname):
  path = fname if os.path.isabs(fname) else os.path.join(HERE, fname)
  if not os.path.exists(path):
    path = fname
  m = mujoco.MjModel.from_xml_path(path)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  return m, d


def _contacts(d):
  """Version-robust contact arrays (struct views are unreliable in old bindings)."""
  n = d.ncon
  c = d.contact
  return (np.array(c.geom1[:n]), np.array(c.geom2[:n]), np.array(c.dist[:n]),
          np.array(c.pos[:n]).reshape(n, 3), np.array(c.frame[:n]).reshape(n, 9))


def probe_meshedge(fname=None):
  """f2a2afeb: a cube mesh landing on one edge must keep mirror symmetry about
  the xz-plane (its edge is parallel to y, the scene is symmetric in y): the
  roll/yaw angular velocity (world x and z) and the y drift must stay 0, and
  multiccd must put a contact at each end of the edge (2 contacts)."""
  m, d = _load(fname or "mujoco-f2a2afeb_trigger.xml")
  b = m.body("crate").id
  gc, gt = m.geom("crate").id, m.geom("table").id
  T = 1.0
  wmax = 0.0
  ymax = 0.0
  nsteps_edge = 0
  nsteps_one = 0
  for _ in range(int(round(T / m.opt.timestep))):
    mujoco.mj_step(m, d)
    # world angular velocity of the crate
    vel = np.zeros(6)
    mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)
    wmax = max(wmax, abs(vel[0]), abs(vel[2]))
    ymax = max(ymax, abs(d.xpos[b][1]))
    g1, g2, dist, pos, frame = _contacts(d)
    sel = ((g1 == gc) & (g2 == gt)) | ((g1 == gt) & (g2 == gc))
    k = int(sel.sum())
    if k:
      # edge phase: all contact points on one line parallel to y ( same x )
      # the crate is tilted: count steps where its contacts do not span the edge
      tilt = abs(np.degrees(np.arctan2(d.xmat[b][2], d.xmat[b][8])))
      if tilt > 1.0:
        nsteps_edge += 1
        if k < 2:
          nsteps_one += 1
  return ("meshedge: max|w_roll,yaw| %.3e rad/s (expect 0)  max|y drift| %.3e m (expect 0)  "
          "edge-contact steps with <2 contacts %d/%d  [mujoco %s]" %
          (wmax, ymax, nsteps_one, nsteps_edge, mujoco.__version__))


def probe_edgeflip(fname=None):
  """4035c664: the contact point of the block's edge on the mesh step's flat top
  (z = H) must lie midway between the two surfaces: pos_z = H + dist/2.
  Reports the largest deviation, absolute and as a fraction of the depth."""
  m, d = _load(fname or "mujoco-4035c664_trigger.xml")
  gs, gb = m.geom("step").id, m.geom("block").id
  H = m.geom_pos[gs][2] + 0.05  # top face of the step (half height 0.05)
  T = 1.5
  err = 0.0
  rel = 0.0
  depth_at = 0.0
  n = 0
  for _ in range(int(round(T / m.opt.timestep))):
    mujoco.mj_step(m, d)
    g1, g2, dist, pos, frame = _contacts(d)
    for i in range(len(dist)):
      if {g1[i], g2[i]} == {gs, gb} and dist[i] < -1e-5:
        n += 1
        e = abs(pos[i][2] - (H + dist[i] / 2))
        if e > err:
          err, rel, depth_at = e, e / abs(dist[i]), -dist[i]
  return ("edgeflip: max|pos_z-(H+dist/2)| %.3e m = %.3f x depth (depth %.3e m, expect 0)  "
          "over %d penetrating contacts  [mujoco %s]" %
          (err, rel, depth_at, n, mujoco.__version__))


CASES = {
    "mujoco-f2a2afeb": probe_meshedge,
    "mujoco-4035c664": probe_edgeflip,
}

if __name__ == "__main__":
  cid = sys.argv[1]
  fn = CASES[cid]
  print(fn(sys.argv[2] if len(sys.argv) > 2 else None))
