"""Round 10 probes, area: collision (primitive and convex colliders, margins, mj_geomDistance and distance sensors).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python collision.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round10")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def _point_ellipsoid_distance(p, a):
  """Distance from a point p outside an ellipsoid (semi-axes a, in its own frame) to its surface. The closest
  surface point is x_i = a_i^2 p_i / (a_i^2 + t) with t > 0 the root of sum_i (a_i p_i / (a_i^2 + t))^2 = 1, a
  function decreasing in t: found by bisection to machine precision."""
  a = np.asarray(a, float)
  f = lambda t: np.sum((a * p / (a * a + t)) ** 2) - 1.0
  lo, hi = 0.0, np.linalg.norm(p) * a.max() + 1.0
  for _ in range(200):
    t = 0.5 * (lo + hi)
    if f(t) > 0:
      lo = t
    else:
      hi = t
  t = 0.5 * (lo + hi)
  x = a * a * p / (a * a + t)
  return np.linalg.norm(p - x)


def probe_libccd_distance(fname="mujoco-3.3.0-libccd-distance_trigger.xml"):
  """A bumper ball (sphere, r 10 cm) on a slide is servoed 40 cm toward a boulder (a static ellipsoid, semi-axes
  12, 18, 30 cm, tilted 45 deg; the twin: a round boulder, sphere r 25 cm); a distance sensor reads the gap.

  First principles: for a sphere against a convex body, the signed distance is the distance from the sphere's
  centre to the body's surface less the radius; for an ellipsoid the distance from an outside point to its surface
  is the root of a one-dimensional monotone equation (computed here by bisection to machine precision). Before
  3.3.0 a sphere-ellipsoid pair goes through libccd (nativeccd was not yet the default) and mj_geomDistance,
  hence the distance sensor, misreads the gap by centimetres here. Over 1 s of the approach (every 10 steps) we
  report the worst |sensor - true gap|.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  tip, egg = m.geom("tip").id, m.geom("boulder").id
  r = m.geom_size[tip][0]
  sid = m.sensor("gap").id
  adr = m.sensor_adr[sid]
  d.ctrl[0] = 0.4
  worst, at, n = 0.0, None, 0
  step = 0
  while d.time < 1.0:
    mujoco.mj_step(m, d)
    step += 1
    if step % 10:
      continue
    # geom_xpos/xmat and sensordata both come from this step's mj_forward (before integration)
    R = d.geom_xmat[egg].reshape(3, 3)
    p = R.T @ (d.geom_xpos[tip] - d.geom_xpos[egg])
    if m.geom_type[egg] == mujoco.mjtGeom.mjGEOM_SPHERE:
      a = [m.geom_size[egg][0]] * 3
    else:
      a = m.geom_size[egg][:3]
    true = _point_ellipsoid_distance(p, a) - r
    err = abs(d.sensordata[adr] - true)
    n += 1
    if err >= worst:
      worst, at = err, (d.time, d.sensordata[adr], true)
  shape = "boulder (ellipsoid)" if m.geom_type[egg] == mujoco.mjtGeom.mjGEOM_ELLIPSOID else "round boulder (sphere)"
  verdict = "BUG" if worst > 0.001 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} bumper-{shape} distance sensor over a 1 s approach ({n} samples): "
          f"worst |sensor - true gap| {1000 * worst:.2f} mm (at t = {at[0]:.2f} s it reads {1000 * at[1]:.2f} mm, "
          f"the geometric gap is {1000 * at[2]:.2f} mm); ok when under 1 mm")


CASES = {
    "mujoco-3.3.0-libccd-distance": probe_libccd_distance,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
