"""Round 9 probes, area: constraints (solvers, solref/solimp, limits, equality constraints, friction loss, cones,
islands, sleeping, flexes and their contacts, tendons' geometry and wrapping).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
"BUG:" or "ok:" and gives the figure and what it should be.
Run: python constraints.py <ID> [model.xml]
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


def _id(m, kind, name):
  return mujoco.mj_name2id(m, kind, name)


def probe_sidesite_endpoint_wrap(fname="mujoco-4.0.0-sidesite-endpoint-wrap_trigger.xml"):
  """A taut cable whose straight path clears a wrapping cylinder, with the cylinder beside (not between) its ends,
  is straight: its length is the distance between its two sites.

  The cable runs anchor -> roller (cylinder, maybe with a sidesite) -> tip. In the keyframe both ends lie on the
  same side of the roller: the point of the segment nearest the roller's axis is an end point, and the segment
  clears the roller. No taut path can go around an obstacle that is not between its ends, so the length must be
  |tip - anchor| whatever side the sidesite prefers (a sidesite only chooses between the two ways round an
  obstacle that is in the way). Measured: ten_length after mj_forward; the figure also gives the clearance.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  a = d.site_xpos[_id(m, mujoco.mjtObj.mjOBJ_SITE, "anchor")].copy()
  b = d.site_xpos[_id(m, mujoco.mjtObj.mjOBJ_SITE, "tip")].copy()
  g = _id(m, mujoco.mjtObj.mjOBJ_GEOM, "roller")
  c = d.geom_xpos[g]
  ax = d.geom_xmat[g].reshape(3, 3)[:, 2]
  r = m.geom_size[g][0]
  proj = lambda x: (x - c) - np.dot(x - c, ax) * ax  # into the roller's cross-section plane
  pa, pb = proj(a), proj(b)
  u = pb - pa
  s = -np.dot(pa, u) / np.dot(u, u)  # parameter of the point nearest the axis on the (infinite) line
  sc = min(max(s, 0.0), 1.0)
  clear = np.linalg.norm(pa + sc * u) - r
  straight = np.linalg.norm(b - a)
  t = _id(m, mujoco.mjtObj.mjOBJ_TENDON, "cable")
  length = d.ten_length[t]
  k = m.tendon_stiffness[t] if np.ndim(m.tendon_stiffness[t]) == 0 else m.tendon_stiffness[t][0]
  L0 = m.tendon_lengthspring[t][0] if np.ndim(m.tendon_lengthspring[t]) else m.tendon_lengthspring[t]
  nwrap = int(sum(1 for i in range(d.ten_wrapnum[t]) if d.wrap_obj.ravel()[d.ten_wrapadr[t] + i] >= 0))
  err = length - straight
  tag = "BUG" if abs(err) > 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} cable length {length:.4f} m, straight anchor-tip {straight:.4f} m (roller "
          f"beside the ends: nearest point at s={s:.2f} of the segment, clearance {clear * 1000:.0f} mm; "
          f"{nwrap} wrap points on the roller); excess {err * 1000:.1f} mm, spring tension "
          f"{k * max(length - L0, 0):.1f} N where {k * max(straight - L0, 0):.1f} N is right; ok when under 1e-3 mm")


CASES = {
    "mujoco-4.0.0-sidesite-endpoint-wrap": probe_sidesite_endpoint_wrap,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
