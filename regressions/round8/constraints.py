"""Round 8 probes, area: constraints (equality, limits, friction loss, cones, solref/solimp, solvers, islands,
noslip, flex/deformables).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python constraints.py <ID> [model.xml]
"""
import os
import sys
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round8")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _vertex_bodies(m, f=0):
  """Body ids of flex f's vertices, in vertex order."""
  adr, num = m.flex_vertadr[f], m.flex_vertnum[f]
  return [int(b) for b in m.flex_vertbodyid[adr:adr + num]]


def _place_vertices(m, d, bodies, target):
  """Set the slide joints of each vertex body so that the body sits at target (world)."""
  mujoco.mj_resetData(m, d)
  mujoco.mj_kinematics(m, d)
  for b, x in zip(bodies, target):
    j0, nj = m.body_jntadr[b], m.body_jntnum[b]
    axes = np.array([d.xaxis[j0 + k] for k in range(nj)])  # world axes of the slides at qpos0
    dq = np.linalg.lstsq(axes.T, x - d.xpos[b], rcond=None)[0]
    for k in range(nj):
      d.qpos[m.jnt_qposadr[j0 + k]] = dq[k]


def probe_7ba52b53(fname="mujoco-7ba52b53_trigger.xml"):
  """3D flex elasticity must be Saint Venant-Kirchhoff with the documented Lame constants.

  The foam's vertices are placed on a uniform dilation x = c + s (X - c) of their rest positions (s = 1.01). For SVK,
  E = e I with e = (s^2 - 1)/2 and the stored energy is U = V0 (9 lambda/2 + 3 mu) e^2, so the virtual work of the
  elastic forces along the dilation is  sum_i f_i . (X_i - c) = -dU/ds = -V0 (9 lambda + 6 mu) e s.
  lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)) from the model's young and poisson. The bug used
  2 lambda (same figure when nu = 0).
  """
  path = _path(fname)
  m = mujoco.MjModel.from_xml_path(path)
  el = ET.parse(path).getroot().find(".//flexcomp/elasticity")
  young = float(el.get("young"))
  nu = float(el.get("poisson", "0"))
  d = mujoco.MjData(m)
  bodies = _vertex_bodies(m)
  mujoco.mj_kinematics(m, d)
  X = np.array([d.xpos[b].copy() for b in bodies])
  c = X.mean(axis=0)
  # rest volume from the flex's tetrahedra
  elem = m.flex_elem[m.flex_elemdataadr[0]:m.flex_elemdataadr[0] + 4 * m.flex_elemnum[0]].reshape(-1, 4)
  V0 = sum(abs(np.linalg.det(np.array([X[t[1]] - X[t[0]], X[t[2]] - X[t[0]], X[t[3]] - X[t[0]]]))) / 6
           for t in elem)
  s = 1.01
  _place_vertices(m, d, bodies, c + s * (X - c))
  mujoco.mj_forward(m, d)
  work = 0.0
  for b, x in zip(bodies, X):
    j0, nj = m.body_jntadr[b], m.body_jntnum[b]
    axes = np.array([d.xaxis[j0 + k] for k in range(nj)])
    q = np.array([d.qfrc_spring[m.body_dofadr[b] + k] for k in range(nj)])
    f = np.linalg.lstsq(axes, q, rcond=None)[0]  # world force on the vertex: q_k = axis_k . f
    work += f @ (x - c)
  lam = young * nu / ((1 + nu) * (1 - 2 * nu))
  mu = young / (2 * (1 + nu))
  e = (s * s - 1) / 2
  expect = -V0 * (9 * lam + 6 * mu) * e * s
  return (f"1% dilation of the foam (E={young:g}, nu={nu:g}, V0={V0 * 1e6:.0f} cm^3): elastic virtual work "
          f"{work:.4f} J per unit s, SVK expects {expect:.4f} (ratio {work / expect:.3f}; 2*lambda would give "
          f"{(18 * lam + 6 * mu) / (9 * lam + 6 * mu):.3f})")


