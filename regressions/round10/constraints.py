"""Round 10 probes, area: constraints (limits, equality constraints, friction loss, the PGS/CG/Newton solvers and
their options, noslip, solref/solimp, islands, sleeping, tendons as constraint carriers).

Each probe takes an optional model filename (default: the case's trigger) and returns one line that starts with
"BUG:" or "ok:" and gives the figure and what it should be.
Run: python constraints.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round10")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _forward_with(fname, solver, iterations=None, tolerance=None):
  m = _load(fname)
  m.opt.solver = solver
  if iterations is not None:
    m.opt.iterations = iterations
  if tolerance is not None:
    m.opt.tolerance = tolerance
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  return m, d


def probe_cg_false_convergence(fname="mujoco-cd6db9eb_trigger.xml"):
  """The constraint solve is a convex problem with a unique minimiser: whichever solver is used, converged, it must
  give the same joint accelerations.

  The scene's own solver (CG, default iterations/tolerance) is run at the keyframe, and the same state is solved
  again by Newton with a tight tolerance (an independent second computation; PGS, a dual method, is given as a
  third). The CG answer must match Newton's to well under 0.01 rad/s^2. Also reported: CG's iteration count and its
  last gradient norm (CG may only stop when the gradient is small, not on a zero line-search step).
  """
  m = _load(fname)
  own = m.opt.solver
  m, dc = _forward_with(fname, own)
  _, dn = _forward_with(fname, mujoco.mjtSolver.mjSOL_NEWTON, 1000, 1e-14)
  _, dp = _forward_with(fname, mujoco.mjtSolver.mjSOL_PGS, 20000, 1e-15)
  niter = int(dc.solver_niter[0])
  grad = float(dc.solver.gradient[niter - 1]) if niter > 0 else float("nan")
  err = np.abs(dc.qacc - dn.qacc)
  k = int(np.argmax(err))
  jname = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, int(m.dof_jntid[k]))
  pgs = np.abs(dp.qacc - dn.qacc).max()
  tag = "BUG" if err.max() > 1e-2 else "ok"
  return (f"{tag}: {mujoco.__version__} CG stops after {niter} iterations (last gradient {grad:.3g}); qacc of "
          f"{jname} {dc.qacc[k]:.2f} rad/s^2 where Newton (and PGS, within {pgs:.1e}) give {dn.qacc[k]:.2f}: "
          f"max |qacc_CG - qacc_Newton| = {err.max():.3g} rad/s^2; ok when under 0.01")


CASES = {
    "mujoco-cd6db9eb": probe_cg_false_convergence,
}

if __name__ == "__main__":
  print(CASES[sys.argv[1]](*sys.argv[2:]))
