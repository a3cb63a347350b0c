"""A muscle only pulls: MuJoCo's muscle force is -F0 (FL(l) FV(v) act + FP(l)), its active length and velocity curves
and its passive curve never negative, so at any length, velocity and activation a muscle's `actuator_force` is zero or
pulling (negative), however far a run stretches or shortens it. Source: MuJoCo's documentation ("Modeling":
muscles; "Computation": actuation model, the muscle gain and bias); Hill's muscle model.

Measured two ways, each a share of the muscle's peak active force F0 (`actuator_gainprm[2]`, which the compiler sets
from `scale` where the model leaves it -1): the largest `actuator_force` of a muscle actuator (gain or bias of type
muscle) at each exercised state (the driven run's and the reaching run's, which holds every control at both ends of
its range and drives the joints into their limits); and MuJoCo's own muscle curves (`mju_muscleGain` at full
activation plus `mju_muscleBias`) over the muscle's whole length range (`actuator_lengthrange`, 41 lengths) at rest
and shortening or lengthening by that range per second: a run reaches the lengths its loads allow, the curves are
the force at every length the muscle can take. Bound: round-off (1e-10).
MuJoCo 3.1.1's gain curve turned positive below the muscle's `lmin`: a muscle whose operating range reaches below it
pushed with +82.4 N at full activation (#1342, fixed in 3.1.2; regressions case mujoco-a14a584f).

Measured:
`pytest --physlaw-model=MODEL.xml -k muscles_only_pull -s`; see docs/checking-a-model.md.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo documentation, Modeling (muscles) and Computation (actuation model); Hill's muscle model"
ROUND_OFF = 1e-10  # of the muscle's peak force: a force computed as a product of non-negative curves is not positive


def muscle_actuators(model: mujoco.MjModel) -> np.ndarray:
    """The actuators whose gain or bias is MuJoCo's muscle model."""
    return np.flatnonzero((mujoco_versions.per_control(model, "actuator_gaintype") == int(mujoco.mjtGain.mjGAIN_MUSCLE))
                          | (mujoco_versions.per_control(model, "actuator_biastype") == int(mujoco.mjtBias.mjBIAS_MUSCLE)))


def curve_push(model: mujoco.MjModel, muscle: int) -> float:
    """The largest force MuJoCo's muscle curves give `muscle` at full activation over its length range, at rest and
    at plus and minus that range per second, a share of its peak force."""
    low, high = (float(v) for v in model.actuator_lengthrange[muscle])
    lengthrange = np.array([low, high])
    acc0 = float(model.actuator_acc0[muscle])
    gain = mujoco_versions.per_control(model, "actuator_gainprm")[muscle, :9].copy()
    bias = mujoco_versions.per_control(model, "actuator_biasprm")[muscle, :9].copy()
    span = max(high - low, 1e-12)
    forces = [mujoco.mju_muscleGain(length, velocity, lengthrange, acc0, gain)
              + mujoco.mju_muscleBias(length, lengthrange, acc0, bias)
              for length in np.linspace(low, high, 41) for velocity in (-span, 0.0, span)]
    return max(forces) / max(abs(float(gain[2])), 1e-300)


def largest_push(model: mujoco.MjModel, states: list[mujoco.MjData], muscles: np.ndarray) -> tuple[float, int, float]:
    """(the largest muscle force over the states, a share of that muscle's peak force; the muscle; the time)."""
    peak = np.maximum(np.abs(mujoco_versions.per_control(model, "actuator_gainprm")[muscles, 2]), 1e-300)
    worst = (-np.inf, int(muscles[0]), 0.0)
    for state in states:
        share = state.actuator_force[muscles] / peak
        k = int(np.argmax(share))
        if share[k] > worst[0]:
            worst = (float(share[k]), int(muscles[k]), float(state.time))
    return worst


@pytest.mark.law("model-muscles-only-pull", source=SOURCE)
def test_muscles_only_pull(law, pack_model, exercised, model_case) -> None:
    """A muscle only pulls: MuJoCo's muscle curves give no pushing force at full activation anywhere in its length
    range, and at each exercised state (the driven and the reaching runs') every muscle actuator's force is zero or
    negative, to round-off of its peak force."""
    model = pack_model.model
    muscles = muscle_actuators(model)
    if not muscles.size:
        pytest.skip(f"{model_case}: no muscle actuator")
    share, muscle, time = largest_push(model, exercised.states, muscles)
    name = mujoco_versions.control_name(model, muscle)
    curves = {int(a): curve_push(model, int(a)) for a in muscles}
    worst = max(curves, key=curves.get)
    law.check("curve_push_share", curves[worst], le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"the largest force MuJoCo's muscle curves give at full activation over the muscle's length range, a "
                  f"share of its peak force F0 (muscle {mujoco_versions.control_name(model, worst)!r}; positive pushes); "
                  f"failing, MuJoCo {mujoco.__version__}'s muscle curves push there, an engine defect (not the model's): "
                  "report it, or change MuJoCo version (3.1.1's gain turned positive below lmin: fixed in 3.1.2)")
    law.check("muscle_push_share", share, le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"the largest force of a muscle over the exercised states, a share of its peak force F0 (muscle "
                  f"{name!r} at t = {time:.3f} s; positive pushes); failing, MuJoCo {mujoco.__version__}'s muscle "
                  "curves give a pushing force there, an engine defect (not the model's): report it, or change MuJoCo "
                  "version (3.1.1's gain turned positive below lmin: fixed in 3.1.2)")
