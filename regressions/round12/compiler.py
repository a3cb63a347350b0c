"""Round 12 probes, area: compiler (what the compiler makes of the XML and of an MjSpec: frames, attach, keyframes,
MjSpec editing and recompilation, and the XML writer mj_saveLastXML, whose output must load back as the same model).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python compiler.py <ID> [model.xml]
"""
import os
import sys
import tempfile

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
if not os.path.isdir(MODELS):  # regressions/round12/compiler.py beside regressions/models/round12
  MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round12")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _qmul(a, b):
  """Hamilton product of two (w, x, y, z) quaternions (written out here, independent of MuJoCo)."""
  w1, x1, y1, z1 = a
  w2, x2, y2, z2 = b
  return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                   w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                   w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                   w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _qmat(q):
  """Rotation matrix of a (w, x, y, z) quaternion, normalised first."""
  w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
  return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _element(spec, name):
  """The frame called name if the spec has one, else the body called name (the twin's mount is a body)."""
  frame = None
  try:
    frame = spec.frame(name)
  except Exception:  # pylint: disable=broad-except
    frame = None
  if frame is not None:
    return frame, "frame"
  return spec.body(name), "body"


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.14.0-frame-edit-recompile
# --------------------------------------------------------------------------------------------------------------------
def probe_frame_edit_recompile(fname="mujoco-3.14.0-frame-edit-recompile_trigger.xml"):
  """Editing the pos/quat of a <frame> in an MjSpec and compiling again must move what the frame holds.

  A two-link arm on a pedestal; its shoulder body sits on a frame "mount" (pos 0 0 0.35, yawed 30 deg). The probe
  loads the file as an MjSpec, compiles it (the model as loaded), then edits the mount the way a user refits an
  adapter plate: raised by 0.10 m and rolled 20 deg about its x axis, and compiles the spec again. The expected pose of
  the shoulder is composed by hand (quaternions written out here) from the pedestal's pose, the edited mount and the
  shoulder's authored pose in the mount: shoulder position, shoulder hinge axis, and the tool site's height with the
  arm at its keyframe. Up to 3.13.0 the first compilation folded the frame into its children for good, so the edit
  was silently ignored: the recompiled arm stays where it was (fixed in 3.14.0, changelog item 3, commit e312ce82d).
  The twin mounts the shoulder on a jointless body "mount" (no frame) and applies the same edit to it.
  """
  spec = mujoco.MjSpec.from_file(_path(fname))
  model0 = spec.compile()
  mount, kind = _element(spec, "mount")
  p_old = np.array(mount.pos, float)
  q_old = np.array(mount.quat, float)
  lift = np.array([0.0, 0.0, 0.10])
  roll = np.deg2rad(20.0)
  q_roll = np.array([np.cos(roll / 2), np.sin(roll / 2), 0.0, 0.0])
  p_new = p_old + lift
  q_new = _qmul(q_old, q_roll)  # rolled about the mount's own x axis
  mount.pos = p_new
  mount.quat = q_new
  model = spec.compile()

  # expected, by hand: world <- pedestal <- mount(edited) <- upper (authored pose relative to the mount)
  ped = model.body("pedestal").id
  data = mujoco.MjData(model)
  mujoco.mj_kinematics(model, data)
  ped_pos = data.xpos[ped].copy()
  ped_mat = data.xmat[ped].reshape(3, 3).copy()
  up = spec.body("upper")
  up_pos = np.array(up.pos, float)
  up_quat = np.array(up.quat, float)
  r_mount = ped_mat @ _qmat(q_new)
  exp_pos = ped_pos + ped_mat @ p_new + r_mount @ up_pos
  r_upper = r_mount @ _qmat(up_quat)
  exp_axis = r_upper @ np.array([0.0, 1.0, 0.0])

  b = model.body("upper").id
  got_pos = data.xpos[b].copy()
  got_axis = data.xaxis[model.joint("shoulder").id].copy()
  err_pos = np.linalg.norm(got_pos - exp_pos)
  err_axis = np.degrees(np.arccos(np.clip(np.dot(got_axis, exp_axis) /
                                          np.linalg.norm(got_axis) / np.linalg.norm(exp_axis), -1, 1)))
  # the tool site with the arm at its keyframe: expected from the hand-composed chain
  mujoco.mj_resetDataKeyframe(model, data, 0)
  mujoco.mj_kinematics(model, data)
  tool = model.site("tool").id
  qs, qe = data.qpos[model.joint("shoulder").qposadr[0]], data.qpos[model.joint("elbow").qposadr[0]]
  fore = spec.body("fore")
  def _hinge(axis, ang):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(ang / 2)], np.sin(ang / 2) * axis])
  r1 = r_upper @ _qmat(_hinge([0, 1, 0], qs))
  p_fore = exp_pos + r1 @ np.array(fore.pos, float)
  r2 = r1 @ _qmat(np.array(fore.quat, float)) @ _qmat(_hinge([0, 1, 0], qe))
  exp_tool = p_fore + r2 @ np.array(spec.site("tool").pos, float)
  got_tool = data.site_xpos[tool].copy()
  err_tool = np.linalg.norm(got_tool - exp_tool)
  err = max(err_pos, err_tool)
  line = (f"{mujoco.__version__} shoulder on a {kind} 'mount' edited in the MjSpec (raised 0.10 m, rolled 20 deg) "
          f"and compiled again: shoulder at {np.round(got_pos, 4)} vs {np.round(exp_pos, 4)} by hand "
          f"(err {err_pos:.3g} m; before the edit {np.round(model0.body_pos[model0.body('upper').id], 4)} in its "
          f"parent), shoulder axis off by {err_axis:.2f} deg; tool at keyframe z {got_tool[2]:.4f} vs "
          f"{exp_tool[2]:.4f} (err {err_tool:.3g} m); ok when errors < 1e-9 m and 1e-6 deg")
  bad = err > 1e-9 or err_axis > 1e-6
  return ("BUG: " if bad else "ok: ") + line


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-attach-keyframe
# --------------------------------------------------------------------------------------------------------------------
GRIPPER_XML = """
<mujoco model="gripper">
  <worldbody>
    <body name="palm">
      <joint name="roll" type="hinge" axis="1 0 0" range="-3 3" damping="0.2"/>
      <geom name="palm" type="box" size="0.02 0.04 0.012" density="800"/>
      <body name="finger_l" pos="0.03 0.02 0">
        <joint name="slide_l" type="slide" axis="0 1 0" range="0 0.03" damping="1"/>
        <geom name="finger_l" type="box" size="0.012 0.005 0.02" density="800"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="grip" joint="slide_l" kp="200" kv="5" ctrlrange="0 0.03"/>
  </actuator>
</mujoco>
"""


