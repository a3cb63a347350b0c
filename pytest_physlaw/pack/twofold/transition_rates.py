"""The transition derivatives are the step's own rates: what `mjd_transitionFD` reports for the derivatives of the
next state (B) and of the sensor readings (D) with respect to each control is the rate at which `mj_step` itself
moves them, by the same differences taken outside it: each control nudged by the same eps, each copy of the state
stepped whole. Model-predictive controllers and trajectory optimizers (iLQR, MJPC) read these matrices and nothing
in a run does, so a release whose `mjd_transitionFD` differs from its own step runs consistent with itself and only
this second computation shows it (every release to 3.17.0 stepped each nudged control, under the implicit
integrators, with the damping factored at the unnudged one; and gave every centred sensor derivative with its sign
flipped: a defect of every model with a force, touch or acceleration sensor, the pinned 3.14.0 included, so the law
compares D with that sign undone and names it, `mujoco_versions.centred_sensor_sign`). Source: MuJoCo's documentation (API: mjd_transitionFD, "finite-differenced transition matrices"; its
centred and one-sided differences, and a control at its range's end differenced one-sided, engine_derivative_fd.c).

The measurement: at the start, the middle and the last state of `twofold_states`, MuJoCo's centred B and D (eps
1e-6), against the same differences of `mj_step` on copies of the state (qpos through `mj_differentiatePos`, then
qvel, act, sensordata), each control nudged forward and back where its range allows, one-sided where it does not,
not judged where neither. Bound: 10 x (100 eps of the row's values over the nudge: the two computations are the same
differences, so what they may differ by is the round-off of the values differenced, divided by eps). Left out,
naming why: a model without actuators, one with more than 200 controls (four steps a control a state: MuJoCo's
100 replicated humanoids, 2100 controls, took 134 s), a model `mjd_transitionFD` refuses (sleeping, RK4). Above 200
dofs the middle state alone is judged.

Measured figures and commands: docs/second-computations.md ("Transition derivatives are the step's rates").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold.split_step import sensor_at
from pytest_physlaw.pack.twofold.states import LARGE, sampled

SOURCE = ("MuJoCo documentation, API (mjd_transitionFD: finite-differenced transition matrices B and D, centred, a "
          "control at its range's end one-sided)")
NUDGE = 1e-6  # MuJoCo's eps in the call, and the same nudge outside it
C = 10.0  # the bound's factor over the round-off of the differenced values
MAX_CONTROLS = 200  # past it the law skips: 4 steps a control a state (MuJoCo's 2, the law's 2): 134 s on 2100 controls
ULPS = 100.0
EPS = float(np.finfo(float).eps)


def _stepped(model: mujoco.MjModel, state: mujoco.MjData, ctrl: np.ndarray) -> tuple[np.ndarray, ...]:
    """(qpos, qvel, act, sensordata) after one `mj_step` of a copy of `state` under `ctrl`."""
    data = copy.copy(state)
    data.ctrl[:] = ctrl
    mujoco.mj_step(model, data)
    return (np.array(data.qpos), np.array(data.qvel), np.array(data.act), np.array(data.sensordata))


def nudges(model: mujoco.MjModel, ctrl: np.ndarray, j: int) -> tuple[bool, bool]:
    """(forward, back): whether control j may be nudged each way (MuJoCo's rule: within its range where limited)."""
    low, high = mujoco_versions.per_control(model, "actuator_ctrlrange")[j]  # an actuator may take several (3.11)
    limited = bool(mujoco_versions.per_control(model, "actuator_ctrllimited")[j])
    u = float(ctrl[j])
    forward = not limited or (low <= u <= high and low <= u + NUDGE <= high)
    back = not limited or (low <= u - NUDGE <= high and low <= u <= high)
    return forward, back


def stepped_rates(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                        np.ndarray]:
    """(B, D, scale, centred): the next state's and the readings' differences per unit of each control, by whole
    steps of copies (NaN columns where the control may not be nudged), each row's size (the largest value
    differenced), and which columns are centred differences."""
    nv, na, ns = model.nv, model.na, model.nsensordata
    base = np.array(state.ctrl)
    rest = _stepped(model, state, base)
    rates = np.full((2 * nv + na + ns, model.nu), np.nan)
    size = np.zeros(2 * nv + na + ns)
    size[:nv] = np.max(np.abs(rest[0]), initial=0.0)  # a position's difference is of whole qpos vectors
    centred = np.zeros(model.nu, dtype=bool)
    for j in range(model.nu):
        forward, back = nudges(model, base, j)
        ends = []
        for allowed, sign in ((forward, 1.0), (back, -1.0)):
            if allowed:
                ctrl = base.copy()
                ctrl[j] += sign * NUDGE
                ends.append(_stepped(model, state, ctrl))
            else:
                ends.append(rest)
        if not (forward or back):
            continue
        plus, minus = ends
        centred[j] = forward and back
        step = NUDGE * (2.0 if centred[j] else 1.0)
        dq = np.zeros(nv)
        mujoco.mj_differentiatePos(model, dq, step, minus[0], plus[0])
        rates[:, j] = np.concatenate([dq, (np.concatenate(plus[1:]) - np.concatenate(minus[1:])) / step])
        for values in (plus, minus):
            size[:nv] = np.maximum(size[:nv], np.max(np.abs(values[0]), initial=0.0))
            size[nv:] = np.maximum(size[nv:], np.abs(np.concatenate(values[1:])))
    return rates[:2 * nv + na], rates[2 * nv + na:], size, centred


def reported(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(B, D) as `mjd_transitionFD` reports them at `state`, centred, eps NUDGE (on a copy: the state stands)."""
    data = copy.copy(state)
    ndx = 2 * model.nv + model.na
    b = np.zeros((ndx, model.nu))
    d = np.zeros((model.nsensordata, model.nu))
    mujoco.mjd_transitionFD(model, data, NUDGE, 1, None, b, None, d if model.nsensordata else None)
    return b, d


def row_label(model: mujoco.MjModel, row: int) -> str:
    """Which quantity row `row` of [B; D] is: a dof's position or velocity, an activation, a sensor."""
    nv, na = model.nv, model.na
    if row < 2 * nv:
        dof = row % nv
        joint = model.joint(int(model.dof_jntid[dof])).name or f"joint {int(model.dof_jntid[dof])}"
        return f"{'position' if row < nv else 'velocity'} of {joint!r}"
    if row < 2 * nv + na:
        return f"activation {row - 2 * nv}"
    return f"sensor {sensor_at(model, row - 2 * nv - na)!r}"


def mismatch(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, int, int, float]:
    """At one state: (the largest |reported - stepped| over its bound, its row, its control, that entry's share
    of the larger of the two); (0, -1, -1, 0) where no control may be nudged."""
    got_b, got_d = reported(model, state)
    want_b, want_d, size, centred = stepped_rates(model, state)
    # a release that reports its centred sensor derivatives with their sign flipped (3.0 to 3.17) is compared with
    # it undone, and named (`mujoco_versions.centred_sensor_sign`): the defect of every model, not of this one
    want_d[:, centred] *= mujoco_versions.centred_sensor_sign()
    got, want = np.vstack([got_b, got_d]), np.vstack([want_b, want_d])
    judged = ~np.isnan(want)
    if not judged.any():
        return 0.0, -1, -1, 0.0
    bound = C * ULPS * EPS * size[:, None] / NUDGE + 1e-300
    over = np.where(judged, np.abs(got - np.nan_to_num(want)) / bound, 0.0)
    row, col = np.unravel_index(int(np.argmax(over)), over.shape)
    larger = max(abs(float(got[row, col])), abs(float(want[row, col])), 1e-300)
    return float(over[row, col]), int(row), int(col), abs(float(got[row, col] - want[row, col])) / larger


@pytest.mark.law("model-transition-derivatives-are-step-rates", source=SOURCE)
def test_transition_derivatives_are_the_steps_rates(law, pack_model, twofold_states, model_case) -> None:
    """At three states (one above 200 dofs), `mjd_transitionFD`'s centred derivatives of the next state and of the readings with respect
    to each control are the same differences of `mj_step` taken on copies of the state, to 10 x the round-off of
    the values differenced over the nudge."""
    model = pack_model.model
    if model.nu == 0:
        pytest.skip(f"{model_case}: no actuator, so no control to differentiate by")
    if model.nu > MAX_CONTROLS:
        pytest.skip(f"{model_case}: {model.nu} controls, past the law's {MAX_CONTROLS}: mjd_transitionFD steps the model "
                    "twice a control, and the law twice more")
    states = sampled(twofold_states)
    worst = (0.0, -1, -1, 0.0, 0.0)
    for state in states if model.nv <= LARGE else states[1:2]:  # above LARGE dofs the middle state alone
        try:
            ratio, row, col, share = mismatch(model, state)
        except mujoco.FatalError as refused:  # a release that refuses the model (4.0: "sleeping is not supported")
            pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__}'s mjd_transitionFD refuses this model: {refused}")
        if ratio >= worst[0]:
            worst = (ratio, row, col, share, float(state.time))
    ratio, row, col, share, t = worst
    what = f"{row_label(model, row)} by the control of {mujoco_versions.control_name(model, col)!r}" \
        if row >= 0 else "-"
    flipped = "" if mujoco_versions.centred_sensor_sign() > 0 else (
        f"; MuJoCo {mujoco.__version__} reports every centred sensor derivative with its sign flipped (3.0 to 3.17, "
        "fixed in 4.0.0: a controller reading D gets it reversed), compared here with the sign undone")
    law.check("transition_apart_over_round_off", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |mjd_transitionFD's centred B, D - the same differences of mj_step on copies| over 10 x "
                  f"100 eps of the values over the nudge (1e-6), at three states: {what} at t = {t:.3f} s, "
                  f"{share:.3g} of the entry off{flipped}; failing, MuJoCo {mujoco.__version__}'s transition "
                  "derivatives are not its own step's (to 3.17.0 under the implicit integrators a nudged control "
                  "stepped with the damping of the unnudged one): a "
                  "model-predictive controller or trajectory optimizer built on them plans with other physics (an "
                  "engine defect: name it in a MuJoCo issue, or change MuJoCo version)")
