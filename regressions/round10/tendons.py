"""Round 10 probes, area: tendons (spatial tendons wrapping spheres and cylinders, fixed tendons, tendon lengths,
velocities, Jacobians, springs, dampers, limits, actuators and sensors on tendons).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python tendons.py <ID> [model.xml]
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


def _kin(m, d):
  mujoco.mj_kinematics(m, d)
  mujoco.mj_comPos(m, d)
  mujoco.mj_tendon(m, d)


def _through_ball(x0, x1, c, r):
  """Length of the shortest path from x0 to x1 that meets the closed ball (centre c, radius r).

  A tendon wrapping a sphere whose sidesite lies inside it must pass through the sphere: if the straight segment
  meets the ball the path is straight; otherwise it is the shortest x0-p-x1 with p on the sphere. That p lies in the
  plane of c, x0 and x1, so a 1-D minimisation over the great circle in that plane gives it.
  """
  a, b = x0 - c, x1 - c
  dif = b - a
  t = np.clip(-(a @ dif) / (dif @ dif), 0.0, 1.0)
  if np.linalg.norm(a + t * dif) <= r:
    return np.linalg.norm(dif)
  e1 = a / np.linalg.norm(a)
  e2 = b - (b @ e1) * e1
  e2 = e2 / np.linalg.norm(e2) if np.linalg.norm(e2) > 1e-12 else np.cross(e1, [0.0, 1.0, 0.0])
  def f(phi):
    p = r * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
    return np.linalg.norm(a - p, axis=1) + np.linalg.norm(b - p, axis=1)

  phis = np.linspace(-np.pi, np.pi, 721)
  step = phis[1] - phis[0]
  best = phis[int(np.argmin(f(phis)))]
  for _ in range(4):
    phis = np.linspace(best - step, best + step, 101)
    step = phis[1] - phis[0]
    best = phis[int(np.argmin(f(phis)))]
  return float(f(np.array([best]))[0])


def probe_inside_wrap_graze(fname="mujoco-3.16.0-inside-wrap-graze_trigger.xml"):
  """A spatial tendon through a sphere with an inside sidesite has the length of the shortest path through the ball.

  The cable runs from a wall anchor, through a guide ball (sphere geom, sidesite inside it), to the tip of a swinging
  arm. Its length must be the straight distance while the anchor-tip segment passes through the ball, and the
  shortest anchor-ball-tip path when it clears it: a continuous function of the swing angle. The probe sweeps the
  swing angle over -0.7..0.7 rad (14001 poses) and compares ten_length with that path computed from geometry
  (a 1-D minimisation over the great circle). Before 3.16.0, when the segment cleared the ball by less than about
  0.15 mm (grazing), the inside-wrap result was wrong: the cable came out up to 9.5 mm too long on 3.15.0, a jump
  of 19 N in this 2000 N/m spring over a band of about 3 mrad of swing.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  t = m.tendon("cable").id
  a, g, s = m.site("anchor").id, m.geom("guide").id, m.site("tip").id
  worst, worst_q, nbad = 0.0, 0.0, 0
  qs = np.linspace(-0.7, 0.7, 14001)
  for q in qs:
    d.qpos[0] = q
    _kin(m, d)
    ref = _through_ball(d.site_xpos[a], d.site_xpos[s], d.geom_xpos[g], m.geom_size[g][0])
    err = abs(d.ten_length[t] - ref)
    if err > 1e-6:
      nbad += 1
    if err > worst:
      worst, worst_q = err, q
  k = m.tendon_stiffness[t]
  tag = "BUG" if worst > 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} cable through a guide ball (inside sidesite), {len(qs)} swing angles: "
          f"max |ten_length - shortest path through the ball| = {worst * 1e3:.4f} mm at swing {worst_q:+.5f} rad "
          f"({nbad} poses off by > 1 um; spring force error {k * worst:.3f} N); ok when < 0.001 mm")


PROBES = {
    "mujoco-3.16.0-inside-wrap-graze": probe_inside_wrap_graze,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
