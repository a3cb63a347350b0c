"""The order in which a model lists its actuators is no physics: the same compiled model with its actuators listed in
another order, each actuator's parameters, activations and control carried with it, steps from the same state to the
same accelerations, velocities and activations, to the round-off of summing the actuators' forces in another order.
Source: MuJoCo's documentation (Modeling: actuators; mjModel's actuator arrays are per actuator, its activations
addressed by `actuator_actadr`); the changelog of 3.2.3 (commit 0bcaa856: the implicit integrators read a muscle's
activation at the wrong index when a stateless actuator followed it).

The second order: the stateless actuators first, then those with activations, each group reversed (so a model that
lists a muscle before a motor gets the motor first, and every order assumption "stateful last" holds in it). The
compiled model is permuted in place (`reordered`: every per-actuator array, `mujoco_versions.actuator_fields`; the
activations, controls and outputs moved with their actuators and their addresses renumbered in the new order; the ids
sensors, joints and tendons hold of actuators remapped; keyframes' controls and activations) and restored after.
At the states of `twofold_states` one `mj_step` (the model's own integrator) from the same state in both orders gives
qacc, qvel and act (mapped back), which must agree to the step's round-off.

The bound, each quantity within 10 (nu + nv) eps of its size: a sum of nu forces taken in another order is off by at
most (nu - 1) eps of its terms' absolute sum (recursive summation), which qacc's size carries through |M^-1|
(`actuation_reach`), and the step's solves with the mass matrix add nv eps relative.

Measured (`pytest-physlaw check MODEL.xml -p no:xdist -k order`, each release's venv): the corpus' elbow with its
muscle listed before a damped servo (`regressions/models/mujoco_0bcaa856_muscle_then_servo.xml`, implicitfast) fails
on MuJoCo 3.0.1 and 3.2.2 with qvel 1.9e10 x the bound (qacc and act 0: the wrong activation enters only the implicit
velocity derivative), passes on 3.2.3, 3.14.0 and 4.0.1 at 0; its twin, the servo first, is already in the second order
(skipped). MuJoCo's zoo on 3.14.0: 59 passed, none failed, every model at 0 but arm26 (six muscles on two joints: qacc
0.0063 of the bound); on 4.0.1 54 passed, none failed, all at 0. The dog: 1.0 s of a 54.7 s check. Figures:
docs/second-computations.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import states

SOURCE = "MuJoCo documentation (Modeling: actuators; mjModel actuator arrays); changelog 3.2.3 (commit 0bcaa856)"
EPS = float(np.finfo(float).eps)
ROUNDOFF = 10.0  # the bound's constant: a reordered sum of n terms is off by at most (n - 1) eps of its terms


def second_order(model: mujoco.MjModel) -> np.ndarray:
    """The actuators in the second order, as old ids: the stateless ones (no activation) first, then the stateful,
    each group in reverse."""
    ids = np.arange(mujoco_versions.actuator_count(model))[::-1]
    stateful = np.asarray(model.actuator_actnum)[ids] > 0
    return np.concatenate([ids[~stateful], ids[stateful]]).astype(int)


def blocks(adr: np.ndarray, num: np.ndarray, order: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(the vector's new order as old entries, the actuators' new addresses) where actuator i owns entries
    adr[i] .. adr[i] + num[i] - 1 of a vector of `size` and the actuators are listed in `order`: each block moves
    with its actuator, laid out in the new order (address -1 where an actuator owns none); entries no actuator
    owns keep their order after them."""
    pieces, new_adr, at = [], np.full(len(order), -1, dtype=int), 0
    for j, i in enumerate(order):
        n = int(num[i])
        if n > 0:
            pieces.append(np.arange(int(adr[i]), int(adr[i]) + n))
            new_adr[j], at = at, at + n
    owned = np.concatenate(pieces).astype(int) if pieces else np.zeros(0, dtype=int)
    return np.concatenate([owned, np.setdiff1d(np.arange(size), owned)]).astype(int), new_adr


@dataclass(frozen=True)
class Reorder:
    """How the actuators were reordered: new actuator j is old actuator `order[j]`; entry k of a reordered mjData
    vector (`act`, `ctrl`, `actuator_force`) is the old vector's entry `vectors[field][k]`."""

    order: np.ndarray
    vectors: dict[str, np.ndarray]

    def carry(self, data: mujoco.MjData) -> None:
        """Move `data`'s inputs (controls, activations) to the reordered actuators, in place."""
        for field in ("act", "ctrl"):
            vector = getattr(data, field)
            vector[:] = np.array(vector)[self.vectors[field]]

    def back(self, data: mujoco.MjData, field: str) -> np.ndarray:
        """`data`'s `field` (a vector the actuators own blocks of) in the original order."""
        original = np.empty(len(self.vectors[field]))
        original[self.vectors[field]] = getattr(data, field)
        return original


