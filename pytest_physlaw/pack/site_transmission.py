"""A site transmission with a reference site measures the site's pose in the reference site's frame: its length is the
gear's projection of the site's position there and of its rotation's axis-angle (expmap) there, and its moment arm on
each dof is the gear's projection of the rate at which that dof moves the site in the reference frame: the position's
derivative, and the relative rotation's angular rate (not the expmap's derivative: MuJoCo applies a rotational force
through the relative angular Jacobian, exact where the two frames align). An orientation servo (`mjTRN_SO3` with a
reference site, 3.11 on) has the three expmap components as lengths and the angular rate in the site's frame as rows.
Source: MuJoCo's XML reference (actuator/general: site, refsite, gear: "translational and rotational components in
the reference frame"), src/engine/engine_core_smooth.c (`mj_transmission`: lengths as the relative expmap, rows as
the relative rotational Jacobian).

The second computation is the sites' own frames (`site_xpos`, `site_xmat`, MuJoCo's kinematics), at the exercised
states; the rates by central differences along each dof (`mj_integratePos`, then `mj_kinematics`). MuJoCo 3.0.0 to
3.14.0 composed a site's world orientation in the wrong order (its local turn times its body's, commit fixed in 3.15.0):
a site turned on a turned body read another rotation (round 8's two cases: the 40 deg tool site read 0.244 rad off).

Bound: the length to 1e-9 of its scale (|gear| times the relative position's size and pi); the moment to 1e-6 of the
row's largest entry beyond what differences of two steps disagree by. `model-actuator-moments` leaves out the
rotational part these judge (its expmap derivative is not MuJoCo's moment by design).

Measured: `pytest-physlaw check MODEL.xml -k site_transmission`; see docs/second-computations.md.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = ("MuJoCo XML reference (actuator: site, refsite, gear) and src/engine/engine_core_smooth.c (mj_transmission: "
          "the relative expmap and the relative rotational Jacobian)")
LENGTH_ROUND_OFF = 1e-9
STEPS = (1e-5, 1e-6)  # rad or m along each dof: two central differences; what they disagree by is their own error
MOMENT_SHARE = 1e-6
TRN = mujoco.mjtTrn
SO3 = getattr(TRN, "mjTRN_SO3", None)


def judged(model: mujoco.MjModel) -> np.ndarray:
    """The controls whose transmission is a site with a reference site (and the orientation servo's, 3.11 on)."""
    kind, trnid = (mujoco_versions.per_control(model, f) for f in ("actuator_trntype", "actuator_trnid"))
    kinds = [int(TRN.mjTRN_SITE)] + ([int(SO3)] if SO3 is not None else [])
    return np.flatnonzero(np.isin(kind, kinds) & (trnid[:, 1] >= 0))


def _rotvec(rot: np.ndarray) -> np.ndarray:
    quat, vec = np.zeros(4), np.zeros(3)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rot).ravel())
    mujoco.mju_quat2Vel(vec, quat, 1.0)
    return vec


def _relative(data: mujoco.MjData, site: int, ref: int) -> tuple[np.ndarray, np.ndarray]:
    """(the site's position in the reference site's frame, the rotation from the reference frame to the site's)."""
    ref_rot = np.asarray(data.site_xmat[ref]).reshape(3, 3)
    rot = np.asarray(data.site_xmat[site]).reshape(3, 3)
    return ref_rot.T @ (np.asarray(data.site_xpos[site]) - np.asarray(data.site_xpos[ref])), ref_rot.T @ rot


