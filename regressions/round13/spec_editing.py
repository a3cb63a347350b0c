"""Round 13 probes, area: MjSpec model editing (attach, recompile, compiling an edited spec twice).

Each probe takes an optional model filename (default: the case's trigger, next to this file) and prints one line:
`BUG: ...` when the compiled model or the state after the edit is wrong, `ok: ...` otherwise, with the figures.
Run: python spec_editing.py <ID> [model.xml]

The probes only use MjSpec calls that exist on both releases a case names (from_string/from_file were instance methods
before 3.2.4, add_frame took no keywords there, spec.attach exists from 3.3.0, MjData.qM became M).
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round13")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(HERE, fname)


def _spec_from_file(fname):
  try:
    return mujoco.MjSpec.from_file(fname)
  except TypeError:  # before 3.2.4 from_file was an instance method
    spec = mujoco.MjSpec()
    spec.from_file(fname)
    return spec


def _spec_from_string(xml):
  try:
    return mujoco.MjSpec.from_string(xml)
  except TypeError:
    spec = mujoco.MjSpec()
    spec.from_string(xml)
    return spec


def _qmul(a, b):
  """Hamilton product of two (w, x, y, z) quaternions (written out, independent of MuJoCo)."""
  w1, x1, y1, z1 = a
  w2, x2, y2, z2 = b
  return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                   w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                   w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                   w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _qmat(q):
  w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
  return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _qangle(a, b):
  """Angle (deg) between two orientations given as quaternions."""
  a = np.asarray(a, float) / np.linalg.norm(a)
  b = np.asarray(b, float) / np.linalg.norm(b)
  return np.degrees(2 * np.arccos(min(1.0, abs(float(np.dot(a, b))))))


# --------------------------------------------------------------------------------------------------------------------
# mujoco-1bf24e9f: attaching a spec to a frame (or site) overwrites the frames of the child's worldbody elements
# --------------------------------------------------------------------------------------------------------------------
ARM_XML = """
<mujoco model="arm">
  <compiler angle="degree"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="pedestal" pos="0 0 0.4">
      <geom type="cylinder" size="0.08 0.4" pos="0 0 -0.2"/>
      <body name="upper" pos="0 0 0.25">
        <joint name="shoulder" type="hinge" axis="0 1 0" damping="2"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.035"/>
        <body name="fore" pos="0.4 0 0">
          <joint name="elbow" type="hinge" axis="0 1 0" damping="1"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
          <frame name="flange" pos="0.33 0 0" euler="0 30 0"/>
          <site name="flange_ref" pos="0.33 0 0" euler="0 30 0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def probe_attach_frame(fname="mujoco-1bf24e9f_trigger.xml"):
  """A gripper attached to the arm's flange frame must sit where its own file puts it relative to the flange.

  The gripper file places its palm 6 cm below the flange, turned 90 deg about the tool axis, through an adapter
  <frame> in its worldbody. The probe attaches the gripper spec (all of its worldbody) to the arm's frame "flange"
  with MjSpec.attach and compiles. Expected palm pose = flange pose (a site at the same place) composed with the palm
  pose of the gripper loaded on its own. Before 3.3.1 the Python attach re-parented every worldbody element of the
  child to the attachment frame, overwriting the adapter frame the palm already had: the adapter's offset and turn
  are dropped.
  """
  fname = _path(fname)
  alone = mujoco.MjModel.from_xml_path(fname)
  da = mujoco.MjData(alone)
  mujoco.mj_forward(alone, da)
  p_local = da.body("palm").xpos.copy()
  q_local = da.body("palm").xquat.copy()

  arm = _spec_from_string(ARM_XML)
  gripper = _spec_from_file(fname)
  frame = arm.frame("flange") if hasattr(arm, "frame") else arm.find_frame("flange")
  arm.attach(gripper, frame=frame, prefix="gripper-")
  m = arm.compile()
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  s = m.site("flange_ref").id
  p_flange = d.site_xpos[s].copy()
  q_flange = np.zeros(4)
  mujoco.mju_mat2Quat(q_flange, d.site_xmat[s])
  p_exp = p_flange + _qmat(q_flange) @ p_local
  q_exp = _qmul(q_flange, q_local)
  p_got = d.body("gripper-palm").xpos
  q_got = d.body("gripper-palm").xquat
  dp = float(np.linalg.norm(p_got - p_exp))
  da_ = _qangle(q_got, q_exp)
  tcp = d.site("gripper-tcp").xpos
  tcp_exp = p_flange + _qmat(q_flange) @ da.site("tcp").xpos
  dtcp = float(np.linalg.norm(tcp - tcp_exp))
  fig = (f"mujoco {mujoco.__version__}: palm at {np.round(p_got, 4).tolist()} expected {np.round(p_exp, 4).tolist()} "
         f"(off by {dp * 1000:.1f} mm, turned {da_:.1f} deg wrong); tool point off by {dtcp * 1000:.1f} mm")
  if dp > 1e-6 or da_ > 1e-4:
    return "BUG: attach to a frame drops the gripper's own adapter frame: " + fig
  return "ok: gripper placed as in its own file: " + fig


