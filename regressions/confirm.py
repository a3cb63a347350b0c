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
         "mujoco-weld-sensors": weld_sensors, "mjx-22e4f7fc3": mjx_frictionloss,
         "mjx-1668": mjx_direct_solref, "mjx-2068": mjx_actuator_force}

if __name__ == "__main__":
    case = sys.argv[1]
    print(f"{case} mujoco {mujoco.__version__}: {CASES[case]()}")
