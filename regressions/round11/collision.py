"""Round 11 probes, area: collision (contact generation between primitives, meshes, convex hulls, height fields and
SDFs; margins and gaps; contact parameter mixing; explicit pairs; contact filtering; midphase and broadphase;
multiccd; contact frames and normals).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python collision.py <ID> [model.xml]
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


def _mesh_world_verts(m, d, gid):
  """World coordinates of the compiled vertices of mesh geom gid."""
  mid = m.geom_dataid[gid]
  adr, num = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
  v = np.asarray(m.mesh_vert[adr:adr + num], dtype=float)
  return v @ d.geom_xmat[gid].reshape(3, 3).T + d.geom_xpos[gid]


def probe_hillclimb_support(fname="mujoco-eb77d5b9_trigger.xml"):
  """A convex mesh roller resting on a box stop must not sink into it: its lowest vertex stays at the stop's top.

  A hinged lever carries a 17-sided mesh roller (34 vertices: the native convex collider uses the hill-climbing
  support function for meshes of 10 or more vertices) whose rim rests on a box stop. The probe steps 1.5 s and
  measures, from the compiled mesh vertices, how deep the roller's lowest vertex goes below the stop's top face
  (a first-principles penetration), and compares it with the depth the roller-stop contact reports. In 3.2.4 and
  3.2.5 the hill climb started from index -1 (vert_edgeadr[-1], which is the mesh's face count) and, for some
  meshes, never entered the loop and returned a vertex read outside the mesh (vert_globalid[-1]): the support
  point is wrong in every direction, and the roller collides as if it were a point near its centre.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  gid, sid = m.geom("roller").id, m.geom("stop").id
  top = m.geom_pos[sid][2] + m.geom_size[sid][2]
  worst_pen, worst_mis, nstep = -1.0, 0.0, 750
  for _ in range(nstep):
    mujoco.mj_step(m, d)
    mujoco.mj_kinematics(m, d)
    pen = top - _mesh_world_verts(m, d, gid)[:, 2].min()
    worst_pen = max(worst_pen, pen)
    dists = [d.contact.dist[i] for i in range(d.ncon)
             if {d.contact.geom1[i], d.contact.geom2[i]} == {gid, sid}]
    if pen > 0:
      rep = -min(dists) if dists else 0.0
      worst_mis = max(worst_mis, abs(rep - pen))
  tag = "BUG" if (worst_pen > 2e-3 or worst_mis > 1e-3) else "ok"
  return (f"{tag}: {mujoco.__version__} mesh roller (34 vertices) on a box stop, {nstep} steps: max depth of its "
          f"lowest vertex below the stop's top {worst_pen * 1e3:.2f} mm, max |contact depth - geometric depth| "
          f"{worst_mis * 1e3:.2f} mm, lever sag {np.degrees(d.qpos[0]):.2f} deg; ok when depth < 2 mm and "
          f"mismatch < 1 mm")


def probe_fusestatic_masks(fname="mujoco-d6553ed1_trigger.xml"):
  """A collision sphere on a jointless child body must stop at the floor whatever the body tree compiles to.

  A hinged arm (its link a visual capsule with contype=conaffinity=0) carries a foot-pad sphere on a child body
  with no joint, compiled with fusestatic="true" as URDF imports are. The arm falls from level and should come to
  rest with the pad on the floor. The probe steps 1.5 s and measures the pad's penetration into the floor plane
  from geometry (radius minus the sphere centre's height) at rest, and counts the steps at which the pad
  penetrates by more than 1 mm with no pad-floor contact. Before 3.1.5, fusestatic merged the pad into the arm body but left the arm body's collision masks
  (body_contype, body_conaffinity, computed from the arm's own non-colliding geom) at zero, so the broadphase
  body filter discarded every pad contact and the pad swung through the floor.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  pad, floor = m.geom("pad").id, m.geom("floor").id
  r = m.geom_size[pad][0]
  worst, missing, nstep = -1.0, 0, 750
  for _ in range(nstep):
    mujoco.mj_step(m, d)
    mujoco.mj_kinematics(m, d)
    pen = r - d.geom_xpos[pad][2]
    worst = max(worst, pen)
    if pen > 1e-3:
      mujoco.mj_collision(m, d)
      if not any({d.contact.geom1[i], d.contact.geom2[i]} == {pad, floor} for i in range(d.ncon)):
        missing += 1
  bid = m.geom_bodyid[pad]
  final = r - d.geom_xpos[pad][2]
  tag = "BUG" if (final > 2e-3 or missing) else "ok"
  return (f"{tag}: {mujoco.__version__} arm with a foot pad on a jointless child body (nbody {m.nbody}, pad's body "
          f"contype/conaffinity {m.body_contype[bid]}/{m.body_conaffinity[bid]}), {nstep} steps: pad penetration "
          f"into the floor at the end {final * 1e3:.2f} mm (max {worst * 1e3:.1f} mm), {missing} steps penetrating "
          f"> 1 mm with no pad-floor contact, final arm angle {np.degrees(d.qpos[0]):.1f} deg; ok when the pad rests < 2 mm deep and no "
          f"step lacks the contact")


PROBES = {
    "mujoco-eb77d5b9": probe_hillclimb_support,
    "mujoco-d6553ed1": probe_fusestatic_masks,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
