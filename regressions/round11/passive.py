"""Round 11 probes, area: passive (passive forces and integrators: joint and tendon springs and dampers, armature,
gravity compensation, fluid models, wind, the integrators and their damping/derivative handling, mj_integratePos,
timestep effects, energy, sleeping/islands where they touch these).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python passive.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  if os.path.isabs(fname) or os.path.exists(fname):
    return fname
  return os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _mass_column(m, d, i):
  """Column i of the mass matrix MuJoCo holds (mj_mulM with a unit vector; works on every release)."""
  e = np.zeros(m.nv)
  e[i] = 1.0
  res = np.zeros(m.nv)
  mujoco.mj_mulM(m, d, res, e)
  return res


def probe_sleep_tendon_armature(fname="mujoco-4.0.0-sleep-tendon-armature_trigger.xml"):
  """The puck's translational inertia is m I + a u u' (mass m, tether armature a, u the tether's unit direction).

  The tether joins the puck's centre to a reel on the post axis, so its Jacobian with respect to the puck's
  translational dofs is the unit vector u and the kinetic energy of the puck's translation is
  1/2 m |v|^2 + 1/2 a (u.v)^2. Whatever u is (and even if MuJoCo keeps the matrix of a sleeping tree frozen),
  the trace of that 3x3 block is exactly 3 m + a. The probe runs the scene for 3 s (the puck falls asleep, the arm
  coasts round and strikes it) and records the trace of the puck's translational block of the mass matrix that
  MuJoCo holds after every step. Before 4.0.0, while the puck sleeps and the arm (the cable's other tree) is awake,
  mj_tendonArmature adds a J'J to the sleeping tree's rows every step on top of the stale matrix: the puck's
  mass grows without bound, and the wake step's contact solve uses it.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  puck = m.body("puck").id
  dof = m.jnt_dofadr[m.body_jntadr[puck]]
  mass = m.body_mass[puck]
  arm = m.tendon_armature[m.tendon("tether").id]
  expect = 3 * mass + arm
  tree = m.body_treeid[puck] if hasattr(m, "body_treeid") else -1
  worst, worst_t, nasleep, wake_tr = 0.0, 0.0, 0, None
  was_asleep = False
  nstep = int(round(3.0 / m.opt.timestep))
  for _ in range(nstep):
    mujoco.mj_step(m, d)
    asleep = hasattr(d, "tree_awake") and tree >= 0 and not d.tree_awake[tree]
    nasleep += int(asleep)
    tr = sum(_mass_column(m, d, dof + k)[dof + k] for k in range(3))
    if was_asleep and not asleep and wake_tr is None:
      wake_tr = tr
    was_asleep = asleep
    err = abs(tr - expect)
    if err > worst:
      worst, worst_t = err, d.time
  tag = "BUG" if worst > 1e-6 * expect else "ok"
  wake = f"{wake_tr:.3f} kg" if wake_tr is not None else "n/a"
  return (f"{tag}: {mujoco.__version__} sweeper arm and tethered puck (m = {mass:g} kg, tether armature "
          f"{arm:g} kg), 3 s, puck asleep {nasleep * m.opt.timestep:.2f} s: trace of the puck's translational "
          f"mass block must be 3m+a = {expect:.3f} kg; max |trace - 3m-a| = {worst:.3g} kg at t = {worst_t:.3f} s "
          f"(trace in the step the paddle wakes the puck: {wake}); ok when < {1e-6 * expect:.1e} kg")


def probe_flex_edge_damping_translation(fname="mujoco-51572eab_trigger.xml"):
  """Internal edge dampers cannot change the motion of a soft body's centre of mass: in free fall it accelerates at g.

  The soft cube (a 3D flex with edge dampers) is released at rest 1 m above the floor; for the first 0.3 s it
  touches nothing, and the only external force is gravity, so by the momentum theorem its centre-of-mass velocity
  is -g t (exactly, step by step, for any integrator that is consistent with momentum: the internal forces sum to
  zero). The probe steps the model and after every step computes the centre-of-mass velocity from the bodies'
  masses and the Jacobians of their centres of mass (sum m_b J_b qvel / sum m_b, kinematics only), and compares it
  with -g t. Before 4.0.0 the implicit and implicitfast integrators put the edge dampers' velocity derivative into
  the implicit matrix in a form that also damped the rigid translation of the flex (the cross terms between vertex
  bodies cannot be held in the mass matrix's sparsity): the cube fell as if through a viscous medium.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  g = -m.opt.gravity[2]
  bodies = [b for b in range(1, m.nbody) if m.body_mass[b] > 0]
  mtot = sum(m.body_mass[b] for b in bodies)
  jacp = np.zeros((3, m.nv))
  worst, worst_t, ratio = 0.0, 0.0, 1.0
  nstep = int(round(0.3 / m.opt.timestep))
  for _ in range(nstep):
    mujoco.mj_step(m, d)
    if d.ncon:
      break
    mujoco.mj_forward(m, d)
    vcom = np.zeros(3)
    for b in bodies:
      mujoco.mj_jacBodyCom(m, d, jacp, None, b)
      vcom += m.body_mass[b] * (jacp @ d.qvel)
    vcom /= mtot
    ref = -g * d.time
    err = abs(vcom[2] - ref)
    if err > worst:
      worst, worst_t = err, d.time
    ratio = vcom[2] / ref
  tag = "BUG" if worst > 1e-6 * g * d.time else "ok"
  integ = mujoco.mjtIntegrator(m.opt.integrator).name
  return (f"{tag}: {mujoco.__version__} soft cube (3D flex, edge dampers, {integ}) in free fall for {d.time:.3f} s: "
          f"centre-of-mass velocity must be -g t; max |v_com - (-g t)| = {worst:.4g} m/s at t = {worst_t:.3f} s, "
          f"v_com / (-g t) at the end = {ratio:.4f}; ok when < {1e-6 * g * d.time:.1e} m/s")


PROBES = {
    "mujoco-4.0.0-sleep-tendon-armature": probe_sleep_tendon_armature,
    "mujoco-51572eab": probe_flex_edge_damping_translation,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
