"""model-sleep-keeps-contacts (`pytest_physlaw.pack.twofold.sleep_contacts`): a mocap paddle swept into a box that
fell asleep on the floor has a contact with it (and wakes it) from MuJoCo 3.12.0, and passes through it before
(round 7's mujoco-ed13bf56: 3.4.0 to 3.11.0 took a mocap body for the world); a collision that drops the paddle's pair
while the box sleeps (the fault injected into `mj_step`) fails; the same scene with sleep off has nothing to judge."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-sleep-keeps-contacts"
SCENE = """<mujoco model="a mocap paddle and a box that falls asleep">
  <option timestep="0.002"><flag sleep="{sleep}"/></option>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="pusher" mocap="true" pos="-0.3 0 0.05"><geom name="paddle" type="box" size="0.02 0.1 0.04"/></body>
    <body name="box" pos="0 0 0.05"><freejoint/><geom name="box" type="box" size="0.05 0.05 0.05" mass="1"/></body>
  </worldbody>
</mujoco>
"""
SLEEP = (3, 4, 0)  # <flag sleep> (commit 769f37b65)
FIXED = (3, 12, 0)  # mocap bodies are weld roots of their own: they wake what they touch (commit ed13bf56)
pytestmark = pytest.mark.skipif(mujoco_versions.version() < SLEEP, reason=f"MuJoCo {mujoco.__version__} has no sleep")


def _scene(pytester: pytest.Pytester, sleep: str = "enable") -> str:
    pytester.path.joinpath("paddle.xml").write_text(SCENE.format(sleep=sleep))
    return "paddle.xml"


def _pair_dropped_while_asleep(real):
    """mj_step whose collision skips the paddle's pairs while any body sleeps, as 3.4 to 3.11 did."""
    def step(m, d):
        if m.opt.enableflags & int(mujoco.mjtEnableBit.mjENBL_SLEEP) and mujoco_versions.sleeping_bodies(d).any():
            paddle = m.geom("paddle").id
            kept = int(m.geom_contype[paddle]), int(m.geom_conaffinity[paddle])
            m.geom_contype[paddle] = m.geom_conaffinity[paddle] = 0
            try:
                real(m, d)
            finally:
                m.geom_contype[paddle], m.geom_conaffinity[paddle] = kept
        else:
            real(m, d)
    return step


def test_a_paddle_swept_into_a_sleeping_box_touches_it(pytester: pytest.Pytester) -> None:
    record = law_record(pytester, _scene(pytester), "sleep_keeps", LAW)
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "failed" and record["checks"][0]["value"] > 1e3, record
    else:
        assert record["outcome"] == "passed", record
        assert record["checks"][0]["value"] <= 1.0, record


@pytest.mark.skipif(mujoco_versions.version() < FIXED, reason=f"MuJoCo {mujoco.__version__} drops the mocap's pair")
def test_a_collision_that_drops_the_pair_while_the_box_sleeps_fails(pytester: pytest.Pytester,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mujoco, "mj_step", _pair_dropped_while_asleep(mujoco.mj_step))
    record = law_record(pytester, _scene(pytester), "sleep_keeps", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1e3, record
    assert "paddle (box) / box (box)" in record["checks"][0]["why"] or "box (box) / paddle (box)" in \
        record["checks"][0]["why"], record


def test_the_scene_without_sleep_has_nothing_to_judge(pytester: pytest.Pytester) -> None:
    record = law_record(pytester, _scene(pytester, "disable"), "sleep_keeps", LAW)
    assert record["outcome"] == "skipped", record
