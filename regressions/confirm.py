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


def _settle(m: mujoco.MjModel, d: mujoco.MjData, seconds: float) -> None:
    for _ in range(int(round(seconds / m.opt.timestep))):
        mujoco.mj_step(m, d)


def weld_torquescale(name: str = "mujoco_86d9c84e_weld_torquescale.xml") -> str:
    """A constraint's residual changes at the rate its Jacobian gives: d(efc_pos)/dt = efc_J qvel (MuJoCo's own
    efc_vel), per weld row, at the states of 1 s of the lid sagging on its soft weld; the residual's change over a
    1e-7 s step of the positions (`mj_integratePos`) against efc_vel, the largest ratio over the rotational rows."""
    m = _model(name)
    d = mujoco.MjData(m)
    worst = [0.0, 0.0]
    for i in range(500):
        mujoco.mj_step(m, d)
        if i % 50 != 49:
            continue
        mujoco.mj_forward(m, d)
        rows = np.flatnonzero(d.efc_type[: d.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY)
        probe = copy.copy(d)
        h = 1e-7
        mujoco.mj_integratePos(m, probe.qpos, d.qvel, h)
        mujoco.mj_forward(m, probe)
        rate = (probe.efc_pos[rows] - d.efc_pos[rows]) / h
        vel = d.efc_vel[rows]
        for k, part in enumerate((slice(0, 3), slice(3, 6))):
            big = np.abs(vel[part]) > 1e-6
            if big.any():
                worst[k] = max(worst[k], float(np.max(np.abs(rate[part][big] / vel[part][big]))))
    return (f"weld residual's rate over efc_J qvel, largest over 1 s: translation {worst[0]:.4g}, rotation "
            f"{worst[1]:.4g} (1: the residual and its Jacobian agree; 1/torquescale = 5: the residual left unscaled)")


def refsite_momentum(name: str = "mujoco_cd56a41f_refsite_arm.xml") -> str:
    """The fix's own law: a Cartesian servo between a foot and its own floating body (refsite) is an internal force,
    so it puts no net force or torque on the tree: its generalized force on the free joint's six dofs (the tree's
    net wrench) is zero. Over 1 s of seeded targets: the largest |qfrc_actuator| on the free joint, against the
    servos' largest force."""
    m = _model(name)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(1)
    net = force = 0.0
    for i in range(500):
        if i % 50 == 0:
            d.ctrl[:] = rng.uniform(m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1])
        mujoco.mj_step(m, d)
        net = max(net, float(np.max(np.abs(d.qfrc_actuator[:6]))))
        force = max(force, float(np.max(np.abs(d.actuator_force))))
    return f"servos' net force on the free joint, largest over 1 s: {net:.3g} (their largest force {force:.3g} N)"


def muscle_short(name: str = "mujoco_a14a584f_muscle_short.xml") -> str:
    """A muscle only pulls: its force is never positive, and below lmin its active force is zero (MuJoCo's muscle
    model, FL = 0 outside [lmin, lmax]). Fully activated, over its elbow's range: the largest actuator force, and the
    normalized length where it occurs."""
    m = _model(name)
    d = mujoco.MjData(m)
    lo, hi = m.jnt_range[0]
    top, at = -np.inf, 0.0
    for q in np.linspace(lo, hi, 61):
        d.qpos[0], d.ctrl[:], d.act[:] = q, 1.0, 1.0
        mujoco.mj_forward(m, d)
        prm = m.actuator_gainprm[0]
        lengthrange = m.actuator_lengthrange[0]
        l0 = (lengthrange[1] - lengthrange[0]) / (prm[1] - prm[0])
        norm = prm[0] + (d.actuator_length[0] - lengthrange[0]) / l0
        if d.actuator_force[0] > top:
            top, at = float(d.actuator_force[0]), float(norm)
    return f"largest muscle force at full activation over the elbow's range {top:.4g} N (at normalized length {at:.3g})"


