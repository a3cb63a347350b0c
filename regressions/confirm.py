"""The direct measurement of each regression in cases.json, run inside one environment: a figure of the symptom
itself, the fix's own expectation or MuJoCo's own diagnostic, not a law of the pack.

    python regressions/confirm.py CASE_ID    prints one line: the case, MuJoCo's version, the figure
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions

HERE = Path(__file__).resolve().parent


def _model(name: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_path(str(HERE / "models" / name))


def gravcomp_nested() -> str:
    """The fix's own test: the compensated payload (gravcomp 1.2) lifts its carrier at about +2 m/s^2; dropped,
    the carrier falls at -10."""
    m = _model("mujoco_3066_gravcomp_nested.xml")
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return f"carrier qacc_z {d.qacc[2]:+.3f} m/s^2 (fix's test: about +2.0; dropped compensation: -10)"


def fourbar_sites() -> str:
    """The same four-bar closed by sites and by a body anchor, under the same seeded torques for 1 s: a site connect
    means the same constraint, so the two runs agree to round-off."""
    ends = []
    for name in ("mujoco_2179_fourbar_sites.xml", "mujoco_2179_fourbar_anchor.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        rng = np.random.default_rng(1)
        for i in range(500):
            if i % 25 == 0:
                d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            mujoco.mj_step(m, d)
        ends.append(d.qpos.copy())
    return f"site vs anchor four-bar after 1 s: max abs qpos difference {np.max(np.abs(ends[0] - ends[1])):.3g} rad"


def tendon_armature() -> str:
    """Inverse dynamics against forward dynamics' own mass matrix (`mj_fullM`, tendon armature in): what
    `mj_inverse` returns, less M qacc + bias - passive - constraint, set beside the tendon armature's own term
    armature J_t^T J_t qacc (MuJoCo's `ten_J`). (MuJoCo's fwdinv diagnostic, `mj_compareFwdInv`, reads 0 on both
    versions: it goes through the same inverse dynamics.)"""
    m = _model("mujoco_4ce62932_tendon_armature.xml")
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    want = mujoco_versions.full_mass(m, d) @ d.qacc + d.qfrc_bias - d.qfrc_passive - d.qfrc_constraint
    jac = np.asarray(d.ten_J).reshape(m.ntendon, m.nv)
    term = (m.tendon_armature[:, None] * jac).T @ (jac @ d.qacc)
    inv = copy.copy(d)
    mujoco.mj_inverse(m, inv)
    return (f"qfrc_inverse - (M qacc + bias - passive - constraint) = {np.round(inv.qfrc_inverse - want, 4)}; "
            f"the tendon armature's term: {np.round(term, 4)}")


def weld_sensors() -> str:
    """Sensors at joints that transmit nothing along themselves: a torque sensor at a free ball joint of an arm welded
    to a body, and at a free hinge, read no torque (the ball's whole torque, the hinge's along its axis), over 1 s."""
    m = _model("mujoco_weld_wrench_two_bodies.xml")
    d = mujoco.MjData(m)
    ball = hinge = 0.0
    adr = {m.sensor(s).name: int(m.sensor_adr[s]) for s in range(m.nsensor)}
    for _ in range(500):
        mujoco.mj_step(m, d)
        ball = max(ball, float(np.linalg.norm(d.sensordata[adr["shoulder_torque"]: adr["shoulder_torque"] + 3])))
        hinge = max(hinge, abs(float(d.sensordata[adr["wrist_torque"] + 2])))
    return f"torque sensor at the free ball shoulder {ball:.3g} N m, about the free wrist hinge {hinge:.3g} N m"


def midpoint_spin() -> str:
    """The fix's own scene (an ellipsoid spun on a plane, implicitfast): no actuator, a dissipative contact, so the
    energy (kinetic and potential, `mjData.energy`) never rises above its start over 10 s."""
    m = _model("mujoco_910b3336_midpoint_spin.xml")
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    start, top = float(np.sum(d.energy)), -np.inf
    for _ in range(int(round(10.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        top = max(top, float(np.sum(d.energy)))
    return f"energy at the start {start:.4g} J, highest over 10 s {top:.4g} J"


def slider_crank() -> str:
    """The slider-crank's moment arm, as MuJoCo applied it, against its length's slope along the hinge (central
    difference), over 1 s of a servo driven to seeded targets: equal, or growing apart where each step adds to
    the last step's arm."""
    m = _model("mujoco_3_2_5_slider_crank.xml")
    d = mujoco.MjData(m)
    rng, worst = np.random.default_rng(1), 0.0
    for i in range(500):
        if i % 25 == 0:
            d.ctrl[:] = rng.uniform(-0.1, 0.1, m.nu)
        mujoco.mj_step(m, d)
        if i % 50 == 49:
            mujoco.mj_forward(m, d)  # the arm at this position (a step leaves the one of the position before)
            arm = float(mujoco_versions.actuator_moments(m, d)[0, 0])
            lengths = []
            for sign in (1, -1):
                probe = copy.copy(d)
                probe.qpos[0] += sign * 1e-6
                mujoco.mj_fwdPosition(m, probe)
                lengths.append(float(probe.actuator_length[0]))
            worst = max(worst, abs(arm - (lengths[0] - lengths[1]) / 2e-6))
    return f"largest |moment arm - dlength/dq| over 1 s: {worst:.3g} m"


