"""model-edits-take-effect (`pytest_physlaw.pack.twofold.edits`): a forearm whose centre of mass, geom and site were
compiled at its origin is placed where an in-place edit and `mj_setConst` say from MuJoCo 3.11.0; before it (round 8's
mujoco-14c0b0c9: the sameframe flags were not recomputed, on every model) the probe reads the defect and the law leaves
those objects out, naming it; an `mj_setConst` that does nothing (the fault injected) fails."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-edits-take-effect"
ARM = """<mujoco model="a forearm compiled at its origin">
  <worldbody>
    <body name="upper"><joint name="shoulder" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="forearm" pos="0.3 0 0"><joint name="elbow" axis="0 1 0"/>
        <inertial pos="0 0 0" mass="1.5" diaginertia="0.01 0.01 0.01"/>
        <geom name="hand" type="sphere" size="0.04"/><site name="payload"/></body></body>
  </worldbody>
  <actuator><motor joint="shoulder"/><motor joint="elbow"/></actuator>
</mujoco>"""
FIXED = (3, 11, 0)


def _record(pytester: pytest.Pytester) -> dict:
    pytester.path.joinpath("arm.xml").write_text(ARM)
    return law_record(pytester, "arm.xml", "edits_take", LAW)


def test_an_edited_forearm_is_placed_where_the_edit_says(pytester: pytest.Pytester) -> None:
    record = _record(pytester)
    assert mujoco_versions.edits_keep_sameframe() == (mujoco_versions.version() < FIXED)
    assert record["outcome"] == "passed", record
    assert ("keeps there after an edit" in record["checks"][0]["why"]) == (mujoco_versions.version() < FIXED), record


@pytest.mark.skipif(mujoco_versions.version() < FIXED, reason=f"MuJoCo {mujoco.__version__} keeps stale sameframe flags")
def test_a_set_const_that_does_nothing_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not mujoco_versions.edits_keep_sameframe()  # read before the fault: the probe calls mj_setConst too
    monkeypatch.setattr(mujoco, "mj_setConst", lambda m, d: None)
    record = _record(pytester)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 0.01, record
