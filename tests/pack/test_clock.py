"""model-physics-ignores-the-clock (`pytest_physlaw.pack.twofold.clock`): boxes piled in a bin under PGS pass; a
forward pass that reads the time (a fault wrapped around `mj_forward`) fails, by a part in 1e9 of the accelerations;
delayed controls are left out, naming why."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw.pack.twofold import clock
from tests.pack.law_record import law_record

LAW = "model-physics-ignores-the-clock"
PILE = """<mujoco model="three boxes piled in a corner, PGS">
  <option timestep="0.002" solver="PGS"/>
  <worldbody>
    <geom type="plane" size="1 1 .1"/>
    <geom type="box" size=".01 .3 .2" pos=".21 0 .2"/>
    <body pos="0 0 .06"><freejoint/><geom type="box" size=".2 .1 .05"/></body>
    <body pos=".05 0 .17"><freejoint/><geom type="box" size=".1 .1 .05" euler="0 10 0"/></body>
    <body pos=".1 .02 .3"><freejoint/><geom type="box" size=".05 .05 .05"/></body>
  </worldbody>
</mujoco>
"""


def _pile_state() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(PILE)
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data


def test_a_pile_solved_by_pgs_ignores_the_clock() -> None:
    model, data = _pile_state()
    assert data.ncon > 0
    share, _ = clock.apart(model, data)
    assert share <= 1.0, share


def test_a_forward_pass_reading_the_time_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    model, data = _pile_state()
    forward = mujoco.mj_forward

    def timed(m, d):  # the accelerations off by a part in 1e12 per second of the clock
        forward(m, d)
        d.qacc[:] *= 1 + 1e-12 * d.time
    monkeypatch.setattr(clock.mujoco, "mj_forward", timed)
    share, which = clock.apart(model, data)
    assert share > 1.0 and which == "qacc", (share, which)


@pytest.mark.skipif(not hasattr(mujoco.MjModel, "nhistory"), reason="delayed controls need MuJoCo's history")
def test_delayed_controls_are_left_out_naming_why() -> None:
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body>
      </worldbody><actuator><motor joint="j" delay="0.01" nsample="3"/></actuator></mujoco>""")
    assert "delayed" in clock.why_not(model)


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("pile.xml").write_text(PILE)
    record = law_record(pytester, "pile.xml", "clock", LAW)
    assert record["outcome"] == "passed", record
