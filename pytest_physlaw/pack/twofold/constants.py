"""The constants MuJoCo's compiler derives from the mass matrix at the reference pose are the mass matrix's: each body's
inverse weight (the mean of the diagonal of J M^-1 J^T over its centre of mass's translation and over its rotation),
each joint's (the mean of M^-1's diagonal over its translational and its rotational dofs), each tendon's (ten_J M^-1
ten_J^T) and each actuator's reference acceleration (|M^-1 moment|), all at `qpos0`. The inverse weights scale every
constraint's regularization (contacts, limits, equalities: MuJoCo's documentation, Computation, the diagonal
approximation of A), `actuator_acc0` a muscle's force; a compile that stores another value makes contacts softer or
stiffer than the model's own inertia says. Source: MuJoCo's mjModel reference (body_invweight0, dof_invweight0,
tendon_invweight0: "mean inv inert in qpos0"; actuator_acc0: "acceleration from unit force in qpos0") and
`mj_setConst`; MuJoCo #3163 (3.7.0 rolled back 3.6.0's translational weight of a body whose joint cannot move its
centre of mass, set to its rotational one: a board laid on two rollers sank through them).

The two computations: what the compiler stored (`mj_setConst` at compile), and the same quantities evaluated anew at
`qpos0` through the runtime API: `mj_forward`, `mj_jacBodyCom`, `mj_solveM`, the tendons' `ten_J` and the actuators'
moments. A body welded to the world weighs nothing (0); a body MuJoCo marks simple with no rotation
(`body_simple` 2: slide joints only) may carry 1/mass instead (`mj_setConst`'s shortcut), either value admitted.

The bound, per entry: 1e3 nv eps of the larger of the terms it sums (|J| |M^-1 J^T| entry by entry) and the two values
(a body whose centre of mass no joint moves sums no term): both computations take the same solve at the same pose
and differ by the order their products sum in.

Measured: `pytest-physlaw check MODEL.xml -k compiled_constants`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import options

SOURCE = ("MuJoCo mjModel reference (body_invweight0, dof_invweight0, tendon_invweight0, actuator_acc0) and "
          "mj_setConst; MuJoCo #3163 (3.6.0 -> 3.7.0)")
EPS = float(np.finfo(float).eps)
ROUNDOFF = 1e3  # x nv eps of the summed terms: two sums of the same products in another order
SIMPLE_NO_ROTATION = 2  # body_simple: a body with slide joints only (mj_setConst weighs it 1/mass)
Entries = tuple[np.ndarray, np.ndarray, np.ndarray]  # (stored, computed, the size of the terms summed), per entry


def reference(model: mujoco.MjModel) -> mujoco.MjData:
    """A new mjData at `qpos0` at rest, forwarded without contacts: the state `mj_setConst` derives the constants at
    (its position passes run no collision, engine_setconst.c, so an adhesion actuator's moment, made of contacts, is 0
    there: dm_control's fruit fly stores acc0 0 for its eight, which a state with contacts gives 1.3e4)."""
    data = mujoco.MjData(model)
    data.qpos[:] = model.qpos0
    with options.changed(model, {"disableflags": int(model.opt.disableflags) | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)}):
        mujoco.mj_forward(model, data)
    return data


def inverse_inertia(model: mujoco.MjModel, data: mujoco.MjData, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows M^-1 rows^T, |rows| |M^-1 rows^T|: the size of the terms each entry sums) for a (k, nv) `rows`."""
    solved = np.zeros_like(rows)
    if rows.size:
        mujoco.mj_solveM(model, data, solved, np.ascontiguousarray(rows))
    return rows @ solved.T, np.abs(rows) @ np.abs(solved).T


def _mean_diagonal(matrix: np.ndarray, span: slice) -> float:
    return float(np.trace(matrix[span, span])) / (span.stop - span.start)


def body_weights(model: mujoco.MjModel, data: mujoco.MjData) -> Entries:
    """Each moving body's (translational, rotational) inverse weight, stored and computed, flattened; the world and
    bodies welded to it are left out (both computations give them 0)."""
    stored, computed, terms = [], [], []
    simple = getattr(model, "body_simple", np.zeros(model.nbody, dtype=int))
    for body in range(1, model.nbody):
        if int(model.body_weldid[body]) == 0:
            continue
        jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacBodyCom(model, data, jacp, jacr, body)
        inverse, size = inverse_inertia(model, data, np.vstack([jacp, jacr]))
        pair = [_mean_diagonal(inverse, slice(0, 3)), _mean_diagonal(inverse, slice(3, 6))]
        if int(simple[body]) == SIMPLE_NO_ROTATION:  # mj_setConst's shortcut: 1/mass, no rotation; either admitted
            shortcut = [1.0 / max(float(mujoco.mjMINVAL), float(model.body_mass[body])), 0.0]
            if np.allclose(model.body_invweight0[body], shortcut, rtol=1e-12, atol=0.0):
                pair = shortcut
        stored += list(model.body_invweight0[body])
        computed += pair
        terms += [_mean_diagonal(size, slice(0, 3)), _mean_diagonal(size, slice(3, 6))]
    return np.array(stored), np.array(computed), np.array(terms)


def _joint_spans(kind: int) -> list[slice]:
    """The dof groups a joint's inverse weight averages over: a free joint's translation and rotation, a ball's three
    rotations, a hinge's or slide's one dof."""
    if kind == int(mujoco.mjtJoint.mjJNT_FREE):
        return [slice(0, 3), slice(3, 6)]
    return [slice(0, 3)] if kind == int(mujoco.mjtJoint.mjJNT_BALL) else [slice(0, 1)]


def dof_weights(model: mujoco.MjModel, data: mujoco.MjData) -> Entries:
    """Each dof's inverse weight, stored and computed (a joint's dofs share their group's mean)."""
    stored, computed, terms = [], [], []
    simple = getattr(model, "body_simple", np.zeros(model.nbody, dtype=int))
    for joint in range(model.njnt):
        first = int(model.jnt_dofadr[joint])
        spans = _joint_spans(int(model.jnt_type[joint]))
        count = spans[-1].stop
        units = np.zeros((count, model.nv))
        units[np.arange(count), first + np.arange(count)] = 1.0
        inverse, size = inverse_inertia(model, data, units)
        body = int(model.jnt_bodyid[joint])
        for span in spans:
            for dof in range(span.start, span.stop):
                value = _mean_diagonal(inverse, span)
                if int(simple[body]) == SIMPLE_NO_ROTATION:  # the shortcut, as for the body
                    shortcut = 1.0 / max(float(mujoco.mjMINVAL), float(model.body_mass[body]))
                    value = shortcut if np.isclose(model.dof_invweight0[first + dof], shortcut, rtol=1e-12,
                                                   atol=0.0) else value
                stored.append(float(model.dof_invweight0[first + dof]))
                computed.append(value)
                terms.append(_mean_diagonal(size, span))
    return np.array(stored), np.array(computed), np.array(terms)