def disabled_group() -> str:
    """The fix's own test: actuators in a disabled group do nothing, so the arm moves as the same arm without them
    (implicitfast, the same seeded servo targets for 1 s): largest |qpos difference|."""
    ends = []
    for name in ("mujoco_a4bd2bec_disabled_group.xml", "mujoco_a4bd2bec_no_disabled.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        rng = np.random.default_rng(1)
        path = []
        for i in range(500):
            if i % 50 == 0:
                d.ctrl[:2] = rng.uniform(m.actuator_ctrlrange[:2, 0], m.actuator_ctrlrange[:2, 1])
            mujoco.mj_step(m, d)
            path.append(d.qpos.copy())
        ends.append(np.array(path))
    gap = np.max(np.abs(ends[0] - ends[1]))
    return f"arm with disabled brakes against the arm without them, 1 s: largest |qpos difference| {gap:.3g} rad"


def tendon_sidesite() -> str:
    """A sidesite only picks the side the tendon wraps on: over the elbow's range, the tendon's length with the
    sidesite beside the wrap plane (its projection inside the pulley's circle) against the same sidesite moved
    into the plane above the pulley, largest difference."""
    lengths = []
    for name in ("mujoco_3e701b21_tendon_sidesite_off_plane.xml", "mujoco_3e701b21_tendon_sidesite_in_plane.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        row = []
        for q in np.linspace(*m.jnt_range[0], 41):
            d.qpos[0] = q
            mujoco.mj_forward(m, d)
            row.append(float(d.ten_length[0]))
        lengths.append(np.array(row))
    gap = np.max(np.abs(lengths[0] - lengths[1]))
    return f"tendon length, sidesite off the plane against in it, largest gap over the elbow's range: {gap:.3g} m"


def cart_saturated(name: str = "mujoco_b4668294_cart_saturated.xml") -> str:
    """A servo held at its forcerange gives a constant force: no velocity derivative. One implicitfast step from rest,
    the cart's servo saturated (ctrl 1, kv 200, forcerange 2): the velocity change over dt against the forward
    pass's qacc (the same force explicit), ratio."""
    m = _model(name)
    d = mujoco.MjData(m)
    d.ctrl[:] = 1.0
    mujoco.mj_forward(m, d)
    acc = float(d.qacc[0])
    mujoco.mj_step(m, d)
    return (f"cart's dqvel/dt in one step of the file's integrator {d.qvel[0] / m.opt.timestep:.4g}, forward qacc "
            f"{acc:.4g} m/s^2 "
            f"(actuator force {d.actuator_force[0]:.3g} N)")


def fusestatic_table() -> str:
    """A ball dropped 15 cm onto a table top rests on it whether or not the compiler fuses the table into the world:
    the ball's height after 1 s with fusestatic, and without."""
    heights = []
    for name in ("mujoco_96844db9_fusestatic_table.xml", "mujoco_96844db9_static_table.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        _settle(m, d, 1.0)
        heights.append(float(d.qpos[2]))
    return (f"ball height after 1 s: fused table {heights[0]:.4f} m, unfused {heights[1]:.4f} m (table top at 0.52, "
            "ball radius 0.05)")


def box_on_box(name: str = "mujoco_88383684_box_on_box.xml") -> str:
    """The fix's own expectation: a contact's dist is the surfaces' overlap. The crate set 1 mm into the table top
    (both boxes axis-aligned): the box-box contacts' dist."""
    m = _model(name)
    d = mujoco.MjData(m)
    d.qpos[2] = 0.5 + 0.1 - 0.001
    mujoco.mj_forward(m, d)
    crate = m.geom("crate").id
    dist = np.array([c.dist for c in d.contact[: d.ncon] if crate in (c.geom1, c.geom2)])
    return f"crate 1 mm into the box table: {dist.size} contacts, dist {_mm(dist)} mm"


def muscle_order() -> str:
    """The order actuators are listed in does not change the physics: the elbow's muscle and the wrist's damped servo
    listed muscle first against servo first, the same seeded controls by name for 1 s (implicitfast): largest
    |qpos difference|."""
    paths = []
    for name in ("mujoco_0bcaa856_muscle_then_servo.xml", "mujoco_0bcaa856_servo_then_muscle.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        order = [m.actuator("biceps").id, m.actuator("wrist").id]
        rng = np.random.default_rng(1)
        path = []
        for i in range(500):
            if i % 50 == 0:
                d.ctrl[order] = [rng.uniform(0, 1), rng.uniform(-1, 1)]
            mujoco.mj_step(m, d)
            path.append(d.qpos.copy())
        paths.append(np.array(path))
    gap = np.max(np.abs(paths[0] - paths[1]))
    return f"muscle listed first against last, 1 s: largest |qpos difference| {gap:.3g} rad"


def actearly_derivative(name: str = "mujoco_7f74487a_actearly.xml") -> str:
    """The implicit integrator's velocity derivative of the forces (`mjData.qDeriv`, as `mj_step` computed it) against
    their central difference over qvel through MuJoCo's own forward pass, on the same state (an actearly actuator's
    force already uses the next activation), at rest with ctrl 10."""
    m = _model(name)
    d = mujoco.MjData(m)
    d.ctrl[:] = 10.0
    mujoco.mj_forward(m, d)
    slopes = []
    for sign in (1, -1):
        probe = copy.copy(d)
        probe.qvel[0] += sign * 1e-6
        mujoco.mj_forward(m, probe)
        slopes.append(float(probe.qfrc_actuator[0] + probe.qfrc_passive[0]))
    fd = (slopes[0] - slopes[1]) / 2e-6
    step = copy.copy(d)
    mujoco.mj_step(m, step)
    return f"d(force)/d(qvel): implicitfast's qDeriv {float(step.qDeriv[0]):.6g}, central difference {fd:.6g} N s/m"


def mesh_pair_contacts() -> str:
    """How a mesh collides does not depend on whether a pair or contype/conaffinity lets it: the wedge resting on
    the floor after 2 s, through the pair against through contype (the same drop), its contacts' count and dist, and
    whether the compiler made its convex hull (`mesh_graphadr`)."""
    got = []
    for name in ("mujoco_3434f5d9_mesh_pair_only.xml", "mujoco_3434f5d9_mesh_contype.xml"):
        m = _model(name)
        d = mujoco.MjData(m)
        _settle(m, d, 2.0)
        dist = np.array([c.dist for c in d.contact[: d.ncon]])
        got.append(f"{d.ncon} contacts, dist {_mm(dist)} mm, hull {'yes' if m.mesh_graphadr[0] >= 0 else 'no'}")
    return f"resting wedge through the pair: {got[0]}; through contype: {got[1]}"


def mesh_density_mass(name: str = "mujoco_ffca553f_mesh_wedge_density.xml") -> str:
    """A body's mass from its geom's density is the density times the mesh's volume: the compiled body mass against
    density x the volume of the compiled mesh (the signed tetrahedra of its faces about its centre)."""
    m = _model(name)
    g = 1  # the body's one geom (the floor is geom 0)
    mesh = int(m.geom_dataid[g])
    vert = m.mesh_vert[m.mesh_vertadr[mesh]: m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]]
    face = m.mesh_face[m.mesh_faceadr[mesh]: m.mesh_faceadr[mesh] + m.mesh_facenum[mesh]]
    a, b, c = vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]]
    volume = abs(float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c)))) / 6.0)
    want = m.geom_density[g] * volume if hasattr(m, "geom_density") else 800.0 * volume
    return f"body mass {m.body_mass[1]:.4f} kg, density x mesh volume {want:.4f} kg (ratio {m.body_mass[1] / want:.4f})"


