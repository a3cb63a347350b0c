"""Round 13: defects the pack's laws found on real models after they were written (not blind):
`model-saved-keeps-its-edits` on Meta-World's (mj_saveLastXML leaves out inertiagrouprange, to 3.14) and
`model-attached-into-a-scene-is-the-model` on MuJoCo's own model and test folders (an attach drops a connect to the
world and a flexcomp, to 3.17; a tendon wrapped over a geom, 3.3 to 3.5, found by `regressions/releases.py` on its muscle
arm). The probes stand apart from the pack.

Run: python found_by_laws.py <ID> [model.xml]
"""
import os
import sys
import tempfile

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round13")


def probe_savexml_inertiagrouprange(fname="mujoco-3.15.0-savexml-inertiagrouprange_trigger.xml"):
  """mj_saveLastXML of a model whose compiler counts only some geom groups' mass (inertiagrouprange) must load back
  with the same masses: the mug weighs 0.3 kg by its collision cylinder; its visual geoms carry no mass."""
  path = fname if os.path.isabs(fname) else os.path.join(HERE, fname)
  model = mujoco.MjModel.from_xml_path(path)
  with tempfile.TemporaryDirectory() as folder:
    saved = os.path.join(folder, "saved.xml")
    mujoco.mj_saveLastXML(saved, model)
    again = mujoco.MjModel.from_xml_path(saved)
  mug = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "mug")
  apart = float(np.max(np.abs(model.body_mass - again.body_mass)))
  line = (f"{mujoco.__version__} mug saved with mj_saveLastXML and loaded: {model.body_mass[mug]:.4f} kg as loaded, "
          f"{again.body_mass[mug]:.4f} kg saved (largest body mass difference {apart:.4g} kg)")
  return ("BUG: " if apart > 1e-4 else "ok: ") + line


def _attached(path):
  """The model at `path` attached at a frame of an empty scene (its sizes given to the scene), compiled."""
  child = mujoco.MjSpec.from_file(path)
  scene = mujoco.MjSpec()
  scene.attach(child, prefix="scene_", frame=scene.worldbody.add_frame())
  return scene.compile()


def _probe_attach_keeps(fname, what, count_name):
  path = fname if os.path.isabs(fname) else os.path.join(HERE, fname)
  model = mujoco.MjModel.from_xml_path(path)
  scene = _attached(path)
  alone, attached = getattr(model, count_name), getattr(scene, count_name)
  line = (f"{mujoco.__version__} the model attached into an empty scene (MjSpec.attach at a frame): {what} "
          f"{alone} alone, {attached} attached")
  return ("BUG: " if attached != alone else "ok: ") + line


def probe_attach_world_connect(fname="mujoco-4.0.0-attach-world-connect_trigger.xml"):
  """A connect from a body to the world survives an attach of its model into a scene."""
  return _probe_attach_keeps(fname, "equality constraints", "neq")


def probe_attach_flexcomp(fname="mujoco-4.0.0-attach-flexcomp_trigger.xml"):
  """A flexcomp survives an attach of its model into a scene."""
  return _probe_attach_keeps(fname, "flexes", "nflex")


def probe_attach_tendon_wrap(fname="mujoco-3.6.0-attach-tendon-wrap_trigger.xml"):
  """A spatial tendon wrapped over a geom survives an attach of its model into a scene."""
  return _probe_attach_keeps(fname, "tendons", "ntendon")


PROBES = {"mujoco-3.15.0-savexml-inertiagrouprange": probe_savexml_inertiagrouprange,
          "mujoco-4.0.0-attach-world-connect": probe_attach_world_connect,
          "mujoco-4.0.0-attach-flexcomp": probe_attach_flexcomp,
          "mujoco-3.6.0-attach-tendon-wrap": probe_attach_tendon_wrap}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
