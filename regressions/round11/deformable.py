"""Round 11 probes, area: deformable (flexes and flexcomps: 1D/2D/3D, edge stiffness and damping, elasticity, bending,
pinned vertices, interpolated flexes, flex contacts and self-collision, flex radius and margin; composites, skins,
cables, and the first-party plugins).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figure.
Run: python deformable.py <ID> [model.xml]
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


def probe_flex_contact_cap(fname="mujoco-871e3725_trigger.xml"):
  """Every cloth vertex resting on the floor must get its own contact and be held up by it.

  A square cloth (2D flexcomp grid, vertex radius 5 mm) is dropped 2 cm onto a floor plane and left to settle for
  1.5 s. From geometry, each vertex whose sphere reaches the plane (z < radius) is a vertex-plane contact, and with the
  contact's solref (5 ms) the steady sink of such a light vertex is a fraction of a millimetre. From 3.6.0 to 3.15.0
  every flex-geom pair was cut to mjMAXCONPAIR (50) contacts (farthest-point sampling): a cloth with more than 50
  vertices on the floor keeps only 50 contacts, the rest get none and sink through the floor between them.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  floor = m.geom("floor").id
  radius = float(m.flex_radius[0])
  nstep = int(round(1.5 / m.opt.timestep))
  worst = 0.0
  for i in range(nstep):
    mujoco.mj_step(m, d)
    if i >= nstep // 2:
      worst = max(worst, radius - float(d.flexvert_xpos[:, 2].min()))
  mujoco.mj_forward(m, d)
  z = d.flexvert_xpos[:, 2]
  touching = int(np.sum(z - radius < m.geom_margin[floor] + 1e-9))
  ncon = sum(1 for c in d.contact[:d.ncon] if floor in (int(c.geom[0]), int(c.geom[1])))
  bad = worst > 1e-3 or ncon < touching
  tag = "BUG" if bad else "ok"
  return (f"{tag}: {mujoco.__version__} cloth of {m.nflexvert} vertices resting on the floor: {touching} vertices reach "
          f"the plane, {ncon} flex-floor contacts; deepest sink of a vertex sphere into the floor over "
          f"0.75-1.5 s = {worst * 1e3:.2f} mm (the 5 ms contact alone gives < 1 mm); ok when every touching vertex "
          f"has a contact and the sink stays < 1 mm")


def probe_flex_pinned_edge_weight(fname="mujoco-01a932e0_trigger.xml"):
  """The edge equality constraints of a cloth hung by pinned vertices keep its edges near their rest lengths.

  A 6 x 6 cloth (vertex mass 5.6 g, edge equality constraints, default solref/solimp) hangs from three vertices pinned
  to the world and drapes under gravity for 2 s. The constraints must hold: the edges stay, on average, within a few per
  cent of their rest lengths (the soft constraints' sag while the cloth swings) and the edge rows carry the weight. In 3.0.0 the compiler took
  the world body as a "simple" body with mass 0, so every edge that touches a pinned vertex got an inverse weight of
  1/0 = inf, and mj_diagApprox gave every edge row of a flex the inverse weight of the flex's first edge: when that
  first edge touches a pinned vertex, all edge rows get regularization R = inf and no force, and the cloth falls apart.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  nstep = int(round(2.0 / m.opt.timestep))
  worst = 0.0
  for i in range(nstep):
    mujoco.mj_step(m, d)
    if i >= nstep // 2:
      worst = max(worst, float(np.mean(np.abs(d.flexedge_length - m.flexedge_length0) / m.flexedge_length0)))
  eq = d.efc_type[:d.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
  fmax = float(np.max(np.abs(d.efc_force[:d.nefc][eq]))) if np.any(eq) else 0.0
  rmax = float(np.max(d.efc_R[:d.nefc][eq])) if np.any(eq) else 0.0
  npin = int(np.sum(m.flex_vertbodyid == 0))
  weight = (m.nflexvert - npin) * float(m.body_mass[m.flex_vertbodyid[m.flex_vertbodyid > 0][0]]) * 9.81
  tag = "BUG" if worst > 0.10 or fmax < 1e-6 else "ok"
  return (f"{tag}: {mujoco.__version__} cloth of {m.nflexvert} vertices hung by {npin} pinned ones ({weight:.3f} N of "
          f"free weight), mean edge strain |L - L0| / L0 (max over 1-2 s) = {100 * worst:.1f} %, lowest vertex z = "
          f"{float(d.flexvert_xpos[:, 2].min()):.3f} m (pole at 1 m), edge rows: max |efc_force| = {fmax:.4f} N, "
          f"max efc_R = {rmax:.4g}; ok when the mean strain stays < 10 % and the rows carry force")


def _nodal_gradient_integrals(m, d):
  """Bodies of the flex's dof points, their reference positions, and int grad(N_a) dV for each (from geometry)."""
  interp = bool(m.flex_interp[0]) if hasattr(m, "flex_interp") else False
  if interp:
    bodies = np.array(m.flex_nodebodyid[m.flex_nodeadr[0]:m.flex_nodeadr[0] + m.flex_nodenum[0]])
    x = d.xpos[bodies].copy()
    if len(bodies) != 8:
      raise ValueError("the probe handles a single trilinear cell")
    lo, hi = x.min(0), x.max(0)
    size = hi - lo
    vol = float(np.prod(size))
    # trilinear shape functions of a box: int dN_a/dx_i dV = V / (4 L_i) * (+1 at the high face, -1 at the low one)
    sgn = np.sign(x - 0.5 * (lo + hi))
    grad = sgn * vol / (4.0 * size)
  else:
    adr, num = m.flex_vertadr[0], m.flex_vertnum[0]
    bodies = np.array(m.flex_vertbodyid[adr:adr + num])
    x = d.flexvert_xpos[adr:adr + num].copy()
    grad = np.zeros_like(x)
    el = m.flex_elem[m.flex_elemdataadr[0]:m.flex_elemdataadr[0] + 4 * m.flex_elemnum[0]].reshape(-1, 4)
    for t in el:
      p = x[t]
      D = np.array([p[1] - p[0], p[2] - p[0], p[3] - p[0]]).T
      vol = abs(np.linalg.det(D)) / 6.0
      g = np.linalg.inv(D)  # rows: gradients of the barycentric coordinates of vertices 1..3
      grads = np.vstack([-g.sum(0), g])
      grad[t] += vol * grads
  return bodies, x, grad


