"""Probes for the compiler / integrator / sensor cases.  mujoco + numpy only.

usage: python probe.py <id> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round6")  # the scenes


def _load(path):
  return mujoco.MjModel.from_xml_path(os.path.join(HERE, path))


def _quat2mat(q):
  R = np.zeros(9)
  mujoco.mju_quat2Mat(R, np.asarray(q, dtype=float))
  return R.reshape(3, 3)


# ---------------------------------------------------------------------------
# mujoco-43cde971: split-step (mj_step1 / mj_step2) leaves the accelerometer
# stale.  Reference from first principles: the accelerometer must read the
# site's linear acceleration minus gravity, in the site frame, with the site's
# classical acceleration a = J qacc + Jdot qvel taken from the site Jacobian
# (Jdot qvel by a finite difference of J along qvel) and the qacc that
# mj_step2 computed for the same state.
def acc_step12(model_file='acc_step12_trigger.xml'):
  m = _load(model_file)
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, 'imu')
  sens = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, 'acc')
  adr = m.sensor_adr[sens]
  g = m.opt.gravity.copy()
  scratch = mujoco.MjData(m)
  eps = 1e-6

  def jac(q):
    scratch.qpos[:] = q
    mujoco.mj_kinematics(m, scratch)
    mujoco.mj_comPos(m, scratch)
    jp = np.zeros((3, m.nv))
    mujoco.mj_jacSite(m, scratch, jp, None, sid)
    return jp

  nstep = int(round(1.0 / m.opt.timestep))
  errs, zs = [], []
  for _ in range(nstep):
    mujoco.mj_step1(m, d)
    R = d.site_xmat[sid].reshape(3, 3).copy()   # site frame at this state
    q0 = d.qpos.copy()
    v0 = d.qvel.copy()
    J = jac(q0)
    q1 = q0.copy()
    mujoco.mj_integratePos(m, q1, v0, eps)
    Jdot_v = (jac(q1) - J) @ v0 / eps
    mujoco.mj_step2(m, d)                         # qacc is for the same state
    a = J @ d.qacc + Jdot_v                       # classical site acceleration
    ref = R.T @ (a - g)
    meas = d.sensordata[adr:adr + 3].copy()
    errs.append(np.linalg.norm(meas - ref))
    zs.append((meas[2], ref[2]))
  zs = np.array(zs)
  last = zs[-nstep // 4:]
  return ('acc_step12: split-step 1 s: max|accelerometer - R^T(a-g)| = %.4f m/s^2; '
          'last 0.25 s mean z: sensor %.4f vs reference %.4f m/s^2'
          % (max(errs), last[:, 0].mean(), last[:, 1].mean()))


# ---------------------------------------------------------------------------
# mujoco-bae5175c: <replicate> with both offset and euler places copy i with
# the offset rotated by the orientation of copy i-1.  Replicate semantics: each
# repetition applies the same rigid transform (offset, rotation) to the
# previous one, so the transform from copy i to copy i+1, expressed in copy
# i's frame, must be the same for every i.
def replicate(model_file='replicate_trigger.xml'):
  m = _load(model_file)
  ids = [i for i in range(m.nbody)
         if mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i).startswith('wall')]
  ids.sort(key=lambda i: mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i))
  rel_p = []
  rel_q = []
  for a, b in zip(ids[:-1], ids[1:]):
    Ra = _quat2mat(m.body_quat[a])
    rel_p.append(Ra.T @ (m.body_pos[b] - m.body_pos[a]))
    qa_inv = np.zeros(4)
    mujoco.mju_negQuat(qa_inv, m.body_quat[a])
    q = np.zeros(4)
    mujoco.mju_mulQuat(q, qa_inv, m.body_quat[b])
    rel_q.append(q if q[0] >= 0 else -q)
  rel_p = np.array(rel_p)
  rel_q = np.array(rel_q)
  spread_p = np.max(np.linalg.norm(rel_p - rel_p[0], axis=1))
  spread_q = np.max(np.linalg.norm(rel_q - rel_q[0], axis=1))
  pos = ' '.join('(%.2f,%.2f)' % tuple(m.body_pos[i][:2]) for i in ids)
  return ('replicate: %d copies at %s; spread of copy-to-copy step in local frame: '
          'position %.4f m, quaternion %.4f' % (len(ids), pos, spread_p, spread_q))


# ---------------------------------------------------------------------------
# mujoco-d8b85245: a body nested in a <frame childclass="..."> takes its
# defaults from the enclosing body's childclass instead of the frame's.
# Expectation (XML reference, frame/childclass): every descendant element that
# admits a class uses the nearest enclosing frame/body childclass unless it
# names its own class.  The probe resolves that class from the XML text and
# compares the compiled joint axis/damping and the box geoms' mass (density x
# volume) with the values that class prescribes.
def _class_attr(defaults, cls, tag, attr):
  while cls is not None:
    node = defaults.get(cls)
    if node is not None:
      el = node[0].find(tag)
      if el is not None and attr in el.attrib:
        return el.attrib[attr]
    cls = defaults[cls][1] if cls in defaults else None
  return None


def frame_childclass(model_file='frame_childclass_trigger.xml'):
  import xml.etree.ElementTree as ET  # stdlib: read the model text
  path = os.path.join(HERE, model_file)
  root = ET.parse(path).getroot()
  defaults = {}

  def walk_defaults(node, parent):
    for d in node.findall('default'):
      name = d.attrib.get('class', 'main')
      defaults[name] = (d, parent)
      walk_defaults(d, name)
  top = root.find('default')
  if top is not None:
    defaults['main'] = (top, None)
    walk_defaults(top, 'main')

  expected_jnt = {}   # name -> (axis, damping)
  expected_mass = {}  # body name -> mass from box geoms

  def walk(node, active, body):
    for ch in node:
      if ch.tag in ('body', 'frame'):
        nxt = ch.attrib.get('childclass', active)
        walk(ch, nxt, ch.attrib.get('name') if ch.tag == 'body' else body)
      elif ch.tag == 'joint':
        cls = ch.attrib.get('class', active)
        ax = ch.attrib.get('axis') or _class_attr(defaults, cls, 'joint', 'axis') or '0 0 1'
        dm = ch.attrib.get('damping') or _class_attr(defaults, cls, 'joint', 'damping') or '0'
        expected_jnt[ch.attrib['name']] = (np.array(ax.split(), float), float(dm))
      elif ch.tag == 'geom' and ch.attrib.get('type') == 'box' and body:
        cls = ch.attrib.get('class', active)
        rho = float(ch.attrib.get('density') or _class_attr(defaults, cls, 'geom', 'density') or 1000)
        size = np.array(ch.attrib['size'].split(), float)
        expected_mass[body] = expected_mass.get(body, 0.0) + rho * 8 * np.prod(size)
  walk(root.find('worldbody'), 'main', None)

  m = _load(model_file)
  nbad = 0
  parts = []
  for name, (ax, dm) in expected_jnt.items():
    j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
    ax = ax / np.linalg.norm(ax)
    e_ax = np.linalg.norm(m.jnt_axis[j] - ax)
    e_dm = abs(m.dof_damping[m.jnt_dofadr[j]] - dm)
    parts.append('%s axis %s (class says %s) damping %.3g (class says %.3g)'
                 % (name, np.round(m.jnt_axis[j], 3).tolist(), np.round(ax, 3).tolist(),
                    m.dof_damping[m.jnt_dofadr[j]], dm))
    nbad += int(e_ax > 1e-9) + int(e_dm > 1e-9)
  for body, mass in expected_mass.items():
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, body)
    parts.append('%s mass %.4g kg (class density gives %.4g)' % (body, m.body_mass[b], mass))
    nbad += int(abs(m.body_mass[b] - mass) > 1e-9 * max(mass, 1))
  return 'frame_childclass: %d mismatches with the enclosing childclass; ' % nbad + '; '.join(parts)


CASES = {
    'mujoco-43cde971': acc_step12,
    'mujoco-bae5175c': replicate,
    'mujoco-d8b85245': frame_childclass,
}


if __name__ == '__main__':
  case = sys.argv[1]
  args = sys.argv[2:]
  try:
    print(CASES[case](*args))
  except Exception as e:  # a release that cannot load the model
    print('%s: ERROR %s' % (case, str(e).replace('\n', ' ')[:160]))
