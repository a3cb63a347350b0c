"""Round 12 probes, area: sensorsapi (sensors and the API functions beside the step: rays, mj_rne, ...).

Each probe takes an optional model filename (default: the case's trigger) and returns one line starting
"BUG:" or "ok:" with the measured figure and the bound.
Run: python sensorsapi.py <ID> [model.xml]
"""
import os
import sys

import mujoco
import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):
  MODELS = os.path.join(os.path.dirname(_HERE), "models", "round12")


def _path(fname):
  if os.path.isabs(fname) or os.path.exists(fname):
    return fname
  return os.path.join(MODELS, os.path.basename(fname))


def _load(fname):
  return mujoco.MjModel.from_xml_path(_path(fname))


def _reset(m, d):
  if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
  else:
    mujoco.mj_resetData(m, d)
  mujoco.mj_forward(m, d)


# ------------------------------------------------------------------------------------------------------------
# mujoco-b6192732: mj_ray on an SDF geom returns the Euclidean hit distance, not x in units of |vec|.


def _surface_distance(m, d, g, p):
  """Signed distance of world point p from geom g's surface, in closed form (SDF torus or primitive sphere)."""
  c = d.geom_xpos[g]
  R = d.geom_xmat[g].reshape(3, 3)
  q = R.T @ (p - c)
  if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SDF:
    # mujoco.sdf.torus: ring radius radius1 in the geom's xy plane, tube radius radius2
    inst = m.geom_plugin[g]
    adr = m.plugin_attradr[inst]
    end = m.plugin_attradr[inst + 1] if inst + 1 < m.nplugin else len(m.plugin_attr)
    vals = bytes(m.plugin_attr[adr:end]).split(b"\0")
    r1, r2 = float(vals[0]), float(vals[1])
    return np.hypot(np.hypot(q[0], q[1]) - r1, q[2]) - r2
  if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE:
    return np.linalg.norm(q) - m.geom_size[g][0]
  raise ValueError("probe knows SDF torus and sphere parts only")


