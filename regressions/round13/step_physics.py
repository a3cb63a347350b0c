"""Round 13 probes, area: physics computed in the step (collision and contacts, equality constraints, limits,
actuators, tendons, sensors).

Each probe loads a scene file (default: the case's trigger), simulates it with mj_step from its keyframe (if any)
and prints one line: 'BUG: ...' or 'ok: ...' with the figure.
Run: python step_physics.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round13")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(HERE, fname)


def _load(fname):
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  return m, d


def _id(m, objtype, name):
  return mujoco.mj_name2id(m, objtype, name)


# --------------------------------------------------------------------------------------------------------------------
# mujoco-b0077e40: the midphase drops geom margins (2.3.7; fixed in 3.0.0)
# --------------------------------------------------------------------------------------------------------------------
def probe_midphase_margin(fname="mujoco-b0077e40_trigger.xml"):
  """Feet with a contact margin must stand on their margin contacts, whatever bodies the foot geoms sit in.

  A quadruped stands on a floor plane; each sphere foot (r 3 cm) has margin 1 cm (gap 0), so its contact with the
  floor is active from 1 cm away and the robot settles with the feet about 1 cm above the floor (less the soft
  constraint's small give). The probe steps 3 s and reads each foot's clearance (lowest point above z = 0). Wrong
  if a foot's clearance is below half the margin: the margin contact was not generated and the foot sank onto (into)
  the floor.
  """
  m, d = _load(fname)
  for _ in range(1500):
    mujoco.mj_step(m, d)
  feet = [_id(m, mujoco.mjtObj.mjOBJ_GEOM, "foot_" + n) for n in ("fl", "fr", "hl", "hr")]
  margin = float(m.geom_margin[feet[0]])
  clear = np.array([d.geom_xpos[g][2] - m.geom_size[g][0] for g in feet])
  nfoot = sum(1 for c in d.contact[:d.ncon] if c.geom1 in feet or c.geom2 in feet)
  line = ("feet clearance after 3 s %s m (margin %.3f m), %d foot contacts, torso z %.4f m"
          % (np.array2string(clear, precision=5), margin, nfoot, d.qpos[2]))
  if clear.min() < 0.5 * margin:
    return "BUG: " + line + ": the margin contacts were missed, the feet sank to the floor"
  return "ok: " + line


# --------------------------------------------------------------------------------------------------------------------
# mujoco-1bd6c94e: efc_diagApprox of a weld's rotational rows (2.3.7; fixed in 3.0.0)
# --------------------------------------------------------------------------------------------------------------------
def probe_weld_rot_compliance(fname="mujoco-1bd6c94e_trigger.xml"):
  """At rest, each row of an equality constraint must sag by the soft-constraint law of its solref/solimp.

  For a soft equality row at static equilibrium, R f = aref = -K imp r, so r = -R f / (K imp) with
  R = (1 - imp) / imp * diagApprox, and diagApprox is the sum of the two bodies' invweight0: translational for a
  connect's rows and a weld's first three rows, rotational for a weld's last three. The probe steps the arm holding
  its drill for 8 s (it comes to rest), reads each loaded row's violation efc_pos and compares it with the law
  (K and imp from efc_KBIP, diagApprox from body_invweight0). Wrong if any loaded row is off by more than 20%.
  """
  m, d = _load(fname)
  for _ in range(4000):
    mujoco.mj_step(m, d)
  mujoco.mj_forward(m, d)
  rows = [i for i in range(d.nefc) if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
  fmax = max(abs(d.efc_force[i]) for i in rows)
  worst, info = 1.0, ""
  k = 0
  for i in rows:
    eq = d.efc_id[i]
    weld = m.eq_type[eq] == mujoco.mjtEq.mjEQ_WELD
    # row index within its constraint (rows of one equality are contiguous)
    k = k + 1 if (i > rows[0] and d.efc_id[i - 1] == eq) else 0
    rot = int(weld and k >= 3)
    b1, b2 = m.eq_obj1id[eq], m.eq_obj2id[eq]
    dA = m.body_invweight0[b1][rot] + m.body_invweight0[b2][rot]
    K, _, imp, _ = d.efc_KBIP[i]
    pred = -(1 - imp) / imp * dA * d.efc_force[i] / (K * imp)
    if abs(d.efc_force[i]) < 1e-3 * fmax:
      continue
    ratio = d.efc_pos[i] / pred
    if abs(ratio - 1) >= abs(worst - 1):
      worst = ratio
      unit = "rad" if rot else "m"
      diag = getattr(d, "efc_diagApprox", None)  # removed from mjData in later releases
      engine = ", engine's %.4g" % diag[i] if diag is not None else ""
      info = ("%s row %d (%s): sag %.3e %s, law %.3e %s (diagApprox %.4g%s, force %.3g)"
              % ("weld" if weld else "connect", k, "rot" if rot else "trans", d.efc_pos[i], unit, pred, unit,
                 dA, engine, d.efc_force[i]))
  line = "worst row %s, ratio %.3f; max |qvel| %.1e" % (info, worst, np.abs(d.qvel).max())
  if abs(worst - 1) > 0.2:
    return "BUG: " + line
  return "ok: " + line


# --------------------------------------------------------------------------------------------------------------------
# mujoco-efffd3a5: capsule-capsule near-parallel axes (3.15.0; fixed in 3.16.0)
# --------------------------------------------------------------------------------------------------------------------
def probe_capsule_near_parallel(fname="mujoco-efffd3a5_trigger.xml"):
  """A pipe set down along two rail pipes must come to rest on line contacts at both ends of each rail.

  The pipe (capsule) is placed from the keyframe yawed 0.1 mrad from the rails (capsules), dropped 7 mm onto them.
  Resting on two parallel line supports it must settle: the probe steps 3 s and, over the last 2 s, reads the pipe's
  peak angular speed and the number of pipe-rail contacts. Wrong if it is still rocking (peak angular speed above
  1 mrad/s) or has fewer than two contacts per rail.
  """
  m, d = _load(fname)
  pipe = _id(m, mujoco.mjtObj.mjOBJ_GEOM, "pipe")
  rails = [_id(m, mujoco.mjtObj.mjOBJ_GEOM, n) for n in ("rail1", "rail2")]
  wmax, nmin = 0.0, 99
  for step in range(1500):
    mujoco.mj_step(m, d)
    if step >= 500:
      wmax = max(wmax, np.linalg.norm(d.qvel[3:6]))
      per = [sum(1 for c in d.contact[:d.ncon] if {c.geom1, c.geom2} == {pipe, r}) for r in rails]
      nmin = min(nmin, min(per))
  line = ("pipe on rails, last 2 s: peak angular speed %.3e rad/s, min contacts per rail %d, z %.5f m"
          % (wmax, nmin, d.qpos[2]))
  if wmax > 1e-3 or nmin < 2:
    return "BUG: " + line
  return "ok: " + line


PROBES = {
    "mujoco-b0077e40": probe_midphase_margin,
    "mujoco-1bd6c94e": probe_weld_rot_compliance,
    "mujoco-efffd3a5": probe_capsule_near_parallel,
}


def main():
  if len(sys.argv) < 2 or sys.argv[1] not in PROBES:
    print("usage: python step_physics.py <ID> [model.xml]; IDs: " + ", ".join(PROBES))
    sys.exit(2)
  probe = PROBES[sys.argv[1]]
  print(probe(sys.argv[2]) if len(sys.argv) > 2 else probe())


if __name__ == "__main__":
  main()


CASES = {k: v for k, v in PROBES.items() if k in ['mujoco-efffd3a5']}  # the corpus's (round 13)
