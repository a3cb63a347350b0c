"""The rate laws (`pytest_physlaw/pack/twofold/residuals.py`, `tendons.py`, measured by `rates.py`): they pass on sound
models (an arm, a slider and two free boxes tied by joint, tendon, connect and weld equalities; a tendon over a
sphere pulley with its sidesite), fail when MuJoCo's residual, length or Jacobian is made to say another thing,
or its wrap path is moved into the sphere or bent at one point of it, and refuse a state that is not finite."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import rates
from tests.pack.law_record import law_record

MODELS = Path(__file__).resolve().parents[2] / "regressions" / "models"
PULLEY = "mujoco_3e701b21_tendon_sidesite_off_plane.xml"  # MuJoCo 3.2.2 routed it through the sphere; sound after
CHAIN = """<mujoco model="an arm, a slider and two free boxes tied by joint, tendon, connect and weld equalities">
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
      <body name="fore" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
        <site name="tip" pos="0.3 0 0"/>
      </body>
    </body>
    <body name="slider" pos="0.7 0 1.3">
      <joint name="lift" type="slide" axis="0 0 1" damping="1"/>
      <geom type="sphere" size="0.05"/>
      <site name="hook"/>
    </body>
    <body name="box" pos="0 0.5 1"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
    <body name="lid" pos="0 0.8 1"><freejoint/><geom type="box" size="0.1 0.05 0.01"/></body>
  </worldbody>
  <tendon>
    <spatial name="cord"><site site="tip"/><site site="hook"/></spatial>
    <fixed name="sum"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="0.5"/></fixed>
  </tendon>
  <equality>
    <joint joint1="elbow" joint2="shoulder" polycoef="0 0.5 0.2 0 0" solref="0.05 1"/>
    <tendon tendon1="cord" tendon2="sum" polycoef="0 0.1 0 0 0" solref="0.05 1"/>
    <connect body1="box" body2="upper" anchor="0 -0.5 0" solref="0.05 1"/>
    <weld body1="lid" body2="box" torquescale="0.3" solref="0.05 1"/>
  </equality>
  <actuator><motor joint="shoulder" ctrlrange="-1 1"/><motor joint="lift" ctrlrange="-1 1"/></actuator>
