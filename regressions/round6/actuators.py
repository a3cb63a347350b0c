"""Probes for actuator/transmission bugs. Usage: python probe.py <id> [model.xml]
Only mujoco and numpy (plus the standard library) are used."""
import os, sys
import xml.etree.ElementTree as ET
import numpy as np
import mujoco

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round6")  # the scenes


def _path(cid, fname):
  return os.path.join(HERE, fname or (cid + '_trigger.xml'))


def _load(cid, fname):
  p = _path(cid, fname)
  return p, mujoco.MjModel.from_xml_path(p)


def _reset(m, d):
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  else:
    mujoco.mj_resetData(m, d)


def _full_qderiv(m, d):
  """Dense copy of d.qDeriv (sparse, D-structure) after mj_step."""
  D = np.zeros((m.nv, m.nv))
  if hasattr(m, 'D_rownnz'):
    rownnz, rowadr, colind = m.D_rownnz, m.D_rowadr, m.D_colind
  else:
    rownnz, rowadr, colind = d.D_rownnz, d.D_rowadr, d.D_colind
  for i in range(m.nv):
    for k in range(rownnz[i]):
      D[i, colind[rowadr[i] + k]] = d.qDeriv[rowadr[i] + k]
  return D


def _tendon_jac(m, d, t):
  """Dense row t of the tendon Jacobian, for dense or sparse ten_J layouts."""
  tj = np.asarray(d.ten_J).ravel()
  if tj.size == m.ntendon * m.nv:
    return tj.reshape(m.ntendon, m.nv)[t].copy()
  src = m if hasattr(m, 'ten_J_rownnz') else d
  J = np.zeros(m.nv)
  adr, nnz = src.ten_J_rowadr[t], src.ten_J_rownnz[t]
  J[src.ten_J_colind[adr:adr + nnz]] = tj[adr:adr + nnz]
  return J


def _fd_dforce_dqvel(m, d, eps=1e-6):
  """Finite difference of qfrc_actuator + qfrc_passive w.r.t. qvel at the current state."""
  d2 = mujoco.MjData(m)
  out = np.zeros((m.nv, m.nv))
  for j in range(m.nv):
    cols = []
    for s in (+1, -1):
      mujoco.mj_resetData(m, d2)
      d2.qpos[:] = d.qpos; d2.qvel[:] = d.qvel; d2.act[:] = d.act; d2.ctrl[:] = d.ctrl
      d2.time = d.time
      d2.qvel[j] += s * eps
      mujoco.mj_forward(m, d2)
      cols.append(d2.qfrc_actuator + d2.qfrc_passive)
    out[:, j] = (cols[0] - cols[1]) / (2 * eps)
  return out


# ---------------------------------------------------------------------------
# 1. cylinder bias: the 2nd and 3rd bias terms (spring, damping) of <cylinder>
def cylinder_bias(fname=None):
  cid = 'mujoco-3.11.0-cylinder-bias'
  p, m = _load(cid, fname)
  # intended affine bias from the XML (cylinder/bias or general/biasprm)
  el = ET.parse(p).getroot().find('actuator')[0]
  b = np.zeros(3)
  txt = (el.get('bias') or el.get('biasprm') or '0').split()
  b[:len(txt)] = [float(x) for x in txt[:3]]
  d = mujoco.MjData(m)
  _reset(m, d)
  a = 0
  jid = m.actuator_trnid[a, 0]
  qadr = m.jnt_qposadr[jid]
  body = m.jnt_bodyid[jid]
  mass = m.body_subtreemass[body]
  g = -m.opt.gravity[2]
  err = 0.0
  for _ in range(int(2.0 / m.opt.timestep)):
    mujoco.mj_step(m, d)
    L, V = d.actuator_length[a], d.actuator_velocity[a]
    gain = m.actuator_gainprm[a, 0]
    act = d.act[m.actuator_actadr[a]] if m.actuator_actadr[a] >= 0 else d.ctrl[a]
    want = gain * act + b[0] + b[1] * L + b[2] * V
    err = max(err, abs(d.actuator_force[a] - want))
  zeq = -(mass * g - b[0]) / (-b[1]) if b[1] < 0 else float('nan')
  return ('t=2s: platform offset %.2f mm (spring-return equilibrium -(m g)/k = %.2f mm); '
          'max |actuator_force - (gain*act + b0 + b1*L + b2*V)| = %.3g N; compiled biasprm[:3]=%s'
          % (1e3 * d.qpos[qadr], 1e3 * zeq, err, np.round(m.actuator_biasprm[a, :3], 3).tolist()))