def _expected(model: mujoco.MjModel, data: mujoco.MjData, controls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each judged control's length from the sites' frames, its scale)."""
    kind, trnid, gear = (mujoco_versions.per_control(model, f) for f in
                         ("actuator_trntype", "actuator_trnid", "actuator_gear"))
    owner = mujoco_versions.control_actuators(model)
    lengths, scales = np.zeros(controls.size), np.zeros(controls.size)
    for n, c in enumerate(controls.tolist()):
        pos, rot = _relative(data, int(trnid[c, 0]), int(trnid[c, 1]))
        if SO3 is not None and int(kind[c]) == int(SO3):
            k = c - int(np.flatnonzero(owner == owner[c])[0])
            lengths[n], scales[n] = _rotvec(rot)[k], np.pi
        else:
            lengths[n] = gear[c, :3] @ pos + gear[c, 3:] @ _rotvec(rot)
            scales[n] = float(np.max(np.abs(gear[c]))) * (float(np.max(np.abs(pos))) + np.pi)
    return lengths, scales


def _rates(model: mujoco.MjModel, data: mujoco.MjData, controls: np.ndarray, step: float) -> np.ndarray:
    """(controls, nv): each control's moment from the sites' frames by central differences of `step` along each dof:
    the gear's projection of the position's rate and the rotation's angular rate (in the reference frame for a site
    transmission, in the site's own frame for an orientation servo)."""
    kind, trnid, gear = (mujoco_versions.per_control(model, f) for f in
                         ("actuator_trntype", "actuator_trnid", "actuator_gear"))
    owner = mujoco_versions.control_actuators(model)
    scratch = mujoco.MjData(model)
    out = np.zeros((controls.size, model.nv))
    for dof in range(model.nv):
        sides = []
        for sign in (1.0, -1.0):
            scratch.qpos[:] = data.qpos
            scratch.mocap_pos[:], scratch.mocap_quat[:] = data.mocap_pos, data.mocap_quat
            velocity = np.zeros(model.nv)
            velocity[dof] = sign
            mujoco.mj_integratePos(model, scratch.qpos, velocity, step)
            mujoco.mj_kinematics(model, scratch)
            sides.append([_relative(scratch, int(trnid[c, 0]), int(trnid[c, 1])) for c in controls.tolist()])
        for n, c in enumerate(controls.tolist()):
            (pos_p, rot_p), (pos_m, rot_m) = sides[0][n], sides[1][n]
            if SO3 is not None and int(kind[c]) == int(SO3):
                k = c - int(np.flatnonzero(owner == owner[c])[0])
                out[n, dof] = _rotvec(rot_m.T @ rot_p)[k] / (2 * step)
            else:
                turn = _rotvec(rot_p @ rot_m.T) / (2 * step)
                out[n, dof] = gear[c, :3] @ (pos_p - pos_m) / (2 * step) + gear[c, 3:] @ turn
    return out


def mismatch(model: mujoco.MjModel, data: mujoco.MjData, controls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(length error over its scale, moment error over the row's largest entry beyond the differences' own error),
    per judged control, at `data` (forwarded)."""
    lengths, scales = _expected(model, data, controls)
    length_error = np.abs(np.asarray(data.actuator_length)[controls] - lengths) / np.maximum(scales, 1e-300)
    moment = mujoco_versions.actuator_moments(model, data)[controls]
    coarse, fine = (_rates(model, data, controls, h) for h in STEPS)
    own = np.max(np.abs(coarse - fine), axis=1)
    size = np.maximum(np.max(np.abs(fine), axis=1), np.max(np.abs(moment), axis=1))
    moment_error = np.maximum(np.max(np.abs(moment - fine), axis=1) - own, 0.0) / np.maximum(size, 1e-300)
    return length_error, moment_error


@pytest.mark.law("model-site-transmission-is-the-relative-pose", source=SOURCE)
def test_site_transmission_is_the_relative_pose(law, pack_model, exercised, model_case) -> None:
    """At each exercised state, each site transmission with a reference site (and orientation servo) has the length the
    sites' frames give (the gear's projection of the relative position and of the relative rotation's axis-angle) to
    1e-9 of its scale, and the moment arm their relative motion's rate gives, to 1e-6 of its row beyond the differences'
    own error."""
    model = pack_model.model
    controls = judged(model)
    if not controls.size:
        pytest.skip(f"{model_case}: no site transmission with a reference site (nor orientation servo)")
    worst_length, worst_moment = np.zeros(controls.size), np.zeros(controls.size)
    for state in exercised.states:
        length, moment = mismatch(model, state, controls)
        worst_length, worst_moment = np.maximum(worst_length, length), np.maximum(worst_moment, moment)
    names = [mujoco_versions.control_name(model, int(c)) for c in controls]
    at = lambda worst: f"worst {names[int(np.argmax(worst))]!r} over {len(exercised.states)} states"  # noqa: E731
    cause = (f"failing, MuJoCo {mujoco.__version__}'s site transmission measures another pose than its sites' (3.0.0 to "
             "3.14.0 composed a turned site's orientation in the wrong order): an engine defect; report it, or change "
             "MuJoCo version")
    law.check("length_error", float(np.max(worst_length)), le=LENGTH_ROUND_OFF, drift_abs=LENGTH_ROUND_OFF,
              why=f"|actuator_length - the gear's projection of the site's pose in the reference frame (position, "
                  f"axis-angle)|, a share of its scale; {at(worst_length)}; {cause}")
    law.check("moment_error", float(np.max(worst_moment)), le=MOMENT_SHARE, drift_abs=MOMENT_SHARE,
              why=f"|actuator_moment - the rate at which each dof moves the site in the reference frame (position's "
                  f"derivative, rotation's angular rate)|, a share of the row, beyond what differences of {STEPS[0]:g} "
                  f"and {STEPS[1]:g} disagree by; {at(worst_moment)}; {cause}")
