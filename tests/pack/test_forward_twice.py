"""model-forward-is-a-function-of-the-state (`pytest_physlaw.pack.twofold.forward_twice`): a stack of crates solved by
PGS capped at 20 iterations passes from 3.3.6 and fails before it (the released defect: mj_forward stored its answer
as the next solve's warm start); a forward pass that writes its qacc into the warm start fails (the fault injected
into `mj_forward`)."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-forward-is-a-function-of-the-state"
STACK = """<mujoco model="three crates, PGS capped">
  <option timestep="0.005" solver="PGS" iterations="20"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
    <body pos=".02 0 .3"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
    <body pos="-.02 .01 .5"><freejoint/><geom type="box" size=".1 .1 .1" mass="2"/></body>
  </worldbody>
</mujoco>
"""
FIXED = (3, 3, 6)  # mj_forward made idempotent (changelog 3.3.6; round 7's mujoco-c7a82c32: 3.3.5 bad, 3.0.0 too)


@pytest.fixture
def stack(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("stack.xml").write_text(STACK)
    return "stack.xml"


def _warm_started_by_itself(real):
    def forward(m, d):
        real(m, d)
        d.qacc_warmstart[:] = d.qacc  # as MuJoCo before 3.3.6 left it
    return forward


def test_a_capped_pgs_stack_passes_where_forward_is_idempotent(pytester: pytest.Pytester, stack: str) -> None:
    record = law_record(pytester, stack, "forward_twice", LAW)
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "failed" and record["checks"][0]["value"] > 1e3, record
    else:
        assert record["outcome"] == "passed", record
        assert record["checks"][0]["value"] == 0, record


@pytest.mark.skipif(mujoco_versions.version() < FIXED, reason=f"MuJoCo {mujoco.__version__}'s mj_forward is not idempotent")
def test_a_forward_pass_that_writes_its_warm_start_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                         stack: str) -> None:
    monkeypatch.setattr(mujoco, "mj_forward", _warm_started_by_itself(mujoco.mj_forward))
    record = law_record(pytester, stack, "forward_twice", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1, record