def probe_ray_sdf_scale(fname="mujoco-b6192732_trigger.xml"):
  """mj_ray's hit point pnt + x*vec lies on the surface for a non-unit vec (line-of-sight query).

  The arm swings from its keyframe for 1.5 s; every 50 steps the tool site casts rays at 8 points on the
  part's ring centreline (inside the part), with vec = target - tool (|vec| 0.5 ... 1.1 m, not unit). mj_ray
  documents x as the distance along vec: the hit point is pnt + x*vec. The probe evaluates the part's
  closed-form signed distance (torus: |(rho - R, z)| - r; sphere: |q| - r) at that point. Before 4.0.0
  mj_raySdf normalizes the ray direction and returns the Euclidean length, so x is |vec| times too large
  and the hit point lands beyond the part (for |vec| > 1) or short of it.
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  _reset(m, d)
  g = m.geom("part").id
  site = m.site("tool").id
  body_ex = m.geom_bodyid[m.geom("fore").id]
  worst, worst_info, nhit, nray = 0.0, "", 0, 0
  nstep = int(round(1.5 / m.opt.timestep))
  for k in range(nstep + 1):
    if k % 50 == 0:
      pnt = d.site_xpos[site].copy()
      c = d.geom_xpos[g]
      R = d.geom_xmat[g].reshape(3, 3)
      for j in range(8):
        phi = 2 * np.pi * j / 8
        target = c + R @ np.array([0.1 * np.cos(phi), 0.1 * np.sin(phi), 0.0])
        vec = target - pnt
        gid = np.array([-1], dtype=np.int32)
        geomgroup = np.ones(6, dtype=np.uint8)
        x = mujoco.mj_ray(m, d, pnt, vec, geomgroup, 1, body_ex, gid)
        nray += 1
        if x < 0 or gid[0] != g:
          err = np.inf
          info = f"ray {j} at t={d.time:.2f} s missed the part (x={x:.4f}, geom {gid[0]})"
        else:
          nhit += 1
          err = abs(_surface_distance(m, d, g, pnt + x * vec))
          info = (f"t={d.time:.2f} s, |vec|={np.linalg.norm(vec):.3f} m, x={x:.4f}: hit point "
                  f"{err * 1000:.1f} mm off the surface")
        if err > worst:
          worst, worst_info = err, info
    if k < nstep:
      mujoco.mj_step(m, d)
  tol = 1e-3
  head = (f"{mujoco.__version__} mj_ray from the arm's tool site at the part ({mujoco.mjtGeom(int(m.geom_type[g])).name}), "
          f"{nray} rays with non-unit vec, {nhit} hits: max |surface distance of pnt + x*vec| = "
          f"{worst * 1000:.3g} mm ({worst_info}); ok when < {tol * 1000:.0f} mm")
  return ("BUG: " if worst > tol else "ok: ") + head


# ------------------------------------------------------------------------------------------------------------
# mujoco-4.0.0-sleep-rne-buffer: mj_rne into a caller's buffer skips the dofs of sleeping trees.


def _gravity_force(m, d):
  """Generalized gravity force -sum_b J_com,b^T m_b g from the body Jacobians (closed form, no RNE)."""
  g = np.zeros(m.nv)
  jp = np.zeros((3, m.nv))
  for b in range(1, m.nbody):
    mujoco.mj_jacBodyCom(m, d, jp, None, b)
    g -= m.body_mass[b] * jp.T @ m.opt.gravity
  return g


def probe_sleep_rne_buffer(fname="mujoco-4.0.0-sleep-rne-buffer_trigger.xml"):
  """mj_rne(m, d, 0, buf) returns the bias force of every dof, asleep or not.

  The tote falls asleep on the floor while the arm swings (2 s from keyframe 0). Every 20 steps the probe calls
  mj_rne(m, d, 0, buf) into a fresh zero buffer, as a feed-forward controller does. Where a dof's tree is at
  rest (qvel exactly 0, as sleeping trees are) the bias force is gravity alone, which the probe computes from
  the body Jacobians; on moving dofs it compares with mjData.qfrc_bias after mj_forward at the same state. Before 4.0.0 mj_rne
  only writes the awake dofs when sleeping is active, leaving the sleeping tote's entries at whatever the
  buffer held (0 here; the tote's weight is 39 N + flap).
  """
  m = _load(fname)
  d = mujoco.MjData(m)
  _reset(m, d)
  nstep = int(round(2.0 / m.opt.timestep))
  worst_rest, worst_move, info, nsleep, nsample = 0.0, 0.0, "", 0, 0
  for k in range(nstep):
    mujoco.mj_step(m, d)
    if k % 20 == 19:
      mujoco.mj_forward(m, d)  # qfrc_bias and the kinematics at the new state
      nsample += 1
      asleep = hasattr(d, "tree_awake") and m.ntree and not np.all(np.asarray(d.tree_awake) != 0)
      nsleep += int(bool(asleep))
      buf = np.zeros(m.nv)
      mujoco.mj_rne(m, d, 0, buf)
      grav = _gravity_force(m, d)
      rest = d.qvel == 0
      if rest.any():
        e = np.max(np.abs(buf[rest] - grav[rest]))
        if e > worst_rest:
          i = np.flatnonzero(rest)[np.argmax(np.abs(buf[rest] - grav[rest]))]
          worst_rest = e
          info = f"t={d.time:.2f} s dof {i}: mj_rne {buf[i]:.4g}, gravity {grav[i]:.4g} N"
      if (~rest).any():
        worst_move = max(worst_move, np.max(np.abs(buf[~rest] - d.qfrc_bias[~rest])))
  tol = 1e-6
  worst = max(worst_rest, worst_move)
  head = (f"{mujoco.__version__} tote asleep beside a swinging arm, {nsample} calls of mj_rne(m, d, 0, buf) "
          f"over 2 s ({nsleep} with a sleeping tree): max |buf - gravity| on dofs at rest = {worst_rest:.4g} N "
          f"({info or 'none'}); max |buf - qfrc_bias| on moving dofs = {worst_move:.3g}; ok when both < {tol:g}")
  return ("BUG: " if worst > tol else "ok: ") + head


PROBES = {
    "mujoco-b6192732": probe_ray_sdf_scale,
    "mujoco-4.0.0-sleep-rne-buffer": probe_sleep_rne_buffer,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
