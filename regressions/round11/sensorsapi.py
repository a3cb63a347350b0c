"""Round 11 probes, area: sensorsapi (sensors of every type and the API functions beside the step: subtree
sensors and mj_subtreeVel, Jacobians, object velocities, inverse dynamics, mass-matrix functions, keyframes, state).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python sensorsapi.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  if os.path.isabs(fname) or os.path.exists(fname):
    return fname
  return os.path.join(MODELS, os.path.basename(fname))


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _sensor(m, d, name):
  i = m.sensor(name).id
  a = m.sensor_adr[i]
  return d.sensordata[a:a + m.sensor_dim[i]].copy()


def _total_momentum(m, d):
  """Linear velocity of the centre of mass and angular momentum about it, of every body, from first principles.

  Each body's centre-of-mass velocity and angular velocity come from its Jacobian (mj_jacBodyCom, built from the
  kinematics) times qvel, so nothing is taken from cvel or mj_subtreeVel. Then
    v_com = sum(m_b v_b) / M,   L = sum(m_b (x_b - c) x v_b + R_b I_b R_b' w_b),   c = sum(m_b x_b) / M.
  """
  M = 0.0
  P = np.zeros(3)
  mc = np.zeros(3)
  vel = []
  for b in range(1, m.nbody):
    jp = np.zeros((3, m.nv))
    jr = np.zeros((3, m.nv))
    mujoco.mj_jacBodyCom(m, d, jp, jr, b)
    v, w = jp @ d.qvel, jr @ d.qvel
    vel.append((v, w))
    M += m.body_mass[b]
    P += m.body_mass[b] * v
    mc += m.body_mass[b] * d.xipos[b]
  c = mc / M
  L = np.zeros(3)
  for b in range(1, m.nbody):
    v, w = vel[b - 1]
    R = d.ximat[b].reshape(3, 3)
    L += m.body_mass[b] * np.cross(d.xipos[b] - c, v) + R @ np.diag(m.body_inertia[b]) @ R.T @ w
  return P / M, L


def probe_sleep_subtree_angmom(fname="mujoco-4.0.0-sleep-subtree-angmom_trigger.xml"):
  """The subtreeangmom sensor of the world body is the total angular momentum about the centre of mass.

  A crate with a hinged lid rests on the floor and falls asleep, while a hook swings from a hoist beside it. The
  world's subtreelinvel and subtreeangmom sensors must equal the momentum of all bodies computed from their
  Jacobians. mj_subtreeVel builds the world's angular momentum subtree by subtree, moving each one to the common
  centre of mass c with the term m_sub (x_sub - c) x (v_sub - v_com); for the sleeping crate v_sub = 0 but v_com is
  not, so that term is not zero. The probe runs 4 s from keyframe 0 and compares the two sensors with the direct
  sum every 10 steps. Before 4.0.0 mj_subtreeVel skips the sleeping subtree and its transfer term: the sensor is off
  by exactly -m_sub (x_sub - c) x (-v_com), up to 0.83 kg m^2/s (about 30 % of |L|) on 3.17.0; 4.0.0 matches to
  1e-14.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  worst_L, worst_v, ref_at, t_at, nsleep, nsample = 0.0, 0.0, 0.0, 0.0, 0, 0
  nstep = int(round(4.0 / m.opt.timestep))
  for k in range(nstep):
    mujoco.mj_step(m, d)
    if k % 10:
      continue
    # sensordata after mj_step belongs to the state before the step's integration: recompute it at this state
    mujoco.mj_forward(m, d)
    awake = np.array(getattr(d, "tree_awake", np.ones(m.ntree if hasattr(m, "ntree") else 1)))
    asleep = int(np.sum(awake == 0))
    nsample += 1
    nsleep += asleep > 0
    vref, Lref = _total_momentum(m, d)
    eL = np.abs(_sensor(m, d, "total_angmom") - Lref).max()
    ev = np.abs(_sensor(m, d, "total_linvel") - vref).max()
    worst_v = max(worst_v, ev)
    if eL > worst_L:
      worst_L, ref_at, t_at = eL, np.abs(Lref).max(), d.time
  tag = "BUG" if worst_L > 1e-6 or worst_v > 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} crate asleep beside a swinging hook, {nsample} samples over 4 s "
          f"({nsleep} with a sleeping tree): max |subtreeangmom(world) - total angular momentum| = {worst_L:.4g} "
          f"kg m^2/s (|L| = {ref_at:.3f} there, t = {t_at:.2f} s); max |subtreelinvel(world) - v_com| = "
          f"{worst_v:.2g} m/s; ok when both < 1e-6")


def probe_sleep_init_delayed_sensor(fname="mujoco-4.0.0-sleep-init-delayed-sensor_trigger.xml"):
  """A delayed sensor (nsample, delay) reports the undelayed reading of `delay` seconds before.

  Two crates in a warehouse start asleep (body sleep="init"), a hook swings beside them, and a tracker reports
  the positions of markers on the crates and on the hook twice: undelayed, and with a 10 ms latency (framepos
  with nsample="10" delay="0.01"). Once the history is full (t > 0.02 s) the delayed reading at step k must equal
  the undelayed reading at step k - delay/timestep. The probe runs 2 s from keyframe 0 and records both. Before
  4.0.0 the history of a sensor whose object belongs to a tree that starts asleep is never filled: the crates'
  delayed positions read (0, 0, 0) for as long as the crates sleep, up to 0.54 m from where they are; the hook's
  delayed reading (an awake tree) is right. 4.0.0 matches exactly. (A tree which falls asleep by itself shows the
  same fault in small: its delayed reading keeps the value pushed before it slept, 7e-6 m off here.)
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  pairs = [(n, n + "_delayed") for n in ("crate1_pos", "crate2_pos", "hook_pos")]
  i = m.sensor(pairs[0][1]).id
  lag = int(round(m.sensor_delay[i] / m.opt.timestep)) if hasattr(m, "sensor_delay") else 5
  nsample = int(m.sensor_nsample[i]) if hasattr(m, "sensor_nsample") else 10
  hist = {n: [] for p in pairs for n in p}
  nstep = int(round(2.0 / m.opt.timestep))
  nasleep = 0
  for k in range(nstep):
    mujoco.mj_step(m, d)
    for n in hist:
      hist[n].append(_sensor(m, d, n))
    awake = getattr(d, "tree_awake", None)
    nasleep += awake is not None and int(np.sum(np.array(awake) == 0)) > 0
  worst = {}
  for now, late in pairs:
    x, y = np.array(hist[now]), np.array(hist[late])
    k0 = nsample + lag  # the history is full from here on
    worst[now] = np.linalg.norm(y[k0:] - x[k0 - lag:len(x) - lag], axis=1).max()
  crates = max(worst["crate1_pos"], worst["crate2_pos"])
  tag = "BUG" if max(worst.values()) > 1e-9 else "ok"
  return (f"{tag}: {mujoco.__version__} crates (sleep=init) beside a swinging hook, {nstep} steps "
          f"({nasleep} with a sleeping tree): max |delayed framepos(t) - framepos(t - {lag} steps)| = {crates:.4g} m "
          f"on the crates' markers, {worst['hook_pos']:.2g} m on the hook's; ok when both < 1e-9 m")


PROBES = {
    "mujoco-4.0.0-sleep-subtree-angmom": probe_sleep_subtree_angmom,
    "mujoco-4.0.0-sleep-init-delayed-sensor": probe_sleep_init_delayed_sensor,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
