"""Round 11 probes, area: constraints (equality constraints: weld, connect, joint, tendon, flex; joint and tendon
limits and their margins; frictionloss; solref/solimp and soft-constraint parameters; impedance; noslip;
pyramidal/elliptic friction cones; the PGS/CG/Newton solvers and their warmstart; islands; efc_force and
qfrc_constraint).

No case was confirmed in this area in round 11 (see the round's report): PROBES is empty.
Run: python constraints.py <ID> [model.xml]
"""
import os
import sys

import mujoco  # noqa: F401  (kept for the module layout shared by the round's probes)
import numpy as np  # noqa: F401

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round11")


def _path(fname):
  return fname if os.path.isabs(fname) else os.path.join(MODELS, fname)


PROBES = {}
CASES = PROBES  # the name confirm.py reads

if __name__ == "__main__":
  cid = sys.argv[1]
  args = sys.argv[2:]
  print(PROBES[cid](*args))
