"""Round 13 probes, area: passive forces, integrators, flex and deformables, derivatives, sleeping, inverse dynamics.

Each probe takes an optional model filename (default: the case's trigger, beside this file) and prints one line,
'BUG: ...' or 'ok: ...', with the figure.
Run: python passive_integrators.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round13")


def _path(fname):
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(HERE, fname)


# --------------------------------------------------------------------------------------------------------------------
# mujoco-4bbc9695
# --------------------------------------------------------------------------------------------------------------------
def probe_4bbc9695(fname="mujoco-4bbc9695_trigger.xml"):
  """A volumetric trilinear flex (surface mesh, elastic2d none, young 5e4) must resist deformation wherever its
  first grid cell lies.

  The foam L-bracket is 210 mm tall (0.2 m mesh on a 3x1x3 node grid, 10 mm above the floor). Dropped under
  gravity it must stand: after 1 s its top vertex stays near 0.21 m. With elasticity it also returns a restoring force
  when its nodes are moved 5 mm (seeded jitter). On 3.16.0 the elasticity was gated on the stiffness of cell 0, which is
  empty when the mesh leaves the grid's min corner void: the bracket has no elasticity and collapses flat.
  """
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  height0 = d.flexvert_xpos[:, 2].max()
  rng = np.random.default_rng(0)
  d.qpos[:] += 0.005 * rng.standard_normal(m.nq)
  mujoco.mj_forward(m, d)
  frc = np.abs(d.qfrc_passive).max()
  mujoco.mj_resetData(m, d)
  for _ in range(int(round(1.0 / m.opt.timestep))):
    mujoco.mj_step(m, d)
  top = d.flexvert_xpos[:, 2].max()
  msg = (f"foam bracket built {height0 * 1000:.0f} mm tall: top at {top * 1000:.1f} mm after 1 s on the floor; "
         f"largest elastic force for 5 mm node jitter {frc:.3g} N")
  if top < 0.5 * height0 or frc < 1e-9:
    return "BUG: " + msg + " (no elasticity: it collapses)"
  return "ok: " + msg

# --------------------------------------------------------------------------------------------------------------------
# mujoco-54be9cce
# --------------------------------------------------------------------------------------------------------------------
def probe_54be9cce(fname="mujoco-54be9cce_trigger.xml"):
  """mjd_transitionFD (forward differences, eps 1e-6) on a state where one arm sleeps.

  Two hinged arms hang from the keyframe (the left at rest, the right swinging from 1 rad); after 1 s the left arm is
  asleep. The transition Jacobian A must obey the semi-implicit Euler update q' = q + h v' row by row:
  dq'/dv = h dv'/dv for every dof, and must equal the A of the same model and state with sleeping off. On 3.13.0 the
  sleeping arm's velocity column is that of a frozen tree (dq'/dv = 0, dv'/dv = 1) while its position column is live:
  the derivative of the next state with respect to the sleeping arm's speed drops its motion and its damping. From
  3.14.0 the function refuses models with sleep enabled (the fix), which counts as clean here.
  """
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  for _ in range(int(round(1.0 / m.opt.timestep))):
    mujoco.mj_step(m, d)
  nv, h = m.nv, m.opt.timestep
  nx = 2 * nv + m.na
  asleep = int(np.sum(np.asarray(getattr(d, "tree_asleep", np.full(m.ntree, -1))) >= 0))
  a = np.zeros((nx, nx))
  b = np.zeros((nx, m.nu))
  try:
    mujoco.mjd_transitionFD(m, d, 1e-6, 0, a, b, None, None)
  except Exception as e:  # pylint: disable=broad-except
    if "sleep" in str(e):
      return f"ok: mjd_transitionFD refuses the model with {asleep} tree(s) asleep ({e})"
    raise
  # reference: same model and state, sleeping off
  m2 = mujoco.MjModel.from_xml_path(_path(fname))
  m2.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_SLEEP)
  d2 = mujoco.MjData(m2)
  d2.qpos[:] = d.qpos
  d2.qvel[:] = d.qvel
  d2.act[:] = d.act
  d2.ctrl[:] = d.ctrl
  d2.time = d.time
  a2 = np.zeros((nx, nx))
  b2 = np.zeros((nx, m.nu))
  mujoco.mjd_transitionFD(m2, d2, 1e-6, 0, a2, b2, None, None)
  # Euler law: dq'/dv = h dv'/dv (hinge and slide dofs)
  resid = np.abs(a[:nv, nv:2 * nv] - h * a[nv:2 * nv, nv:2 * nv]).max() / h
  diff = np.abs(a - a2).max()
  msg = (f"{asleep} tree(s) asleep; A(dv'/dv) diagonal {np.round(np.diag(a[nv:2*nv, nv:2*nv]), 5).tolist()} vs "
         f"sleep off {np.round(np.diag(a2[nv:2*nv, nv:2*nv]), 5).tolist()}; max|A - A_sleepoff| {diff:.3g}; "
         f"Euler-law residual |dq'/dv - h dv'/dv|/h {resid:.3g}")
  if diff > 1e-4 or resid > 1e-4:
    return "BUG: " + msg
  return "ok: " + msg

# --------------------------------------------------------------------------------------------------------------------
# mujoco-54979947
# --------------------------------------------------------------------------------------------------------------------
def probe_54979947(fname="mujoco-54979947_trigger.xml"):
  """A damped trampoline mat released flat must settle at its sag: after 5 s it must be at rest.

  The mat (flexcomp grid 9x9, 0.4 m, elastic2d stretch, E 1e6, damping 0.002, rim pinned) sags about 28 mm under
  gravity; the tension of the sag is what holds it up. Under implicitfast with the CG solver (the effective-metric path)
  the implicit stretch operator must include the tension (geometric) stiffness; 3.11.0 had only the Gauss-Newton part,
  so the tension stiffness is integrated explicitly and, at a 20 ms step, the mat never comes to rest: the damped
  membrane keeps oscillating (a limit cycle, energy fed in by the step). The probe reports the centre vertex's
  oscillation amplitude and the kinetic energy over the 6th second.
  """
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
  n = int(round(6.0 / m.opt.timestep))
  centre = m.flex_vertnum[0] // 2
  zs, ke = [], []
  sag_max = 0.0
  for i in range(n):
    mujoco.mj_step(m, d)
    sag_max = max(sag_max, -d.flexvert_xpos[centre, 2])
    if i >= n - int(round(1.0 / m.opt.timestep)):
      zs.append(d.flexvert_xpos[centre, 2])
      ke.append(d.energy[1])
  zs = np.array(zs)
  amp = 0.5 * (zs.max() - zs.min())
  msg = (f"step {m.opt.timestep * 1000:.0f} ms: centre sag {-zs.mean() * 1000:.1f} mm (deepest {sag_max * 1000:.1f} mm); "
         f"over the 6th second it still swings +-{amp * 1000:.3g} mm, kinetic energy up to {max(ke):.3g} J")
  if amp > 1e-4 or max(ke) > 1e-6:
    return "BUG: " + msg + " (a damped mat that never comes to rest)"
  return "ok: " + msg


PROBES = {
    "mujoco-4bbc9695": probe_4bbc9695,
    "mujoco-54be9cce": probe_54be9cce,
    "mujoco-54979947": probe_54979947,
}


def main():
  if len(sys.argv) < 2 or sys.argv[1] not in PROBES:
    print("usage: python passive_integrators.py <ID> [model.xml]; IDs: " + ", ".join(PROBES))
    sys.exit(2)
  probe = PROBES[sys.argv[1]]
  line = probe(sys.argv[2]) if len(sys.argv) > 2 else probe()
  print(f"{line} [mujoco {mujoco.__version__}]")


if __name__ == "__main__":
  main()


CASES = {k: v for k, v in PROBES.items() if k in ['mujoco-54be9cce', 'mujoco-54979947']}  # the corpus's (round 13)