def soft_cube_rotated(name: str = "mujoco_fe9dc584_soft_cube_rotated.xml") -> str:
    """The fix's own test: a trilinear flex's elastic force does not depend on how its parent body is turned, so at
    the same local deformation (seeded node offsets of 0.1 mm in the body's frame) qfrc_passive of the cube built in
    a turned body equals the unturned cube's; and its run stays bounded (largest speed over 1 s)."""
    forces = []
    for other in (name, "mujoco_fe9dc584_soft_cube.xml"):
        m = _model(other)
        d = mujoco.MjData(m)
        d.qpos[:] = m.qpos0 + np.random.default_rng(1).uniform(-1e-4, 1e-4, m.nq)
        mujoco.mj_forward(m, d)
        forces.append(d.qfrc_passive.copy())
    m = _model(name)
    d = mujoco.MjData(m)
    top = 0.0
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        top = max(top, float(np.max(np.abs(d.qvel))))
    gap = np.max(np.abs(forces[0] - forces[1])) / np.max(np.abs(forces[1]))
    return (f"elastic force turned against unturned at the same deformation: largest difference {gap:.3g} of the "
            f"largest; largest node speed over 1 s {top:.3g} m/s")


def sparse_newton_tree(name: str = "mujoco_4_0_0_sparse_newton_tree.xml") -> str:
    """The file's run under seeded controls (redrawn every 50 ms, as the pack's driven run) for 0.5 s; at each
    draw the same state solved again with the dense Jacobian: the largest |qacc sparse - qacc dense| over |qacc dense|,
    and the most iterations the sparse solve took there. Two paths of one solve agree to round-off."""
    m = _model(name)
    dense = copy.copy(m)
    dense.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    d = mujoco.MjData(m)
    rng = np.random.default_rng(2024)
    worst, iters = 0.0, 0
    for i in range(int(round(0.5 / m.opt.timestep))):
        if i % int(round(0.05 / m.opt.timestep)) == 0:
            d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            sparse_d, dense_d = copy.copy(d), copy.copy(d)
            mujoco.mj_forward(m, sparse_d)
            mujoco.mj_forward(dense, dense_d)
            scale = max(float(np.max(np.abs(dense_d.qacc))), 1e-12)
            worst = max(worst, float(np.max(np.abs(sparse_d.qacc - dense_d.qacc))) / scale)
            iters = max(iters, int(sparse_d.solver_niter[0]))
        mujoco.mj_step(m, d)
    return f"sparse vs dense qacc over 0.5 s of seeded controls: worst {worst:.3g} of |qacc|; sparse iterations at most {iters}"


def _subtree_inertia(m: mujoco.MjModel, root: int) -> tuple[np.ndarray, np.ndarray]:
    """The subtree of `root` at qpos0: its centre of mass and its inertia tensor about it, in the world frame, summed
    from every body's own mass, frame and principal inertia (MuJoCo's xipos, ximat, body_inertia)."""
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    bodies = [b for b in range(m.nbody) if b == root or root in _ancestors(m, b)]
    mass = m.body_mass[bodies]
    com = (mass[:, None] * d.xipos[bodies]).sum(0) / mass.sum()
    tensor = np.zeros((3, 3))
    for b in bodies:
        rot = d.ximat[b].reshape(3, 3)
        r = d.xipos[b] - com
        tensor += rot @ np.diag(m.body_inertia[b]) @ rot.T + m.body_mass[b] * (r @ r * np.eye(3) - np.outer(r, r))
    return com, tensor


def _ancestors(m: mujoco.MjModel, b: int) -> list[int]:
    out = []
    while b:
        b = int(m.body_parentid[b])
        out.append(b)
    return out


def fused_inertia(name: str) -> str:
    """Fusing a static child body into its parent (fusestatic) does not change the physics: the free body's centre
    of mass and inertia tensor (world frame, at qpos0) compiled with fusestatic against the same file compiled
    without it (its child a body of its own)."""
    text = (HERE / "models" / name).read_text()
    fused = mujoco.MjModel.from_xml_string(text)
    apart = mujoco.MjModel.from_xml_string(text.replace('fusestatic="true"', 'fusestatic="false"'))
    com_f, ten_f = _subtree_inertia(fused, 1)
    com_a, ten_a = _subtree_inertia(apart, 1)
    return (f"fused against unfused ({fused.nbody} against {apart.nbody} bodies): centre of mass "
            f"{np.linalg.norm(com_f - com_a) * 1000:.3g} mm apart, inertia tensor differs by "
            f"{np.max(np.abs(ten_f - ten_a)) / np.max(np.abs(ten_a)):.3g} of its largest entry")


def fused_turned_head(name: str = "mujoco_84c8cf43_fused_turned_head.xml") -> str:
    return fused_inertia(name)


def fused_dumbbell(name: str = "mujoco_0e1e0c7f_fused_dumbbell.xml") -> str:
    return fused_inertia(name)


def mjx_euler_damping(name: str = "mjx_47bb4a82_damped_pendulum.xml") -> str:
    """MJX's Euler step integrates joint damping implicitly, as C's does (qacc from M + h D): the pendulum released
    on C for 0.5 s, then one step of each from C's state: MJX's joint speeds against C's (float32)."""
    import jax
    from mujoco import mjx

    m = _model(name)
    d = mujoco.MjData(m)
    _settle(m, d, 0.5)
    mx = mjx.put_model(m)
    got = np.asarray(jax.jit(mjx.step)(mx, mjx.put_data(m, d)).qvel, dtype=float)
    mujoco.mj_step(m, d)
    gap = np.max(np.abs(got - d.qvel)) / np.max(np.abs(d.qvel))
    return (f"one Euler step from C's state at 0.5 s: qvel MJX {np.round(got, 4)}, C {np.round(d.qvel, 4)} rad/s "
            f"(largest difference {gap:.2g} of C's largest; jax {jax.__version__}, float32)")