# ---------------------------------------------------------------------------
# 2. intvelocity + inheritrange compiles without its position feedback (bias)
def intvelocity_inheritrange(fname=None):
  cid = 'mujoco-3.15.0-intvelocity-inheritrange'
  p, m = _load(cid, fname)
  d = mujoco.MjData(m)
  _reset(m, d)
  a = 0
  kp = m.actuator_gainprm[a, 0]
  kv = -m.actuator_biasprm[a, 2]
  qadr = m.jnt_qposadr[m.actuator_trnid[a, 0]]
  err = 0.0
  for _ in range(int(2.0 / m.opt.timestep)):
    mujoco.mj_step(m, d)
    act = d.act[m.actuator_actadr[a]]
    want = kp * (act - d.actuator_length[a]) - kv * d.actuator_velocity[a]
    err = max(err, abs(d.actuator_force[a] - want))
  return ('t=2s, ctrl=0: shoulder angle %.2f deg (servo setpoint act=%.3f rad); '
          'max |actuator_force - (kp*(act-q) - kv*qdot)| = %.3g Nm; biastype=%d actlimited=%d actrange=%s'
          % (np.degrees(d.qpos[qadr]), d.act[m.actuator_actadr[a]], err, m.actuator_biastype[a],
             m.actuator_actlimited[a], np.round(m.actuator_actrange[a], 3).tolist()))


# ---------------------------------------------------------------------------
# 3. implicit integrators: velocity derivative of an affine-gain (damper) actuator
#    taken with the raw ctrl instead of the ctrl clamped to ctrlrange
def damper_ctrlclamp_deriv(fname=None):
  cid = 'mujoco-3.13.0-damper-ctrlclamp-deriv'
  p, m = _load(cid, fname)
  d = mujoco.MjData(m)
  _reset(m, d)
  mujoco.mj_forward(m, d)
  fd = _fd_dforce_dqvel(m, d)          # d(qfrc_actuator + qfrc_passive)/d qvel, first principles
  mujoco.mj_step(m, d)
  qd = _full_qderiv(m, d)              # what the implicit integrator used in that step
  def energy():
    kin = np.zeros(m.nv); mujoco.mj_mulM(m, d, kin, d.qvel)
    pot = -np.sum(m.body_mass[:, None] * d.xipos * m.opt.gravity[None, :])
    return pot + 0.5 * d.qvel @ kin
  _reset(m, d)
  mujoco.mj_forward(m, d)
  e0 = energy()
  e = [energy()]
  for _ in range(int(2.0 / m.opt.timestep)):
    mujoco.mj_step(m, d)
    e.append(energy())
  e = np.array(e) - e0
  emax = e.max()
  # reference: the swing's kinetic energy at the bottom, from the release height
  d2 = mujoco.MjData(m); _reset(m, d2); d2.qpos[:] = 0; mujoco.mj_forward(m, d2)
  pot_bottom = -np.sum(m.body_mass[:, None] * d2.xipos * m.opt.gravity[None, :])
  drop = e0 - pot_bottom - 0.0
  return ('qDeriv[0,0] used by %s = %.4g vs finite-difference d(force)/d(qvel) = %.4g N m s; '
          'undamped swing (damper force 0): max energy gain over 2 s %+.4f J = %+.2f %% of the swing energy %.3f J'
          % ({0: 'Euler', 1: 'RK4', 2: 'implicit', 3: 'implicitfast'}.get(int(m.opt.integrator), '?'),
             qd[0, 0], fd[0, 0], emax, 100 * emax / drop, drop))


