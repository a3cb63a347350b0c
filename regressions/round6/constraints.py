"""Probes for the constraints/passive-force bug cases.  mujoco + numpy only.

usage: python probe.py <id> [model.xml]     (default model: <id>_trigger.xml next to this file)
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "round6")  # the scenes


def _path(cid, fname):
    return os.path.join(HERE, fname or f"{cid}_trigger.xml")


# ----------------------------------------------------------------------------------------------
# helpers
def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1*w2 - x1*x2 - y1*y2 - z1*z2,
                     w1*x2 + x1*w2 + y1*z2 - z1*y2,
                     w1*y2 - x1*z2 + y1*w2 + z1*x2,
                     w1*z2 + x1*y2 - y1*x2 + z1*w2])


def _rotvec(q):
    """rotation vector of unit quaternion q (w, x, y, z), shortest arc"""
    q = np.asarray(q, float) / np.linalg.norm(q)
    if q[0] < 0:
        q = -q
    s = np.linalg.norm(q[1:])
    if s < 1e-15:
        return 2.0 * q[1:]
    ang = 2.0 * np.arctan2(s, q[0])
    return ang * q[1:] / s


# ----------------------------------------------------------------------------------------------
# case 1: potential energy of a free-joint spring (mj_energyPos)
def free_spring_energy(fname=None):
    """Compare d.energy[0] with the analytic potential energy
         V = sum_b m_b g h_b  +  sum_free 1/2 k (|p - p_spring|^2 + |rotvec(q_spring^-1 q)|^2)
    along 0.5 s of simulation from keyframe 0."""
    m = mujoco.MjModel.from_xml_path(_path("mujoco-9accc7ae", fname))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    g = m.opt.gravity
    errs, vals = [], []
    for step in range(int(round(0.5 / m.opt.timestep)) + 1):
        mujoco.mj_forward(m, d)
        V = -sum(m.body_mass[b] * np.dot(g, d.xipos[b]) for b in range(1, m.nbody))
        for j in range(m.njnt):
            if m.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE:
                continue
            k = m.jnt_stiffness[j]
            a = m.jnt_qposadr[j]
            dp = d.qpos[a:a+3] - m.qpos_spring[a:a+3]
            q0 = m.qpos_spring[a+3:a+7] * np.array([1, -1, -1, -1])
            dr = _rotvec(_qmul(q0, d.qpos[a+3:a+7]))
            V += 0.5 * k * (dp @ dp + dr @ dr)
        errs.append(abs(d.energy[0] - V))
        vals.append((d.energy[0], V))
        mujoco.mj_step(m, d)
    i = int(np.argmax(errs))
    return (f"free_spring_energy: max|energy[0]-V_analytic| = {max(errs):.6g} J over 0.5 s "
            f"(t=0: energy[0]={vals[0][0]:.6f} J, analytic V={vals[0][1]:.6f} J; "
            f"worst t={i*m.opt.timestep:.3f}s: {vals[i][0]:.6f} vs {vals[i][1]:.6f}) "
            f"mujoco {mujoco.__version__}")


# ----------------------------------------------------------------------------------------------
# case 2: ellipsoid fluid model, reference implementation of the documented formulas
def _ellipsoid_fluid_local(lvel, rho, mu, s, coef):
    """lvel = [ang(3), lin(3)] in the geom frame; s = semi-axes; coef = geom_fluid row.
    Computed in normalized (dimensionless) form so that no clamping can occur."""
    interaction, blunt, slender, angdrag, kutta, magnus = coef[:6]
    vmass, vinert = coef[6:9], coef[9:12]
    w = np.asarray(lvel[:3], float)
    v = np.asarray(lvel[3:], float)
    f = np.zeros(6)
    # added mass
    pv = rho * vmass * v
    pw = rho * vinert * w
    f[3:] += np.cross(pv, w)
    f[:3] += np.cross(pv, v) + np.cross(pw, w)
    # viscous / lift
    vol = 4.0 / 3.0 * np.pi * s[0] * s[1] * s[2]
    dmax, dmin = s.max(), s.min()
    dmid = s.sum() - dmax - dmin
    Amax = np.pi * dmax * dmid
    f[3:] += magnus * rho * vol * np.cross(w, v)
    speed = np.linalg.norm(v)
    if speed > 0:
        u = v / speed
        sn = s / dmax
        n = np.array([(sn[1]*sn[2])**2 * u[0], (sn[2]*sn[0])**2 * u[1], (sn[0]*sn[1])**2 * u[2]])
        nn = np.linalg.norm(n)
        cos_a = (n @ u) / nn                      # cosine between velocity and projected-area normal
        Aproj = np.pi * dmax**2 * nn / np.sqrt(n @ u) if n @ u > 0 else 0.0
        # Kutta lift: rho * kutta * cos_a * Aproj * (nhat x v) x v
        nhat = n / nn
        f[3:] += kutta * rho * cos_a * Aproj * np.cross(np.cross(nhat, v), v)
    else:
        Aproj = 0.0
    D = 2.0 / 3.0 * s.sum()
    lin_visc = 3.0 * np.pi * D
    ang_visc = np.pi * D**3
    def Imom(i):
        d0, d1, d2 = s[i], s[(i+1) % 3], s[(i+2) % 3]
        return 8.0/15.0 * np.pi * d0 * max(d1, d2)**4
    Imax = 8.0/15.0 * np.pi * dmid * dmax**4
    II = np.array([Imom(0), Imom(1), Imom(2)])
    momv = w * (angdrag * II + slender * (Imax - II))
    drag_lin = mu * lin_visc + rho * speed * (Aproj * blunt + slender * (Amax - Aproj))
    drag_ang = mu * ang_visc + rho * np.linalg.norm(momv)
    f[:3] -= drag_ang * w
    f[3:] -= drag_lin * v
    return interaction * f


def ellipsoid_fluid(fname=None):
    """Simulate 0.4 s from rest; at every 0.05 s compare qfrc_fluid with the documented ellipsoid
    model evaluated (in dimensionless form) from the same state.  Reports the worst relative error."""
    m = mujoco.MjModel.from_xml_path(_path("mujoco-3.14.0-ellipsoid-fluid", fname))
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    worst = (0.0, None, None, 0.0)
    nstep = int(round(0.4 / m.opt.timestep))
    every = int(round(0.05 / m.opt.timestep))
    for step in range(nstep + 1):
        mujoco.mj_forward(m, d)
        if step % every == 0 and step > 0:
            ref = np.zeros(m.nv)
            for g in range(m.ngeom):
                b = m.geom_bodyid[g]
                if b == 0 or m.geom_fluid[g, 0] == 0:
                    continue
                lvel = np.zeros(6)
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_GEOM, g, lvel, 1)
                assert not np.any(m.opt.wind)
                s = np.array(m.geom_size[g], float)
                if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE:
                    s = np.array([s[0]] * 3)
                lf = _ellipsoid_fluid_local(lvel, m.opt.density, m.opt.viscosity, s, m.geom_fluid[g])
                R = d.geom_xmat[g].reshape(3, 3)
                frc, trq = R @ lf[3:], R @ lf[:3]
                q = np.zeros(m.nv)
                mujoco.mj_applyFT(m, d, frc, trq, d.geom_xpos[g], b, q)
                ref += q
            err = np.linalg.norm(d.qfrc_fluid - ref) / max(np.linalg.norm(ref), 1e-300)
            if err >= worst[0]:
                worst = (err, d.qfrc_fluid[:3].copy(), ref[:3].copy(), d.time)
        mujoco.mj_step(m, d)
    e, got, ref, t = worst
    return (f"ellipsoid_fluid: worst |qfrc_fluid - model|/|model| = {e:.4g} at t={t:.2f}s "
            f"(force got {np.array2string(got, precision=6)} N, expected {np.array2string(ref, precision=6)} N) "
            f"mujoco {mujoco.__version__}")


# ----------------------------------------------------------------------------------------------
# case 3: spatial tendon wrapping a geom without sidesite, attached with a name prefix
def attach_tendon(fname=None):
    """The attached child declares its tendons; the compiled parent must contain them all, and at the
    same joint angles the tendon spring must produce the same elbow torque as the child alone."""
    path = _path("mujoco-6ec808e2", fname)
    m = mujoco.MjModel.from_xml_path(path)
    child = mujoco.MjModel.from_xml_path(os.path.join(HERE, "mujoco-6ec808e2_child.xml"))
    dc = mujoco.MjData(child)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    # same joint angles in the child
    names = [mujoco.mj_id2name(child, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(child.njnt)]
    for j, nm in enumerate(names):
        pj = [i for i in range(m.njnt) if (mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, i) or "").endswith(nm)]
        dc.qpos[child.jnt_qposadr[j]] = d.qpos[m.jnt_qposadr[pj[0]]]
    mujoco.mj_forward(child, dc)
    el_c = child.jnt_dofadr[mujoco.mj_name2id(child, mujoco.mjtObj.mjOBJ_JOINT, "elbow")]
    el_p = [m.jnt_dofadr[i] for i in range(m.njnt)
            if (mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, i) or "").endswith("elbow")][0]
    tau_c = dc.qfrc_spring[el_c] if hasattr(dc, "qfrc_spring") else dc.qfrc_passive[el_c]
    tau_p = d.qfrc_spring[el_p] if hasattr(d, "qfrc_spring") else d.qfrc_passive[el_p]
    return (f"attach_tendon: parent has ntendon={m.ntendon} (child declares {child.ntendon}), "
            f"nwrap={m.nwrap} (child {child.nwrap}); elbow spring torque {tau_p:.6f} N m vs child alone "
            f"{tau_c:.6f} N m (diff {abs(tau_p - tau_c):.6g}) mujoco {mujoco.__version__}")


CASES = {
    "mujoco-9accc7ae": free_spring_energy,
    "mujoco-3.14.0-ellipsoid-fluid": ellipsoid_fluid,
    "mujoco-6ec808e2": attach_tendon,
}

if __name__ == "__main__":
    cid = sys.argv[1]
    fn = CASES[cid]
    try:
        print(fn(sys.argv[2] if len(sys.argv) > 2 else None))
    except Exception as e:  # e.g. a release that cannot load the model
        print(f"{fn.__name__}: cannot run: {str(e).splitlines()[0]} mujoco {mujoco.__version__}")
