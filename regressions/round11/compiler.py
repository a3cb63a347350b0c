"""Round 11 probes, area: compiler (what the compiler makes of the XML: inertias from geoms and meshes, mesh inertia
modes, frames and orientations, defaults and childclass, <include>/<attach>/<replicate>, MjSpec compilation,
keyframes, fusestatic, discardvisual, mass bounds, and the XML writer mj_saveLastXML / spec.to_xml, whose output
must load back as the same model).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python compiler.py <ID> [model.xml]
"""
import os
import sys
import tempfile

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _save_and_reload(m):
  """Write the model just loaded with mj_saveLastXML and load the file back (the round trip a user makes)."""
  fd, tmp = tempfile.mkstemp(suffix=".xml")
  os.close(fd)
  try:
    mujoco.mj_saveLastXML(tmp, m)
    return mujoco.MjModel.from_xml_path(tmp)
  finally:
    os.remove(tmp)


def _dense_m(model):
  """The joint-space inertia matrix at qpos0, dense (mj_fullM's signature changed in 4.0)."""
  d = mujoco.MjData(model)
  mujoco.mj_forward(model, d)
  dense = np.zeros((model.nv, model.nv))
  if hasattr(d, "qM"):
    mujoco.mj_fullM(model, dense, d.qM)
  else:
    mujoco.mj_fullM(model, d, dense)
  return dense


def _shell_box(sigma, dims):
  """Mass and principal inertia (about the centre) of a closed thin-walled box: six plates of areal density sigma."""
  dims = np.asarray(dims, float)
  mass, inertia = 0.0, np.zeros(3)
  for n in range(3):  # the pair of plates normal to axis n, at +-dims[n]/2
    u, v = [k for k in range(3) if k != n]
    mp = sigma * dims[u] * dims[v]
    mass += 2 * mp
    inertia[n] += 2 * mp * (dims[u] ** 2 + dims[v] ** 2) / 12
    inertia[u] += 2 * mp * (dims[v] ** 2 / 12 + (dims[n] / 2) ** 2)
    inertia[v] += 2 * mp * (dims[u] ** 2 / 12 + (dims[n] / 2) ** 2)
  return mass, inertia


def probe_mesh_default_inertia_saved(fname="mujoco-e7a71549_trigger.xml"):
  """A mesh inertia mode given in a default class must survive mj_saveLastXML.

  A sheet-metal crate (closed box mesh 0.4 x 0.3 x 0.2 m, areal density 2.7 kg/m^2) hangs from a hinged arm. The
  trigger gives the mesh inertia="shell" through <default><mesh inertia="shell"/></default>. The probe computes the
  crate's shell mass and inertia from first principles (six plates), checks the model as loaded, then saves it with
  mj_saveLastXML, loads the file back and checks the reloaded crate and the arm's inertia about its hinge (qM).
  On 3.3.0 the writer wrote a mesh's inertia only for a mesh asset, never for the default class (issue #2478): the
  saved file has no inertia="shell", and the crate is reloaded as a solid box of sheet-metal density (0.065 kg
  instead of 1.404 kg). The twin sets inertia="shell" on the mesh asset itself, which the writer kept.
  """
  sigma = 2.7  # kg/m^2, the crate geom's density in the scene (shell: density per unit area)
  m = _load(fname)
  b = m.body("crate").id
  g = m.geom("crate").id
  vert = m.mesh_vert[m.mesh_vertadr[m.geom_dataid[g]]:
                     m.mesh_vertadr[m.geom_dataid[g]] + m.mesh_vertnum[m.geom_dataid[g]]]
  dims = vert.max(axis=0) - vert.min(axis=0)
  mass_ref, inertia_ref = _shell_box(sigma, dims)
  inertia_ref = np.sort(inertia_ref)[::-1]
  m2 = _save_and_reload(m)
  b2 = m2.body("crate").id

  def qm(model):
    return _dense_m(model)[0, 0]

  err_loaded = abs(m.body_mass[b] - mass_ref) / mass_ref
  err_saved = abs(m2.body_mass[b2] - mass_ref) / mass_ref
  ierr_saved = np.max(np.abs(np.sort(m2.body_inertia[b2])[::-1] - inertia_ref) / inertia_ref)
  bad = err_saved > 1e-6 or ierr_saved > 1e-6
  tag = "BUG" if bad else "ok"
  return (f"{tag}: {mujoco.__version__} sheet-metal crate, shell mass from six plates {mass_ref:.4f} kg, "
          f"principal inertia {np.array2string(inertia_ref, precision=5)}; as loaded {m.body_mass[b]:.4f} kg "
          f"(rel err {err_loaded:.1e}); after mj_saveLastXML and reload {m2.body_mass[b2]:.4f} kg, "
          f"inertia {np.array2string(np.sort(m2.body_inertia[b2])[::-1], precision=5)} (rel err {err_saved:.1e}); "
          f"arm inertia about the hinge qM {qm(m):.4f} -> {qm(m2):.4f} kg m^2; "
          f"ok when the reloaded crate matches the shell values (rel err < 1e-6)")