def _attach_at_site(spec, site_name, child_spec, body_name, prefix):
  site = spec.site(site_name)
  return site.attach_body(child_spec.body(body_name), prefix, "")


def probe_attach_keyframe(fname="mujoco-3.16.0-attach-keyframe_trigger.xml"):
  """A keyframe of an MjSpec must keep its values, joint by joint, when a sub-model is attached.

  A two-link arm over a table and a free cube resting on the table; the keyframe "home" places the arm (shoulder
  -0.2, elbow 0.9) and the cube (on the tabletop, yawed 45 deg). The probe loads the file as an MjSpec, compiles it,
  attaches a two-joint gripper (roll hinge + slide finger, with its own position actuator) at the wrist site with
  MjSpec attach, and compiles again. Each joint of the original model must keep its keyframe value (read by joint
  name), the gripper's joints must take their reference values, and the cube must still rest on the table when the
  model is reset to the keyframe and run for 1 s. Up to 3.15.0 the keyframe vector was kept as raw numbers and padded
  at the end, so the gripper's dofs, inserted between the arm and the cube, take the cube's first numbers and the cube
  is placed from shifted numbers (fixed in 3.16.0, changelog Compiler bug fixes item 25, commit 1961e8a2d). The twin
  declares the cube before the arm, so the gripper's dofs come last in qpos.
  """
  spec = mujoco.MjSpec.from_file(_path(fname))
  model0 = spec.compile()
  key0 = model0.key_qpos[0].copy()
  want = {}
  for j in range(model0.njnt):
    jnt = model0.joint(j)
    n = {0: 7, 1: 4, 2: 1, 3: 1}[int(jnt.type[0])]
    want[jnt.name] = key0[jnt.qposadr[0]:jnt.qposadr[0] + n]
  gripper = mujoco.MjSpec.from_string(GRIPPER_XML)
  _attach_at_site(spec, "wrist", gripper, "palm", "g_")
  model = spec.compile()
  key = model.key_qpos[0].copy()
  err_arm = err_cube = err_new = 0.0
  cube_key = None
  for j in range(model.njnt):
    jnt = model.joint(j)
    n = {0: 7, 1: 4, 2: 1, 3: 1}[int(jnt.type[0])]
    got = key[jnt.qposadr[0]:jnt.qposadr[0] + n]
    if jnt.name in want:
      e = float(np.max(np.abs(got - want[jnt.name])))
      if n == 7:
        cube_key = got[:3].copy()
        err_cube = max(err_cube, float(np.linalg.norm(got[:3] - want[jnt.name][:3])))
      else:
        err_arm = max(err_arm, e)
    else:
      ref = model.qpos0[jnt.qposadr[0]:jnt.qposadr[0] + n]
      err_new = max(err_new, float(np.max(np.abs(got - ref))))
  # the cube from the keyframe, run for 1 s: it must stay on the tabletop (z = 0.4 + 0.03)
  data = mujoco.MjData(model)
  mujoco.mj_resetDataKeyframe(model, data, 0)
  cube = model.body("cube").id
  mujoco.mj_forward(model, data)
  z0 = data.xpos[cube][2]
  for _ in range(int(round(1.0 / model.opt.timestep))):
    mujoco.mj_step(model, data)
  z1 = data.xpos[cube][2]
  top = 0.43
  line = (f"{mujoco.__version__} gripper attached at the wrist (nq {model0.nq} -> {model.nq}): keyframe 'home' after "
          f"the attach: arm joints off by {err_arm:.3g} rad, cube position off by {err_cube:.3g} m (at {np.round(cube_key, 3)}), gripper joints "
          f"off their reference by {err_new:.3g}; cube from the keyframe at z {z0:.4f} m, after 1 s {z1:.4f} m "
          f"(tabletop rest {top:.2f} m); ok when every value is kept (< 1e-12) and the cube rests within 5 mm")
  bad = max(err_arm, err_cube, err_new) > 1e-12 or abs(z1 - top) > 5e-3
  return ("BUG: " if bad else "ok: ") + line


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-savexml-freejoint-qpos0
# --------------------------------------------------------------------------------------------------------------------
def _save_and_reload(model):
  """Write the model just loaded with mj_saveLastXML and load the file back (the round trip a user makes)."""
  fd, tmp = tempfile.mkstemp(suffix=".xml")
  os.close(fd)
  try:
    mujoco.mj_saveLastXML(tmp, model)
    return mujoco.MjModel.from_xml_path(tmp)
  finally:
    os.remove(tmp)