def mesh_fit_placement(name: str = "mujoco_98682ae2_wedge_fitaabb.xml") -> str:
    """A geom fitted to a mesh leaves the mesh where its asset puts it: the mesh geom's vertices in its body's frame
    against the asset's own vertex list (the largest offset), and a box fitted to the mesh's bounding box (fitaabb)
    is that box: its centre against the centre of the asset's vertices' bounding box in the box's own frame."""
    import xml.etree.ElementTree as ET

    m = _model(name)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    root = ET.parse(HERE / "models" / name).getroot()
    asset = np.array(root.find("asset/mesh").get("vertex").split(), dtype=float).reshape(-1, 3)
    body = m.body("stop").id
    where = d.xpos[body] + asset @ d.xmat[body].reshape(3, 3).T  # the asset's vertices placed in the body
    moved = centre = 0.0
    for g in range(m.ngeom):
        if m.geom_bodyid[g] != body:
            continue
        rot = d.geom_xmat[g].reshape(3, 3)
        if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            k = m.geom_dataid[g]
            vert = m.mesh_vert[m.mesh_vertadr[k]: m.mesh_vertadr[k] + m.mesh_vertnum[k]]
            placed = d.geom_xpos[g] + vert @ rot.T
            moved = max(moved, float(np.max(np.abs(np.sort(placed, 0) - np.sort(where, 0)))))
        elif m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX:
            local = (where - d.geom_xpos[g]) @ rot
            centre = max(centre, float(np.linalg.norm((local.min(0) + local.max(0)) / 2)))
    fit = (f"{1000 * centre:.3g} mm" if root.find("compiler").get("fitaabb") == "true" else
           "- (fitted to the equivalent-inertia box, centred on the mesh's centre of mass)")
    return (f"mesh geom's vertices from the asset's placement: {1000 * moved:.3g} mm; fitted box's centre from the "
            f"centre of the mesh's bounding box in its frame: {fit}")


def chips_on_blade(name: str = "mujoco_fb07a9ca_chips_on_blade.xml") -> str:
    """The fix's own expectation: two geoms that overlap (`mj_geomDistance` below zero) have a contact. Six thin
    chips dropped on a thin blade for 1 s: of the steps' overlapping pairs (chip-blade, chip-chip), how many had no
    contact."""
    m = _model(name)
    d = mujoco.MjData(m)
    solid = [g for g in range(m.ngeom) if m.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE]
    missed = overlapping = 0
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        touching = {frozenset((int(c.geom1), int(c.geom2))) for c in d.contact[: d.ncon]}
        for i, a in enumerate(solid):
            for b in solid[i + 1:]:
                if m.geom_bodyid[a] != m.geom_bodyid[b] and mujoco.mj_geomDistance(m, d, a, b, 0.01, None) < 0:
                    overlapping += 1
                    missed += frozenset((a, b)) not in touching
    return f"overlapping pairs with no contact over 1 s: {missed} of {overlapping}"


def flex_sparse_rotation(name: str = "mujoco_426cb548_soft_cube_sparse_condim6.xml") -> str:
    """The sparse and the dense constraint Jacobian are two layouts of one matrix: after 0.2 s of the file's run, at
    the same state, `efc_J` (made dense) with `jacobian` sparse against dense, and the two solves' qacc."""
    m = _model(name)
    d = mujoco.MjData(m)
    _settle(m, d, 0.2)
    rows, acc = [], []
    for layout in (mujoco.mjtJacobian.mjJAC_SPARSE, mujoco.mjtJacobian.mjJAC_DENSE):
        other = copy.copy(m)
        other.opt.jacobian = layout
        probe = copy.copy(d)
        mujoco.mj_forward(other, probe)
        n = probe.nefc
        if layout == mujoco.mjtJacobian.mjJAC_SPARSE:
            jac = np.zeros((n, m.nv))
            for r in range(n):
                adr, nnz = probe.efc_J_rowadr[r], probe.efc_J_rownnz[r]
                jac[r, probe.efc_J_colind[adr: adr + nnz]] = probe.efc_J[adr: adr + nnz]
        else:
            jac = np.array(probe.efc_J[: n * m.nv]).reshape(n, m.nv)
        rows.append(jac)
        acc.append(probe.qacc.copy())
    gap = np.max(np.abs(rows[0] - rows[1])) if rows[0].shape == rows[1].shape else float("nan")
    return (f"{d.ncon} contacts (condim {int(m.geom_condim.max())}): efc_J sparse against dense, largest difference "
            f"{gap:.3g} (largest entry {np.max(np.abs(rows[1])):.3g}); qacc {np.max(np.abs(acc[0] - acc[1])):.3g} of "
            f"{np.max(np.abs(acc[1])):.3g}")


def pinned_flex_free_fall(name: str = "mujoco_f9a39413_pinned_flex_on_cart.xml") -> str:
    """The fix's own test: the base and its pinned soft block fall freely, so over 1 s no speed passes g t = 9.81 m/s
    and MuJoCo raises no warning: the largest |qvel| and the warnings raised."""
    m = _model(name)
    d = mujoco.MjData(m)
    top = 0.0
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        top = max(top, float(np.max(np.abs(d.qvel))))
    warned = {mujoco.mjtWarning(i).name: int(w.number) for i, w in enumerate(d.warning) if w.number}
    return f"largest speed over 1 s of free fall {top:.4g} m/s (g t = 9.81); warnings {warned or 'none'}"


def insidesite_flex(name: str = "mujoco_8287d9d1_soft_block_in_bin.xml") -> str:
    """An insidesite sensor reads 1 exactly when its body's centre of mass (`subtree_com`: for a flex's massless
    parent, the flex's) lies inside the site's box: over 1 s of the drop, the steps where the sensor and that
    test, made here from the site's pose and size, disagree."""
    m = _model(name)
    d = mujoco.MjData(m)
    body = int(m.sensor_objid[0])
    site = int(m.sensor_refid[0])
    wrong = inside = 0
    steps = int(round(1.0 / m.opt.timestep))
    for _ in range(steps):
        mujoco.mj_step(m, d)
        local = (d.subtree_com[body] - d.site_xpos[site]) @ d.site_xmat[site].reshape(3, 3)
        want = bool(np.all(np.abs(local) <= m.site_size[site]))
        inside += want
        wrong += want != bool(d.sensordata[0])
    return f"insidesite against the body's centre of mass in the site's box: {wrong} of {steps} steps disagree ({inside} inside)"


