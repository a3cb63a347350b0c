"""Round 10 probes, area: compiler (model compiler, MjSpec, MJCF reader and writer).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
BUG: or ok: and gives the figure and what it should be.
Run: python compiler.py <ID> [model.xml]
"""
import math
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round10")

_ORIENT = ("quat", "euler", "axisangle", "xyaxes", "zaxis")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _vec(s, n=3):
  v = [float(x) for x in s.split()] if s else [0.0] * n
  return np.array(v, float)


def _stated_world_pos(root, tag, name):
  """World position of an element as the MJCF text states it, composing the pos of its ancestors.

  Only translations are handled: an orientation on the element or an ancestor raises (the scenes use none).
  """
  parent = {c: p for p in root.iter() for c in p}
  el = next(e for e in root.iter(tag) if e.get("name") == name)
  pos = np.zeros(3)
  node = el
  while node is not None and node.tag != "worldbody":
    if any(k in node.attrib for k in _ORIENT):
      raise ValueError("orientations are not handled")
    pos += _vec(node.get("pos"))
    node = parent.get(node)
  return pos


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-fusestatic-name-binding: fusestatic binds a site transmission and a sensor to another site
# --------------------------------------------------------------------------------------------------------------------

def probe_fusestatic_name_binding(fname="mujoco-3.16.0-fusestatic-name-binding_trigger.xml"):
  """A boom on a shoulder hinge with fixed links (fusestatic): a thruster pushes along x at the nozzle tip.

  First principles: the thrust F = gear[:3] * ctrl acts at the nozzle tip, whose position the MJCF states by the
  chain of body and site positions (no rotations); the generalized force on the shoulder is axis . ((p_tip - p_joint)
  x F), and the framepos sensor of the tip reads p_tip. From 3.3 to 3.15, fusestatic merges the fixed links and
  reorders their sites, but the actuator and the sensor keep the site ids from before fusing: they act on and read
  another site (the camera on the camera mount). Fixed in 3.16.0 (mjs_fuseStatic: 'Elements which refer by name to a
  geom, site, camera or light are no longer bound to a different one').
  """
  path = _path(fname)
  root = ET.parse(path).getroot()
  m = _load(fname)
  d = mujoco.MjData(m)
  a = m.actuator("thruster").id
  ctrl = 2.0
  d.ctrl[a] = ctrl
  mujoco.mj_forward(m, d)
  p_tip = _stated_world_pos(root, "site", "nozzle_tip")
  jel = next(e for e in root.iter("joint") if e.get("name") == "shoulder")
  p_joint = _stated_world_pos(root, "body", "boom") + _vec(jel.get("pos"))
  axis = _vec(jel.get("axis"))
  axis = axis / np.linalg.norm(axis)
  force = m.actuator_gear[a][:3] * ctrl  # the site frame is the world frame (no rotations in the chain)
  tau_expected = float(axis @ np.cross(p_tip - p_joint, force))
  dof = m.jnt_dofadr[m.joint("shoulder").id]
  tau = float(d.qfrc_actuator[dof])
  s = m.sensor("tip_pos").id
  reading = d.sensordata[m.sensor_adr[s]:m.sensor_adr[s] + 3].copy()
  err_tau = abs(tau - tau_expected)
  err_pos = float(np.linalg.norm(reading - p_tip))
  verdict = "BUG" if (err_tau > 1e-6 or err_pos > 1e-6) else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} thruster {ctrl:.1f} N along x at the nozzle tip (nbody {m.nbody}): "
          f"shoulder torque {tau:+.4f} N m, first principles axis.(r x F) = {tau_expected:+.4f} N m; tip framepos "
          f"({reading[0]:.3f}, {reading[1]:.3f}, {reading[2]:.3f}) m, stated position ({p_tip[0]:.3f}, {p_tip[1]:.3f}, "
          f"{p_tip[2]:.3f}) m (error {1000 * err_pos:.1f} mm); ok when both agree within 1e-6")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-00057bce: a flexcomp ignores the transform of the frame that encloses it
# --------------------------------------------------------------------------------------------------------------------