</mujoco>"""


def _record(pytester: pytest.Pytester, model: str, keyword: str, law_id: str) -> dict:
    return law_record(pytester, model, keyword, law_id)


def _equality_residual_scaled(real):
    def faulty(m, d):  # each equality row's residual 1.2 times what MuJoCo's Jacobian differentiates
        real(m, d)
        d.efc_pos[: d.ne] *= 1.2
    return faulty


def _jacobian_rows_scaled(real):
    def faulty(model, data, rows=None):  # the constraint rows' Jacobian half of the residual's derivative
        return 0.5 * real(model, data, rows)
    return faulty


def _tendon_length_stretched(real):
    def faulty(m, d):  # each tendon's length 1 % longer than its Jacobian says
        real(m, d)
        d.ten_length[:] *= 1.01
    return faulty


def _tendon_jacobian_scaled(real):
    def faulty(model, data):
        return 0.9 * real(model, data)
    return faulty


def _tangents_moved(factor: float):
    def fault(real):
        def faulty(model, data, tendon):  # the tangent points moved towards (or through) the wrap geom's centre
            found = real(model, data, tendon)
            for w in found:
                if w.tangents is not None:
                    centre = data.geom_xpos[w.geom]
                    w.tangents = centre + factor * (w.tangents - centre)
            return found
        return faulty
    return fault


def _path_kinked(real):
    def faulty(model, data, tendon):  # the two tangent points joined at their mean, put back on the surface: a kink
        found = real(model, data, tendon)
        for w in found:
            if w.tangents is not None:
                centre, radius = data.geom_xpos[w.geom], model.geom_size[w.geom, 0]
                middle = w.tangents.mean(axis=0) - centre
                w.tangents = np.stack([centre + radius * middle / np.linalg.norm(middle)] * 2)
        return found
    return faulty


CASES = [  # (law id, -k, model, the object, its function faulted, the fault, the quantities that fail)
    ("model-constraint-residual-rates", "residual", "chain.xml", mujoco, "mj_makeConstraint",
     _equality_residual_scaled, {"rate_apart_over_error"}),
    ("model-constraint-residual-rates", "residual", "chain.xml", mujoco_versions, "constraint_jacobian",
     _jacobian_rows_scaled, {"rate_apart_over_error"}),
    ("model-tendon-length-rates", "tendon_length", "chain.xml", mujoco, "mj_tendon", _tendon_length_stretched,
     {"rate_apart_over_error"}),
    ("model-tendon-length-rates", "tendon_length", PULLEY, mujoco_versions, "tendon_jacobian", _tendon_jacobian_scaled,
     {"rate_apart_over_error"}),
    ("model-tendon-wraps-outside", "wraps", PULLEY, rates, "wraps", _tangents_moved(0.9),
     {"cut_through_over_round_off"}),
    ("model-tendon-wraps-outside", "wraps", PULLEY, rates, "wraps", _tangents_moved(-1.0),
     {"cut_through_over_round_off", "wrong_side_over_round_off"}),
    ("model-tendon-wraps-outside", "wraps", PULLEY, rates, "wraps", _path_kinked, {"cut_through_over_round_off"}),
]


def _model(pytester: pytest.Pytester, name: str) -> None:
    if name == "chain.xml":
        pytester.path.joinpath(name).write_text(CHAIN)
    else:
        shutil.copy(MODELS / name, pytester.path / name)


FIXED = {  # (law, model) -> the release that fixed MuJoCo's defect the model triggers: before it the law fails
    ("model-constraint-residual-rates", "chain.xml"): (3, 0, 1),  # 86d9c84e: the weld's torquescale
    ("model-tendon-wraps-outside", PULLEY): (3, 2, 3),  # 3e701b21: the sidesite projected inside the circle
}


@pytest.mark.parametrize(("law_id", "keyword", "model"), sorted({c[:3] for c in CASES}))
def test_each_rate_law_passes_on_a_sound_model(pytester: pytest.Pytester, law_id: str, keyword: str,
                                               model: str) -> None:
    _model(pytester, model)
    record = _record(pytester, model, keyword, law_id)
    if mujoco_versions.version() < FIXED.get((law_id, model), (0,)):
        assert record["outcome"] == "failed", record  # the release's own defect, found
        return
    assert record["outcome"] == "passed", record
    assert all(c["value"] < 0.5 for c in record["checks"]), record


@pytest.mark.parametrize(("law_id", "keyword", "model", "owner", "function", "fault", "quantities"), CASES,
                         ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_each_rate_law_fails_under_its_fault(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                             law_id: str, keyword: str, model: str, owner, function: str, fault,
                                             quantities: set[str]) -> None:
    _model(pytester, model)
    monkeypatch.setattr(owner, function, fault(getattr(owner, function)))
    record = _record(pytester, model, keyword, law_id)
    assert record["outcome"] == "failed", record
    assert quantities <= {c["quantity"] for c in record["checks"] if not c["passed"]}, record
    assert "engine defect" in json.dumps(record)


def test_a_rate_is_refused_at_a_state_that_is_not_finite() -> None:
    model = mujoco.MjModel.from_xml_string(CHAIN)
    data = mujoco.MjData(model)
    data.qvel[0] = np.nan
    with pytest.raises(ValueError, match="non-finite qvel"):
        rates.along_motion(model, data, rates.tendon_lengths, np.ones(model.ntendon))


def test_a_state_at_rest_has_no_rate() -> None:
    model = mujoco.MjModel.from_xml_string(CHAIN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    assert rates.along_motion(model, data, rates.tendon_lengths, np.ones(model.ntendon)) is None


def test_a_wrap_switching_sides_within_the_steps_is_left_out() -> None:
    """The pulley's path taken straight just past the sphere: within -+H along the motion it starts to wrap, and
    the length's rate is not defined there (a kink): the rate is left out, not compared."""
    model = mujoco.MjModel.from_xml_path(str(MODELS / PULLEY))
    data = mujoco.MjData(model)

    def wrapped(q: float) -> bool:
        data.qpos[0] = q
        mujoco.mj_forward(model, data)
        return rates.wraps(model, data, 0)[0].tangents is not None

    grid = np.linspace(-1.5, 1.5, 301)
    k = int(np.flatnonzero(np.diff([wrapped(q) for q in grid]))[0])
    low, high = grid[k], grid[k + 1]
    while high - low > 1e-9:  # the switch, to well inside the steps
        mid = 0.5 * (low + high)
        low, high = (mid, high) if wrapped(mid) == wrapped(low) else (low, mid)
    data.qpos[0], data.qvel[0] = low, 1.0
    mujoco.mj_forward(model, data)
    rate = rates.along_motion(model, data, rates.tendon_lengths, np.ones(model.ntendon))
    assert rate is not None and not rate.defined[0]