def _geom_volume(m, g):
  t, s = m.geom_type[g], m.geom_size[g]
  if t == mujoco.mjtGeom.mjGEOM_BOX:
    return 8 * s[0] * s[1] * s[2]
  if t == mujoco.mjtGeom.mjGEOM_SPHERE:
    return 4 / 3 * np.pi * s[0] ** 3
  if t == mujoco.mjtGeom.mjGEOM_CAPSULE:
    return np.pi * s[0] ** 2 * 2 * s[1] + 4 / 3 * np.pi * s[0] ** 3
  if t == mujoco.mjtGeom.mjGEOM_CYLINDER:
    return np.pi * s[0] ** 2 * 2 * s[1]
  raise ValueError("unsupported geom type")


def probe_frame_after_body_saved(fname="mujoco-82565464_trigger.xml"):
  """Every <frame> of a body must survive mj_saveLastXML, also one written after a frame that holds a child body.

  A crane boom on a luffing hinge carries its hook body through a <frame> at the tip and a 24 kg steel
  counterweight through a second <frame> at the tail. The probe computes the boom body's mass and centre of mass
  from its geoms (box volumes times their densities, at their frame positions), checks the model as loaded, then
  saves it with mj_saveLastXML, loads the file back and compares the boom's mass, the geom count and the gravity
  torque at the hinge (qfrc_bias at qpos0). In 3.2.0 ... 3.2.3 the writer stopped walking a body's frames at the
  frame that holds its child body, so every later frame (here the counterweight) was left out of the saved file:
  the reloaded boom loses its counterweight and the gravity torque at the luffing hinge grows. The twin writes the
  counterweight's frame before the tip frame.
  """
  dens = {"beam": 2700.0, "counterweight": 7800.0}  # the densities written in the scene
  m = _load(fname)
  b = m.body("boom").id
  mass_ref, mom = 0.0, np.zeros(3)
  for name, rho in dens.items():
    g = m.geom(name).id
    mg = rho * _geom_volume(m, g)
    mass_ref += mg
    mom += mg * m.geom_pos[g]  # the boom's geoms have the body frame's orientation (no rotation in the scene)
  com_ref = mom / mass_ref
  m2 = _save_and_reload(m)
  b2 = m2.body("boom").id

  def bias(model):
    d = mujoco.MjData(model)
    mujoco.mj_forward(model, d)
    return d.qfrc_bias[model.joint("luff").dofadr[0]]

  err_loaded = abs(m.body_mass[b] - mass_ref)
  err_saved = abs(m2.body_mass[b2] - mass_ref)
  com_err = np.linalg.norm(m2.body_ipos[b2] - com_ref)
  bad = err_saved > 1e-6 * mass_ref or com_err > 1e-9 or m2.ngeom != m.ngeom
  tag = "BUG" if bad else "ok"
  return (f"{tag}: {mujoco.__version__} crane boom, mass from its geoms {mass_ref:.4f} kg with centre of mass "
          f"x = {com_ref[0]:+.5f} m; as loaded {m.body_mass[b]:.4f} kg (err {err_loaded:.1e}), {m.ngeom} geoms; "
          f"after mj_saveLastXML and reload {m2.body_mass[b2]:.4f} kg, centre of mass x = {m2.body_ipos[b2][0]:+.5f} m, "
          f"{m2.ngeom} geoms; gravity torque at the luffing hinge {bias(m):.3f} -> {bias(m2):.3f} N m; "
          f"ok when the reloaded boom keeps its mass and centre of mass (err < 1e-6) and every geom")