def board_on_rollers(name: str = "mujoco_3163_board_on_rollers.xml") -> str:
    """A board laid on two rollers rests on them: its height after 2 s against the rollers' tops plus its half
    thickness (the sink), with the rollers' translational inverse weight (`body_invweight0`: zero for a body whose
    joint cannot move its centre of mass, the value the contacts' regularization is scaled by)."""
    m = _model(name)
    d = mujoco.MjData(m)
    _settle(m, d, 2.0)
    board, roller = m.body("board").id, m.body("roller1").id
    g = m.body_geomadr[roller]
    top = m.body_pos[roller][2] + m.geom_size[g][0]
    rest = top + m.geom_size[m.body_geomadr[board]][2]
    sink = rest - d.xpos[board][2]
    return (f"board's sink below resting on the rollers after 2 s: {1000 * sink:.3g} mm; rollers' translational "
            f"invweight0 {m.body_invweight0[roller][0]:.4g}")


def _run(m: mujoco.MjModel, seconds: float, each) -> mujoco.MjData:
    """The file's own run (from its keyframe, if it has one), calling `each(d)` after every step."""
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    while d.time < seconds:
        mujoco.mj_step(m, d)
        each(d)
    return d


def damper_kv(name: str = "mujoco_faf0dabc_damper_kv_in_default.xml") -> str:
    """A damper's force is -kv ctrl velocity, whether its kv is written on it or on its default class: the median
    of -force / (ctrl velocity) while the pendulum swings 2 s, against the file's kv 0.3."""
    m = _model(name)
    ratios: list[float] = []

    def each(d: mujoco.MjData) -> None:
        for i in range(m.nu):
            if abs(d.actuator_velocity[i]) > 1e-2 and d.ctrl[i] > 0:
                ratios.append(-d.actuator_force[i] / (d.ctrl[i] * d.actuator_velocity[i]))
    _run(m, 2.0, each)
    kv = float(np.median(ratios)) if ratios else float("nan")
    return f"damper's kv as applied (-force / (ctrl velocity)) {kv:.4f} N m s/rad (the file's: 0.3)"


def card_house(name: str = "mujoco_8655446f_card_house_margin.xml") -> str:
    """The fix's own expectation: two 0.7 mm cards leaning on each other overlap by a fraction of a millimetre at
    most; the deepest card-card contact over 2 s."""
    m = _model(name)
    worst = [0.0]

    def each(d: mujoco.MjData) -> None:
        for c in d.contact[:d.ncon]:
            if m.geom_bodyid[c.geom1] and m.geom_bodyid[c.geom2]:
                worst[0] = min(worst[0], float(c.dist))
    _run(m, 2.0, each)
    return f"deepest card-card contact over 2 s {-1000 * worst[0]:.4g} mm"


def cloth_bending_torque(name: str = "mujoco_7927e908_cloth_turned_frame.xml") -> str:
    """A cloth's bending forces are internal: their net torque on it is zero (Newton's third law). Each vertex body's
    passive force (its three slides, along its frame's axes) turned into the world, its torque about the origin
    summed; the largest over 2 s of draping."""
    m = _model(name)
    vertices = [b for b in range(m.nbody) if m.body_dofnum[b] == 3 and m.body_jntnum[b] == 3]
    worst = [0.0]

    def each(d: mujoco.MjData) -> None:
        torque = np.zeros(3)
        for b in vertices:
            adr = m.body_dofadr[b]
            torque += np.cross(d.xpos[b], d.xmat[b].reshape(3, 3) @ d.qfrc_passive[adr:adr + 3])
        worst[0] = max(worst[0], float(np.linalg.norm(torque)))
    _run(m, 2.0, each)
    return f"largest net torque of the cloth's passive forces over 2 s {worst[0]:.3g} N m"


def lugre_hold(name: str = "mujoco_4c265327_lugre_after_orientation.xml") -> str:
    """The arm's gravity torque (about 0.2 N m) is below the motor's Coulomb friction (0.5 N m), so it sticks: it
    may deflect by the bristles' compliance (about 0.002 rad). The shoulder's largest slip over 2 s."""
    m = _model(name)
    adr = m.jnt_qposadr[m.joint("shoulder").id]
    slip, start = [0.0], float(m.qpos0[adr])

    def each(d: mujoco.MjData) -> None:
        slip[0] = max(slip[0], abs(float(d.qpos[adr]) - start))
    _run(m, 2.0, each)
    return f"shoulder's largest slip held by friction over 2 s {slip[0]:.4g} rad (the bristles' compliance: about 0.002)"


def _box_sphere_distance(m: mujoco.MjModel, d: mujoco.MjData, sphere: int, box: int) -> float:
    """The signed distance of a sphere from a box, from their sizes and poses."""
    p = d.geom_xmat[box].reshape(3, 3).T @ (d.geom_xpos[sphere] - d.geom_xpos[box])
    q = np.abs(p) - m.geom_size[box]
    return float(np.linalg.norm(np.maximum(q, 0.0)) + min(np.max(q), 0.0) - m.geom_size[sphere][0])


def ball_in_foam(name: str = "mujoco_0e7d2ef6_ball_in_soft_foam.xml") -> str:
    """The fix's own expectation: a sphere-box contact's dist is their signed distance, however deep; the largest
    difference over 2 s of a steel ball settling into a soft block."""
    m = _model(name)
    sphere, box = mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_BOX
    worst = [0.0]

    def each(d: mujoco.MjData) -> None:
        for c in d.contact[:d.ncon]:
            kinds = (m.geom_type[c.geom1], m.geom_type[c.geom2])
            if kinds in ((sphere, box), (box, sphere)):
                s, b = (c.geom1, c.geom2) if kinds[0] == sphere else (c.geom2, c.geom1)
                worst[0] = max(worst[0], abs(float(c.dist) - _box_sphere_distance(m, d, s, b)))
    _run(m, 2.0, each)
    return f"largest |sphere-box contact dist - signed distance| over 2 s {1000 * worst[0]:.4g} mm"


