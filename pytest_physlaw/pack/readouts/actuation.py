"""What MuJoCo reports of its actuators is what the step applied. The generalised actuator force `qfrc_actuator` is
actuator_moment^T actuator_force, plus the gravity compensation of joints that take it through their actuators
(`jnt_actgravcomp`, MuJoCo 3.2 on: `qfrc_gravcomp` on those joints' dofs), clamped by each joint's
`actuatorfrcrange`; and each actuator's force `actuator_force` is its force law, gain * (ctrl, or its activation)
+ bias, the controls clamped to `ctrlrange`, the force scaled to its tendon's `actuatorfrcrange` and clamped to its
`forcerange`. Source: MuJoCo's documentation ("Computation": actuation model; XML reference: general actuator,
joint/actuatorfrcrange, joint/actuatorgravcomp) and `mj_fwdActuation`.

The second computations: the moment arms MuJoCo used (`actuator_moment`, dense) times the reported forces, in
numpy; the force law from the model's gains and biases at the actuator's length and velocity as MuJoCo reports
them, muscles through MuJoCo's own `mju_muscleGain` and `mju_muscleBias`. An actuator whose law this does not
recompute is left out and named in the check's message: user or plugin gains, biases and dynamics, gain or bias
types after MuJoCo 3.14's (a DC motor, a PID servo, an SO(3) servo), delayed controls (`actuator_delay`), and
several controls or outputs. A disabled actuator group (`opt.disableactuator`) applies no force. Bound: round-off of
the terms summed (|moment|^T |force|; the force law's terms |gain * input| + |bias|).

Measured:
`pytest --physlaw-model=MODEL.xml -k readout -s`; see docs/second-computations.md ("Readouts").
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo documentation, Computation (actuation model); XML reference (general, actuatorfrcrange, actuatorgravcomp)"
ROUND_OFF = 1e-10  # of the size of the summed terms: n eps of it is 1e-12 for n up to 4500 terms
DRIVE = ("generalised_error", "force_law_error")  # the measures, per state (for scripts over many models)
GAIN, BIAS, DYN = mujoco.mjtGain, mujoco.mjtBias, mujoco.mjtDyn
GAINS = {int(GAIN.mjGAIN_FIXED), int(GAIN.mjGAIN_AFFINE), int(GAIN.mjGAIN_MUSCLE)}
BIASES = {int(BIAS.mjBIAS_NONE), int(BIAS.mjBIAS_AFFINE), int(BIAS.mjBIAS_MUSCLE)}
DYNAMICS = {int(DYN.mjDYN_NONE), int(DYN.mjDYN_INTEGRATOR), int(DYN.mjDYN_FILTER), int(DYN.mjDYN_MUSCLE)} | (
    {int(DYN.mjDYN_FILTEREXACT)} if hasattr(DYN, "mjDYN_FILTEREXACT") else set())


def _per(model: mujoco.MjModel, name: str, missing: np.ndarray | None = None) -> np.ndarray:
    """A per-actuator array read per control (`mujoco_versions.per_control`); `missing` where the release lacks it."""
    if missing is not None and not hasattr(model, name):
        return np.asarray(missing)
    return mujoco_versions.per_control(model, name)


def actuation_off(model: mujoco.MjModel) -> bool:
    return bool(model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ACTUATION) or model.nu == 0


def group_disabled(model: mujoco.MjModel) -> np.ndarray:
    """(nu,) whether each actuator's group is disabled (`opt.disableactuator`, MuJoCo 3.1 on; groups 0-30)."""
    bits = int(getattr(model.opt, "disableactuator", 0))
    group = np.asarray(_per(model, "actuator_group"), dtype=int)
    inside = (group >= 0) & (group <= 30)
    return inside & ((bits >> np.clip(group, 0, 30)) & 1).astype(bool)


