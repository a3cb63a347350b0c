"""The pack's engine-consistency laws (inverse dynamics, gravity compensation, constraint wrenches, moment arms) pass on the
corpus's trigger models under the pinned MuJoCo, and each check fails when MuJoCo's function it judges is made to
compute what the shipped regressions computed (the fault injected for the inner run only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import mujoco
import numpy as np
import pytest

from tests.pack.law_record import law_record

MODELS = Path(__file__).resolve().parents[2] / "regressions" / "models"
CASES = {  # law id -> (trigger model, -k expression)
    "model-inverse-dynamics": ("mujoco_4ce62932_tendon_armature.xml", "inverse"),
    "model-gravcomp": ("mujoco_3066_gravcomp_nested.xml", "gravcomp"),
    "model-constraint-wrenches": ("mujoco_2179_fourbar_sites.xml", "wrenches"),
    "model-actuator-moments": ("mujoco_3_2_5_slider_crank.xml", "lengths_derivative"),
}


def _run(pytester: pytest.Pytester, law_id: str, model: str | None = None) -> dict:
    default, keyword = CASES[law_id]
    model = model or default
    shutil.copy(MODELS / model, pytester.path / model)
    return law_record(pytester, model, keyword, law_id)


@pytest.mark.parametrize("law_id", CASES)
def test_engine_laws_hold_on_the_pinned_mujoco(pytester: pytest.Pytester, law_id: str) -> None:
    record = _run(pytester, law_id)
    assert record["outcome"] == "passed", record
    assert all(c["value"] < 1e-8 for c in record["checks"]), record


def _inverse_leaves_one_percent_out(real):
    def faulty(m, d):  # a term of one dof's force left out, as a tendon's armature was in 3.3.1-3.3.3
        real(m, d)
        d.qfrc_inverse[0] *= 0.99
    return faulty


def _inverse_recovers_another_force(real):
    def faulty(m, d):
        real(m, d)
        d.efc_force[: d.nefc] *= 0.9
    return faulty


def _forward_never_adds_gravcomp(real):
    def faulty(m, d):  # qfrc_gravcomp computed, never added to qfrc_passive (MuJoCo 3.4.0)
        real(m, d)
        d.qfrc_passive[:] -= d.qfrc_gravcomp
    return faulty


def _wrenches_on_the_next_body(real):
    def faulty(m, d):  # each body's constraint wrench booked on the body after it (site ids read as body ids)
        real(m, d)
        d.cfrc_ext[1:] = np.roll(d.cfrc_ext[1:], 1, axis=0)
    return faulty


def _moments_kept_from_the_last_pass(real):
    def faulty(m, d):  # the moment rows added to, not refilled (a slider-crank's in MuJoCo 3.0.0-3.2.4)
        real(m, d)
        d.actuator_moment[:] *= 2
    return faulty


FOURBAR = "mujoco_2179_fourbar_anchor.xml"  # a loop: constraint forces to recover
FAULTS = [("model-inverse-dynamics", None, "mj_inverse", _inverse_leaves_one_percent_out, "smooth_residual"),
          ("model-inverse-dynamics", FOURBAR, "mj_inverse", _inverse_recovers_another_force,
           "constraint_recovered_over_reach"),
          ("model-gravcomp", None, "mj_forward", _forward_never_adds_gravcomp, "gravcomp_error"),
          ("model-constraint-wrenches", None, "mj_rnePostConstraint", _wrenches_on_the_next_body, "wrench_mismatch"),
          ("model-actuator-moments", None, "mj_forward", _moments_kept_from_the_last_pass, "moment_error")]


@pytest.mark.parametrize(("law_id", "model", "function", "fault", "quantity"), FAULTS, ids=[f[4] for f in FAULTS])
def test_each_engine_check_fails_on_the_regression_it_judges(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                             law_id: str, model: str | None, function: str, fault,
                                                             quantity: str) -> None:
    monkeypatch.setattr(mujoco, function, fault(getattr(mujoco, function)))
    record = _run(pytester, law_id, model)
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert quantity in failed, record


def test_a_model_whose_trees_sleep_is_weighed_awake(pytester: pytest.Pytester) -> None:
    """A sleeping tree's dofs are skipped by forward dynamics and not by inverse dynamics: the engine laws measure
    with sleep off (the model's own states), so a scene of dominoes that sleeps (MuJoCo 3.4 on) is no finding."""
    if not hasattr(mujoco.mjtEnableBit, "mjENBL_SLEEP"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no sleep")
    dominoes = "".join(f'<body pos="{0.06 * i:.2f} 0 0.05"><freejoint/><geom type="box" size="0.005 0.02 0.05" '
                       f'mass="0.05"/></body>' for i in range(12))
    pytester.path.joinpath("dominoes.xml").write_text(
        '<mujoco><option timestep="0.002" sleep_tolerance="1e-3"><flag sleep="enable"/></option><worldbody>'
        '<geom type="plane" size="2 2 0.1"/><body pos="-0.06 0 0.05" euler="0 20 0"><freejoint/>'
        f'<geom type="box" size="0.005 0.02 0.05" mass="0.05"/></body>{dominoes}</worldbody></mujoco>')
    result = pytester.runpytest_inprocess("--physlaw-model=dominoes.xml", "-p", "no:cacheprovider", "-k",
                                          "inverse or wrenches")
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*2 passed*"])