def _rot_euler_xyz(e, degree=True):
  """MuJoCo's default eulerseq 'xyz' (rotating axes)."""
  a, b, c = (math.radians(x) if degree else x for x in e)
  rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
  ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
  rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
  return rx @ ry @ rz


def _stated_grid(root, name):
  """World positions of the vertices of a grid flexcomp as the MJCF states them.

  A grid of count (nx, ny, 1) and spacing s has its vertices at ((i - (nx-1)/2) s, (j - (ny-1)/2) s, 0) in the
  flexcomp frame; the flexcomp's own pos/euler and those of the enclosing frames (worldbody level, degrees, eulerseq
  xyz) place that frame in the world. Only pos and euler orientations are handled.
  """
  comp = root.find("compiler")
  degree = comp is None or comp.get("angle", "degree") == "degree"
  parent = {c: p for p in root.iter() for c in p}
  fc = next(e for e in root.iter("flexcomp") if e.get("name") == name)
  if fc.get("type") != "grid":
    raise ValueError("only grid flexcomps are handled")
  n = [int(x) for x in fc.get("count").split()]
  s = _vec(fc.get("spacing"))
  local = np.array([[(i - (n[0] - 1) / 2) * s[0], (j - (n[1] - 1) / 2) * s[1], 0.0]
                    for i in range(n[0]) for j in range(n[1])])
  node = fc
  pts = local
  while node is not None and node.tag != "worldbody":
    if node.tag not in ("flexcomp", "frame"):
      raise ValueError("only frames in the worldbody are handled")
    if any(k in node.attrib for k in ("quat", "axisangle", "xyaxes", "zaxis")):
      raise ValueError("only euler orientations are handled")
    rot = _rot_euler_xyz(_vec(node.get("euler")), degree) if node.get("euler") else np.eye(3)
    pts = pts @ rot.T + _vec(node.get("pos"))
    node = parent.get(node)
  return pts


def probe_00057bce(fname="mujoco-00057bce_trigger.xml"):
  """A napkin (grid flexcomp) placed 10 cm above a table by an enclosing frame (pos and a 30 deg turn), dropped.

  First principles: the grid's vertices start where the frame puts them (frame pos + R(frame) * grid point), and
  the napkin, whose footprint lies inside the table top, comes to rest on it: its vertices end one vertex radius
  above the table top. Before 4.0.0 the MJCF reader did not apply the transforms of enclosing frames to flexcomp
  (commit 00057bcef, changelog 4.0.0 bug fix 60): the napkin is built at the world origin, on the floor.
  """
  path = _path(fname)
  root = ET.parse(path).getroot()
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  f = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_FLEX, "napkin")
  v0, nv = m.flex_vertadr[f], m.flex_vertnum[f]
  start = d.flexvert_xpos[v0:v0 + nv].copy()
  stated = _stated_grid(root, "napkin")
  # each compiled vertex against the nearest stated one, and the other way round
  dist = np.linalg.norm(start[:, None, :] - stated[None, :, :], axis=2)
  err = max(dist.min(axis=1).max(), dist.min(axis=0).max())
  table = m.geom("table").id
  top = m.geom_pos[table][2] + m.geom_size[table][2]
  radius = m.flex_radius[f]
  while d.time < 1.0 - 1e-9:
    mujoco.mj_step(m, d)
  end = d.flexvert_xpos[v0:v0 + nv]
  z_mean = float(end[:, 2].mean())
  verdict = "BUG" if err > 1e-3 else "ok"
  c0 = start.mean(axis=0)
  cs = stated.mean(axis=0)
  return (f"{verdict}: {mujoco.mj_versionString()} napkin in a frame: compiled vertices off the stated ones (frame pos "
          f"+ R grid) by up to {1000 * err:.1f} mm, centre ({c0[0]:.3f}, {c0[1]:.3f}, {c0[2]:.3f}) m where "
          f"({cs[0]:.3f}, {cs[1]:.3f}, {cs[2]:.3f}) m is stated; after 1 s its vertices rest at mean z = "
          f"{1000 * z_mean:.1f} mm, on the table top + radius = {1000 * (top + radius):.1f} mm; ok when the start "
          f"error is under 1 mm")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-savexml-class-main: mj_saveLastXML drops class="main" inside a childclass
