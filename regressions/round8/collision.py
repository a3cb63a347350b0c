"""Round 8 probes, area: collision (narrowphase pairs, SDF, CCD, margins and gaps, contact parameters, filtering).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python collision.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round8")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def _rest_height_in_torus(a, c, r1, r2):
  """Centre height of an axisymmetric ellipsoid (semi-axes a, a, c; a sphere when a == c) resting in the hole
  of a torus (tube-centre radius r1, tube radius r2, axis z, centred at the origin): the height h at which the
  ellipse x^2/a^2 + (z-h)^2/c^2 = 1 is tangent to the tube's circle (distance r2 from (r1, 0))."""
  t = np.linspace(-np.pi / 2, 0.0, 200001)
  ex, ez = a * np.cos(t), c * np.sin(t)
  lo, hi = 0.0, a + c + r1 + r2
  for _ in range(60):
    h = 0.5 * (lo + hi)
    if np.min(np.hypot(ex - r1, h + ez)) < r2:
      lo = h
    else:
      hi = h
  return 0.5 * (lo + hi)


def probe_e6bf6fc3(fname="mujoco-e6bf6fc3_trigger.xml"):
  """A free ellipsoid (or, in the twin, a sphere) drops into the hole of a static SDF torus (mujoco.sdf.torus
  plugin, radius1 0.35, radius2 0.15) and comes to rest on the ring, centred on the axis.

  First principles: at rest the body sits where its surface is tangent to the tube, a height computed here
  from the geometry (the contact's soft penetration is a fraction of a mm with these defaults). The bug
  (ellipsoid SDF gradient not the gradient of the ellipsoid's distance function, and not normalized) steers
  the SDF collider's descent and contact normals wrong: the ellipsoid sinks into the ring.
  """
  r1, r2 = 0.35, 0.15  # the torus plugin's radius1, radius2 in the scenes
  m = _load(fname)
  d = mujoco.MjData(m)
  g = m.geom("egg").id
  size = m.geom_size[g]
  if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE:
    a = c = size[0]
  else:
    a, c = size[0], size[2]
  h_true = _rest_height_in_torus(a, c, r1, r2)
  while d.time < 3.0:
    mujoco.mj_step(m, d)
  z = d.qpos[2]
  off = np.hypot(d.qpos[0], d.qpos[1])
  sink = h_true - z
  verdict = "BUG" if sink > 0.002 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} {m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE and 'sphere' or 'ellipsoid'} "
          f"rests at z = {z:.4f} m, tangency height {h_true:.4f} m: sunk {1000 * sink:.2f} mm into the ring "
          f"(off-axis {1000 * off:.1f} mm); ok when under 2 mm")


def probe_50fa598d(fname="mujoco-50fa598d_trigger.xml"):
  """A stylus (capsule, radius 6 mm) on a vertical slide is pressed by a motor (ramped to 20 N, plus its
  weight) into a soft foam puck (cylinder, solref 0.2). In the trigger the stylus is tilted 45 deg and off the
  puck's axis, so once it sinks deeper than its radius its core segment enters the puck and the native convex
  collider (GJK on the capsule's core) ends on a tetrahedron; in the twin it stands upright.

  First principles: a contact's depth (-dist) is the geometric overlap of the two solids. We measure the overlap
  of the stylus's lowest point below the puck's top face (the point is well inside the puck's footprint) and
  compare it with the reported pin-puck contact depth; a stylus the foam holds stops inside the 40 mm puck.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  pin = m.geom("pin").id
  puck = m.geom("puck").id
  r, hl = m.geom_size[pin][:2]
  top = m.geom_pos[puck][2] + m.geom_size[puck][1]
  thick = 2 * m.geom_size[puck][1]
  worst = 0.0
  while d.time < 3.0:
    d.ctrl[0] = 20.0 * min(1.0, d.time / 1.0)
    mujoco.mj_step(m, d)
  axis = d.geom_xmat[pin].reshape(3, 3)[:, 2]
  overlap = top - (d.geom_xpos[pin][2] - hl * abs(axis[2]) - r)
  depths = [-c.dist for c in d.contact[:d.ncon] if {c.geom1, c.geom2} == {pin, puck}]
  depth = max(depths) if depths else 0.0
  gap = overlap - depth
  verdict = "BUG" if abs(gap) > 0.002 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} stylus overlaps the puck by {1000 * overlap:.1f} mm "
          f"(puck {1000 * thick:.0f} mm thick, stylus radius {1000 * r:.0f} mm); pin-puck contact depth "
          f"{1000 * depth:.1f} mm ({len(depths)} contacts): depth misses {1000 * gap:.1f} mm of the overlap; "
          f"ok when under 2 mm")


def probe_plane_small_mesh(fname="mujoco-3.13.0-plane-small-mesh_trigger.xml"):
  """A doorstop wedge (convex mesh, 6 vertices; in the twin the same hull plus 4 interior points, 10 vertices)
  is dropped 1 cm onto a plane and left alone for 5 s.

  First principles: a rigid wedge resting on its flat rectangular base on a level floor, with no horizontal
  force, stays level (tilt only from the soft contact, a few hundredths of a degree here) and does not move.
  The bug (plane-mesh collider walking the hull-graph neighbourhood of the wrong vertex for meshes under 10
  vertices) drops base corners from the contact set: the wedge rests on 1-2 points, tilts, sinks and creeps.
  We report the tilt and sinking at t = 5 s and the horizontal drift between t = 0.5 s and t = 5 s.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  g = m.geom("wedge").id
  b = m.body("wedge").id
  x0 = None
  ncons = []
  while d.time < 5.0:
    mujoco.mj_step(m, d)
    if x0 is None and d.time >= 0.5:
      x0 = d.xpos[b].copy()
    if d.time >= 0.5:
      ncons.append(sum(1 for c in d.contact[:d.ncon] if g in (c.geom1, c.geom2)))
  tilt = np.degrees(np.arccos(np.clip(d.xmat[b][8], -1.0, 1.0)))
  drift = np.linalg.norm(d.xpos[b][:2] - x0[:2])
  sink = -d.xpos[b][2]  # the body frame sits on the base face
  verdict = "BUG" if (tilt > 0.3 or drift > 0.001) else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} wedge ({m.mesh_vertnum[0]} mesh vertices) at rest on its base: "
          f"tilt {tilt:.3f} deg, base {1000 * sink:.2f} mm below the floor, drift {1000 * drift:.2f} mm in 4.5 s, "
          f"wedge-floor contacts min {min(ncons)} max {max(ncons)}; ok when tilt < 0.3 deg and drift < 1 mm")


CASES = {
    "mujoco-e6bf6fc3": probe_e6bf6fc3,
    "mujoco-50fa598d": probe_50fa598d,
    "mujoco-3.13.0-plane-small-mesh": probe_plane_small_mesh,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
