"""Round 12 blind cases, area: kinematics (kinematic trees, tendons, mocap, frames, deformables).

Each probe loads its model (the trigger by default; pass the twin's filename to check the twin) and
returns one line starting "BUG:" or "ok:" with the measured figure and the bound.  The figures are
measured against an independent reference (the authored geometry, a closed form, or another MuJoCo
path), never against numbers copied from another release.
"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import mujoco

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):
  MODELS = os.path.join(_HERE, "..", "models", "round12")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


# ---------------------------------------------------------------------------------------------
# mujoco-478ce0c8: composite cable with unevenly spaced vertices puts every body after the first
# at the length of its OWN edge along the parent's x axis instead of the parent's edge length.
def probe_cable_vertex_spacing(fname="mujoco-478ce0c8_trigger.xml"):
  path = _path(fname)
  # the authored route: composite offset + vertex list, read from the XML itself
  comp = ET.parse(path).getroot().find(".//composite")
  prefix = comp.get("prefix", "")
  vert = np.array(comp.get("vertex").split(), float).reshape(-1, 3)
  offset = np.array(comp.get("offset", "0 0 0").split(), float)
  route = vert + offset

  m = mujoco.MjModel.from_xml_path(path)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)  # qpos0: the cable as compiled, no simulation needed

  # cable bodies in tree order: B_first, B_1, ..., B_last
  bodies = [b for b in range(m.nbody) if m.body(b).name.startswith(prefix + "B_")]
  assert len(bodies) == len(route) - 1, (len(bodies), len(route))

  # 1) every cable body must sit on its authored vertex
  dev = [np.linalg.norm(d.xpos[b] - route[i]) for i, b in enumerate(bodies)]
  # 2) continuity: each capsule must end where the next body starts
  gaps = []
  for parent, child in zip(bodies[:-1], bodies[1:]):
    g = [i for i in range(m.ngeom) if m.geom_bodyid[i] == parent][0]
    axis = d.geom_xmat[g].reshape(3, 3)[:, 2]
    ends = [d.geom_xpos[g] + s * m.geom_size[g][1] * axis for s in (-1, 1)]
    end = max(ends, key=lambda p: np.linalg.norm(p - d.xpos[parent]))
    gaps.append(np.linalg.norm(d.xpos[child] - end))
  worst = int(np.argmax(dev))
  bound = 1e-4  # 0.1 mm
  msg = ("cable body %s sits %.2f mm off its authored vertex (max over %d bodies; "
         "max capsule-to-next-body gap %.2f mm; bound %.2f mm)"
         % (m.body(bodies[worst]).name, 1e3 * dev[worst], len(bodies), 1e3 * max(gaps), 1e3 * bound))
  if max(dev) > bound or max(gaps) > bound:
    return "BUG: " + msg
  return "ok: " + msg


# ---------------------------------------------------------------------------------------------
# mjx-421c487d: mjx.make_data leaves mocap_pos / mocap_quat at zero instead of copying the mocap
# bodies' authored body_pos / body_quat (C mj_makeData does), so every mocap body starts at the
# world origin with a zero quaternion.
def probe_mjx_mocap_make_data(fname="mjx-421c487d_trigger.xml"):
  import jax
  from mujoco import mjx
  m = mujoco.MjModel.from_xml_path(_path(fname))
  mx = mjx.put_model(m)
  dx = mjx.make_data(mx)
  dx = jax.jit(mjx.forward)(mx, dx)
  xpos = np.asarray(dx.xpos)
  xquat = np.asarray(dx.xquat)
  target = m.body("target").id
  hand = m.body("hand").id
  # authored world pose of the target: its parent is the world body, so body_pos / body_quat
  want_pos = m.body_pos[target]
  want_quat = m.body_quat[target] / np.linalg.norm(m.body_quat[target])
  pos_err = np.linalg.norm(xpos[target] - want_pos)
  dot = abs(float(np.dot(xquat[target], want_quat)))
  ang_err = np.degrees(2 * np.arccos(min(1.0, dot))) if np.isfinite(dot) else float("nan")
  # the weld is authored satisfied: hand and target coincide in the authored model
  weld_gap = np.linalg.norm(xpos[hand] - xpos[target])
  bound, abound = 1e-4, 0.1  # 0.1 mm, 0.1 deg (MJX runs in float32)
  msg = ("MJX target body %.3f mm from its authored position, orientation off by %.3f deg "
         "(|xquat|=%.3f); weld hand-target gap %.3f mm at t=0 (bounds %.1f mm, %.1f deg)"
         % (1e3 * pos_err, ang_err, np.linalg.norm(xquat[target]), 1e3 * weld_gap, 1e3 * bound,
            abound))
  if not (pos_err <= bound and weld_gap <= bound and ang_err <= abound):
    return "BUG: " + msg
  return "ok: " + msg


# ---------------------------------------------------------------------------------------------
# mujoco-warp-1229: MuJoCo Warp's _flex_edges read three qvel / cdof entries at body_dofadr of
# every edge vertex's body, so a vertex pinned to a jointless body (body_dofadr = -1) gives a wrong
# flexedge_velocity and a wrong flexedge_J row (written into the next edge's row as well).
def _flex_edge_fd(m, d, h=1e-6):
  """Finite-difference edge Jacobian and edge velocity from C MuJoCo edge lengths."""
  def lengths(qvel_dir, eps):
    q = d.qpos.copy()
    mujoco.mj_integratePos(m, q, qvel_dir, eps)
    dd = mujoco.MjData(m)
    dd.qpos[:] = q
    mujoco.mj_kinematics(m, dd)
    mujoco.mj_comPos(m, dd)
    mujoco.mj_flex(m, dd)
    return dd.flexedge_length.copy()
  jac = np.zeros((m.nflexedge, m.nv))
  for j in range(m.nv):
    e = np.zeros(m.nv)
    e[j] = 1.0
    jac[:, j] = (lengths(e, h) - lengths(e, -h)) / (2 * h)
  vel = (lengths(d.qvel, h) - lengths(d.qvel, -h)) / (2 * h)
  return jac, vel


def probe_warp_flex_pinned_edge(fname="mujoco-warp-1229_trigger.xml"):
  import warp as wp
  import mujoco_warp as mjw
  wp.set_device("cpu")
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  jac_fd, vel_fd = _flex_edge_fd(m, d)

  mw = mjw.put_model(m)
  dw = mjw.put_data(m, d)
  mjw.kinematics(mw, dw)
  mjw.com_pos(mw, dw)
  mjw.flex(mw, dw)
  vel_w = dw.flexedge_velocity.numpy()[0]
  jw = dw.flexedge_J.numpy().reshape(-1)
  # scatter warp's sparse rows (layout of mjModel.flexedge_J_rowadr / colind) into a dense matrix
  jac_w = np.zeros((m.nflexedge, m.nv))
  for e in range(m.nflexedge):
    adr, nnz = m.flexedge_J_rowadr[e], m.flexedge_J_rownnz[e]
    jac_w[e, m.flexedge_J_colind[adr:adr + nnz]] = jw[adr:adr + nnz]
  verr = np.abs(vel_w - vel_fd)
  jerr = np.abs(jac_w - jac_fd).max(axis=1)
  e_v, e_j = int(np.argmax(verr)), int(np.argmax(jerr))
  bound = 1e-4
  msg = ("MuJoCo Warp flexedge_velocity off the finite difference of edge length by %.4f m/s "
         "(edge %d: %.4f vs %.4f); flexedge_J row %d off by %.3f (bound %.0e)"
         % (verr[e_v], e_v, vel_w[e_v], vel_fd[e_v], e_j, jerr[e_j], bound))
  if verr.max() > bound or jerr.max() > bound:
    return "BUG: " + msg
  return "ok: " + msg


# ---------------------------------------------------------------------------------------------
# mujoco-warp-1269: MuJoCo Warp's _flex_elasticity read the vertex positions of every flex at the
# flex-local vertex ids without the flex's vertex offset, so the elastic forces of any flex but the
# first are built from the first flex's vertex positions.
def probe_warp_multiflex_elasticity(fname="mujoco-warp-1269_trigger.xml"):
  import warp as wp
  import mujoco_warp as mjw
  wp.set_device("cpu")
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  mw = mjw.put_model(m)
  dw = mjw.put_data(m, d)
  mjw.kinematics(mw, dw)
  mjw.com_pos(mw, dw)
  mjw.flex(mw, dw)
  mjw.com_vel(mw, dw)
  mjw.passive(mw, dw)
  fw = dw.qfrc_spring.numpy()[0]
  f = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_FLEX, "sponge_sheared")
  # the vertex bodies carry 3 world-aligned slide dofs: qfrc_spring is the force on the vertex
  force = np.zeros(3)
  torque = np.zeros(3)
  vmax = 0.0
  for v in range(m.flex_vertadr[f], m.flex_vertadr[f] + m.flex_vertnum[f]):
    a = m.body_dofadr[m.flex_vertbodyid[v]]
    force += fw[a:a + 3]
    torque += np.cross(d.flexvert_xpos[v] - d.flexvert_xpos[m.flex_vertadr[f]], fw[a:a + 3])
    vmax = max(vmax, np.abs(fw[a:a + 3]).max())
  mismatch = np.abs(fw - d.qfrc_spring).max()  # C MuJoCo on the same state
  bound_t, bound_f = 1e-3, 1e-3
  msg = ("MuJoCo Warp elastic forces of flex %d (sheared sponge): net torque %.4f N m, net force "
         "%.2e N (largest vertex force %.3f N); max |warp - C| qfrc_spring %.4f N "
         "(bounds %.0e N m, %.0e N)"
         % (f, np.linalg.norm(torque), np.linalg.norm(force), vmax, mismatch, bound_t, bound_f))
  if np.linalg.norm(torque) > bound_t or np.linalg.norm(force) > bound_f or mismatch > bound_f:
    return "BUG: " + msg
  return "ok: " + msg


PROBES = {
    "mujoco-478ce0c8": probe_cable_vertex_spacing,
    "mjx-421c487d": probe_mjx_mocap_make_data,
    "mujoco-warp-1229": probe_warp_flex_pinned_edge,
    "mujoco-warp-1269": probe_warp_multiflex_elasticity,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
