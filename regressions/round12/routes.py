"""Round 12 probes, area: routes (MuJoCo Warp run on the CPU, MJX): physics bugs of a route whose numbers disagree
with MuJoCo C on the same model and state (constraints, model constants recomputed by the route's API).

Each probe takes an optional model filename (default: the case's trigger) and returns one line with the figures.
Run with the python of an environment that holds mujoco-warp (and its pinned mujoco / warp-lang):
  python routes.py <ID> [model.xml]
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
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(MODELS, fname)


def _warp():
  """Import MuJoCo Warp on the CPU (quietly)."""
  import warp as wp
  try:
    wp.config.quiet = True
  except Exception:  # newer warp: deprecated attribute
    pass
  wp.set_device("cpu")
  import mujoco_warp as mjw
  return wp, mjw


def _versions():
  try:
    from importlib.metadata import version
    return "mujoco-warp %s / mujoco %s" % (version("mujoco-warp"), mujoco.__version__)
  except Exception:
    return "mujoco %s" % mujoco.__version__


def probe_weld_jdotv(fname="mujoco-warp-1513_trigger.xml"):
  """The weld constraint's reference acceleration must equal C MuJoCo's on the same state.

  A tumbling quadrotor has just grasped a crate: a weld (body1 = crate, body2 = drone) engaged while the crate
  still spins relative to the drone. Since the Jdot*v correction of connect/weld (MuJoCo 3.7/3.8, MuJoCo Warp
  3.8.0.3, #1294), efc_aref = -b (J v) - k imp r - Jdot v. In MuJoCo Warp 3.8.0.3 .. 3.10.0.1 the rotational part of
  Jdot*v used -qdot1 where the time derivative of the conjugate quaternion is conj(qdot1) (#1513): the scalar part
  has the wrong sign, so the rotational aref is off by torquescale * w * vec(domega * q) whenever the reference body
  spins (w != 0) and the weld has a relative angular velocity (domega != 0).
  Reference: C MuJoCo's mj_forward on the very same qpos/qvel (another MuJoCo path, float64), at the keyframe,
  where the weld is exactly satisfied (efc_pos = 0), so the aref is -b (J v) - Jdot v and the stiffness and
  impedance terms drop out.
  """
  wp, mjw = _warp()
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  mw = mjw.put_model(m)
  dw = mjw.put_data(m, d, nconmax=16, njmax=64)
  mjw.forward(mw, dw)
  weld = m.equality("grasp").id
  nefc = int(dw.nefc.numpy()[0])
  rows = [i for i in range(d.nefc) if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY and d.efc_id[i] == weld]
  if nefc != d.nefc or len(rows) != 6:
    return "BUG: %s weld rows differ: warp nefc %d, C nefc %d (%d weld rows)" % (_versions(), nefc, d.nefc, len(rows))
  aw = dw.efc.aref.numpy()[0, :nefc].astype(float)
  posw = dw.efc.pos.numpy()[0, :nefc].astype(float)
  rot = rows[3:]
  err = float(np.abs(aw[rot] - d.efc_aref[rot]).max())
  errp = float(np.abs(aw[rows[:3]] - d.efc_aref[rows[:3]]).max())
  scale = 1.0 + float(np.abs(d.efc_aref[rot]).max())
  bound = 1e-4
  w = np.array(m.key_qvel[0])
  rel = np.linalg.norm(w[9:12] - w[3:6])
  msg = ("%s quadrotor + welded crate at the keyframe (weld satisfied: |efc_pos| %.1g; body-frame spin drone "
         "(4, -6, 8), crate (%s) rad/s, |relative| %.1f rad/s): weld rotational efc_aref warp %s vs C %s, "
         "max diff %.4g = %.3g of (1 + |aref|) (translational rows %.2g); ok when < %.0e"
         % (_versions(), float(np.abs(posw[rows]).max()), " ".join("%g" % x for x in w[9:12]), rel,
            np.array2string(aw[rot], precision=3), np.array2string(d.efc_aref[rot], precision=3), err,
            err / scale, errp, bound))
  return ("BUG: " if err / scale > bound else "ok: ") + msg


def probe_setconst_connect(fname="mujoco-warp-1487_trigger.xml"):
  """After re-anchoring a connect and calling set_const, the loop must be closed at qpos0 (as mj_setConst does).

  A crank-rocker four-bar closed by a connect equality (body1 = coupler, body2 = rocker). A user recalibrates the
  coupler anchor (eq_data[0:3], custom numeric "reanchor") on the device model and calls mjw.set_const, which is
  documented to recompute the derived constants like mj_setConst. mj_setConst (engine_setconst.c) derives the
  second anchor eq_data[3:6] from the kinematics at qpos0, so the anchors coincide at qpos0 and the connect's
  residual there is zero. MuJoCo Warp set_const before 3.10.0.2 (#1487) never recomputed eq_data, leaving the
  second anchor stale: the loop starts open by the anchor shift and the constraint yanks the mechanism closed.
  References: the loop residual at qpos0 (must be 0, first principles: both anchors are the same point by
  construction) and mj_setConst on the same modification (C MuJoCo, float64).
  """
  wp, mjw = _warp()
  m = mujoco.MjModel.from_xml_path(_path(fname))
  new = np.array(m.numeric("reanchor").data, dtype=float)
  eq = m.equality("loop").id
  # C reference: mj_setConst on the same change
  mc = mujoco.MjModel.from_xml_path(_path(fname))
  dc = mujoco.MjData(mc)
  mc.eq_data[eq, 0:3] = new
  mujoco.mj_setConst(mc, dc)
  # MuJoCo Warp: write the anchor on the device model, set_const, forward at qpos0
  mw = mjw.put_model(m)
  dw = mjw.make_data(m, nconmax=8, njmax=16)
  e = mw.eq_data.numpy()
  e[0, eq, 0:3] = new
  mw.eq_data = wp.array(e, dtype=mw.eq_data.dtype)
  mjw.set_const(mw, dw)
  data_w = np.array(mw.eq_data.numpy()[0, eq, :6], dtype=float)
  mjw.forward(mw, dw)  # qpos0 (make_data / set_const restore)
  qpos = dw.qpos.numpy()[0]
  nefc = int(dw.nefc.numpy()[0])
  pos = dw.efc.pos.numpy()[0, :nefc].astype(float)
  etype = dw.efc.type.numpy()[0, :nefc]
  resid = float(np.linalg.norm(pos[etype == int(mujoco.mjtConstraint.mjCNSTR_EQUALITY)]))
  dC = float(np.abs(data_w[3:6] - mc.eq_data[eq, 3:6]).max())
  bound = 1e-5
  msg = ("%s four-bar, connect anchor moved from (%s) to (%s) then set_const: loop residual at qpos0 "
         "(|qpos| %.1g) = %.4g m; second anchor eq_data[3:6] warp (%s) vs mj_setConst (%s), max diff %.4g m; "
         "ok when both < %.0e m"
         % (_versions(), " ".join("%g" % x for x in m.eq_data[eq, 0:3]), " ".join("%g" % x for x in new),
            float(np.abs(qpos).max()), resid, " ".join("%.4g" % x for x in data_w[3:6]),
            " ".join("%.4g" % x for x in mc.eq_data[eq, 3:6]), dC, bound))
  return ("BUG: " if max(resid, dC) > bound else "ok: ") + msg


def probe_mjx_ray_mesh_behind(fname="mjx-719476c2_trigger.xml"):
  """A ray returns the nearest intersection AHEAD of its origin (distance >= 0), as mj_ray does.

  A wheeled base casts a ray along the +x axis of its range-finder site: a primitive wall stands ahead, a crate
  modelled as a mesh sits behind the base on the ray's line. mjx.ray before 3.1.5 (_ray_triangle) intersected the
  ray's LINE with each triangle and never rejected a negative distance, so the mesh behind the origin won the
  minimum with a negative distance (fixed by 719476c2, changelog 3.1.5 MJX item 16). References: C mj_ray on the
  same model and ray (another MuJoCo path), and first principles (a hit distance is never negative).
  """
  import jax
  jax.config.update("jax_platform_name", "cpu")
  from mujoco import mjx
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  s = m.site("lidar").id
  pnt = d.site_xpos[s].copy()
  vec = d.site_xmat[s].reshape(3, 3)[:, 0].copy()
  gid = np.zeros(1, np.int32)
  dist_c = mujoco.mj_ray(m, d, pnt, vec, None, 1, -1, gid)
  name = lambda g: m.geom(int(g)).name if g >= 0 else "none"
  mx = mjx.put_model(m)
  dx = mjx.put_data(m, d)
  dist_x, gid_x = mjx.ray(mx, dx, jax.numpy.array(pnt), jax.numpy.array(vec))
  dist_x, gid_x = float(dist_x), int(gid_x)
  bound = 1e-4
  err = abs(dist_x - dist_c)
  bad = dist_x < 0.0 and gid_x >= 0 or err > bound or gid_x != int(gid[0])
  try:
    from importlib.metadata import version
    ver = "mujoco-mjx %s / mujoco %s" % (version("mujoco-mjx"), mujoco.__version__)
  except Exception:
    ver = "mujoco %s" % mujoco.__version__
  msg = ("%s range ray from site 'lidar' along +x (wall ahead, mesh crate at x=%.2f): mjx.ray %.4f m on geom '%s' "
         "vs mj_ray %.4f m on geom '%s'; |diff| %.4g m; ok when the distance is >= 0, the geom agrees and "
         "|diff| < %.0e m" % (ver, float(d.xpos[m.body("crate").id][0]), dist_x, name(gid_x), dist_c,
                               name(gid[0]), err, bound))
  return ("BUG: " if bad else "ok: ") + msg


PROBES = {
    "mujoco-warp-1513": probe_weld_jdotv,
    "mujoco-warp-1487": probe_setconst_connect,
    "mjx-719476c2": probe_mjx_ray_mesh_behind,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