def probe_inertiafromgeom_false_saved(fname="mujoco-3.16.0-savexml-inertiafromgeom-false_trigger.xml"):
  """compiler/inertiafromgeom="false" must survive mj_saveLastXML.

  A two-link arm hangs from a shoulder hinge; both links have authored <inertial> elements (upper 2.0 kg with its
  centre of mass 0.2 m out, forearm 1.2 kg at 0.2 m past the elbow, 0.4 m out) and the compiler is told to ignore the
  geoms' volumes (inertiafromgeom="false"). The camera bracket at the wrist is a static body with collision boxes
  and no inertial, so it is massless. With the arm horizontal (qpos0) the gravity torque at the shoulder is then
  g (2.0 x 0.2 + 1.2 x 0.6) = 10.99 N m. The probe checks the model as loaded, saves it with mj_saveLastXML, loads
  the file back and checks the masses and the shoulder's gravity torque (qfrc_bias) again. Up to 3.15.0 the writer
  left inertiafromgeom="false" out of the saved <compiler>: the reloaded model takes the bracket's mass from its
  boxes (1.28 kg at the wrist) and the shoulder torque nearly doubles. The twin gives the bracket's boxes zero
  density, so nothing depends on the flag.
  """
  authored = {"upper": (2.0, 0.2), "fore": (1.2, 0.6), "bracket": (0.0, 0.0)}  # mass, x of the centre of mass at qpos0
  gnorm = 9.81
  tau_ref = gnorm * sum(mass * x for mass, x in authored.values())
  m = _load(fname)
  m2 = _save_and_reload(m)

  def masses(model):
    return np.array([model.body_mass[model.body(name).id] for name in authored])

  def shoulder(model):
    d = mujoco.MjData(model)
    mujoco.mj_forward(model, d)
    return d.qfrc_bias[model.joint("shoulder").dofadr[0]]

  ref = np.array([mass for mass, _ in authored.values()])
  err_loaded = np.abs(masses(m) - ref).max()
  err_saved = np.abs(masses(m2) - ref).max()
  t1, t2 = shoulder(m), shoulder(m2)
  bad = err_saved > 1e-9 or abs(abs(t2) - tau_ref) > 1e-6 * tau_ref
  tag = "BUG" if bad else "ok"
  return (f"{tag}: {mujoco.__version__} two-link arm, authored masses upper/fore/bracket {ref} kg, shoulder gravity "
          f"torque {tau_ref:.4f} N m; as loaded {masses(m).round(4)} kg (err {err_loaded:.1e}), |qfrc_bias| "
          f"{abs(t1):.4f} N m; after mj_saveLastXML and reload {masses(m2).round(4)} kg (err {err_saved:.1e}), "
          f"|qfrc_bias| {abs(t2):.4f} N m; ok when the reloaded masses and torque match the authored ones (err < 1e-9)")


def probe_fusestatic_gravcomp(fname="mujoco-3.16.0-fusestatic-gravcomp_trigger.xml"):
  """fusestatic must not change the gravity compensation of a static body it fuses.

  A two-joint arm (aluminium capsules) carries at its wrist a foam float, a static body with gravcomp="1": its
  weight is cancelled. The probe computes, from the geoms' volumes and densities (the scene's values), the net
  gravity torque that each hinge must feel with the arm horizontal (qpos0): the links' weight only, the float's
  weight cancelled. It compares that with what the model computes, qfrc_bias - qfrc_passive (gravity minus the
  gravity compensation, at rest). Up to 3.15.0 fusestatic="true" merged the float into the forearm, whose gravcomp
  is 0, so the float's 1.4 kg weighs on the arm again. The twin compiles with fusestatic="false".
  """
  rho = {"upper": 2700.0, "fore": 2700.0, "foam": 600.0}  # geom densities in the scene
  gc = {"upper": 0.0, "fore": 0.0, "foam": 1.0}  # gravcomp of the body of each geom in the scene
  gnorm = 9.81
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  # weights and world positions of the geoms (centres of mass of symmetric shapes), at qpos0
  parts = []
  for name in rho:
    g = m.geom(name).id
    parts.append((name, rho[name] * _geom_volume(m, g) * gnorm, d.geom_xpos[g].copy()))
  worst, lines = 0.0, []
  for jname in ("shoulder", "elbow"):
    j = m.joint(jname).id
    anchor, axis = d.xanchor[j], d.xaxis[j]
    # the geoms moved by this joint: those of its body's subtree
    body = m.jnt_bodyid[j]
    tau = 0.0
    for name, weight, pos in parts:
      gb = m.geom_bodyid[m.geom(name).id]
      while gb > body:
        gb = m.body_parentid[gb]
      if gb != body:
        continue
      force = np.array([0.0, 0.0, -weight * (1.0 - gc[name])])
      tau += np.cross(pos - anchor, force) @ axis
    dof = m.jnt_dofadr[j]
    got = -(d.qfrc_bias[dof] - d.qfrc_passive[dof])
    worst = max(worst, abs(got - tau))
    lines.append(f"{jname} {tau:+.4f} expected vs {got:+.4f} N m")
  float_mass = rho["foam"] * _geom_volume(m, m.geom("foam").id)
  tag = "BUG" if worst > 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} arm with a neutrally buoyant float ({float_mass:.3f} kg, gravcomp 1), "
          f"nbody {m.nbody}; net gravity torque at qpos0: " + "; ".join(lines) +
          f"; max error {worst:.4f} N m; ok when every hinge's torque matches (error < 1e-6 N m)")


PROBES = {
    "mujoco-e7a71549": probe_mesh_default_inertia_saved,
    "mujoco-82565464": probe_frame_after_body_saved,
    "mujoco-3.16.0-savexml-inertiafromgeom-false": probe_inertiafromgeom_false_saved,
    "mujoco-3.16.0-fusestatic-gravcomp": probe_fusestatic_gravcomp,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
