"""model-flexcomps-placed-as-written (`pytest_physlaw.pack.twofold.flexcomp_place`): a cloth made by a flexcomp in a
turned frame inside a moved body passes where MuJoCo applies enclosing frames to a flexcomp (4.0 on) and fails
before (round 10's mujoco-00057bce: 3.1 to 3.17 ignored the frame); the same cloth placed by its own pos and euler
passes on every release; a model whose cloth lies elsewhere than its text writes fails."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import flexcomp_place
from tests.pack.law_record import law_record

LAW = "model-flexcomps-placed-as-written"
FRAMES_APPLIED = (4, 0)  # MuJoCo changelog 4.0.0, bug fix 60 (commit 00057bce)
FRAMES = (3, 1)  # the first release whose MJCF has <frame>
CLOTH = """<mujoco model="a cloth over a table">
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <geom name="table" type="box" size=".3 .3 .02" pos=".5 0 .28"/>
    <body name="rack" pos=".1 0 .05" euler="0 0 10">
      {open}<flexcomp name="cloth" type="grid" count="5 4 1" spacing=".04 .05 .04" dim="2" radius=".005" mass=".05"{own}>
        <edge equality="true"/><contact selfcollide="none"/>
      </flexcomp>{close}
    </body>
  </worldbody>
</mujoco>
"""
FRAMED = CLOTH.format(open='<frame pos=".4 0 .35" euler="0 0 30">', own="", close="</frame>")
OWN = CLOTH.format(open="", own=' pos=".4 0 .35" euler="0 0 30"', close="")


@pytest.fixture
def scenes(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.path.joinpath("framed.xml").write_text(FRAMED)
    pytester.path.joinpath("own.xml").write_text(OWN)
    return pytester


@pytest.mark.skipif(mujoco_versions.version() < FRAMES, reason=f"MuJoCo {mujoco.__version__}'s MJCF has no <frame>")
def test_a_cloth_in_a_frame_passes_where_mujoco_applies_the_frame(scenes: pytest.Pytester) -> None:
    record = law_record(scenes, "framed.xml", "flexcomps_are", LAW)
    if mujoco_versions.version() < FRAMES_APPLIED:
        assert record["outcome"] == "failed" and record["checks"][0]["value"] > 1e3, record
    else:
        assert record["outcome"] == "passed" and record["checks"][0]["value"] < 1e-2, record


def test_a_cloth_placed_by_its_own_pose_passes(scenes: pytest.Pytester) -> None:
    record = law_record(scenes, "own.xml", "flexcomps_are", LAW)
    assert record["outcome"] == "passed" and record["checks"][0]["value"] < 1e-2, record


def test_a_cloth_elsewhere_than_its_text_fails(scenes: pytest.Pytester) -> None:
    """The model compiled from the cloth placed by its own pose, read against the text that frames it 1 cm higher."""
    model = mujoco.MjModel.from_xml_path(str(scenes.path / "own.xml"))
    scenes.path.joinpath("higher.xml").write_text(FRAMED.replace('pos=".4 0 .35"', 'pos=".4 0 .36"'))
    found, left = flexcomp_place.placements(model, str(scenes.path / "higher.xml"))
    assert not left and found[0][0] == "cloth" and found[0][1] > 1e6, (found, left)
