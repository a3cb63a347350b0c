"""Round 10 probes, area: patches (physics bugs MuJoCo C fixed in a patch release x.y.N).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
"BUG:" or "ok:" and gives the figure and what it should be.
Run: python patches.py <ID> [model.xml]
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


def _id(m, kind, name):
  return mujoco.mj_name2id(m, kind, name)


def probe_hfield_touching_box(fname="mujoco-3.3.1-hfield-touching-box_trigger.xml"):
  """A box on a flat height field: every contact's dist must equal the geometric gap and its normal be vertical.

  The terrain has no elevation data, so its surface is the plane z = 0 over the whole field. The gap between the
  crate and the terrain is then the lowest corner's height, min_k z_k (negative = penetration). Every contact
  MuJoCo reports for the pair must have dist >= gap - 1 mm (no contact can be deeper than the true overlap) and a
  frame normal within 1 deg of vertical. Figures: the deepest contact dist and the largest normal tilt at the
  initial state, and the crate's highest rise above its start during 1 s (a crate resting on or dropping onto
  flat ground cannot rise by more than ~1 mm).
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  g = _id(m, mujoco.mjtObj.mjOBJ_GEOM, "crate")
  t = _id(m, mujoco.mjtObj.mjOBJ_GEOM, "ground")
  R = d.geom_xmat[g].reshape(3, 3)
  s = m.geom_size[g]
  corners = [d.geom_xpos[g] + R @ (s * np.array([i, j, k])) for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)]
  top = m.hfield_size[m.geom_dataid[t]][2] * 0.0  # no elevation data: surface at z = 0 (plus the geom's z)
  gap = min(c[2] for c in corners) - (d.geom_xpos[t][2] + top)
  deep, tilt, n = 0.0, 0.0, 0
  for i in range(d.ncon):
    c = d.contact[i]
    if {c.geom[0], c.geom[1]} != {g, t}:
      continue
    n += 1
    deep = min(deep, c.dist)
    tilt = max(tilt, np.degrees(np.arccos(min(1.0, abs(c.frame[2])))))
  z0 = d.qpos[2]
  rise = 0.0
  for _ in range(int(round(1.0 / m.opt.timestep))):
    mujoco.mj_step(m, d)
    rise = max(rise, d.qpos[2] - z0)
  bad = (deep < min(gap, 0.0) - 1e-3) or (tilt > 1.0) or (rise > 2e-3)
  tag = "BUG" if bad else "ok"
  return (f"{tag}: {mujoco.__version__} crate gap to the flat terrain {gap * 1000:+.1f} mm; {n} crate-terrain "
          f"contacts at t=0, deepest dist {deep * 1000:.1f} mm (must be >= {min(gap, 0) * 1000:.1f} mm), normals "
          f"tilted up to {tilt:.1f} deg (must be vertical); crate rises {rise * 1000:.1f} mm in 1 s (must be "
          f"<= 2 mm)")


CASES = {
    "mujoco-3.3.1-hfield-touching-box": probe_hfield_touching_box,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
