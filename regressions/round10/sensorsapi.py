"""Round 10 probes, area: sensorsapi (sensors and the API functions users call beside the step: rays, distances,
Jacobians, object velocities, energies, contact forces, state functions, camera and light kinematics).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python sensorsapi.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round10")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _ray_torus_down(p, c, axis_z, big_r, small_r):
  """Distance along -z from p to the top of a torus (centre c, axis +z, radii big_r, small_r); inf when it misses."""
  assert abs(axis_z[2] - 1) < 1e-6
  rho = np.hypot(p[0] - c[0], p[1] - c[1])
  if abs(rho - big_r) >= small_r:
    return np.inf
  return p[2] - (c[2] + np.sqrt(small_r**2 - (rho - big_r)**2))


def probe_33bd2a98(fname="mujoco-33bd2a98_trigger.xml"):
  """A rangefinder must read the distance to the first surface along its site's +z axis.

  A mocap drone carries six rangefinders pointing straight down over a ring obstacle: an SDF torus (the bundled
  mujoco.sdf.torus plugin, radii 0.35 and 0.15 m, axis vertical) lying on a floor plane. The expected reading of each
  ray is computed from geometry: the top surface of the torus z = c_z + sqrt(r^2 - (rho - R)^2) where the ray's
  distance rho from the torus axis is within r of R, else the floor plane z = 0. Before 3.1.0 the ray marcher for SDF
  geoms (ray_sdf in engine_ray.c) built the SDF's frame from the geom's pose in its body (geom_pos/geom_quat) instead
  of the mesh's (mesh_pos/mesh_quat), i.e. it marched the rays through the body's frame: an SDF geom given its own pos
  (here the ring placed directly in the world at 0.8 m) is looked for at the body's origin, and every ray over it
  passes through to the floor. The same ring placed by a static body (geom at the body's origin) is right.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  g = m.geom("ring").id
  # the SDF's own frame: the geom frame composed with the inverse of the mesh frame (older releases turn a plugin
  # mesh's geom to its inertial axes and keep the offset in mesh_pos/mesh_quat; newer ones keep both at identity)
  mid = m.geom_dataid[g]
  rmesh = np.zeros(9)
  mujoco.mju_quat2Mat(rmesh, m.mesh_quat[mid])
  r_sdf = d.geom_xmat[g].reshape(3, 3) @ rmesh.reshape(3, 3).T
  c = d.geom_xpos[g] - r_sdf @ m.mesh_pos[mid]
  zax = r_sdf[:, 2]
  nbad = 0
  worst = 0.0
  txt = ""
  nring = 0
  for i in range(m.nsensor):
    sid = m.sensor_objid[i]
    p = d.site_xpos[sid]
    v = d.site_xmat[sid].reshape(3, 3)[:, 2]
    assert np.allclose(v, [0, 0, -1])
    t_ring = _ray_torus_down(p, c, zax, 0.35, 0.15)
    t_floor = p[2]
    exp = min(t_ring, t_floor)
    nring += t_ring < t_floor
    got = d.sensordata[m.sensor_adr[i]]
    err = abs(got - exp)
    if err > 1e-4:
      nbad += 1
      if err > worst:
        worst = err
        txt = f"worst '{m.sensor(i).name}': {got:.4f} m where {exp:.4f} m is right"
  tag = "BUG" if nbad else "ok"
  line = (f"{tag}: {mujoco.__version__} {m.nsensor} downward rangefinders ({nring} over the SDF ring's tube): "
          f"{nbad} disagree with the ray-torus/ray-floor distance by more than 0.1 mm")
  if nbad:
    line += "; " + txt
  return line + "; ok when 0"


PROBES = {
    "mujoco-33bd2a98": probe_33bd2a98,
}
CASES = PROBES  # the name confirm.py reads


if __name__ == "__main__":
  case = sys.argv[1]
  fn = PROBES[case]
  print(fn(sys.argv[2]) if len(sys.argv) > 2 else fn())