# ---------------------------------------------------------------------------
# 4. implicit integrators keep an actuator's kv while the joint's actuatorfrcrange
#    clamps the total actuator torque (the force no longer depends on the velocity)
def actuatorfrcrange_deriv(fname=None):
  cid = 'mujoco-4.0.0-actuatorfrcrange-deriv'
  p, m = _load(cid, fname)
  d = mujoco.MjData(m)
  _reset(m, d)
  mujoco.mj_forward(m, d)
  fd = _fd_dforce_dqvel(m, d)
  mujoco.mj_step(m, d)
  qd = _full_qderiv(m, d)
  _reset(m, d)
  T = 0.3
  n = int(round(T / m.opt.timestep))
  h = m.opt.timestep
  dv_act = dv_ref = 0.0
  M = np.zeros((m.nv, m.nv))
  for _ in range(n):
    mujoco.mj_forward(m, d)
    try:
      mujoco.mj_fullM(m, d, M)
    except TypeError:
      mujoco.mj_fullM(m, M, d.qM)
    f = d.qfrc_smooth + d.qfrc_constraint
    D = _fd_dforce_dqvel(m, d)
    # implicit velocity update with the true force derivative: (M - h D) dv = h f
    dv_ref += np.linalg.solve(M - h * D, h * f)[0]
    v0 = d.qvel[0]
    mujoco.mj_step(m, d)
    dv_act += d.qvel[0] - v0
  return ('qDeriv[0,0] = %.4g vs finite-difference d(qfrc_actuator)/d(qvel) = %.4g N m s; '
          'spin-up over %.1f s: omega gained %.4f rad/s vs %.4f rad/s from (M - h dF/dv) dv = h F (%+.1f %%); '
          'qfrc_actuator %.3f N m'
          % (qd[0, 0], fd[0, 0], T, dv_act, dv_ref, 100 * (dv_act / dv_ref - 1), d.qfrc_actuator[0]))

# ---------------------------------------------------------------------------
# 5. tendon actuatorfrcrange without actuatorfrclimited: the clamp is silently off
def tendon_actfrclimited_auto(fname=None):
  cid = 'mujoco-3.14.0-tendon-actfrclimited-auto'
  p, m = _load(cid, fname)
  # the rated range as written in the XML
  el = [e for e in ET.parse(p).getroot().iter() if e.get('actuatorfrcrange') and e.tag in ('fixed', 'spatial')][0]
  lo, hi = [float(x) for x in el.get('actuatorfrcrange').split()]
  t = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_TENDON, el.get('name'))
  d = mujoco.MjData(m)
  _reset(m, d)
  fmax = 0.0
  for _ in range(int(1.0 / m.opt.timestep)):
    mujoco.mj_step(m, d)
    J = _tendon_jac(m, d, t)
    # tendon force delivered by the actuators: qfrc_actuator = J^T f
    f = float(J @ d.qfrc_actuator / (J @ J))
    fmax = max(fmax, abs(f))
  return ('t<=1s: max |cable tension delivered by actuators| = %.3f N vs rated actuatorfrcrange [%g, %g] N '
          '(actuator_force %.3f); mcp, pip = %.1f, %.1f deg'
          % (fmax, lo, hi, d.actuator_force[0], np.degrees(d.qpos[0]), np.degrees(d.qpos[1])))


CASES = {
  'mujoco-3.14.0-tendon-actfrclimited-auto': tendon_actfrclimited_auto,
  'mujoco-4.0.0-actuatorfrcrange-deriv': actuatorfrcrange_deriv,
  'mujoco-3.13.0-damper-ctrlclamp-deriv': damper_ctrlclamp_deriv,
  'mujoco-3.11.0-cylinder-bias': cylinder_bias,
  'mujoco-3.15.0-intvelocity-inheritrange': intvelocity_inheritrange,
}

if __name__ == '__main__':
  cid = sys.argv[1]
  fname = sys.argv[2] if len(sys.argv) > 2 else None
  try:
    print(CASES[cid](fname))
  except Exception as e:  # e.g. an attribute this release does not know
    print('ERROR (%s): %s' % (mujoco.__version__, ' '.join(str(e).split())[:200]))
