"""model-split-step-is-the-step (`pytest_physlaw.pack.twofold.split_step`): a chain of every joint kind with
acceleration, force, touch and joint sensors passes; a second half that keeps an accelerometer's first reading
(MuJoCo 3.5.0's mj_step2), or moves qvel by 1e-9, fails (the fault injected into `mj_step2` for the run); RK4 is
skipped, naming why."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import split_step
from tests.pack.law_record import law_record
from tests.pack.test_body_velocities import CHAIN

LAW = "model-split-step-is-the-step"
SENSED = CHAIN.replace("</actuator>", """</actuator>
  <sensor>
    <accelerometer name="acc" site="tip"/><force name="wrist_force" site="tip"/><gyro site="tip"/>
    <jointpos joint="elbow"/><jointvel joint="slide"/><touch site="sole"/>
  </sensor>""").replace('<geom type="box" size=".1 .08 .05" mass="2"/>',
                      '<geom type="box" size=".1 .08 .05" mass="2"/><site name="sole" type="box" size=".1 .08 .06"/>'
                      ).replace('<geom type="sphere" size=".03" mass=".1"/>',
                                '<geom type="sphere" size=".03" mass=".1"/><site name="tip"/>')


@pytest.fixture
def sensed(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("sensed.xml").write_text(SENSED)
    return "sensed.xml"


def _stale(real):
    """mj_step2 whose accelerometer keeps the reading of the first call (3.5.0: the flag of mj_rnePostConstraint
    never cleared)."""
    kept = {}

    def second_half(m, d):
        real(m, d)
        adr = int(m.sensor_adr[m.sensor("acc").id])
        kept.setdefault("acc", np.array(d.sensordata[adr: adr + 3]))
        d.sensordata[adr: adr + 3] = kept["acc"]
    return second_half


def _nudged(real):
    """mj_step2 that leaves qvel 1e-9 off."""
    def second_half(m, d):
        real(m, d)
        d.qvel[:] += 1e-9
    return second_half


def test_a_chain_with_acceleration_sensors_passes(pytester: pytest.Pytester, sensed: str) -> None:
    record = law_record(pytester, sensed, "split_step", LAW)
    assert record["outcome"] == "passed", record
    assert 0 <= record["checks"][0]["value"] <= 1, record


@pytest.mark.parametrize("fault", [_stale, _nudged], ids=["stale-accelerometer", "qvel-nudged"])
def test_two_halves_other_than_the_step_fail(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                             sensed: str, fault) -> None:
    monkeypatch.setattr(mujoco, "mj_step2", fault(mujoco.mj_step2))
    record = law_record(pytester, sensed, "split_step", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1, record


def test_rk4_is_left_out_naming_why() -> None:
    model = mujoco.MjModel.from_xml_string(SENSED.replace('timestep="0.002"', 'timestep="0.002" integrator="RK4"'))
    assert "RK4" in split_step.why_not(model)
    assert split_step.why_not(mujoco.MjModel.from_xml_string(SENSED)) is None