# --------------------------------------------------------------------------------------------------------------------
# mujoco-11af1e2a: mj_recompile after attaching gives the attached joints the state of other joints
# --------------------------------------------------------------------------------------------------------------------
def probe_recompile_attach(fname="mujoco-11af1e2a_trigger.xml"):
  """Spawning a second crate into a running simulation: attach + recompile must keep the state and place the new one.

  The packing station is loaded as an MjSpec, compiled and simulated for 1 s (the crate settles on the table, the
  arm's servos move it). Then a copy of the file's "crate" body is attached to a new frame 0.35 m along +y (the free
  slot on the table) and the spec is recompiled with MjSpec.recompile(m, d), which must keep the state of the old
  elements and start the new crate at its compiled pose (qpos0: the crate's file pose shifted 0.35 m in y).
  In 3.2.3 a copied joint kept the qpos/dof address it had in the spec it was copied from; mj_recompile's SaveState
  read the old qpos/qvel at that address and RestoreState wrote it into the new crate: the spawned crate starts in
  the first crate's pose and velocity, inside it.
  """
  fname = _path(fname)
  spec = _spec_from_file(fname)
  m = spec.compile()
  d = mujoco.MjData(m)
  d.ctrl[:] = [0.4, -0.6]
  for _ in range(500):
    mujoco.mj_step(m, d)
  old_bodies = {m.body(i).name: d.xpos[i].copy() for i in range(1, m.nbody)}
  old_qpos = {m.joint(j).name: d.qpos[m.jnt_qposadr[j]:m.jnt_qposadr[j] + (7 if m.jnt_type[j] == 0 else 1)].copy()
              for j in range(m.njnt)}

  proto = _spec_from_file(fname)
  offset = np.array([0.0, 0.35, 0.0])
  slot = spec.worldbody.add_frame()
  slot.pos = offset
  crate = proto.find_body("crate") if hasattr(proto, "find_body") else proto.body("crate")
  if hasattr(slot, "attach_body"):
    slot.attach_body(crate, "spawned-", "")
  else:
    spec.attach(proto, frame=slot, prefix="spawned-")
  m2, d2 = spec.recompile(m, d)
  mujoco.mj_forward(m2, d2)

  p_file = np.array(alone_pos(fname, "crate"))
  p_exp = p_file + offset
  p_new = d2.body("spawned-crate").xpos.copy()
  dnew = float(np.linalg.norm(p_new - p_exp))
  p_old = d2.body("crate").xpos.copy()
  dold = float(np.linalg.norm(p_old - old_bodies["crate"]))
  # old joints keep their state
  dq = 0.0
  for j in range(m2.njnt):
    name = m2.joint(j).name
    if name in old_qpos:
      a = m2.jnt_qposadr[j]
      dq = max(dq, float(np.max(np.abs(d2.qpos[a:a + len(old_qpos[name])] - old_qpos[name]))))
  sep = float(np.linalg.norm(p_new - p_old))
  # what the simulation does next: 0.1 s on, the fastest point-mass speed of any body
  for _ in range(50):
    mujoco.mj_step(m2, d2)
  vmax = float(np.max(np.linalg.norm(d2.cvel[1:, 3:], axis=1)))
  fig = (f"mujoco {mujoco.__version__}: spawned crate at {np.round(p_new, 4).tolist()}, expected "
         f"{np.round(p_exp, 4).tolist()} (off by {dnew * 1000:.1f} mm; {sep * 1000:.1f} mm from the first crate, "
         f"which moved {dold * 1000:.2f} mm); old joints' qpos changed by {dq:.2e}; 0.1 s later the fastest body "
         f"moves at {vmax:.2f} m/s")
  if dnew > 1e-6 or dold > 1e-6 or dq > 1e-9:
    return "BUG: recompile after attach restores another element's state into the new crate: " + fig
  return "ok: recompile after attach keeps the old state and starts the new crate at its pose: " + fig


