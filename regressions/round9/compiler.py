"""Round 9 probes, area: compiler, sensors and the API beside the step.

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
BUG: or ok: and gives the figure and what it should be.
Run: python compiler.py <ID> [model.xml]
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round9")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


# --------------------------------------------------------------------------------------------------------------------
# mujoco-9fd6ee02: a geom's own quat is ignored when its default class gives euler
# --------------------------------------------------------------------------------------------------------------------

def _rot_euler_xyz_deg(e):
  """MuJoCo's default eulerseq 'xyz' (rotating axes), angles in degrees."""
  a, b, c = (math.radians(x) for x in e)
  rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
  ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
  rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
  return rx @ ry @ rz


def _rot_quat(q):
  q = np.asarray(q, float)
  q = q / np.linalg.norm(q)
  w, x, y, z = q
  return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _stated_cylinders(path, body):
  """The cylinders of `body` as the MJCF text states them: the geom's own attributes, else its class's default.

  An orientation given on the geom itself (quat or euler) replaces the one of the class; only cylinders, quat/euler
  orientations and one level of default classes are handled (what the scene uses).
  """
  root = ET.parse(path).getroot()
  classes = {}
  for dflt in root.iter("default"):
    g = dflt.find("geom")
    if dflt.get("class") and g is not None:
      classes[dflt.get("class")] = dict(g.attrib)
  out = []
  for b in root.iter("body"):
    if b.get("name") != body:
      continue
    for g in b.findall("geom"):
      base = dict(classes.get(g.get("class"), {}))
      own = dict(g.attrib)
      if "quat" in own or "euler" in own:  # an orientation on the element replaces the class's orientation
        base.pop("quat", None)
        base.pop("euler", None)
      base.update(own)
      if base.get("type") != "cylinder":
        raise ValueError("only cylinders are handled")
      if "quat" in base:
        rot = _rot_quat([float(x) for x in base["quat"].split()])
      elif "euler" in base:
        rot = _rot_euler_xyz_deg([float(x) for x in base["euler"].split()])
      else:
        rot = np.eye(3)
      r, h = (float(x) for x in base["size"].split())
      pos = np.array([float(x) for x in base.get("pos", "0 0 0").split()])
      out.append(dict(name=base.get("name"), rho=float(base.get("density", 1000)), r=r, h=h, pos=pos, rot=rot))
  return out


def probe_9fd6ee02(fname="mujoco-9fd6ee02_trigger.xml"):
  """A propeller (shaft and blade: cylinders of class "tube", default euler="0 90 0") spun up by a motor.

  First principles: the rotor's moment of inertia about the shaft is the sum over its cylinders, laid out as the MJCF
  states them (a geom's own quat overrides its class's euler), of R diag(m(3r^2+L^2)/12, m(3r^2+L^2)/12, m r^2/2) R^T
  plus m d^2 (parallel axes), with m = rho pi r^2 L. At rest a torque tau gives alpha = tau / I. Before 3.16.0 the
  compiler ignored the quat of a geom whose default class sets euler (commit 9fd6ee025): the blade lies along the
  shaft and the rotor has a small fraction of its inertia.
  """
  path = _path(fname)
  m = _load(fname)
  d = mujoco.MjData(m)
  axis = np.array([1.0, 0.0, 0.0])
  inertia = 0.0
  for c in _stated_cylinders(path, "rotor"):
    L = 2 * c["h"]
    mass = c["rho"] * math.pi * c["r"] ** 2 * L
    ic = np.diag([mass * (3 * c["r"] ** 2 + L ** 2) / 12] * 2 + [mass * c["r"] ** 2 / 2])
    iw = c["rot"] @ ic @ c["rot"].T
    dperp = c["pos"] - np.dot(c["pos"], axis) * axis
    inertia += axis @ iw @ axis + mass * np.dot(dperp, dperp)
  j = m.joint("shaft").id
  dof = m.jnt_dofadr[j]
  inertia += m.dof_armature[dof]
  a = m.actuator("drive").id
  d.ctrl[a] = 1.0
  mujoco.mj_forward(m, d)
  tau = m.actuator_gear[a][0] * d.ctrl[a]
  alpha_expected = tau / inertia
  alpha = d.qacc[dof]
  while d.time < 0.5 - 1e-9:
    mujoco.mj_step(m, d)
  w = d.qvel[dof]
  rel = abs(alpha - alpha_expected) / abs(alpha_expected)
  verdict = "BUG" if rel > 0.01 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} rotor under a 1 N m torque: angular acceleration {alpha:.2f} rad/s^2, "
          f"first principles tau/I = {alpha_expected:.2f} rad/s^2 (I = {inertia:.6f} kg m^2 from the stated geometry; "
          f"error {100 * rel:.1f} %); speed after 0.5 s {w:.1f} rad/s, expected {alpha_expected * 0.5:.1f}; "
          f"ok when within 1 %")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-d823f921: mj_setConst leaves the bounding volumes of a resized geom stale
