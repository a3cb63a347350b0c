"""model-restored-state-steps-alike (`pytest_physlaw.pack.twofold.restored_state`): an arm with a filtered actuator
and a stack of crates solved by PGS capped at 20 iterations pass (restored and original step to the same bits); a
`mj_setState` that leaves the activations out, or the warm start, fails (the faults injected into `mj_setState`)."""

from __future__ import annotations

import mujoco
import pytest

from tests.pack.law_record import law_record

LAW = "model-restored-state-steps-alike"
SCENE = """<mujoco model="a filtered arm beside three crates, PGS capped">
  <option timestep="0.005" solver="PGS" iterations="20"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body pos="1 0 .5">
      <joint name="shoulder" axis="0 1 0" damping=".2"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
    </body>
    <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
    <body pos=".02 0 .3"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
    <body pos="-.02 .01 .5"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
  </worldbody>
  <actuator>
    <general name="lift" joint="shoulder" dyntype="filter" dynprm=".05" gainprm="5" ctrlrange="-1 1"/>
  </actuator>
  <sensor><actuatorfrc actuator="lift"/><jointpos joint="shoulder"/></sensor>
</mujoco>
"""


@pytest.fixture
def scene(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    return "scene.xml"


def _set_state_without(real, field: str):
    def set_state(m, d, state, spec):
        real(m, d, state, spec)
        getattr(d, field)[:] = 0.0  # as a release whose integration state left it out would restore
    return set_state


def test_a_restored_state_steps_to_the_same_bits(pytester: pytest.Pytester, scene: str) -> None:
    record = law_record(pytester, scene, "restored", LAW)
    assert record["outcome"] == "passed", record
    assert record["checks"][0]["value"] == 0, record


@pytest.mark.parametrize("field", ["act", "qacc_warmstart"])
def test_a_state_that_leaves_something_out_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                 scene: str, field: str) -> None:
    monkeypatch.setattr(mujoco, "mj_setState", _set_state_without(mujoco.mj_setState, field))
    record = law_record(pytester, scene, "restored", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1, record
