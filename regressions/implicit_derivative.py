"""The measurement behind the law the blind misses ask for (regressions/README.md, "Blind measurement"): the
implicitfast step's velocity derivative (mjData.qDeriv after mj_step) against the central difference of
qfrc_actuator + qfrc_passive over qvel through mj_forward, at ten states of a seeded 1 s run; the largest gap over
the largest entry. Not a law of the pack.

    python regressions/implicit_derivative.py MODEL.xml
"""

from __future__ import annotations

import copy
import sys

import mujoco
import numpy as np


def dense_qderiv(m: mujoco.MjModel, d: mujoco.MjData) -> np.ndarray:
    """qDeriv as a dense nv x nv matrix (its sparsity lives in mjModel from 3.3, in mjData before)."""
    layout = m if hasattr(m, "D_rownnz") else d
    out = np.zeros((m.nv, m.nv))
    for i in range(m.nv):
        for k in range(layout.D_rownnz[i]):
            adr = layout.D_rowadr[i] + k
            out[i, layout.D_colind[adr]] = d.qDeriv[adr]
    return out


def central_difference(m: mujoco.MjModel, d: mujoco.MjData, h: float = 1e-6) -> np.ndarray:
    """d(qfrc_actuator + qfrc_passive)/d(qvel) through MuJoCo's forward pass, column by column."""
    out = np.zeros((m.nv, m.nv))
    for j in range(m.nv):
        forces = []
        for sign in (1, -1):
            probe = copy.copy(d)
            probe.qvel[j] += sign * h
            mujoco.mj_forward(m, probe)
            forces.append(probe.qfrc_actuator + probe.qfrc_passive)
        out[:, j] = (forces[0] - forces[1]) / (2 * h)
    return out


def main(path: str) -> str:
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(1)
    worst = 0.0
    for i in range(500):
        if i % 50 == 0 and m.nu:
            d.ctrl[:] = rng.uniform(m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1])
        if i % 50 == 25:
            mujoco.mj_forward(m, d)
            fd = central_difference(m, d)
            stepped = copy.copy(d)
            mujoco.mj_step(m, stepped)  # qDeriv as the step computed it, at this state
            analytic = dense_qderiv(m, stepped)
            scale = max(1e-12, float(np.max(np.abs(fd))), float(np.max(np.abs(analytic))))
            worst = max(worst, float(np.max(np.abs(analytic - fd))) / scale)
        mujoco.mj_step(m, d)
    return (f"mujoco {mujoco.__version__} {path.split('/')[-1]}: qDeriv against the forces' central difference, "
            f"largest gap {worst:.3g} of the largest entry")


if __name__ == "__main__":
    print(main(sys.argv[1]))
