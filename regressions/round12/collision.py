"""Round 12 blind cases, area: collision (multiccd contact polygon of mirrored meshes; MJX broadphase bounds).

Each probe loads its model from MODELS (default: the trigger) and returns one line starting "BUG:" or "ok:".
Usage: python collision.py <case id> [model file name]
"""
import os
import sys

import numpy as np
import mujoco

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):
  MODELS = os.path.join(_HERE, "..", "models", "round12")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


# ---------------------------------------------------------------------------------------------------------------
# mujoco-3.15.0-mirrored-mesh-polynormal: a mesh mirrored with a negative scale (scale="1 -1 1") compiled inward
# polygon normals (mesh_polynormal, GitHub issue #3604); the multiccd contact polygon of that mesh is then wrong.
# Law: a mirror-symmetric biped (left foot = mirror of the right foot) resting on a flat floor stays mirror
# symmetric: equal normal load on both feet, equal contact counts, zero roll.
# ---------------------------------------------------------------------------------------------------------------
def probe_mirrored_mesh_contacts(fname="mujoco-3.15.0-mirrored-mesh-polynormal_trigger.xml"):
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  fr, fl = m.geom("foot_r").id, m.geom("foot_l").id
  pelvis = m.body("pelvis").id
  maxroll = 0.0
  for _ in range(int(round(3.0 / m.opt.timestep))):
    mujoco.mj_step(m, d)
    R = d.xmat[pelvis].reshape(3, 3)
    maxroll = max(maxroll, abs(np.degrees(np.arctan2(R[2, 1], R[2, 2]))))
  F = [0.0, 0.0]
  n = [0, 0]
  fc = np.zeros(6)
  for i, con in enumerate(d.contact[:d.ncon]):
    k = 0 if fr in con.geom else (1 if fl in con.geom else None)
    if k is None:
      continue
    mujoco.mj_contactForce(m, d, i, fc)
    F[k] += fc[0]
    n[k] += 1
  weight = -float(np.sum(m.body_mass)) * m.opt.gravity[2]
  asym = abs(F[0] - F[1]) / weight
  msg = (f"after 3 s: contacts right/left {n[0]}/{n[1]}, normal load right/left {F[0]:.3f}/{F[1]:.3f} N "
         f"(weight {weight:.3f} N, asymmetry {asym:.3g}, bound 0.01), max |roll| {maxroll:.3g} deg (bound 1e-3)")
  if n[0] != n[1] or asym > 0.01 or maxroll > 1e-3:
    return "BUG: " + msg
  return "ok: " + msg


# ---------------------------------------------------------------------------------------------------------------
# mjx-a4df9120 (MJX route): with the MJX option max_geom_pairs, MJX's broadphase ranks the candidate pairs of one
# geom-type group by bounding-sphere distance, using max(geom_size) as the bounding radius. For a capsule
# (size = radius, half-length) the true bounding radius is radius + half-length (and a box's is its half-diagonal),
# so fat capsules look farther than they are and a touching pair is dropped in favour of a pair that does not touch
# (fixed in 3.1.5 by a4df9120, which switched to geom_rbound: changelog 3.1.5 MJX item 14).
# Law: a fat capsule roller resting (5 mm deep) on a capsule post is held up: MJX keeps the roller-post contact that
# MuJoCo C finds at the same state, and the roller does not sink (its lowest z over 0.5 s stays within 1 cm).
# ---------------------------------------------------------------------------------------------------------------
def probe_mjx_capsule_broadphase(fname="mjx-a4df9120_trigger.xml"):
  import jax
  from mujoco import mjx
  m = mujoco.MjModel.from_xml_path(_path(fname))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  post, roller = m.geom("post").id, m.geom("roller").id
  c_pairs = [c.dist for c in d.contact[:d.ncon] if {int(c.geom1), int(c.geom2)} == {post, roller}]
  mx = mjx.put_model(m)
  dx = mjx.make_data(mx).replace(qpos=jax.numpy.array(d.qpos))
  dx = jax.jit(mjx.forward)(mx, dx)
  con = dx.contact
  geom = np.array(con.geom) if hasattr(con, "geom") else np.stack([np.array(con.geom1), np.array(con.geom2)], 1)
  dist = np.array(con.dist)
  keep = [float(x) for (a, b), x in zip(geom, dist) if {int(a), int(b)} == {post, roller} and x < 0]
  step = jax.jit(mjx.step)
  z0 = float(d.qpos[0])
  zmin = z0
  for _ in range(int(round(0.5 / m.opt.timestep))):
    dx = step(mx, dx)
    zmin = min(zmin, float(dx.qpos[0]))
  sink = z0 - zmin
  msg = (f"roller-post contacts at the start: C {len(c_pairs)} (dist {min(c_pairs) if c_pairs else float('nan'):.4f}), "
         f"MJX {len(keep)} penetrating; roller sinks {sink*1000:.1f} mm in 0.5 s (bound 10 mm)")
  if (c_pairs and not keep) or sink > 0.01:
    return "BUG: " + msg
  return "ok: " + msg


PROBES = {
    "mujoco-3.15.0-mirrored-mesh-polynormal": probe_mirrored_mesh_contacts,
    "mjx-a4df9120": probe_mjx_capsule_broadphase,
}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
