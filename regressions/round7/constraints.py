"""Round 7 probes, area: constraints (equality, limits, friction loss, solvers, warm start, islands, sleeping).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python constraints.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round7")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def probe_ed13bf56(fname="mujoco-ed13bf56_trigger.xml"):
  """A kinematic (mocap) paddle sweeps at 0.2 m/s into a box resting on the floor.

  First principles: two solid geoms in contact cannot interpenetrate by more than the soft-contact depth
  (a few mm at 0.2 m/s); the paddle must push the box ahead of it. We track the overlap of the paddle's
  and the box's x-extents (their y and z extents overlap throughout) and the box's travel.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  pid = m.geom("paddle").id
  bid = m.geom("box").id
  phalf = m.geom_size[pid][0]
  bhalf = m.geom_size[bid][0]
  body = m.body("box").id
  x0 = None
  worst, tworst = 0.0, 0.0
  t_start, speed, t_end = 2.0, 0.2, 5.0
  while d.time < t_end:
    if d.time > t_start:
      d.mocap_pos[0] = [-0.3 + speed * (d.time - t_start), 0.0, 0.05]
    mujoco.mj_step(m, d)
    if x0 is None and d.time >= t_start:
      x0 = d.xpos[body][0]
    px = d.geom_xpos[pid][0]
    bx = d.geom_xpos[bid][0]
    overlap = min(px + phalf, bx + bhalf) - max(px - phalf, bx - bhalf)
    if overlap > worst:
      worst, tworst = overlap, d.time
  travel = d.xpos[body][0] - x0
  return (f"worst paddle-box interpenetration = {1000 * worst:.1f} mm at t={tworst:.2f} s "
          f"(paddle thickness {2000 * phalf:.0f} mm); box pushed {1000 * travel:.0f} mm by a paddle that "
          f"travelled {1000 * speed * (t_end - t_start):.0f} mm")


def probe_c7a82c32(fname="mujoco-c7a82c32_trigger.xml"):
  """mj_forward must be a function of the state: calling it twice on the same state gives the same qacc.

  After 1.5 s of settling we call mj_forward twice without touching the state; the second qacc must equal
  the first (the fix makes mj_forward idempotent; before it the solver wrote qacc_warmstart itself, so a
  second call started from another warm start and returned another, unconverged, qacc).
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  for _ in range(300):
    mujoco.mj_step(m, d)
  mujoco.mj_forward(m, d)
  a1 = d.qacc.copy()
  f1 = d.efc_force.copy()
  mujoco.mj_forward(m, d)
  a2 = d.qacc.copy()
  f2 = d.efc_force.copy()
  da = np.abs(a2 - a1).max()
  df = np.abs(f2 - f1).max() if f1.size == f2.size else float("nan")
  return (f"repeat mj_forward on an unchanged state: max |qacc2 - qacc1| = {da:.3g} (|qacc| up to "
          f"{np.abs(a1).max():.3g}), max |efc_force2 - efc_force1| = {df:.3g} N at t={d.time:.2f} s")


CASES = {
    "mujoco-ed13bf56": probe_ed13bf56,
    "mujoco-c7a82c32": probe_c7a82c32,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
