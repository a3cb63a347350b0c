"""Round 10 probes, area: flex (deformables, flexcomp, elasticity, flex collisions).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
BUG: or ok: and gives the figure and what it should be.
Run: python flex.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round10")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _full_m(m, d):
  M = np.zeros((m.nv, m.nv))
  try:
    mujoco.mj_fullM(m, M, d.qM)
  except (AttributeError, TypeError):
    mujoco.mj_fullM(m, d, M)
  return M


# --------------------------------------------------------------------------------------------------------------------
# mujoco-55b43414: implicit stretch metric of a flex in a turned parent body built in the wrong basis
# --------------------------------------------------------------------------------------------------------------------

def probe_55b43414(fname="mujoco-55b43414_trigger.xml"):
  """implicitfast with flex stretch elasticity: qacc must solve (M - h D - h^2 K) qacc = f + h K qvel.

  K = d qfrc_passive / d qpos and D = d qfrc_passive / d qvel are taken by central finite differences of the
  passive force itself (which MuJoCo maps correctly into the parent frame), f = qfrc_smooth + qfrc_constraint.
  Checked at the keyframe (one corner pulled out) and 20 steps later.
  """
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  h = m.opt.timestep
  worst = 0.0
  figs = []
  for nstep in (0, 20):
    for _ in range(nstep):
      mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    nv = m.nv
    K = np.zeros((nv, nv))
    D = np.zeros((nv, nv))
    eps = 1e-7
    for j in range(nv):
      dp = mujoco.MjData(m); dp.qpos[:] = d.qpos; dp.qvel[:] = d.qvel; dp.qpos[j] += eps; mujoco.mj_forward(m, dp)
      dm = mujoco.MjData(m); dm.qpos[:] = d.qpos; dm.qvel[:] = d.qvel; dm.qpos[j] -= eps; mujoco.mj_forward(m, dm)
      K[:, j] = (dp.qfrc_passive - dm.qfrc_passive) / (2 * eps)
      dp = mujoco.MjData(m); dp.qpos[:] = d.qpos; dp.qvel[:] = d.qvel; dp.qvel[j] += eps; mujoco.mj_forward(m, dp)
      dm = mujoco.MjData(m); dm.qpos[:] = d.qpos; dm.qvel[:] = d.qvel; dm.qvel[j] -= eps; mujoco.mj_forward(m, dm)
      D[:, j] = (dp.qfrc_passive - dm.qfrc_passive) / (2 * eps)
    A = _full_m(m, d) - h * D - h * h * K
    ref = np.linalg.solve(A, d.qfrc_smooth + d.qfrc_constraint + h * K @ d.qvel)
    err = np.linalg.norm(d.qacc - ref) / np.linalg.norm(ref)
    worst = max(worst, err)
    figs.append(f"t={d.time:.3f} s: |qacc - qacc_ref|/|qacc_ref| = {100 * err:.2f} %")
  verdict = "BUG" if worst > 0.01 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} stretch-only membrane released from a pulled corner, implicitfast, h = {h:g} s: qacc against the "
          f"implicit step (M - h D - h^2 K)^-1 (f + h K v) with K, D finite differences of qfrc_passive; " + "; ".join(figs) +
          f"; ok when under 1 %")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-4.0.0-flex-contact-weights: a flex element contact is spread on the element's vertices by inverse distances
# --------------------------------------------------------------------------------------------------------------------

def _dense_efc_j(m, d):
  J = np.zeros((d.nefc, m.nv))
  if d.efc_J.size == d.nefc * m.nv and not mujoco.mj_isSparse(m):
    J[:] = d.efc_J.reshape(d.nefc, m.nv)
  else:
    for r in range(d.nefc):
      a, nnz = d.efc_J_rowadr[r], d.efc_J_rownnz[r]
      J[r, d.efc_J_colind[a:a + nnz]] = d.efc_J[a:a + nnz]
  return J


def probe_flex_contact_weights(fname="mujoco-4.0.0-flex-contact-weights_trigger.xml"):
  """Where the contact of a ball with a cloth element acts on the element.

  The normal row of the contact Jacobian holds, in the flex vertices' slide dofs, the weights w_i with which the
  element's vertices carry the contact. Statics (no spurious moment on the element) and kinematics (the Jacobian
  measures the velocity of the material point in contact) both need sum_i w_i x_i = the contact point on the
  element, i.e. barycentric weights. The point of application sum w_i x_i / sum w_i is compared with the contact
  point projected onto the element's plane.
  """
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  J = _dense_efc_j(m, d)
  worst = None
  for i in range(d.ncon):
    c = d.contact[i]
    side = 0 if c.flex[0] >= 0 else 1 if c.flex[1] >= 0 else -1
    if side < 0 or c.elem[side] < 0:
      continue
    f = c.flex[side]
    va = m.flex_vertadr[f]
    dim = m.flex_dim[f]
    e = c.elem[side]
    ev = m.flex_elem[m.flex_elemdataadr[f] + (dim + 1) * e:m.flex_elemdataadr[f] + (dim + 1) * (e + 1)]
    n = c.frame[:3]
    row = J[c.efc_address]
    x, w = [], []
    for v in ev:
      b = m.flex_vertbodyid[va + v]
      x.append(d.flexvert_xpos[va + v].copy())
      w.append(abs(row[m.body_dofadr[b]:m.body_dofadr[b] + 3] @ n) if m.body_dofnum[b] == 3 else np.nan)
    x, w = np.array(x), np.array(w)
    if np.isnan(w).any():
      return f"ok: {mujoco.mj_versionString()} (cannot judge: the contact element has a pinned vertex)"
    papp = (w[:, None] * x).sum(0) / w.sum()
    nrm = np.cross(x[1] - x[0], x[2] - x[0])
    nrm /= np.linalg.norm(nrm)
    p = c.pos - np.dot(c.pos - x[0], nrm) * nrm
    err = np.linalg.norm(papp - p)
    if worst is None or err > worst[0]:
      worst = (err, papp, p, w / w.sum(), ev)
  if worst is None:
    return f"BUG: {mujoco.mj_versionString()} no ball-cloth element contact found"
  err, papp, p, wn, ev = worst
  g = np.linalg.norm(m.opt.gravity)
  mball = sum(m.body_mass[b] for b in range(1, m.nbody) if m.body_jntnum[b] and m.jnt_type[m.body_jntadr[b]] == 0)
  verdict = "BUG" if err > 1e-3 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} ball on cloth element {[int(v) for v in ev]}: the contact acts on the element at "
          f"({1000 * papp[0]:.1f}, {1000 * papp[1]:.1f}) mm (vertex weights {np.round(wn, 3).tolist()}), the contact point "
          f"is at ({1000 * p[0]:.1f}, {1000 * p[1]:.1f}) mm: off by {1000 * err:.2f} mm (spurious moment "
          f"{1000 * mball * g * err:.2f} mN m for the ball's weight); ok when under 1 mm")


# --------------------------------------------------------------------------------------------------------------------
# mujoco-3.17.0-interp-first-cell-empty: an interpolated solid whose first grid cell is empty has no elasticity
# --------------------------------------------------------------------------------------------------------------------

def probe_interp_first_cell_empty(fname="mujoco-3.17.0-interp-first-cell-empty_trigger.xml"):
  """Uniform 1 % dilation of a trilinear jelly: the generalized elastic force along the dilation must be
  dU/d(eps) = 9 K eps V (linear isotropic solid, K = E / (3 (1 - 2 nu)), V the mesh's volume).

  Each node is moved by eps (x_node - c), c the nodes' centroid (a rigid translation is free of energy), and
  -qfrc_passive . dq / eps is compared with 9 K eps V. Releases before 4.0.0 count every non-empty cell as a full
  cube (changelog 4.0.0), which overstates V by up to the cells' overhang: ok within 25 %.
  """
  import xml.etree.ElementTree as ET
  path = _path(fname)
  el = ET.parse(path).getroot().find(".//flexcomp/elasticity")
  E, nu = float(el.get("young")), float(el.get("poisson", "0"))
  K = E / (3 * (1 - 2 * nu))
  m = mujoco.MjModel.from_xml_path(path)
  vert = m.mesh_vert[m.mesh_vertadr[0]:m.mesh_vertadr[0] + m.mesh_vertnum[0]]
  face = m.mesh_face[m.mesh_faceadr[0]:m.mesh_faceadr[0] + m.mesh_facenum[0]]
  V = abs(sum(np.dot(vert[a], np.cross(vert[b], vert[c])) for a, b, c in face) / 6)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  f = 0
  na, nn = m.flex_nodeadr[f], m.flex_nodenum[f]
  bodies = [m.flex_nodebodyid[na + k] for k in range(nn)]
  c = np.mean([d.xpos[b] for b in bodies], axis=0)
  eps = 0.01
  dq = np.zeros(m.nv)
  for b in bodies:
    if m.body_dofnum[b] == 3:
      dq[m.body_dofadr[b]:m.body_dofadr[b] + 3] = eps * (d.xpos[b] - c)
  q = np.zeros(m.nq)
  mujoco.mj_integratePos(m, q, dq, 1.0)
  d.qpos[:] = q
  mujoco.mj_forward(m, d)
  got = -(d.qfrc_passive @ dq) / eps
  want = 9 * K * eps * V
  err = abs(got - want) / want
  verdict = "BUG" if err > 0.25 else "ok"
  return (f"{verdict}: {mujoco.mj_versionString()} L-shaped trilinear jelly ({nn} nodes, V = {1e6 * V:.0f} cm^3) dilated 1 %: elastic force along the dilation "
          f"-f.dq/eps = {got:.4f} N m, first principles 9 K eps V = {want:.4f} N m (K = {K:.4g} Pa); error {100 * err:.1f} %; "
          f"ok within 25 %")


CASES = {
    "mujoco-55b43414": probe_55b43414,
    "mujoco-4.0.0-flex-contact-weights": probe_flex_contact_weights,
    "mujoco-3.17.0-interp-first-cell-empty": probe_interp_first_cell_empty,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
