"""Round 9 probes, area: collision (narrowphase pairs, height fields, CCD, margins and gaps, contact parameters).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python collision.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round9")


def _load(fname):
  return mujoco.MjModel.from_xml_path(os.path.join(MODELS, fname))


def probe_hfield_margin(fname="mujoco-3.16.0-hfield-margin_trigger.xml"):
  """A ball (sphere, r 5 cm) is dropped 15 cm onto a flat height-field terrain (every elevation 0, so the surface
  is the plane z = 0) whose geom has a contact margin (1 cm; the twin has none), and left alone for 3 s.

  First principles: for a sphere over a flat surface the contact's dist is the geometric gap z - r (exact, no
  approximation), and with a margin m the soft contact holds the ball at rest near gap = m, as on a plane. The
  bug (the height-field collider raises its prisms' top by the margin and also inflates the other geom's support
  by half the margin, but never subtracts either from the depth) reports dist = gap - 1.5 m: the contact pushes
  as if the ball were 1.5 m deeper than it is, while the bounding test drops the pair once gap > m, so the ball
  never settles and hops on its margin layer. We report over t = 2..3 s the worst |dist - gap| over the
  ball-ground contacts, the largest vertical speed and the mean gap.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  ball = m.geom("ball").id
  ground = m.geom("ground").id
  r = m.geom_size[ball][0]
  z_ground = m.geom_pos[ground][2]  # a world geom; all elevations are 0, so the surface is z = z_ground
  worst, vmax, gaps, ncon_steps = 0.0, 0.0, [], 0
  while d.time < 3.0:
    mujoco.mj_step(m, d)
    if d.time < 2.0:
      continue
    gap = d.geom_xpos[ball][2] - r - z_ground  # geom_xpos: the pose at which this step's contacts were found
    gaps.append(gap)
    vmax = max(vmax, abs(d.qvel[2]))
    touching = False
    for c in d.contact[:d.ncon]:
      if {c.geom1, c.geom2} == {ball, ground}:
        worst = max(worst, abs(c.dist - gap))
        touching = True
    ncon_steps += touching
  verdict = "BUG" if (worst > 0.001 or vmax > 0.01) else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} ball on a flat height field (margin {1000 * m.geom_margin[ground]:.0f} mm), "
          f"t = 2..3 s: contact dist off the geometric gap by up to {1000 * worst:.2f} mm (expect 0), vertical speed up to "
          f"{vmax:.4f} m/s (expect ~0: at rest), mean gap {1000 * np.mean(gaps):.2f} mm, ball-ground contact in {ncon_steps} of "
          f"{len(gaps)} steps; ok when dist error < 1 mm and speed < 0.01 m/s")


# mujoco-d823f921 (mj_setConst's stale bounding volumes) was found by this area and the compiler's at once: its
# scene and probe are the compiler's (round9/compiler.py).


CASES = {
    "mujoco-3.16.0-hfield-margin": probe_hfield_margin,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
