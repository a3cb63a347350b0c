"""Round 13 probes, area: saving and run-time editing of compiled models (mj_saveLastXML, mj_saveXML /
MjSpec.to_xml round trips, mj_copyBack, run-time edits of an mjModel followed by mj_setConst, keyframes).

Each probe takes an optional model filename (default: the case's trigger beside this file) and prints one line,
starting with 'BUG:' or 'ok:', with the figures.
Run: python saving_setconst.py <ID> [model.xml]
"""
import os
import sys
import tempfile

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round13")


def _path(fname):
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(HERE, fname)


def _save_last_and_reload(model):
  """mj_saveLastXML of the model just loaded, then load the written file again."""
  tmp = tempfile.mkdtemp(prefix="r13save_")
  out = os.path.join(tmp, "saved.xml")
  mujoco.mj_saveLastXML(out, model)
  return mujoco.MjModel.from_xml_path(out)


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-toxml-settotalmass
# --------------------------------------------------------------------------------------------------------------------
def probe_toxml_settotalmass(fname="mujoco-3.16.0-toxml-settotalmass_trigger.xml"):
  """MjSpec.to_xml (mj_saveXML) must write a model that loads back with the compiled masses.

  A two-link arm whose datasheet mass (6 kg) is imposed with <compiler settotalmass="6"/>, position servos with
  dampratio 1. The probe loads the file as an MjSpec, compiles it, saves it with spec.to_xml() and loads the string.
  Compared: total mass and the shoulder's gravity torque with the arm horizontal (qfrc_bias at the 'reach' keyframe),
  and the servo damping (biasprm[2]), which dampratio derives from the inertia; the total mass after a
  mj_saveLastXML round trip of the same file is printed too. Up to 3.15.0 the writer dropped settotalmass and wrote the
  geoms without the scaled masses: the saved arm is 3.8 kg (changelog 3.16.0 item 24, commit 592c54ad3). The twin
  writes the same masses out explicitly.
  """
  path = _path(fname)
  spec = mujoco.MjSpec.from_file(path)
  m0 = spec.compile()
  xml = spec.to_xml()
  m1 = mujoco.MjModel.from_xml_string(xml)

  def figures(m):
    d = mujoco.MjData(m)
    k = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "reach")
    mujoco.mj_resetDataKeyframe(m, d, k)
    mujoco.mj_forward(m, d)
    return float(np.sum(m.body_mass)), float(d.qfrc_bias[0]), m.actuator_biasprm[:, 2].copy()

  mass0, tau0, kv0 = figures(m0)
  mass1, tau1, kv1 = figures(m1)
  # the same file through mj_saveLastXML (loaded with from_xml_path, saved, loaded again)
  # (3.16.0 warns that settotalmass is deprecated through mju_user_warning on stdout; keep the probe's one line)
  if hasattr(mujoco, "set_mju_user_warning"):
    mujoco.set_mju_user_warning(lambda msg: None)
  mass2 = float(np.sum(_save_last_and_reload(mujoco.MjModel.from_xml_path(path)).body_mass))
  rel_mass = max(abs(mass1 - mass0), abs(mass2 - mass0)) / mass0
  rel_tau = abs(tau1 - tau0) / abs(tau0)
  rel_kv = float(np.max(np.abs(kv1 - kv0) / np.abs(kv0)))
  msg = (f"compiled mass {mass0:.4f} kg, saved-reloaded {mass1:.4f} kg (rel {rel_mass:.2e}); shoulder gravity torque "
         f"{tau0:.4f} vs {tau1:.4f} N m (rel {rel_tau:.2e}); servo damping {np.round(-kv0, 4).tolist()} vs "
         f"{np.round(-kv1, 4).tolist()} N m s (rel {rel_kv:.2e}); through mj_saveLastXML {mass2:.4f} kg "
         f"[mujoco {mujoco.__version__}]")
  bad = rel_mass > 1e-4 or rel_tau > 1e-4 or rel_kv > 1e-4
  return ("BUG: MjSpec.to_xml round trip changes the arm: " if bad else "ok: MjSpec.to_xml round trip keeps the arm: ") + msg


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-savexml-frame-order
# --------------------------------------------------------------------------------------------------------------------
def probe_savexml_frame_order(fname="mujoco-3.16.0-savexml-frame-order_trigger.xml"):
  """mj_saveLastXML must keep the order of a body's joints when some of them are written inside a <frame>.

  A pan-tilt turret: in the head body the pan joint (with its bearing geom) is authored inside <frame name=
  "pan_bearing">, then the tilt joint. The keyframe 'aim' is pan 0.9, tilt 0.35, barrel out 0.12 m. The probe saves
  the loaded model with mj_saveLastXML, loads the file, resets both models to 'aim' and compares the muzzle site's
  position and the joint order. Up to 3.15.0 the writer put a body's own elements before its frames, so the saved
  turret has tilt before pan while the keyframe is written as the same numbers: 'aim' now pans 0.35 and tilts 0.9
  (changelog 3.16.0 item 23, 'the order of the elements of a body which has frames, which gave the saved model other
  ids'). The twin writes the pan joint directly in the body, no frame.
  """
  path = _path(fname)
  m0 = mujoco.MjModel.from_xml_path(path)
  m1 = _save_last_and_reload(m0)

  def figures(m):
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "aim"))
    mujoco.mj_forward(m, d)
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    return d.site("muzzle").xpos.copy(), names, d.qfrc_bias.copy()

  p0, n0, b0 = figures(m0)
  p1, n1, b1 = figures(m1)
  err = float(np.linalg.norm(p1 - p0))
  msg = (f"keyframe 'aim' muzzle at {np.round(p0, 4).tolist()} as loaded, {np.round(p1, 4).tolist()} after save and "
         f"reload ({1000 * err:.1f} mm apart); joint order {n0} -> {n1} [mujoco {mujoco.__version__}]")
  bad = err > 1e-4 or n0 != n1
  return ("BUG: saved turret differs: " if bad else "ok: saved turret identical: ") + msg


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-savexml-mesh-surfacevel
# --------------------------------------------------------------------------------------------------------------------
def probe_savexml_mesh_surfacevel(fname="mujoco-3.16.0-savexml-mesh-surfacevel_trigger.xml"):
  """mj_saveLastXML must keep the direction of a mesh geom's surface velocity.

  A conveyor belt: a mesh deck (1.2 m along y, inline vertices) with surfacevel="0 0.5 0", a 0.5 kg parcel on it.
  The compiler turns a mesh geom into the mesh's principal frame (geom_quat (0.5, 0.5, -0.5, 0.5) here) and rotates
  geom_surfacevel with it. The probe saves the loaded model with mj_saveLastXML, loads the file, and compares the
  belt's surface velocity in the world frame (geom_xmat @ geom_surfacevel[:3]) and where the parcel is after 1.5 s.
  Up to 3.15.0 the writer wrote the compiled geom frame but the surfacevel the user authored in the original frame,
  which the reload rotates again: the saved belt runs along another axis (changelog 3.16.0 item 23, 'the frame of the
  surfacevel of mesh geoms'). The twin's deck is a primitive box (no mesh frame).
  """
  path = _path(fname)
  m0 = mujoco.MjModel.from_xml_path(path)
  m1 = _save_last_and_reload(m0)

  def figures(m):
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    g = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "belt")
    vw = d.geom_xmat[g].reshape(3, 3) @ m.geom_surfacevel[g, :3]
    p_start = d.body("parcel").xpos.copy()
    for _ in range(int(round(1.5 / m.opt.timestep))):
      mujoco.mj_step(m, d)
    return vw, d.body("parcel").xpos.copy() - p_start

  v0, dp0 = figures(m0)
  v1, dp1 = figures(m1)
  verr = float(np.linalg.norm(v1 - v0))
  perr = float(np.linalg.norm(dp1 - dp0))
  msg = (f"belt surface velocity in world {np.round(v0, 4).tolist()} as loaded, {np.round(v1, 4).tolist()} m/s after "
         f"save and reload ({verr:.3f} m/s apart); parcel moved {np.round(dp0, 3).tolist()} vs {np.round(dp1, 3).tolist()} m "
         f"in 1.5 s ({1000 * perr:.1f} mm apart) [mujoco {mujoco.__version__}]")
  bad = verr > 1e-4 or perr > 1e-3
  return ("BUG: saved conveyor differs: " if bad else "ok: saved conveyor identical: ") + msg


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.17.0-copyback-tendon-springlength
# --------------------------------------------------------------------------------------------------------------------
def probe_copyback_tendon_springlength(fname="mujoco-3.17.0-copyback-tendon-springlength_trigger.xml"):
  """mj_saveLastXML (through mj_copyBack) must keep a run-time edit of a spring's rest length.

  A 2 kg carriage on a damped vertical slide hangs from a counterbalance spring (spatial tendon, 400 N/m) whose rest
  length is the length at qpos0. A user retunes the balance at run time: the spring's rest length is shortened by
  0.10 m in mjModel.tendon_lengthspring, mj_setConst is called, and the tuned model is saved with mj_saveLastXML. The
  probe loads the saved file and lets both models settle from qpos0 (3 s); the expected rest height is
  z0 + 0.10 - m g / k. Up to 3.16.0 mj_copyBack did not copy tendon_lengthspring back to the spec, so the saved file
  keeps the old rest length (no springlength attribute) and the saved lift sags 0.10 m lower (changelog 3.17.0 item 3:
  'mj_copyBack now copies tendon spring lengths back to the spec', commits 55c1b585a / d6d41f324). The twin's spring
  is the slide joint's own stiffness; the same 0.10 m retune goes to mjModel.qpos_spring, which is copied back.
  """
  path = _path(fname)
  m0 = mujoco.MjModel.from_xml_path(path)
  d0 = mujoco.MjData(m0)
  shift = 0.10
  t = mujoco.mj_name2id(m0, mujoco.mjtObj.mjOBJ_TENDON, "spring")
  j = mujoco.mj_name2id(m0, mujoco.mjtObj.mjOBJ_JOINT, "lift")
  if t >= 0:
    what = "tendon_lengthspring"
    before = m0.tendon_lengthspring[t].copy()
    m0.tendon_lengthspring[t] = before - shift
    k = float(m0.tendon_stiffness[t])
  else:
    what = "qpos_spring"
    a = m0.jnt_qposadr[j]
    before = m0.qpos_spring[a:a + 1].copy()
    m0.qpos_spring[a] = before[0] + shift
    k = float(m0.jnt_stiffness[j])
  mujoco.mj_setConst(m0, d0)
  m1 = _save_last_and_reload(m0)

  def rest_height(m):
    d = mujoco.MjData(m)
    for _ in range(int(round(3.0 / m.opt.timestep))):
      mujoco.mj_step(m, d)
    return float(d.body("carriage").xpos[2]), float(np.abs(d.qvel).max())

  z0 = float(m0.body_pos[m0.body("carriage").id][2])
  mass = float(m0.body_mass[m0.body("carriage").id])
  expect = z0 + shift - mass * abs(m0.opt.gravity[2]) / k
  h0, v0 = rest_height(m0)
  h1, v1 = rest_height(m1)
  msg = (f"{what} {np.round(before, 4).tolist()} -> {np.round(before - shift if t >= 0 else before + shift, 4).tolist()}; "
         f"rest height expected {expect:.4f} m, edited model {h0:.4f} m, saved and reloaded {h1:.4f} m "
         f"({1000 * abs(h1 - h0):.1f} mm apart) [mujoco {mujoco.__version__}]")
  bad = abs(h1 - h0) > 1e-3 or abs(h0 - expect) > 1e-3
  return ("BUG: saved lift differs: " if bad else "ok: saved lift keeps the retuned spring: ") + msg


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-savexml-geom-inertia-mass-edit
# --------------------------------------------------------------------------------------------------------------------
def probe_savexml_geom_inertia_mass_edit(fname="mujoco-3.16.0-savexml-geom-inertia-mass-edit_trigger.xml"):
  """mj_saveLastXML must keep a run-time edit of a body's mass, or refuse to save.

  Payload randomization on a two-link arm: the payload body (0.5 kg box, inertia from its geom under the default
  inertiafromgeom="auto") is set to 3.0 kg at run time (body_mass, body_inertia scaled by 6), mj_setConst is called and
  the model is saved with mj_saveLastXML. The probe loads the saved file and compares the payload mass and the
  shoulder's gravity torque with the arm horizontal (qfrc_bias at qpos0). Up to 3.15.0 the edit was left out of the
  saved file without notice (the payload is written as its geom, which gives 0.5 kg again); from 3.16.0 the saved file
  carries the edited inertia (or, with inertiafromgeom="true", the save fails with an error): changelog 3.16.0 item 12,
  commit 592c54ad3. The twin's payload has an explicit <inertial>, whose edit is copied back on every release.
  """
  path = _path(fname)
  m0 = mujoco.MjModel.from_xml_path(path)
  d0 = mujoco.MjData(m0)
  b = m0.body("payload").id
  scale = 3.0 / float(m0.body_mass[b])
  m0.body_mass[b] *= scale
  m0.body_inertia[b] *= scale
  mujoco.mj_setConst(m0, d0)
  try:
    m1 = _save_last_and_reload(m0)
  except Exception as e:  # pylint: disable=broad-except
    return f"ok: mj_saveLastXML refuses the inexpressible edit: {str(e).splitlines()[0]} [mujoco {mujoco.__version__}]"

  def figures(m):
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return float(m.body_mass[m.body("payload").id]), float(d.qfrc_bias[0]), float(m.body_subtreemass[1])

  mass0, tau0, sub0 = figures(m0)
  mass1, tau1, sub1 = figures(m1)
  rel = abs(tau1 - tau0) / abs(tau0)
  msg = (f"payload {mass0:.3f} kg edited, {mass1:.3f} kg after save and reload; arm mass {sub0:.3f} vs {sub1:.3f} kg; "
         f"shoulder gravity torque {tau0:.3f} vs {tau1:.3f} N m (rel {rel:.2e}) [mujoco {mujoco.__version__}]")
  bad = abs(mass1 - mass0) > 1e-4 * mass0 or rel > 1e-4
  return ("BUG: saved arm loses the payload edit: " if bad else "ok: saved arm keeps the payload edit: ") + msg


PROBES = {
    "mujoco-3.16.0-toxml-settotalmass": probe_toxml_settotalmass,
    "mujoco-3.16.0-savexml-frame-order": probe_savexml_frame_order,
    "mujoco-3.16.0-savexml-mesh-surfacevel": probe_savexml_mesh_surfacevel,
    "mujoco-3.17.0-copyback-tendon-springlength": probe_copyback_tendon_springlength,
    "mujoco-3.16.0-savexml-geom-inertia-mass-edit": probe_savexml_geom_inertia_mass_edit,
}


def main(argv):
  if len(argv) < 2 or argv[1] not in PROBES:
    print("usage: python saving_setconst.py <ID> [model.xml]; IDs: " + ", ".join(PROBES))
    return 2
  probe = PROBES[argv[1]]
  print(probe(argv[2]) if len(argv) > 2 else probe())
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))


CASES = {k: v for k, v in PROBES.items() if k in ['mujoco-3.16.0-toxml-settotalmass', 'mujoco-3.16.0-savexml-frame-order', 'mujoco-3.16.0-savexml-mesh-surfacevel', 'mujoco-3.17.0-copyback-tendon-springlength', 'mujoco-3.16.0-savexml-geom-inertia-mass-edit']}  # the corpus's (round 13)