INTEGRATION = int(mujoco.mjtState.mjSTATE_INTEGRATION)


def integration_state(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """`data`'s integration state (positions, velocities, activations, controls, applied forces, warm start, plugin
    and history), MuJoCo's `mj_getState`."""
    state = np.empty(mujoco.mj_stateSize(model, INTEGRATION))
    mujoco.mj_getState(model, data, state, INTEGRATION)
    return state


def fresh(model: mujoco.MjModel, state: np.ndarray) -> mujoco.MjData:
    """A new mjData of `model` holding `state` (`mj_setState`): no array of an earlier forward pass left in it.
    A copy of a state forwarded in the other order would step wrong: MuJoCo's transmission writes only the moment
    entries an actuator has (3.2.3's dense `actuator_moment`), and the muscle's row left where the servo now
    stands moved the elbow."""
    data = mujoco.MjData(model)
    mujoco.mj_setState(model, data, state, INTEGRATION)
    return data


@contextlib.contextmanager
def reordered(model: mujoco.MjModel, order: np.ndarray) -> Iterator[Reorder]:
    """`model`, compiled, with its actuators listed in `order` (old ids), in place, restored on leaving: every
    per-actuator array's rows, the activations', controls' and outputs' addresses renumbered in the new order, the
    keyframes' controls and activations moved, the actuator ids that sensors, joints and tendons hold remapped. A
    delayed actuator's history buffer (`actuator_historyadr`, 3.14) keeps its address: the row moves, the buffer
    stays its own."""
    fields = mujoco_versions.actuator_fields(model)
    spaces = mujoco_versions.actuator_spaces(model)
    references = mujoco_versions.actuator_references(model)
    keys = [space[3] for space in spaces if space[3] is not None]
    saved = {name: np.array(getattr(model, name)) for name in [*fields, *keys, *(r for r, _ in references)]}
    try:
        for name in fields:
            getattr(model, name)[...] = saved[name][order]
        vectors = {}
        for adr, num, field, key, size in spaces:
            if adr is None:  # one each at the actuator's own index
                vectors[field] = np.asarray(order, dtype=int)
            else:
                vectors[field], new_adr = blocks(saved[adr], saved[num], order, size)
                getattr(model, adr)[...] = new_adr
            if key is not None and saved[key].size:
                getattr(model, key)[...] = saved[key][:, vectors[field]]
        new_id = np.empty(len(order), dtype=int)
        new_id[order] = np.arange(len(order))
        for name, mask in references:
            getattr(model, name)[mask] = new_id[saved[name][mask]]
        yield Reorder(np.asarray(order), vectors)
    finally:
        for name, value in saved.items():
            getattr(model, name)[...] = value


def is_single_io(model: mujoco.MjModel) -> bool:
    """Whether each actuator has one control and one force output (every release up to 4.0; MuJoCo's multi-input,
    multi-output actuators are not reordered here)."""
    for num in ("actuator_ctrlnum", "actuator_outnum"):
        counts = getattr(model, num, None)
        if counts is not None and np.any(np.asarray(counts) != 1):
            return False
    return True


def steps_in_both_orders(model: mujoco.MjModel, state: mujoco.MjData,
                         order: np.ndarray) -> tuple[mujoco.MjData, mujoco.MjData, np.ndarray]:
    """(one `mj_step` from `state` in the model's order, one in `order`, that step's activations in the model's
    order), each from a new mjData holding `state` (`fresh`); the model is restored after."""
    start = integration_state(model, state)
    first = fresh(model, start)
    mujoco.mj_step(model, first)
    with reordered(model, order) as reorder:
        second = fresh(model, start)
        reorder.carry(second)
        mujoco.mj_step(model, second)
        act = reorder.back(second, "act")
    return first, second, act


def actuation_reach(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """max over dofs of |M^-1| a, a the actuators' forces on each dof each taken absolute (a_d = sum_i |moment_id
    force_i|), at `data`'s last forward pass: the size of the accelerations a reordered sum's round-off can move,
    through the mass matrix's solve (`mj_solveM` on the dofs the actuators move). Where the actuators' forces
    cancel, |qacc| is no scale for it (MuJoCo's four muscles on two joints: 20x smaller)."""
    moments = mujoco_versions.actuator_moments(model, data)
    forces = np.asarray(data.actuator_force)[: moments.shape[0], None]
    absolute = np.abs(moments * forces).sum(axis=0)
    dofs = np.flatnonzero(absolute)
    if dofs.size == 0:
        return 0.0
    units = np.zeros((dofs.size, model.nv))
    units[np.arange(dofs.size), dofs] = 1.0
    columns = np.zeros_like(units)
    mujoco.mj_solveM(model, data, columns, units)  # M symmetric: row k is M^-1's column of dof dofs[k]
    return float(np.max(np.abs(columns).T @ absolute[dofs]))


def apart(model: mujoco.MjModel, state: mujoco.MjData, first: mujoco.MjData, second: mujoco.MjData,
          act: np.ndarray) -> dict[str, float]:
    """Each compared quantity's largest difference between the orders over its round-off bound, ROUNDOFF (nu + nv)
    eps times its scale: qacc of the step's forward pass (scale: the largest of |qacc|, |qacc_smooth| and the
    actuators' reach `actuation_reach`), qvel after the step (|qvel| before or after, + h times qacc's scale), act
    after the step (|act| before or after, + h |act_dot|); max norms. `state` is forwarded in the model's order."""
    h = float(model.opt.timestep)
    bound = ROUNDOFF * (mujoco_versions.actuator_count(model) + model.nv) * EPS

    def share(difference: np.ndarray, scale: float) -> float:
        largest = float(np.max(np.abs(difference), initial=0.0))
        return largest / (bound * scale) if largest > 0 else 0.0

    def size(*arrays: np.ndarray) -> float:
        return max((float(np.max(np.abs(a), initial=0.0)) for a in arrays), default=0.0)

    qacc = max(size(first.qacc, first.qacc_smooth, second.qacc), actuation_reach(model, state))
    return {"qacc": share(first.qacc - second.qacc, qacc),
            "qvel": share(first.qvel - second.qvel, size(state.qvel, first.qvel, second.qvel) + h * qacc),
            "act": share(first.act - act, size(state.act, first.act, act) + h * size(first.act_dot))}


@pytest.mark.law("model-actuator-order-agrees", source=SOURCE)
def test_actuator_order_is_no_physics(law, pack_model, twofold_states, model_case) -> None:
    """The step does not depend on the order in which the model lists its actuators: at each state, one `mj_step`
    (the model's own integrator) of the model as compiled and of the same model with its actuators reordered
    (stateless first, then stateful, each group reversed) give the same qacc, qvel and act, to 10 (nu + nv) eps of
    their size: summing nu actuator forces in another order changes the sum by at most (nu - 1) eps of its terms'
    absolute sum (qacc's size includes that sum through |M^-1|), and the step's solves with the mass matrix add nv
    eps relative."""
    model = pack_model.model
    if mujoco_versions.actuator_count(model) == 0:
        pytest.skip(f"{model_case}: no actuator")
    if not is_single_io(model):
        pytest.skip(f"{model_case}: an actuator with several controls or outputs (not reordered by this law)")
    order = second_order(model)
    if np.array_equal(order, np.arange(len(order))):
        pytest.skip(f"{model_case}: the actuators are already listed in the second order (stateless first, then "
                    "stateful, each group reversed): nothing to reorder")
    found = []
    for state in states.for_solves(model, twofold_states):  # above 200 dofs three states: each steps twice
        first, second, act = steps_in_both_orders(model, state, order)
        found.append((apart(model, state, first, second, act), float(state.time)))
    listed = ", ".join(str(int(i)) for i in order)
    change = (f"an engine defect of MuJoCo {mujoco.__version__} (not the model's): the step depends on the order the "
              f"actuators are listed in; until it is fixed, list the stateless actuators before those with "
              f"activations (the order here: {listed}), report it, or change MuJoCo version")
    for quantity in ("qacc", "qvel", "act"):
        worst, t = max(((f[quantity], t) for f, t in found), key=lambda f: f[0])
        law.check(f"{quantity}_apart_over_round_off", worst, le=1.0, drift_abs=1.0,
                  why=f"the largest |{quantity}| difference between the two orders over {ROUNDOFF:g} (nu + nv) eps "
                      f"of its size, worst of {len(found)} states at t = {t:.3f} s; failing, {change}")