def probe_savexml_freejoint_qpos0(fname="mujoco-3.16.0-savexml-freejoint-qpos0_trigger.xml"):
  """A change of mjModel.qpos0 must survive mj_saveLastXML, for a free joint as for hinges and slides.

  A two-link arm beside a table with a mug-like free object on the tabletop. The probe moves the object's reference
  pose in the compiled model (qpos0 of its free joint: +0.12 m in x, -0.08 m in y, 60 deg of yaw), the way a user
  sets a new start configuration, saves the model with mj_saveLastXML, loads the file back, and compares the reloaded
  model with the edited one: qpos0, the object's pose after mj_resetData (closed form for the free joint: the authored
  pose moved by the edit), and the object's pose after 1 s from the reset. Up to 3.15.0 mjCModel::CopyBack copied the
  free joint's qpos0 into the body's pos/quat and then, in the next loop, overwrote them with body_pos/body_quat, so
  the saved file keeps the old start pose (fixed in 3.16.0, changelog Compiler bug fixes item 28, commit 592c54ad3).
  The twin holds the object on x/y/z slides and a yaw hinge and makes the same edit on their qpos0 (saved as ref).
  """
  model = mujoco.MjModel.from_xml_path(_path(fname))
  dx, dy, yaw = 0.12, -0.08, np.deg2rad(60.0)
  names = [model.joint(j).name for j in range(model.njnt)]
  body = model.body("mug").id
  authored_pos = model.body_pos[body].copy()
  if "mug" in names:  # free joint: qpos0 is the object's pose in the world
    a = model.joint("mug").qposadr[0]
    model.qpos0[a] += dx
    model.qpos0[a + 1] += dy
    model.qpos0[a + 3:a + 7] = _qmul([np.cos(yaw / 2), 0, 0, np.sin(yaw / 2)], model.qpos0[a + 3:a + 7])
    expect_pos = authored_pos + np.array([dx, dy, 0.0])
    kind = "free joint"
  else:  # twin: slides and a hinge, whose qpos0 (ref) is a reference value: the body stays at its authored pose
    model.qpos0[model.joint("mug_x").qposadr[0]] += dx
    model.qpos0[model.joint("mug_y").qposadr[0]] += dy
    model.qpos0[model.joint("mug_yaw").qposadr[0]] += yaw
    expect_pos = authored_pos.copy()
    kind = "x/y/z slides + yaw hinge"
  reloaded = _save_and_reload(model)

  def _run(mdl):
    d = mujoco.MjData(mdl)
    mujoco.mj_resetData(mdl, d)
    mujoco.mj_forward(mdl, d)
    p0 = d.xpos[body].copy()
    for _ in range(int(round(1.0 / mdl.opt.timestep))):
      mujoco.mj_step(mdl, d)
    return p0, d.xpos[body].copy()

  p0_edit, p1_edit = _run(model)
  p0_rel, p1_rel = _run(reloaded)
  err_q = float(np.max(np.abs(reloaded.qpos0 - model.qpos0)))
  err_closed = float(np.linalg.norm(p0_edit - expect_pos))
  err_p0 = float(np.linalg.norm(p0_rel - p0_edit))
  err_p1 = float(np.linalg.norm(p1_rel - p1_edit))
  line = (f"{mujoco.__version__} object on a {kind}, reference pose moved in mjModel.qpos0, saved with "
          f"mj_saveLastXML and reloaded: qpos0 off by {err_q:.3g}; object at reset {np.round(p0_rel, 4)} vs "
          f"{np.round(p0_edit, 4)} in the edited model (err {err_p0:.3g} m; edited model vs closed form "
          f"{err_closed:.3g} m), after 1 s off by {err_p1:.3g} m; ok when all < 1e-4 (the writer's 6 digits)")
  bad = max(err_q, err_p0, err_p1, err_closed) > 1e-4
  return ("BUG: " if bad else "ok: ") + line


PROBES = {
    "mujoco-3.14.0-frame-edit-recompile": probe_frame_edit_recompile,
    "mujoco-3.16.0-attach-keyframe": probe_attach_keyframe,
    "mujoco-3.16.0-savexml-freejoint-qpos0": probe_savexml_freejoint_qpos0,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