def actuator_gravcomp(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The gravity compensation MuJoCo adds to qfrc_actuator: `qfrc_gravcomp` on the dofs of joints with
    `actuatorgravcomp` (none before MuJoCo 3.2, or without gravity)."""
    out = np.zeros(model.nv)
    flags = getattr(model, "jnt_actgravcomp", None)
    if flags is None or not np.any(flags) or model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY \
            or not np.any(model.opt.gravity):
        return out
    gravcomp = mujoco_versions.gravcomp_force(model, data)
    for j in np.flatnonzero(flags).tolist():
        dofs = np.asarray(model.dof_jntid) == j
        out[dofs] = gravcomp[dofs]
    return out


def applied_generalised(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(moment^T actuator_force + actuator gravcomp, clamped at each limited joint's first dof as MuJoCo clamps;
    the size |moment|^T |force| + |gravcomp| of its terms)."""
    moment = mujoco_versions.actuator_moments(model, data)
    force = np.asarray(data.actuator_force)
    extra = actuator_gravcomp(model, data)
    want = moment.T @ force + extra
    size = np.abs(moment).T @ np.abs(force) + np.abs(extra)
    limited = np.flatnonzero(np.asarray(getattr(model, "jnt_actfrclimited", np.zeros(model.njnt))))
    for j in limited.tolist():
        dof = int(model.jnt_dofadr[j])
        want[dof] = np.clip(want[dof], *model.jnt_actfrcrange[j])
    return want, size


def generalised_error(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """(largest |qfrc_actuator - (moment^T actuator_force + actuator gravcomp)| over the dofs, the terms' size,
    worst dof) at `state` (not changed)."""
    data = state  # read only
    if actuation_off(model):
        got = np.asarray(data.qfrc_actuator)
        return float(np.max(np.abs(got), initial=0.0)), 0.0, int(np.argmax(np.abs(got))) if model.nv else 0
    want, size = applied_generalised(model, data)
    error = np.abs(np.asarray(data.qfrc_actuator) - want)
    return float(np.max(error, initial=0.0)), float(np.max(size, initial=0.0)), int(np.argmax(error)) if model.nv else 0


def recomputed(model: mujoco.MjModel) -> tuple[np.ndarray, dict[int, str]]:
    """(actuators whose force law this module recomputes, {left-out actuator: why})."""
    why: dict[int, str] = {}
    delay = np.asarray(_per(model, "actuator_delay", np.zeros(model.nu)))
    plugin = np.asarray(_per(model, "actuator_plugin", -np.ones(model.nu)))
    gaintype, biastype, dyntype = (_per(model, f) for f in ("actuator_gaintype", "actuator_biastype", "actuator_dyntype"))
    for a in range(model.nu):
        if plugin[a] >= 0:
            why[a] = "a plugin's force"
        elif int(gaintype[a]) not in GAINS or int(biastype[a]) not in BIASES:
            why[a] = f"gain {int(gaintype[a])}, bias {int(biastype[a])} (user or newer type)"
        elif int(dyntype[a]) not in DYNAMICS:
            why[a] = f"dynamics {int(dyntype[a])} (user or newer type)"
        elif delay[a] > 0:
            why[a] = "delayed controls"
        elif int(_per(model, "actuator_actnum", np.ones(model.nu))[a]) > 1 or \
                int(_per(model, "actuator_ctrlnum", np.ones(model.nu))[a]) > 1:
            why[a] = "several controls or activations"
    return np.array([a for a in range(model.nu) if a not in why], dtype=int), why


def _input(model: mujoco.MjModel, data: mujoco.MjData, a: int, ctrl: np.ndarray) -> float:
    """What the gain multiplies: the (clamped) control, or the activation (the next one for `actearly`)."""
    adr = int(_per(model, "actuator_actadr")[a])
    if adr < 0 or int(_per(model, "actuator_dyntype")[a]) == int(DYN.mjDYN_NONE):
        return float(ctrl[a])
    act = float(data.act[adr])
    if not bool(_per(model, "actuator_actearly", np.zeros(model.nu))[a]):
        return act
    dt = model.opt.timestep
    if hasattr(DYN, "mjDYN_FILTEREXACT") and int(_per(model, "actuator_dyntype")[a]) == int(DYN.mjDYN_FILTEREXACT):
        tau = max(float(_per(model, "actuator_dynprm")[a, 0]), mujoco.mjMINVAL)
        act = act + float(data.act_dot[adr]) * tau * (1 - math.exp(-dt / tau))
    else:
        act = act + float(data.act_dot[adr]) * dt
    if _per(model, "actuator_actlimited")[a]:
        act = float(np.clip(act, *_per(model, "actuator_actrange")[a]))
    return act


def force_law(model: mujoco.MjModel, data: mujoco.MjData, actuators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each of `actuators`' force by its law at `data`, before and after the clamps; the size |gain input| + |bias|
    of its terms), from the reported length and velocity."""
    ctrl = np.array(data.ctrl)
    if not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL:
        limited = model.actuator_ctrllimited.astype(bool)
        ctrl[limited] = np.clip(ctrl[limited], model.actuator_ctrlrange[limited, 0], model.actuator_ctrlrange[limited, 1])
    if not np.all(np.isfinite(ctrl)):  # MuJoCo zeroes every control when one is bad (mjWARN_BADCTRL)
        ctrl[:] = 0
    force, size = np.zeros(model.nu), np.zeros(model.nu)
    length, velocity = np.asarray(data.actuator_length), np.asarray(data.actuator_velocity)
    gains, biases = _per(model, "actuator_gainprm"), _per(model, "actuator_biasprm")
    gaintype, biastype = _per(model, "actuator_gaintype"), _per(model, "actuator_biastype")
    for a in actuators.tolist():
        gp, bp = gains[a], biases[a]
        kind, bias_kind = int(gaintype[a]), int(biastype[a])
        if kind == int(GAIN.mjGAIN_FIXED):
            gain = gp[0]
        elif kind == int(GAIN.mjGAIN_AFFINE):
            gain = gp[0] + gp[1] * length[a] + gp[2] * velocity[a]
        else:
            gain = mujoco.mju_muscleGain(length[a], velocity[a], model.actuator_lengthrange[a], model.actuator_acc0[a], gp[:9])
        if bias_kind == int(BIAS.mjBIAS_AFFINE):
            bias = bp[0] + bp[1] * length[a] + bp[2] * velocity[a]
        elif bias_kind == int(BIAS.mjBIAS_MUSCLE):
            bias = mujoco.mju_muscleBias(length[a], model.actuator_lengthrange[a], model.actuator_acc0[a], bp[:9])
        else:
            bias = 0.0
        pushed = gain * _input(model, data, a, ctrl)
        force[a], size[a] = pushed + bias, abs(pushed) + abs(bias)
    return _clamped(model, force, actuators), size


def _clamped(model: mujoco.MjModel, force: np.ndarray, actuators: np.ndarray) -> np.ndarray:
    """The tendons' actuatorfrcrange (the tendon's actuators scaled together, MuJoCo 3.2 on), then each
    actuator's forcerange. A tendon's total counts only recomputed actuators: one with another left out is
    left out too (`force_law_error`)."""
    out = force.copy()
    limited = np.asarray(getattr(model, "tendon_actfrclimited", np.zeros(model.ntendon)), dtype=bool)
    on_tendon, trnid = _per(model, "actuator_trntype") == mujoco.mjtTrn.mjTRN_TENDON, _per(model, "actuator_trnid")
    for t in np.flatnonzero(limited).tolist():
        mine = [a for a in actuators.tolist() if on_tendon[a] and int(trnid[a, 0]) == t]
        total = float(np.sum(force[mine]))
        low, high = model.tendon_actfrcrange[t]
        if total and (total < low or total > high):
            out[mine] *= (low if total < low else high) / total
    forcelimited, forcerange = _per(model, "actuator_forcelimited"), _per(model, "actuator_forcerange")
    for a in actuators.tolist():
        if forcelimited[a]:
            out[a] = np.clip(out[a], *forcerange[a])
    return out


def judged(model: mujoco.MjModel) -> np.ndarray:
    """The recomputed actuators, less those on a force-limited tendon that also carries a left-out one."""
    actuators, why = recomputed(model)
    limited = np.asarray(getattr(model, "tendon_actfrclimited", np.zeros(model.ntendon)), dtype=bool)
    trnid, trntype = _per(model, "actuator_trnid"), _per(model, "actuator_trntype")
    tendon = lambda a: int(trnid[a, 0]) if trntype[a] == mujoco.mjtTrn.mjTRN_TENDON else -1  # noqa: E731
    shared = {tendon(a) for a in why if tendon(a) >= 0 and limited[tendon(a)]}
    return np.array([a for a in actuators.tolist() if tendon(a) not in shared], dtype=int)


def force_law_error(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """(largest |actuator_force - its force law| over the recomputed actuators, the law's terms' size, worst
    actuator; -1 where none) at `state` (not changed)."""
    data = state  # read only
    actuators = judged(model)
    if actuation_off(model) or not actuators.size:
        return 0.0, 0.0, -1
    want, size = force_law(model, data, actuators)
    want[group_disabled(model)] = 0.0
    error = np.abs(np.asarray(data.actuator_force) - want)[actuators]
    return float(np.max(error)), float(np.max(size[actuators])), int(actuators[int(np.argmax(error))])


@pytest.mark.law("model-readout-actuator-generalised", source=SOURCE)
def test_qfrc_actuator_is_moment_times_force(law, pack_model, readout_states, model_case) -> None:
    """At the start and at each state of the driven run, the generalised actuator force MuJoCo reports
    (`qfrc_actuator`) is actuator_moment^T actuator_force, plus actuator gravity compensation on `actuatorgravcomp`
    joints, clamped by the joints' `actuatorfrcrange`, to round-off of the terms summed."""
    model = pack_model.model
    if actuation_off(model):
        pytest.skip(f"{model_case}: no actuator, or actuation disabled")
    found = [generalised_error(model, s) for s in readout_states]
    scale = max(f for _, f, _ in found)
    error, _, dof = max(found)
    if scale == 0 and error == 0:
        pytest.skip(f"{model_case}: no actuator force in any state checked")
    law.check("qfrc_actuator_error", error / max(scale, np.finfo(float).tiny), le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|qfrc_actuator - (actuator_moment^T actuator_force + actuator gravcomp)|, a share of the terms' size; "
                  f"worst at dof {dof}; failing, MuJoCo {mujoco.__version__} applies another generalised force than its "
                  "actuators report (a force dropped, a moment stale, a gravity compensation added twice or not at all): "
                  "an engine defect")


@pytest.mark.law("model-readout-actuator-force", source=SOURCE)
def test_actuator_force_is_the_force_law(law, pack_model, readout_states, model_case) -> None:
    """At the start and at each state of the driven run, each actuator's reported force (`actuator_force`) is its
    force law gain * (ctrl or act) + bias at the reported length and velocity (muscles: `mju_muscleGain`,
    `mju_muscleBias`), controls clamped to ctrlrange, clamped to the tendon's actuatorfrcrange and the forcerange,
    to round-off of the law's terms."""
    model = pack_model.model
    if actuation_off(model):
        pytest.skip(f"{model_case}: no actuator, or actuation disabled")
    actuators, why = recomputed(model)
    if not judged(model).size:
        pytest.skip(f"{model_case}: no actuator whose force law is recomputed here ({_named(model, why)})")
    found = [force_law_error(model, s) for s in readout_states]
    scale = max(f for _, f, _ in found)
    error, _, a = max(found)
    name = mujoco_versions.control_name(model, a)
    left = f"; left out: {_named(model, why)}" if why else ""
    law.check("actuator_force_error", error / max(scale, np.finfo(float).tiny), le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|actuator_force - (gain * input + bias, clamped)|, a share of the law's terms; worst {name!r}{left}; "
                  f"failing, MuJoCo {mujoco.__version__} reports another force than the actuator's law gives at its "
                  "control, activation, length and velocity: an engine defect (or a stale readout)")


def _named(model: mujoco.MjModel, why: dict[int, str]) -> str:
    items = [f"{mujoco_versions.control_name(model, a)} ({w})" for a, w in list(why.items())[:4]]
    return ", ".join(items) + (f" and {len(why) - 4} more" if len(why) > 4 else "")