def probe_9fb4eca4(fname="mujoco-9fb4eca4_trigger.xml"):
  """A flex at rest on the floor: the floor's normal contact forces must carry its whole weight.

  The contact force is mapped to the interpolation nodes with the basis weights of the contact point; the weights sum
  to one, so at rest (no other support) sum_i f_n,i = m g. Dropping the nodes with negative quadratic weights leaves
  weights that sum to more than one: the solver then needs less contact force to hold the block up.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  while d.time < 3.0:
    mujoco.mj_step(m, d)
  f6 = np.zeros(6)
  fn = 0.0
  for i in range(d.ncon):
    mujoco.mj_contactForce(m, d, i, f6)
    fn += f6[0]
  weight = m.body_subtreemass[0] * np.linalg.norm(m.opt.gravity)
  return (f"block at rest after 3 s (max |qvel| {np.abs(d.qvel).max():.1e}): {d.ncon} floor contacts carry "
          f"{fn:.4f} N of normal force, the weight is {weight:.4f} N (ratio {fn / weight:.4f}, expect 1)")


def _slide_bodies(m):
  """Bodies moved by exactly three slide joints (flex vertices, or interpolation nodes)."""
  return [b for b in range(1, m.nbody) if m.body_jntnum[b] == 3 and
          all(m.jnt_type[m.body_jntadr[b] + k] == mujoco.mjtJoint.mjJNT_SLIDE for k in range(3))]


def _dilation_work(m, d, s):
  """Place the slide bodies on x = c + s (X - c); return sum_i f_i . (X_i - c) of the elastic forces (qfrc_spring)."""
  bodies = _slide_bodies(m)
  mujoco.mj_resetData(m, d)
  mujoco.mj_kinematics(m, d)
  X = np.array([d.xpos[b].copy() for b in bodies])
  c = X.mean(axis=0)
  _place_vertices(m, d, bodies, c + s * (X - c))
  mujoco.mj_forward(m, d)
  work = 0.0
  for b, x in zip(bodies, X):
    j0 = m.body_jntadr[b]
    axes = np.array([d.xaxis[j0 + k] for k in range(3)])
    q = np.array([d.qfrc_spring[m.body_dofadr[b] + k] for k in range(3)])
    work += np.linalg.solve(axes, q) @ (x - c)
  return work


def probe_08bf94b1(fname="mujoco-08bf94b1_trigger.xml"):
  """A membrane with elastic2d="stretch" must resist stretching.

  All the tray's dofs are placed on a uniform dilation (s = 1.01) of the rest shape, which stretches every face of
  the open box isotropically in its plane. A plane-stress Saint Venant-Kirchhoff membrane of area A0 and thickness t
  then does the virtual work sum_i f_i . (X_i - c) = -A0 t (4 lambda* + 4 mu) e s, e = (s^2 - 1)/2,
  lambda* = E nu / (1 - nu^2), mu = E / (2 (1 + nu)). The bug: an interpolated (shell-mode) flex applies no stretch
  force at all, so the work is exactly 0 (the figure's factor of order one is the model's own constants).
  """
  path = _path(fname)
  m = mujoco.MjModel.from_xml_path(path)
  el = ET.parse(path).getroot().find(".//flexcomp/elasticity")
  young, nu, t = float(el.get("young")), float(el.get("poisson", "0")), float(el.get("thickness"))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  V = d.flexvert_xpos.copy()
  tri = m.flex_elem[:3 * m.flex_elemnum[0]].reshape(-1, 3)
  A0 = sum(np.linalg.norm(np.cross(V[k[1]] - V[k[0]], V[k[2]] - V[k[0]])) / 2 for k in tri)
  s = 1.01
  work = _dilation_work(m, d, s)
  lam = young * nu / (1 - nu * nu)
  mu = young / (2 * (1 + nu))
  e = (s * s - 1) / 2
  expect = -A0 * t * (4 * lam + 4 * mu) * e * s
  verdict = "NO stretch resistance" if abs(work) < 1e-3 * abs(expect) else "membrane resists stretching"
  return (f"1% in-plane stretch of the tray (area {A0 * 1e4:.0f} cm^2, t={t * 1000:g} mm): membrane virtual work "
          f"{work:.4f} J per unit s, plane-stress SVK estimate {expect:.4f} (ratio {work / expect:.3f}): {verdict}")


CASES = {
    "mujoco-7ba52b53": probe_7ba52b53,
    "mujoco-9fb4eca4": probe_9fb4eca4,
    "mujoco-08bf94b1": probe_08bf94b1,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
