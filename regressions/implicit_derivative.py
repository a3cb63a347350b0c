"""The measurement behind the law the blind misses ask for (regressions/README.md, "Blind measurement"): the
implicitfast step's velocity derivative (mjData.qDeriv after mj_step) against the central difference of
qfrc_actuator + qfrc_passive over qvel through mj_forward, at ten states of a seeded 1 s run; the largest gap over
the largest entry. Not a law of the pack.

    python regressions/implicit_derivative.py MODEL.xml
"""
import copy, sys
import mujoco, numpy as np
m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m); rng = np.random.default_rng(1)
def dense(d):
    s = m if hasattr(m, "D_rownnz") else d
    out = np.zeros((m.nv, m.nv))
    for i in range(m.nv):
        for k in range(s.D_rownnz[i]):
            out[i, s.D_colind[s.D_rowadr[i] + k]] = d.qDeriv[s.D_rowadr[i] + k]
    return out
worst = 0.0
for i in range(500):
    if i % 50 == 0:
        d.ctrl[:] = rng.uniform(m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]) if m.nu else 0
    if i % 50 == 25:
        mujoco.mj_forward(m, d)
        fd = np.zeros((m.nv, m.nv))
        for j in range(m.nv):
            f = []
            for s in (1, -1):
                p = copy.copy(d); p.qvel[j] += s * 1e-6; mujoco.mj_forward(m, p)
                f.append(p.qfrc_actuator + p.qfrc_passive)
            fd[:, j] = (f[0] - f[1]) / 2e-6
        p = copy.copy(d); mujoco.mj_step(m, p)
        an = dense(p)
        worst = max(worst, np.max(np.abs(an - fd)) / max(1e-12, np.max(np.abs(fd)), np.max(np.abs(an))))
    mujoco.mj_step(m, d)
print(mujoco.__version__, sys.argv[1].split("/")[-1], f"qDeriv against the forces' central difference: largest gap {worst:.3g} of the largest entry")