def tendon_weights(model: mujoco.MjModel, data: mujoco.MjData) -> Entries:
    """Each tendon's inverse weight, ten_J M^-1 ten_J^T, stored and computed."""
    jacobian = mujoco_versions.tendon_jacobian(model, data)
    inverse, size = inverse_inertia(model, data, jacobian)
    return np.array(model.tendon_invweight0), np.diag(inverse).copy(), np.diag(size).copy()


def actuator_accelerations(model: mujoco.MjModel, data: mujoco.MjData) -> Entries:
    """Each actuator's `actuator_acc0`, |M^-1 moment|, stored and computed; the terms' size |M^-1| |moment|."""
    moments = mujoco_versions.actuator_moments(model, data)
    solved = np.zeros_like(moments)
    if moments.size:
        mujoco.mj_solveM(model, data, solved, np.ascontiguousarray(moments))
    count = moments.shape[0]
    return (np.array(model.actuator_acc0[:count]), np.linalg.norm(solved, axis=1),
            np.linalg.norm(np.abs(solved), axis=1) + np.abs(moments).sum(axis=1) * EPS)


FAMILIES = {"body_invweight0": body_weights, "dof_invweight0": dof_weights, "tendon_invweight0": tendon_weights,
            "actuator_acc0": actuator_accelerations}


def worst(model: mujoco.MjModel, entries: Entries) -> tuple[float, int]:
    """(the largest |stored - computed| over its bound, 1e3 nv eps of the larger of its terms and the two values,
    and that entry's index)."""
    stored, computed, terms = entries
    if stored.size == 0:
        return 0.0, -1
    bound = ROUNDOFF * max(model.nv, 1) * EPS * np.maximum(terms, np.maximum(np.abs(computed), np.abs(stored)))
    gap = np.abs(stored - computed)
    share = np.where(gap > 0, gap / np.maximum(bound, np.finfo(float).tiny), 0.0)
    at = int(np.argmax(share))
    return float(share[at]), at


@pytest.mark.law("model-compiled-constants-agree", source=SOURCE)
def test_compiled_constants_are_the_mass_matrix(law, pack_model, model_case) -> None:
    """The inverse weights of the bodies, dofs and tendons and the actuators' reference accelerations that MuJoCo's
    compiler stored are those the runtime API computes at qpos0 from the mass matrix (`mj_jacBodyCom`,
    `mj_solveM`), each within 1e3 nv eps of the terms it sums."""
    model = pack_model.model
    if model.nv == 0:
        pytest.skip(f"{model_case}: no dof, so no mass matrix to derive a constant from")
    data = reference(model)
    for name, family in FAMILIES.items():
        entries = family(model, data)
        share, at = worst(model, entries)
        stored, computed = (float(entries[0][at]), float(entries[1][at])) if at >= 0 else (0.0, 0.0)
        law.check(f"{name}_apart_over_round_off", share, le=1.0, drift_abs=1.0,
                  why=f"the largest difference between the compiled {name} and the same quantity computed at qpos0 "
                      f"over 1e3 nv eps of its terms ({entries[0].size} entries; the worst, entry {at}: stored "
                      f"{stored:.6g}, computed {computed:.6g}); failing, an engine defect of MuJoCo "
                      f"{mujoco.__version__} (not the model's): the compiler stored a constant its own mass matrix "
                      "does not give, so the constraints' softness (or a muscle's force) is not the model's; report "
                      "it or change MuJoCo version")