# --------------------------------------------------------------------------------------------------------------------

def _spin_up(m, ctrl, t_end=1.0):
  d = mujoco.MjData(m)
  d.ctrl[m.actuator("wheel_motor").id] = ctrl
  dof = m.jnt_dofadr[m.joint("spin").id]
  while d.time < t_end - 1e-9:
    mujoco.mj_step(m, d)
  return float(d.qvel[dof])


def probe_savexml_class_main(fname="mujoco-3.16.0-savexml-class-main_trigger.xml"):
  """A reaction wheel (class "main" inside the arm's childclass) spun up by a motor, after a save and reload.

  First principles: the wheel as written is a solid cylinder of density 1000 (MuJoCo's default, the top-level
  class sets none) on a frictionless hinge along its axis (the default axis z, no damping, no armature): I =
  m r^2 / 2 with m = rho pi r^2 (2 h), and a torque tau spins it to tau t / I after t seconds (the arm does not turn
  about the wheel's axis). The probe saves the loaded model with mj_saveLastXML, loads the saved file and spins its
  wheel up. From 3.2 to 3.15 the writer leaves out class="main" inside a childclass, so the reloaded wheel takes the
  arm's class: density 500, damping 0.5 N m s, armature 0.01 (and from 3.12 the arm's axis y). Fixed in 3.16.0
  (changelog 3.16.0 compiler bug fix 23: saving no longer loses "class="main" inside another childclass").
  """
  path = _path(fname)
  root = ET.parse(path).getroot()
  top = root.find("default")
  if top is not None and top.find("geom") is not None:
    raise ValueError("the top-level default must not set geom attributes")
  g = next(e for e in root.iter("geom") if e.get("name") == "wheel_disc")
  r, h = (float(x) for x in g.get("size").split())
  rho = float(g.get("density", 1000))
  mass = rho * math.pi * r * r * 2 * h
  inertia = 0.5 * mass * r * r
  tau, t_end = 0.05, 1.0
  expected = tau * t_end / inertia
  m = _load(fname)
  w_loaded = _spin_up(m, tau, t_end)
  with tempfile.TemporaryDirectory(prefix="savexml_") as tmp:
    out = os.path.join(tmp, "saved.xml")
    mujoco.mj_saveLastXML(out, m)
    m2 = mujoco.MjModel.from_xml_path(out)
  w_saved = _spin_up(m2, tau, t_end)
  b = m2.body("wheel").id
  dof = m2.jnt_dofadr[m2.joint("spin").id]
  rel = abs(w_saved - expected) / expected
  verdict = "BUG" if rel > 0.01 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} wheel spun up by {tau} N m for {t_end:.0f} s after mj_saveLastXML and "
          f"reload: {w_saved:.3f} rad/s (wheel mass {m2.body_mass[b]:.3f} kg, spin damping {m2.dof_damping[dof]:.2f}, "
          f"axis {np.round(m2.jnt_axis[m2.joint('spin').id], 3).tolist()}); first principles tau t / I = {expected:.3f} "
          f"rad/s (m = {mass:.3f} kg, I = {inertia:.6f} kg m^2, no damping); the model as loaded gives {w_loaded:.3f} "
          f"rad/s; ok when the reloaded model is within 1 %")


PROBES = {
    "mujoco-3.16.0-savexml-class-main": probe_savexml_class_main,
    "mujoco-00057bce": probe_00057bce,
    "mujoco-3.16.0-fusestatic-name-binding": probe_fusestatic_name_binding,
}
CASES = PROBES  # the name confirm.py reads


def main():
  if len(sys.argv) < 2 or sys.argv[1] not in PROBES:
    print("usage: python compiler.py <ID> [model.xml]; IDs: " + ", ".join(PROBES))
    sys.exit(2)
  fn = PROBES[sys.argv[1]]
  print(fn(sys.argv[2]) if len(sys.argv) > 2 else fn())


if __name__ == "__main__":
  main()
