"""Round 12 probes, area: constraints (joint and tendon limits and their margins; equality constraints: connect, weld,
joint, tendon, flex; frictionloss; pyramidal/elliptic friction cones; solref/solimp incl. negative solref; the
PGS/CG/Newton solvers and their sparse/dense paths; noslip; islands; warmstart; efc_force and qfrc_constraint).

No case was confirmed in this area in round 12 (see the round's report): PROBES is empty.
Run: python constraints.py <ID> [model.xml]
"""
import os
import sys

import mujoco  # noqa: F401  (kept for the module layout shared by the round's probes)
import numpy as np  # noqa: F401

_HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(_HERE, "models")
if not os.path.isdir(MODELS):
  MODELS = os.path.join(os.path.dirname(_HERE), "models", "round12")


def _path(fname):
  return fname if os.path.isabs(fname) or os.path.exists(fname) else os.path.join(MODELS, fname)


PROBES = {}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
