"""Round 9 probes, area: actuation (actuators: gains, biases, dynamics, activation limits, transmissions; passive
forces; integrators; derivatives).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
"BUG:" or "ok:" and gives the measured figure and what first principles say it should be.
Run: python actuation.py <ID> [model.xml]
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


def probe_shortcut_default_leak(fname="mujoco-ab7f005c_trigger.xml"):
  """A pneumatic cylinder lifts a 2 kg platform on a vertical slide against a 2000 N/m return spring; the scene
  also has a position servo whose gain kp is given in the top-level <default> with the <position> shortcut.

  First principles: a cylinder's force is pressure times piston area, F = (pi d^2 / 4) p, with d the authored bore
  (read from the XML) and p the activation (the filtered pressure command). Nothing else pushes on the piston, so
  the platform comes to rest where the spring and gravity balance it: x* = (F - m g) / k, with m the platform mass
  and k the slide's stiffness. We command p = 4 bar, run 2 s, and compare the rest height with x*, and the
  cylinder's actuator_force with F at the final activation. A position default that leaks its bias (-kp * length)
  into the cylinder makes the piston a spring of stiffness kp and lowers the platform.
  """
  path = _path(fname)
  m = _load(fname)
  d = mujoco.MjData(m)
  cyl = next(e for e in ET.parse(path).getroot().iter("cylinder"))
  bore = float(cyl.get("diameter"))
  area = math.pi * bore**2 / 4
  a = m.actuator(cyl.get("name")).id
  jnt = m.joint(cyl.get("joint"))
  body = m.jnt_bodyid[jnt.id]
  qadr = m.jnt_qposadr[jnt.id]
  p = 4.0e5
  d.ctrl[a] = p
  while d.time < 2.0:
    mujoco.mj_step(m, d)
  mujoco.mj_forward(m, d)
  x = float(d.qpos[qadr])
  g = -float(m.opt.gravity[2])
  mass = float(m.body_subtreemass[body])
  k = float(m.jnt_stiffness[jnt.id])
  xstar = (area * p - mass * g) / k
  act = float(d.act[m.actuator_actadr[a]])
  f_exp = area * act
  f = float(d.actuator_force[a])
  bad = abs(x - xstar) > 1e-3 or abs(f - f_exp) > 1e-3 * abs(f_exp)
  return (f"{'BUG' if bad else 'ok'}: cylinder (bore {bore*1000:.0f} mm) at 4 bar: platform rests at "
          f"{x*1000:.1f} mm, first principles (pi d^2/4 p - m g)/k = {xstar*1000:.1f} mm; cylinder force "
          f"{f:.2f} N vs pi d^2/4 * act = {f_exp:.2f} N [mujoco {mujoco.__version__}]")


def _authored(path, tag, name):
  """The attributes of the actuator element <tag name=...> merged over those of its default class (authored
  values, read from the XML, not from the compiled model)."""
  root = ET.parse(path).getroot()
  el = next(e for e in root.iter(tag) if e.get("name") == name)
  attrs = {}
  cls = el.get("class")
  if cls:
    for dflt in root.iter("default"):
      if dflt.get("class") == cls:
        sub = dflt.find(tag)
        if sub is not None:
          attrs.update(sub.attrib)
  attrs.update(el.attrib)
  return attrs


def probe_dcmotor_zero_saturation(fname="mujoco-a5ff8f6c_trigger.xml"):
  """A 12 V DC motor (R, K read from the XML) spins up a flywheel from rest; its saturation is authored as 0,
  which the documentation says disables the torque limit, over a class default that rates the motor at 0.3 N m.

  First principles (no inductance, no friction): the motor torque is K (V - K w) / R, so the flywheel of inertia I
  spins up as w(t) = (V / K) (1 - exp(-t K^2 / (I R))), and the stall torque at rest is K V / R. We command V = 12 V
  for 1 s and compare the flywheel speed and the torque at rest with these figures. A class torque limit that the
  authored zero fails to clear caps the torque and slows the spin-up.
  """
  path = _path(fname)
  m = _load(fname)
  d = mujoco.MjData(m)
  a = m.actuator("winch").id
  attrs = _authored(path, "dcmotor", "winch")
  R = float(attrs["resistance"])
  K = float(attrs["motorconst"].split()[0])
  jnt = m.actuator_trnid[a, 0]
  dof = m.jnt_dofadr[jnt]
  body = m.jnt_bodyid[jnt]
  inertia = float(m.body_inertia[body, 2] + m.dof_armature[dof])
  V = 12.0
  d.ctrl[a] = V
  mujoco.mj_forward(m, d)
  tau0 = float(d.actuator_force[a])
  T = 1.0
  while d.time < T - 1e-9:
    mujoco.mj_step(m, d)
  w = float(d.qvel[dof])
  w_exp = V / K * (1 - math.exp(-d.time * K**2 / (inertia * R)))
  tau0_exp = K * V / R
  bad = abs(w - w_exp) > 0.01 * abs(w_exp) or abs(tau0 - tau0_exp) > 1e-6
  return (f"{'BUG' if bad else 'ok'}: flywheel after {d.time:.2f} s at 12 V spins at {w:.2f} rad/s, first principles "
          f"(V/K)(1-exp(-t K^2/(I R))) = {w_exp:.2f} rad/s; torque at rest {tau0:.3f} N m vs K V/R = "
          f"{tau0_exp:.3f} N m [mujoco {mujoco.__version__}]")


CASES = {
    "mujoco-ab7f005c": probe_shortcut_default_leak,
    "mujoco-a5ff8f6c": probe_dcmotor_zero_saturation,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