def paddle_inertia(name: str = "mujoco_50f43b87_paddle_inertial_euler.xml") -> str:
    """A uniform paddle's moment about its hinge is its slab's, wherever its inertial's principal axes are written:
    the mass matrix's entry (`mj_fullM`) against the slab of its plate's size and the body's mass."""
    m = _model(name)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    joint, plate, paddle = m.joint("swing").id, m.geom("paddle_plate").id, m.body("paddle").id
    dof = m.jnt_dofadr[joint]
    simulated = mujoco_versions.full_mass(m, d)[dof, dof]
    axis = d.xaxis[joint]
    half = m.geom_size[plate]
    u = d.geom_xmat[plate].reshape(3, 3).T @ axis
    mass = m.body_mass[paddle]
    centre = mass / 3 * np.array([half[1]**2 + half[2]**2, half[0]**2 + half[2]**2, half[0]**2 + half[1]**2])
    r = d.geom_xpos[plate] - d.xanchor[joint]
    r = r - (r @ axis) * axis
    slab = float(centre @ u**2 + mass * r @ r)
    return f"paddle's moment about the hinge {simulated:.4f} kg m^2, its slab's {slab:.4f} ({100 * abs(simulated / slab - 1):.3g} % off)"


def rangefinder_hfield(name: str = "mujoco_7b9f5bda_rangefinder_hfield_3x5.xml") -> str:
    """A rangefinder reads the distance to what its ray meets: the rover's lidar (pointing +x) against the ray's
    exact distance to the heightfield's near side wall (its height from the field's first column, linear between
    rows), the largest difference over a 2 s drive."""
    m = _model(name)
    g = next(i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_HFIELD)
    h = m.geom_dataid[g]
    rows, cols = m.hfield_nrow[h], m.hfield_ncol[h]
    sx, sy, sz, base = m.hfield_size[h]
    heights = m.hfield_data[m.hfield_adr[h]:m.hfield_adr[h] + rows * cols].reshape(rows, cols)
    site, adr = m.site("lidar").id, m.sensor_adr[m.sensor("range").id]
    worst = [0.0]

    def each(d: mujoco.MjData) -> None:
        p, ray = d.site_xpos[site], d.site_xmat[site].reshape(3, 3)[:, 2]
        t = (d.geom_xpos[g][0] - sx - p[0]) / ray[0]
        hit = p + t * ray - d.geom_xpos[g]
        y = (hit[1] + sy) / (2 * sy) * (rows - 1)
        r0 = int(min(max(np.floor(y), 0), rows - 2))
        top = ((1 - (y - r0)) * heights[r0, 0] + (y - r0) * heights[r0 + 1, 0]) * sz
        if t > 0 and abs(hit[1]) <= sy and -base <= hit[2] <= top:
            worst[0] = max(worst[0], abs(float(d.sensordata[adr]) - t))
    _run(m, 2.0, each)
    return f"rangefinder's largest error against the ray's distance to the heightfield's wall over 2 s {worst[0]:.4g} m"


def clock_shift(name: str = "mujoco_7bfdbad8_box_pile_pgs.xml") -> str:
    """Nothing in the model reads the clock, so one state run 2 s from t = 0 and from t = 1000 s ends alike (time
    translation): the largest difference of qpos (the first dof pushed at 0.3 to start)."""
    m = _model(name)
    ends = []
    for start in (0.0, 1000.0):
        d = mujoco.MjData(m)
        d.time = start
        d.qvel[0] = 0.3
        for _ in range(int(round(2.0 / m.opt.timestep))):
            mujoco.mj_step(m, d)
        ends.append(d.qpos.copy())
    return f"largest |qpos started at t = 0 - at t = 1000 s| after 2 s {np.max(np.abs(ends[0] - ends[1])):.3g}"


def distance_normal(name: str = "mujoco_85e9cff0_pusher_near_ellipsoid.xml") -> str:
    """A geom-distance normal sensor points from geom1 to geom2: for two separated convex geoms, within 90 degrees of
    their centres' direction. The largest angle over 2 s, the carriage swept at 0.5 Hz."""
    m = _model(name)
    sensor = next(i for i in range(m.nsensor) if m.sensor_type[i] == mujoco.mjtSensor.mjSENS_GEOMNORMAL)
    g1, g2, adr = m.sensor_objid[sensor], m.sensor_refid[sensor], m.sensor_adr[sensor]
    d = mujoco.MjData(m)
    worst = 0.0
    for _ in range(int(round(2.0 / m.opt.timestep))):
        d.ctrl[0] = 0.3 * np.sin(np.pi * d.time)
        mujoco.mj_step(m, d)
        normal, centres = d.sensordata[adr:adr + 3], d.geom_xpos[g2] - d.geom_xpos[g1]
        if np.linalg.norm(normal) > 1e-12:
            cos = normal @ centres / (np.linalg.norm(normal) * np.linalg.norm(centres))
            worst = max(worst, float(np.degrees(np.arccos(np.clip(cos, -1, 1)))))
    return f"largest angle of the distance normal from geom1 -> geom2 over 2 s {worst:.4g} deg"


