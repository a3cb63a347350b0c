"""Round 13: a defect the pack's law `model-saved-keeps-its-edits` found on real models (Meta-World's, on the pinned
MuJoCo 3.14.0) after it was written: not blind. The probe stands apart from the pack.

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


PROBES = {"mujoco-3.15.0-savexml-inertiagrouprange": probe_savexml_inertiagrouprange}
CASES = PROBES

if __name__ == "__main__":
  print(PROBES[sys.argv[1]](*sys.argv[2:]))
