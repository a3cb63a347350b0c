"""Round-7 probes for collision bug cases. Usage: python collision.py <id> [model.xml]
Only mujoco and numpy are used. Each probe returns a one-line string with numbers."""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round7")


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


def _npair(d, ga, gb):
  g1, g2, _, _, _ = _contacts(d)
  return int((((g1 == ga) & (g2 == gb)) | ((g1 == gb) & (g2 == ga))).sum())


def probe_boxbox_deep(fname=None):
  """f2a96734 (3.1.1): a thin box tile falling onto a box crate penetrates, in
  its first contact step, deeper than its own thickness. Contacts from mjc_BoxBox
  then lie outside the thin tile and 3.1.0's post-filter dropped them, so the
  tile passed through the crate. Law: two overlapping solids must produce a
  contact; the tile must come to rest on the lid (sink of at most a few mm)."""
  m, d = _load(fname or "mujoco-f2a96734_trigger.xml")
  gt, gc = m.geom("tile").id, m.geom("crate").id
  b = m.body("tile").id
  h = m.geom_size[gt][2]
  top = m.geom_pos[gc][2] + m.geom_size[gc][2]
  half = m.geom_size[gc][:2]
  sink = 0.0
  nmiss = 0
  for _ in range(int(round(1.5 / m.opt.timestep))):
    mujoco.mj_step(m, d)
    z = d.xpos[b][2]
    inside_xy = np.all(np.abs(d.xpos[b][:2]) < half)
    if inside_xy:
      sink = max(sink, top - (z - h))
      # geometric overlap (tile bottom below the lid, top above the crate's base)
      if z - h < top and z + h > 0 and _npair(d, gt, gc) == 0:
        nmiss += 1
  return (f"deepest sink of tile bottom below crate lid = {sink:.4f} m (tile thickness {2*h:.3f} m); "
          f"final tile z = {d.xpos[b][2]:.3f} m (lid at {top:.3f}); overlapping steps with no tile-crate contact = {nmiss}")


def probe_stack_multiccd(fname=None):
  """d6943731 (3.3.1): nativeccd multiccd's halfspace test used a strict '>' so,
  for two convex meshes stacked with exactly aligned side faces, the contact
  polygon lost corners and only 2 contacts (one diagonal) came back. Law: a
  square face resting flat on a larger-or-equal square face has a contact patch
  equal to the shared square, which multiccd represents by its 4 corners; a
  2-point (zero-area) support cannot resist a torque about that diagonal."""
  m, d = _load(fname or "mujoco-d6943731_trigger.xml")
  gb, gp = m.geom("block").id, m.geom("plinth").id
  b = m.body("block").id
  nsteps = int(round(2.0 / m.opt.timestep))
  nbad = 0
  nres = 0
  minc = 99
  tilt = 0.0
  for _ in range(nsteps):
    mujoco.mj_step(m, d)
    k = _npair(d, gb, gp)
    if k:
      nres += 1
      minc = min(minc, k)
      if k < 4:
        nbad += 1
    tilt = max(tilt, np.degrees(np.arccos(np.clip(d.xmat[b][8], -1, 1))))
  return (f"steps in contact with fewer than 4 block-plinth contacts = {nbad} of {nres} "
          f"(min count {minc}); max block tilt = {tilt:.4f} deg")


def probe_multiccd_depth(fname=None):
  """17e6d44a + ab1af249 (3.12.0): multicontact (multiccd) between convex
  meshes gave every contact of the clipped face polygon the single deepest
  penetration, with witness points offset by that depth, and dropped corners of
  slightly tilted faces. Law: each contact's dist must equal the signed gap
  between the block's bottom face and the table top at that contact's (x, y);
  all penetrating bottom corners must be represented; and a block set down on a
  flat table must settle flat (zero residual tilt)."""
  m, d = _load(fname or "mujoco-17e6d44a_trigger.xml")
  gb, gt = m.geom("block").id, m.geom("table").id
  b = m.body("block").id
  top = m.geom_pos[gt][2] + m.geom_size[gt][2]
  if m.geom_type[gb] == mujoco.mjtGeom.mjGEOM_MESH:
    mid = m.geom_dataid[gb]
    v = np.array(m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]])
    h = float(np.max(np.abs(v[:, 2])))  # half-height of the (centred, cube) block mesh
  else:
    h = float(m.geom_size[gb][2])

  def face_gap(p):
    R = d.geom_xmat[gb].reshape(3, 3)
    n = R[:, 2]
    c0 = d.geom_xpos[gb] - h * n  # centre of the bottom face
    z = c0[2] - (n[0] * (p[0] - c0[0]) + n[1] * (p[1] - c0[1])) / n[2]
    return z - top

  g1, g2, dist, pos, _ = _contacts(d)
  sel = ((g1 == gb) & (g2 == gt)) | ((g1 == gt) & (g2 == gb))
  dist, pos = dist[sel], pos[sel]
  R = d.geom_xmat[gb].reshape(3, 3)
  corners = [d.geom_xpos[gb] + R @ np.array([sx * h, sy * h, -h]) for sx in (-1, 1) for sy in (-1, 1)]
  npen = sum(1 for c in corners if c[2] < top)
  dmax = max(abs(min(dist)) if len(dist) else 0.0, 1e-12)
  err = max((abs(di - face_gap(p)) for di, p in zip(dist, pos)), default=float("nan"))
  for _ in range(int(round(2.0 / m.opt.timestep))):
    mujoco.mj_step(m, d)
  tilt = np.degrees(np.arccos(np.clip(d.xmat[b][8], -1, 1)))
  return (f"t=0: worst |contact dist - geometric gap| = {err*1e3:.3f} mm ({err/dmax:.2f} of max depth), "
          f"{len(dist)} contacts for {npen} penetrating corners; residual tilt after 2 s = {tilt:.4f} deg")


CASES = {
    "mujoco-f2a96734": probe_boxbox_deep,
    "mujoco-d6943731": probe_stack_multiccd,
    "mujoco-17e6d44a": probe_multiccd_depth,
}

if __name__ == "__main__":
  cid = sys.argv[1]
  fn = CASES[cid]
  print(fn(*sys.argv[2:]))