def terrain_normal(name: str = "mujoco_e18e35f9_egg_on_terrain.xml") -> str:
    """A contact on a flat heightfield's top face has the face's normal, the world's z: over 2 s, at each step the
    terrain contact nearest to vertical (the face's; its prisms' edges tilt others by design), its largest tilt."""
    m = _model(name)
    field = next(g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_HFIELD)
    d = mujoco.MjData(m)
    worst = 0.0
    for _ in range(int(round(2.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        tilts = [np.degrees(np.arccos(min(1.0, abs(c.frame[2])))) for c in d.contact[:d.ncon]
                 if field in (c.geom1, c.geom2)]
        worst = max([worst, *([min(tilts)] if tilts else [])])
    return f"largest tilt of the flat terrain's face contact over 2 s {worst:.4g} deg"


def rod_in_groove(name: str = "mujoco_3_17_0_rod_on_short_rollers.xml") -> str:
    """A contact's dist is the surfaces' overlap, and its normal the segments' common normal: the rod settled for 2 s
    in the rollers' groove, each rod contact's dist against the rod's and its roller's axes' distance less their
    radii (two parallel segments, the rod's span inside the roller's: the distance of the rod's axis from the
    roller's line), and the largest angle between a contact's normal and the plane across both axes."""
    m = _model(name)
    d = mujoco.MjData(m)
    for _ in range(int(round(2.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
    rod = m.geom("rod").id
    worst, tilt = 0.0, 0.0
    for c in d.contact[: d.ncon]:
        if rod not in (c.geom1, c.geom2):
            continue
        other = c.geom2 if c.geom1 == rod else c.geom1
        axis = d.geom_xmat[other].reshape(3, 3)[:, 2]
        gap = d.geom_xpos[rod] - d.geom_xpos[other]
        apart = np.linalg.norm(gap - (gap @ axis) * axis) - m.geom_size[rod, 0] - m.geom_size[other, 0]
        worst = max(worst, abs(c.dist - apart))
        tilt = max(tilt, np.degrees(np.arcsin(min(1.0, abs(c.frame[:3] @ axis)))))
    return f"rod in the groove after 2 s: |dist - the axes' distance less the radii| {1000 * worst:.3g} mm, " \
           f"normals {tilt:.3g} deg off the plane across the axes, rod at z {1000 * d.qpos[2]:.2f} mm"


def jacdot_arm(name: str = "mujoco_3_3_1_jacdot_swinging_arm.xml") -> str:
    """The fix's own expectation: mj_jacDot is the time derivative of the Jacobian of a point attached to a body. Each
    body's centre of mass 0.3 s into the swing: mj_jacDot's translation rows against the central difference (1e-6 s
    along qvel) of mj_jac at that point, carried by the body; the largest difference over the largest entry."""
    m = _model(name)
    d = mujoco.MjData(m)
    for _ in range(150):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    worst, scale = 0.0, 0.0
    for b in range(1, m.nbody):
        local = d.xmat[b].reshape(3, 3).T @ (d.xipos[b] - d.xpos[b])
        got, rot = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jacDot(m, d, got, rot, d.xipos[b].copy(), b)
        moved = []
        for h in (1e-6, -1e-6):
            e = mujoco.MjData(m)
            e.qpos[:] = d.qpos
            mujoco.mj_integratePos(m, e.qpos, d.qvel, h)
            mujoco.mj_kinematics(m, e)
            mujoco.mj_comPos(m, e)
            jac = np.zeros((3, m.nv))
            mujoco.mj_jac(m, e, jac, None, e.xpos[b] + e.xmat[b].reshape(3, 3) @ local, b)
            moved.append(jac)
        rate = (moved[0] - moved[1]) / 2e-6
        worst, scale = max(worst, float(np.max(np.abs(got - rate)))), max(scale, float(np.max(np.abs(rate))))
    return f"largest |mj_jacDot - the Jacobian's rate| {worst:.3g} m/s against entries up to {scale:.3g} m/s"


def trampoline_reaction(name: str = "mujoco_ec8ad21c_ball_on_trampoline.xml") -> str:
    """Action and reaction: the contact forces (efc rows of contacts, through J^T) on the ball's translation and on
    the net's vertex slides are equal and opposite; |F_net| / |F_ball| averaged over the 2 s steps in contact."""
    m = _model(name)
    ball = m.body("ball").id
    vertices = {int(b) for b in m.flex_vertbodyid if b > 0}
    slides = [j for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE and m.jnt_bodyid[j] in vertices]
    contact = {int(t) for t in (mujoco.mjtConstraint.mjCNSTR_CONTACT_FRICTIONLESS,
                                mujoco.mjtConstraint.mjCNSTR_CONTACT_PYRAMIDAL,
                                mujoco.mjtConstraint.mjCNSTR_CONTACT_ELLIPTIC)}
    d, ratios, res = mujoco.MjData(m), [], np.zeros(m.nv)
    for _ in range(int(round(2.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)
        rows = np.array([int(t) in contact for t in d.efc_type[:d.nefc]], dtype=bool)
        if not rows.any():
            continue
        mujoco.mj_mulJacTVec(m, d, res, np.where(rows, d.efc_force[:d.nefc], 0.0))
        on_ball = res[m.body_dofadr[ball]:m.body_dofadr[ball] + 3]
        on_net = sum((res[m.jnt_dofadr[j]] * d.xaxis[j] for j in slides), np.zeros(3))
        if np.linalg.norm(on_ball) > 1e-3:
            ratios.append(np.linalg.norm(on_net) / np.linalg.norm(on_ball))
    return f"contact force on the net over that on the ball (action and reaction: 1) {np.mean(ratios):.4g}, mean of {len(ratios)} steps"



def separated_meshes(name: str = "mujoco_35342f40_mesh_beside_mesh.xml") -> str:
    """A distance sensor reads at least what a separating plane proves: for each direction n, the gap between the
    two geoms' extents along n (their vertices, or a ball's centre and radius) bounds their distance from below.
    The largest (bound - reading) over 1.5 s, the bound maximized over 2000 directions then refined locally."""
    m = _model(name)
    d = mujoco.MjData(m)
    s = m.sensor("dist").id
    g1, g2 = int(m.sensor_objid[s]), int(m.sensor_refid[s])
    k = np.arange(2000.0)
    polar, azimuth = np.arccos(1 - 2 * (k + 0.5) / 2000), np.pi * (1 + 5 ** 0.5) * k
    fan = np.c_[np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar), np.cos(polar)]
    rng = np.random.default_rng(0)

    def points(g: int) -> tuple[np.ndarray, float]:
        if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            mesh = m.geom_dataid[g]
            verts = m.mesh_vert[m.mesh_vertadr[mesh]: m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]]
            return d.geom_xpos[g] + verts @ d.geom_xmat[g].reshape(3, 3).T, 0.0
        return d.geom_xpos[g][None, :], float(m.geom_size[g][0])

    def gap(n: np.ndarray) -> np.ndarray:  # n from geom1 towards geom2
        (a, ra), (b, rb) = points(g1), points(g2)
        return (b @ n.T).min(0) - rb - (a @ n.T).max(0) - ra

    worst = 0.0
    while d.time < 1.5:
        mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)
        values = gap(fan)
        best, n, step = float(values.max()), fan[int(values.argmax())], 0.05
        for _ in range(100):
            trial = n + step * rng.normal(size=(32, 3))
            trial /= np.linalg.norm(trial, axis=1, keepdims=True)
            values = gap(trial)
            if values.max() > best:
                best, n = float(values.max()), trial[int(values.argmax())]
            else:
                step *= 0.7
        worst = max(worst, min(best, float(m.sensor_cutoff[s])) - float(d.sensor("dist").data[0]))
    return f"largest (separating plane's bound - distance reading) over 1.5 s {worst:.4g} m"


CASES = {"mujoco-3066": gravcomp_nested, "mujoco-2179": fourbar_sites, "mujoco-4ce62932": tendon_armature,
         "mujoco-warp-1662": implicit_two_hinges, "mujoco-warp-1333": free_body_before_servo,
         "mujoco-weld-sensors": weld_sensors, "mujoco-910b3336": midpoint_spin,
         "mujoco-3.2.5-slider-crank": slider_crank, "newton-3017": newton_unsorted_inertia,
         "mujoco-warp-1188": ccd_margin_dist, "mjx-22e4f7fc3": mjx_frictionloss,
         "mjx-1668": mjx_direct_solref, "mjx-2068": mjx_actuator_force,
         "mujoco-86d9c84e": weld_torquescale, "mujoco-cd56a41f": refsite_momentum, "mujoco-a14a584f": muscle_short,
         "mujoco-a4bd2bec": disabled_group, "mujoco-3e701b21": tendon_sidesite, "mujoco-b4668294": cart_saturated,
         "mujoco-96844db9": fusestatic_table, "mujoco-88383684": box_on_box,
         "mujoco-0bcaa856": muscle_order, "mujoco-7f74487a": actearly_derivative, "mujoco-3434f5d9": mesh_pair_contacts,
         "mujoco-ffca553f": mesh_density_mass,
         "mujoco-fe9dc584": soft_cube_rotated, "mujoco-4.0.1-sparse-newton": sparse_newton_tree,
         "mujoco-84c8cf43": fused_turned_head, "mujoco-0e1e0c7f": fused_dumbbell,
         "mjx-47bb4a82": mjx_euler_damping,
         "mujoco-98682ae2": mesh_fit_placement, "mujoco-fb07a9ca": chips_on_blade,
         "mujoco-426cb548": flex_sparse_rotation, "mujoco-f9a39413": pinned_flex_free_fall,
         "mujoco-8287d9d1": insidesite_flex,
         "mujoco-3163": board_on_rollers,
         "mujoco-faf0dabc": damper_kv, "mujoco-8655446f": card_house, "mujoco-7927e908": cloth_bending_torque,
         "mujoco-4c265327": lugre_hold, "mujoco-0e7d2ef6": ball_in_foam, "mujoco-50f43b87": paddle_inertia,
         "mujoco-7b9f5bda": rangefinder_hfield,
         "mujoco-7bfdbad8": clock_shift, "mujoco-85e9cff0": distance_normal, "mujoco-e18e35f9": terrain_normal,
         "mujoco-ec8ad21c": trampoline_reaction, "mujoco-35342f40": separated_meshes,
         "mujoco-3.17.0-parallel-capsules": rod_in_groove, "mujoco-3.3.1-jacdot": jacdot_arm}



ROUNDS = {6: ("actuators", "collision", "compiler", "constraints"),  # the blind rounds' probes: round6/, round7/
          7: ("actuation", "collision", "compiler", "constraints"),
          8: ("actuation", "collision", "compiler", "constraints"),
          9: ("actuation", "collision", "compiler", "constraints", "sensorsapi"),
          10: ("collision", "compiler", "constraints", "sensorsapi", "flex", "tendons", "patches"),
          11: ("compiler", "deformable", "actuation", "passive", "collision", "sensorsapi", "kinematics"),
          12: ("actuation", "collision", "compiler", "constraints", "kinematics", "passive", "routes", "sensorsapi"),
          13: ("saving_setconst", "step_physics", "passive_integrators", "spec_editing", "found_by_laws")}


def _rounds() -> dict:
    """The blind rounds' probes (`round6/`, `round7/`: one module an area, written apart from the pack, with their
    scenes in `models/round6/`, `models/round7/`): {case id: probe}."""
    import importlib.util
    found = {}
    for number, areas in ROUNDS.items():
        for area in areas:
            path = HERE / f"round{number}" / f"{area}.py"
            spec = importlib.util.spec_from_file_location(f"round{number}_{area}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            found.update(module.CASES)
    return found


CASES.update(_rounds())

if __name__ == "__main__":
    # a second argument runs a one-model measurement on another model: the case's twin, to show it clean
    case, other = sys.argv[1], sys.argv[2:]
    print(f"{case} mujoco {mujoco.__version__}{' ' + other[0] if other else ''}: {CASES[case](*other)}")