def _warp_against_c(name: str, seconds: float, ctrl: float = 0.0) -> str:
    """The largest joint speed over `seconds` on MuJoCo Warp (one world, its default device) and on MuJoCo C, from
    the model's keyframe (or qpos0) with the controls at `ctrl`."""
    import mujoco_warp as mjw
    import warp as wp

    m = _model(name)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    d.ctrl[:] = ctrl
    mujoco.mj_forward(m, d)
    steps = int(round(seconds / m.opt.timestep))
    wm, wd = mjw.put_model(m), mjw.put_data(m, d)
    route = 0.0
    for _ in range(steps):
        mjw.step(wm, wd)
        route = max(route, float(np.max(np.abs(wd.qvel.numpy()))))
    wp.synchronize()
    c = 0.0
    for _ in range(steps):
        mujoco.mj_step(m, d)
        c = max(c, float(np.max(np.abs(d.qvel))))
    return f"largest joint speed over {seconds:g} s: MuJoCo Warp {route:.3g}, MuJoCo C {c:.3g} (rad/s or m/s)"


def implicit_two_hinges() -> str:
    """The fix's own scene: MJWarp's implicit integrator with the Coriolis derivative's sign flipped runs away."""
    return _warp_against_c("mujoco_warp_1662_implicit_two_hinges.xml", 10.0)


def free_body_before_servo() -> str:
    """A free body before a damped servo, implicitfast, sparse: without the servo's kv in the implicit matrix the
    light arm's damping is explicit, and unstable at this step."""
    return _warp_against_c("mujoco_warp_1333_free_body_before_servo.xml", 1.0, ctrl=0.5)


def newton_unsorted_inertia() -> str:
    """One step from rest under the servo's control 1, Newton's SolverMuJoCo on MuJoCo's CPU backend against MuJoCo C
    on the same file (the file's Euler integrator passed to Newton, its controls taken as the file's): the joint
    speed each reaches, and the hinge's inertia in each compiled model (MuJoCo's own mass matrix, `mj_fullM`)."""
    import newton
    from newton.solvers import SolverMuJoCo

    path = str(HERE / "models" / "newton_3017_unsorted_inertia.xml")
    m = _model("newton_3017_unsorted_inertia.xml")
    d = mujoco.MjData(m)
    d.ctrl[:] = 1.0
    mujoco.mj_step(m, d)
    builder = newton.ModelBuilder()
    builder.add_mjcf(path, ctrl_direct=True)
    model = builder.finalize(device="cpu")
    solver = SolverMuJoCo(model, use_mujoco_cpu=True, integrator=int(m.opt.integrator))
    state_in, state_out, control = model.state(), model.state(), model.control()
    control.mujoco.ctrl.assign(np.ones(m.nu, dtype=np.float32))
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_in)
    solver.step(state_in, state_out, control, None, m.opt.timestep)
    inertia = []
    for mm in (solver.mj_model, m):
        dd = mujoco.MjData(mm)
        mujoco.mj_forward(mm, dd)
        inertia.append(mujoco_versions.full_mass(mm, dd)[0, 0])
    return (f"newton {newton.__version__}: joint speed after one step, Newton {solver.mj_data.qvel[0]:.6g}, MuJoCo C "
            f"{d.qvel[0]:.6g} rad/s (ratio {solver.mj_data.qvel[0] / d.qvel[0]:.4f}); hinge inertia in Newton's CPU "
            f"model {inertia[0]:.5g}, in MuJoCo's {inertia[1]:.5g} kg m^2")


