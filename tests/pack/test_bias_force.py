"""model-bias-force-is-its-bodies (`pytest_physlaw.pack.twofold.bias_force`): the arm of test_body_inertias, spinning
and swinging on its floating base, has the bias force of its bodies' accelerations at constant joint velocities,
gravity and its tendons' armature; a bias force off by 1e-5 of its velocity part, a body's mass or inertia the pass
would read otherwise, a tendon armature's term or gravity left out, fails; a model at rest is gravity's alone."""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import bias_force as F
from tests.pack.law_record import law_record
from tests.pack.test_body_inertias import TENDON_ARMATURE, _moving, _scene

LAW = "model-bias-force-is-its-bodies"


def _velocity_part(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    still = copy.copy(data)
    still.qvel[:] = 0.0
    mujoco.mj_forward(model, still)
    return np.asarray(data.qfrc_bias) - still.qfrc_bias


def test_the_swinging_arms_bias_force_is_its_bodies() -> None:
    model, data = _moving(_scene())
    assert np.abs(_velocity_part(model, data)).max() > 1e-2  # Coriolis and gyroscopic forces to judge
    ratio, dof, built, total = F.compare(model, data)
    assert ratio <= 1.0, (ratio, dof, built, total)


def test_at_rest_the_bias_force_is_gravitys() -> None:
    model, data = _moving(_scene())
    data.qvel[:] = 0.0
    mujoco.mj_forward(model, data)
    assert F.compare(model, data)[0] <= 1.0


@pytest.mark.parametrize("fault", ["velocity part off by 1e-5", "a body's inertia", "a body's mass",
                                   "a tendon's armature", "gravity"])
def test_a_force_the_pass_got_wrong_fails(fault: str) -> None:
    model, data = _moving(_scene())
    if fault.startswith("velocity"):
        data.qfrc_bias[:] += 1e-5 * _velocity_part(model, data)
    elif fault == "a body's inertia":  # the forearm spins: its gyroscopic term changes
        model.body_inertia[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "hand")] *= 1 + 1e-4
    elif fault == "a body's mass":
        model.body_mass[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "lower")] *= 1 + 1e-6
    elif fault == "a tendon's armature":
        if not TENDON_ARMATURE:
            pytest.skip(f"MuJoCo {mujoco.__version__} has no tendon armature (3.3.1 on)")
        model.tendon_armature[0] = 0.0
    else:
        model.opt.gravity[:] = 0.0
    assert F.compare(model, data)[0] > 1.0, fault


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("arm.xml").write_text(_scene())
    record = law_record(pytester, "arm.xml", "bias_force", LAW)
    assert record["outcome"] == "passed", record