# --------------------------------------------------------------------------------------------------------------------

def probe_d823f921(fname="mujoco-d823f921_trigger.xml"):
  """Domain randomization of a ball's radius: set geom_size to 15 cm, call mj_setConst, drop the ball on the floor.

  First principles: a sphere resting on a plane has its centre one radius above the plane (less the soft contact's
  sub-millimetre penetration under its weight). Before 3.16.0 mj_setConst did not recompute geom_rbound and
  geom_aabb (commit d823f9212), so the collision filter tests the compiled (stale) bound: an enlarged ball gets no
  contact until its old 5 cm bound reaches the floor, and it sinks into the floor by the difference.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  g = m.geom("ball").id
  b = m.body("ball").id
  radius = 0.15
  m.geom_size[g][0] = radius
  mujoco.mj_setConst(m, d)
  mujoco.mj_resetData(m, d)
  mujoco.mj_forward(m, d)
  floor_z = d.geom_xpos[m.geom("floor").id][2]
  while d.time < 2.0 - 1e-9:
    mujoco.mj_step(m, d)
  z = d.xpos[b][2] - floor_z
  speed = np.linalg.norm(d.qvel[:3])
  sink = radius - z
  verdict = "BUG" if sink > 0.005 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} ball resized to r = {1000 * radius:.0f} mm (mj_setConst) rests with its "
          f"centre {1000 * z:.1f} mm above the floor (speed {speed:.1e} m/s), first principles r = "
          f"{1000 * radius:.0f} mm: sunk {1000 * sink:.1f} mm into the floor; ok when under 5 mm")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-4.0.0-sleep-spring-energy: mj_energyPos leaves out the springs of sleeping trees
# --------------------------------------------------------------------------------------------------------------------

def probe_sleep_spring_energy(fname="mujoco-4.0.0-sleep-spring-energy_trigger.xml"):
  """A spring-loaded wall lamp arm at rest (its torsion spring balances its weight); sleeping and energy enabled.

  First principles: the potential energy is the gravitational one, -sum_i m_i g . x_com_i, plus the joint springs'
  1/2 k (q - q_spring)^2 (hinge and slide joints). Whether a tree is asleep changes nothing physical. From sleeping's
  arrival (3.4.0/3.5.0) to 3.17.0, mj_energyPos skipped the springs of sleeping trees (sleep filtering fixed in 4.0.0,
  commits aaf2abaa7 and 1b46a496e): once the arm falls asleep the e_potential sensor and mjData.energy lose its
  spring energy.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  while d.time < 2.0 - 1e-9:
    mujoco.mj_step(m, d)
  mujoco.mj_forward(m, d)
  pe = -sum(m.body_mass[i] * np.dot(m.opt.gravity, d.xipos[i]) for i in range(1, m.nbody))
  spring = 0.0
  for j in range(m.njnt):
    if int(m.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
      a = m.jnt_qposadr[j]
      spring += 0.5 * m.jnt_stiffness[j] * (d.qpos[a] - m.qpos_spring[a]) ** 2
  pe += spring
  sens = d.sensordata[m.sensor_adr[m.sensor("pe").id]]
  asleep = ""
  if hasattr(d, "tree_asleep") and m.ntree:
    asleep = f", trees asleep {sum(1 for t in range(m.ntree) if d.tree_asleep[t] >= 0)}/{m.ntree}"
  err = abs(sens - pe)
  verdict = "BUG" if err > 1e-3 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} arm at rest after 2 s (|qvel| {np.abs(d.qvel).max():.1e}{asleep}): "
          f"e_potential = {sens:.4f} J (mjData.energy[0] = {d.energy[0]:.4f}), first principles gravity + springs = "
          f"{pe:.4f} J (spring {spring:.4f} J); error {err:.4f} J; ok when under 0.001 J")


CASES = {
    "mujoco-9fd6ee02": probe_9fd6ee02,
    "mujoco-d823f921": probe_d823f921,
    "mujoco-4.0.0-sleep-spring-energy": probe_sleep_spring_energy,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