def alone_pos(fname, body):
  m = mujoco.MjModel.from_xml_path(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  return d.body(body).xpos.copy()


# --------------------------------------------------------------------------------------------------------------------
# mujoco-775c45c6: an attached spec is compiled with the parent's compiler options (angle units) when it has a name
# --------------------------------------------------------------------------------------------------------------------
WORKCELL_XML = """
<mujoco model="workcell">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="pedestal" pos="0 0 0.4">
      <geom type="cylinder" size="0.08 0.4" pos="0 0 -0.2"/>
      <body name="upper" pos="0 0 0.25">
        <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90" damping="2"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.035"/>
        <frame name="flange" pos="0.43 0 0" euler="0 90 0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def probe_attach_compiler_units(fname="mujoco-775c45c6_trigger.xml"):
  """A module attached to a workcell must compile with its own compiler settings (here: angles in radians).

  The probe loads the wrist-gripper module on its own (reference) and as an MjSpec, attaches it to the flange frame of
  a workcell spec (named "workcell", default angle="degree"), compiles, and compares the attached joints' ranges and
  the attached bodies' local orientations with the module compiled alone. Then it commands the wrist roll servo to
  1.0 rad for 2 s and reads the angle reached. In 3.3.0 mjCBody::SetModel looked the compiler up by the model name of
  the spec being attached into, so a named child got the parent's compiler: radians were read as degrees.
  """
  fname = _path(fname)
  alone = mujoco.MjModel.from_xml_path(fname)
  cell = _spec_from_string(WORKCELL_XML)
  module = _spec_from_file(fname)
  frame = cell.frame("flange") if hasattr(cell, "frame") else cell.find_frame("flange")
  cell.attach(module, frame=frame, prefix="tool-")
  m = cell.compile()
  dr = -1.0
  worst = ""
  for j in range(alone.njnt):
    name = alone.joint(j).name
    a = alone.jnt_range[j]
    b = m.joint("tool-" + name).range
    if alone.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE and float(np.max(np.abs(a - b))) > dr:
      dr = float(np.max(np.abs(a - b)))
      worst = f"{name} range {np.round(b, 4).tolist()} vs {np.round(a, 4).tolist()} alone"
  dq = 0.0
  for b in range(2, alone.nbody):  # bodies below the module's root keep their local pose
    dq = max(dq, _qangle(alone.body_quat[b], m.body("tool-" + alone.body(b).name).quat))
  d = mujoco.MjData(m)
  d.ctrl[m.actuator("tool-roll").id] = 1.0
  for _ in range(int(2.0 / m.opt.timestep)):
    mujoco.mj_step(m, d)
  roll = float(d.qpos[m.joint("tool-roll").qposadr[0]])
  fig = (f"mujoco {mujoco.__version__}: worst joint {worst} (off by {dr:.4f}); body orientations off by up to "
         f"{dq:.2f} deg; roll servo commanded 1.0 rad reaches {roll:.3f} rad after 2 s")
  if dr > 1e-6 or dq > 1e-4:
    return "BUG: the attached module is compiled in the workcell's angle unit: " + fig
  return "ok: the attached module keeps its own compiler settings: " + fig


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.16.0-body-to-frame-inertial: turning a static body with an explicit inertial into a frame loses mass
# --------------------------------------------------------------------------------------------------------------------
def _arm_figures(m):
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  u = m.body("upper").id
  e0 = np.zeros(m.nv)
  e0[m.joint("shoulder").dofadr[0]] = 1.0
  col = np.zeros(m.nv)
  mujoco.mj_mulM(m, d, col, e0)  # first column of the mass matrix (stable API across releases)
  return (float(m.body_subtreemass[u]), d.qfrc_bias.copy(), float(col[m.joint("shoulder").dofadr[0]]),
          d.subtree_com[u].copy())


def probe_body_to_frame_inertial(fname="mujoco-3.16.0-body-to-frame-inertial_trigger.xml"):
  """Turning a jointless body into a frame of its parent (body.to_frame) must keep the arm's mass distribution.

  The camera mount is a static child of the upper arm (no joint), so converting it into a frame changes nothing
  physically: the upper link's subtree mass, its centre of mass, the shoulder's gravity torque and the shoulder's
  inertia must equal those of the file as loaded. The probe compares them after spec.body("camera_mount").to_frame()
  and a compile. Up to 3.14.0 the mount's explicit inertial is dropped (the arm loses 0.6 kg); 3.15.0 keeps the
  inertial but makes it the upper link's explicit inertial, which then replaces what the link's own geoms give
  (the arm loses its 1 kg capsule); 3.16.0 merges both.
  """
  fname = _path(fname)
  ref = _arm_figures(mujoco.MjModel.from_xml_path(fname))
  spec = _spec_from_file(fname)
  body = spec.body("camera_mount") if hasattr(spec, "body") else spec.find_body("camera_mount")
  body.to_frame()
  m = spec.compile()
  got = _arm_figures(m)
  dmass = got[0] - ref[0]
  dtau = float(np.max(np.abs(got[1] - ref[1])))
  dI = got[2] - ref[2]
  dcom = float(np.linalg.norm(got[3] - ref[3]))
  fig = (f"mujoco {mujoco.__version__}: upper-arm subtree mass {got[0]:.3f} kg vs {ref[0]:.3f} kg as loaded; "
         f"shoulder gravity torque {got[1][0]:.3f} vs {ref[1][0]:.3f} N m; shoulder inertia {got[2]:.4f} vs "
         f"{ref[2]:.4f} kg m^2; subtree COM moved {dcom * 1000:.1f} mm")
  if abs(dmass) > 1e-9 or dtau > 1e-9 or abs(dI) > 1e-9 or dcom > 1e-9:
    return "BUG: body.to_frame changes the arm's mass distribution: " + fig
  return "ok: body.to_frame keeps the arm's mass distribution: " + fig


PROBES = {
    "mujoco-1bf24e9f": probe_attach_frame,
    "mujoco-11af1e2a": probe_recompile_attach,
    "mujoco-775c45c6": probe_attach_compiler_units,
    "mujoco-3.16.0-body-to-frame-inertial": probe_body_to_frame_inertial,
}


if __name__ == "__main__":
  if len(sys.argv) < 2 or sys.argv[1] not in PROBES:
    print("usage: python spec_editing.py <ID> [model.xml]; IDs: " + ", ".join(PROBES))
    sys.exit(2)
  args = sys.argv[2:3]
  print(PROBES[sys.argv[1]](*args))


CASES = {k: v for k, v in PROBES.items() if k in ['mujoco-1bf24e9f', 'mujoco-11af1e2a', 'mujoco-775c45c6', 'mujoco-3.16.0-body-to-frame-inertial']}  # the corpus's (round 13)