def ccd_margin_dist() -> str:
    """The fix's own expectation: a contact's `dist` is the surfaces' distance, the same on MuJoCo Warp's CCD path as
    in MuJoCo C. The ball is set 1 mm above the table, inside the pair's 2 mm margin, and one forward pass of each
    reports the contacts' distances."""
    import mujoco_warp as mjw
    import warp as wp

    m = _model("mujoco_warp_1188_ccd_margin_ball_on_mesh_table.xml")
    d = mujoco.MjData(m)
    d.qpos[2] = 0.101 + m.geom_size[m.geom("ball").id, 0]  # 1 mm above the table's top at z = 0.1
    mujoco.mj_forward(m, d)
    wm, wd = mjw.put_model(m), mjw.put_data(m, d)
    mjw.forward(wm, wd)
    wp.synchronize()
    nacon = int(wd.nacon.numpy()[0])
    route = wd.contact.dist.numpy()[:nacon]
    c = d.contact.dist[: d.ncon]
    return (f"contact dist with the ball 1 mm above the table (pair margin {1000 * d.contact.includemargin[0]:.3g} "
            f"mm): MuJoCo Warp {_mm(route)}, MuJoCo C {_mm(c)} mm")


def _mm(dist: np.ndarray) -> str:
    return f"{1000 * dist.min():.3g}..{1000 * dist.max():.3g}" if dist.size else "no contact"


def mjx_frictionloss() -> str:
    """The fix's own check on the trigger: MJX's acceleration (`mjx.forward`, float32: JAX's default and what the
    route runs) against C's on the same state, the two hinges at rest under torques below their frictionloss
    (the friction rows in their quadratic zone)."""
    import jax
    from mujoco import mjx

    m = _model("mjx_22e4f7fc3_frictionloss.xml")
    d = mujoco.MjData(m)
    d.ctrl[:] = [0.5, -0.2]
    mujoco.mj_forward(m, d)
    got = np.asarray(jax.jit(mjx.forward)(mjx.put_model(m), mjx.put_data(m, d)).qacc, dtype=float)
    gap = np.max(np.abs(got - d.qacc)) / np.max(np.abs(d.qacc))
    return (f"qacc at rest under torques (0.5, -0.2): MJX {np.round(got, 3)}, C {np.round(d.qacc, 3)} rad/s^2 "
            f"(largest difference {gap:.2g} of C's largest; jax {jax.__version__}, float32)")


def mjx_direct_solref() -> str:
    """The box resting on C for 1 s; at C's state, MJX's vertical acceleration of the box (C's: zero, at rest), and
    where MJX alone carries the box in 1 s from the start (float32)."""
    import jax
    from mujoco import mjx

    m = _model("mjx_1668_direct_solref.xml")
    d = mujoco.MjData(m)
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
    mx = mjx.put_model(m)
    at_c = float(jax.jit(mjx.forward)(mx, mjx.put_data(m, d)).qacc[2])
    dx, step = mjx.make_data(mx), jax.jit(mjx.step)
    for _ in range(int(round(1.0 / m.opt.timestep))):
        dx = step(mx, dx)
    return (f"box at rest on C's contact: vertical qacc MJX {at_c:.3g}, C {d.qacc[2]:.2g} m/s^2; height after 1 s "
            f"MJX {1000 * float(dx.qpos[2]):.2f}, C {1000 * d.qpos[2]:.2f} mm (jax {jax.__version__}, float32)")


def mjx_actuator_force() -> str:
    """The servo arm held by C for 1 s; at C's state (its qpos and qvel put on MJX's own fresh Data: `put_data`
    would copy C's forces in), the servos' force as MJX reports it (`Data.actuator_force`) against C's."""
    import jax
    from mujoco import mjx

    m = _model("mjx_2068_servo_arm.xml")
    d = mujoco.MjData(m)
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
    mx = mjx.put_model(m)
    at_c = mjx.make_data(mx).replace(qpos=np.array(d.qpos), qvel=np.array(d.qvel))
    got = np.asarray(jax.jit(mjx.forward)(mx, at_c).actuator_force, dtype=float)
    return f"servo forces of the held arm: MJX {np.round(got, 3)}, C {np.round(d.actuator_force, 3)} N m (jax {jax.__version__})"


CASES = {"mujoco-3066": gravcomp_nested, "mujoco-2179": fourbar_sites, "mujoco-4ce62932": tendon_armature,
         "mujoco-warp-1662": implicit_two_hinges, "mujoco-warp-1333": free_body_before_servo,
         "mujoco-weld-sensors": weld_sensors, "mujoco-910b3336": midpoint_spin,
         "mujoco-3.2.5-slider-crank": slider_crank, "newton-3017": newton_unsorted_inertia,
         "mujoco-warp-1188": ccd_margin_dist, "mjx-22e4f7fc3": mjx_frictionloss,
         "mjx-1668": mjx_direct_solref, "mjx-2068": mjx_actuator_force}

if __name__ == "__main__":
    case = sys.argv[1]
    print(f"{case} mujoco {mujoco.__version__}: {CASES[case]()}")