def probe_interp_elastic_constants(fname="mujoco-52824daf_trigger.xml"):
  """A homogeneous strain of a soft block gives the linear-elastic nodal forces -sigma . int grad(N_a) dV.

  A 10 cm foam cube (flexcomp, one trilinear cell, E = 0.1 MPa, Poisson ratio 0) is given small homogeneous strains
  (1e-4: pure shear xy, uniaxial x, uniform dilation) through its nodes' slide dofs. Trilinear (and linear tetrahedral)
  shape functions reproduce a linear displacement field exactly, so the elastic nodal forces must equal
  -sigma . int grad(N_a) dV with sigma = lambda tr(eps) I + 2 mu eps from young and poisson (the integral is taken from
  the cell's geometry). The probe compares the passive forces MuJoCo applies to the nodes with them. Before 3.16.0 the
  compiler assembled the stiffness of interpolated flexes with mu sym(du):sym(dv) instead of 2 mu sym(du):sym(dv)
  (src/user/user_mesh.cc): the deviatoric part of the stiffness was halved. With Poisson ratio 0 every mode comes out
  at half the elastic force (with nu = 0.3: shear 0.50, uniaxial 0.80, dilation 0.85).
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  E = float(m.flex_young[0]) if hasattr(m, "flex_young") else 1e5
  nu = float(m.flex_poisson[0]) if hasattr(m, "flex_poisson") else 0.0
  lam = E * nu / ((1 + nu) * (1 - 2 * nu))
  mu = E / (2 * (1 + nu))
  bodies, x, grad = _nodal_gradient_integrals(m, d)
  c = x.mean(0)
  g = 1e-4
  modes = {"shear": np.array([[0, g, 0], [g, 0, 0], [0, 0, 0.]]),
           "uniaxial": np.array([[g, 0, 0], [0, 0, 0], [0, 0, 0.]]),
           "dilation": g * np.eye(3)}
  ratios, worst = {}, 0.0
  for name, G in modes.items():
    d.qpos[:] = m.qpos0
    d.qvel[:] = 0
    for b, xa in zip(bodies, x):
      a = m.jnt_qposadr[m.body_jntadr[b]]
      d.qpos[a:a + 3] = d.xmat[b].reshape(3, 3).T @ (G @ (xa - c))
    mujoco.mj_forward(m, d)
    eps = 0.5 * (G + G.T)
    sig = lam * np.trace(eps) * np.eye(3) + 2 * mu * eps
    f_mj = np.array([d.xmat[b].reshape(3, 3) @ d.qfrc_passive[m.body_dofadr[b]:m.body_dofadr[b] + 3] for b in bodies])
    f_ref = -grad @ sig.T
    ratios[name] = float(np.sum(f_mj * f_ref) / np.sum(f_ref * f_ref))
    worst = max(worst, float(np.abs(f_mj - f_ref).max() / np.abs(f_ref).max()))
  tag = "BUG" if worst > 1e-3 else "ok"
  kind = "trilinear cell" if m.flex_interp[0] else "linear tetrahedra"
  return (f"{tag}: {mujoco.__version__} foam cube ({kind}, E = {E:.3g} Pa, nu = {nu:g}) under homogeneous strains of "
          f"1e-4: nodal passive force / linear-elastic -sigma.int(grad N) = "
          + ", ".join(f"{k} {v:.4f}" for k, v in ratios.items())
          + f"; max node error {100 * worst:.2f} % of the largest force; ok when every ratio is 1 (error < 0.1 %)")


PROBES = {
    "mujoco-871e3725": probe_flex_contact_cap,
    "mujoco-01a932e0": probe_flex_pinned_edge_weight,
    "mujoco-52824daf": probe_interp_elastic_constants,
}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
