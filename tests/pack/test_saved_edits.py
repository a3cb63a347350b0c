"""model-saved-keeps-its-edits (`pytest_physlaw.pack.sequences.saved_edits`): an arm on a slide whose reference pose,
damping, stiffness, friction and servo gains were edited in the compiled model keeps them through `mj_saveLastXML`;
a writer that saves the model as loaded (the fault) fails; a free body's edited reference pose, lost on save before
MuJoCo 3.16.0, is the release's known defect there."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.sequences import saved_edits
from pytest_physlaw.pack.twofold import saved_xml
from tests.pack.law_record import law_record

LAW = "model-saved-keeps-its-edits"
FIXED = (3, 16, 0)
ARM = """<mujoco model="an arm on a slide">
  <compiler meshdir="parts"/>
  <worldbody>
    <body name="carriage"><joint name="rail" type="slide" axis="1 0 0" damping="2" range="-0.5 0.5"/>
      <geom type="box" size="0.1 0.1 0.05" mass="2" friction="0.8 0.01 0.001"/>
      <body name="upper" pos="0 0 0.1"><joint name="shoulder" axis="0 1 0" damping="0.5" stiffness="3"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body></body>
  </worldbody>
  <actuator><position joint="shoulder" kp="40"/><motor joint="rail" gear="10"/></actuator>
</mujoco>"""
PUCK = """<mujoco model="a puck on a table">
  <worldbody><geom type="plane" size="1 1 0.1"/>
    <body name="puck" pos="0.1 0 0.05"><freejoint/><geom type="cylinder" size="0.05 0.02" mass="0.2"/></body>
  </worldbody>
</mujoco>"""


def _write(folder, text: str) -> str:
    path = folder / "model.xml"
    path.write_text(text)
    return str(path)


def test_an_edited_arm_saved_and_loaded_is_the_edited_arm(tmp_path) -> None:
    changed, again = saved_edits.saved_and_loaded(_write(tmp_path, ARM))
    assert changed.qpos0[1] == pytest.approx(saved_edits.TURN) and changed.dof_damping[0] == pytest.approx(2.5)
    sizes, integers, share, which = saved_xml.compiled_apart(changed, again)
    assert not sizes and not integers and share <= 1.0, (share, which)
    assert again.actuator_gainprm[0, 0] == pytest.approx(50.0, rel=1e-6)  # the servo's kp, edited and kept


def test_saved_text_finds_its_meshes_from_anywhere() -> None:
    text = '<mujoco><compiler assetdir="assets" texturedir="/abs/tex"/><worldbody/></mujoco>'
    rooted = saved_edits.rerooted(text, "robots/arm")
    assert 'meshdir="robots/arm/assets"' in rooted and 'texturedir="/abs/tex"' in rooted
    assert "assetdir" not in rooted
    assert 'meshdir="robots/arm/"' in saved_edits.rerooted("<mujoco><worldbody/></mujoco>", "robots/arm")
    assert "meshdir" not in saved_edits.rerooted("<mujoco><worldbody/></mujoco>", "")


def test_a_writer_that_saves_the_model_as_loaded_fails(pytester: pytest.Pytester, monkeypatch) -> None:
    save = mujoco.mj_saveLastXML
    monkeypatch.setattr(mujoco, "mj_saveLastXML",
                        lambda path, model: save(path, mujoco.MjModel.from_xml_path(str(pytester.path / "arm.xml"))))
    pytester.path.joinpath("arm.xml").write_text(ARM)
    record = law_record(pytester, "arm.xml", "keeps_its_edits", LAW)
    assert record["outcome"] == "failed", record
    values = {c["quantity"]: c["value"] for c in record["checks"]}
    assert values["edits_apart_over_text"] > 100, values


def test_a_free_bodys_edited_pose_is_kept_or_the_releases_known_defect(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("puck.xml").write_text(PUCK)
    record = law_record(pytester, "puck.xml", "keeps_its_edits", LAW)
    values = {c["quantity"]: c["value"] for c in record["checks"]}
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "xfailed" and values["free_pose_apart_over_text"] > 100, record
        assert "mj_saveLastXML wrote a free joint's body" in str(record), record
    else:
        assert record["outcome"] == "passed" and values["free_pose_apart_over_text"] <= 1.0, record
    assert np.isfinite(values["edits_apart_over_text"]) and values["edits_apart_over_text"] <= 1.0, values


def test_a_geom_at_its_bodys_inertial_frame_stays_where_it_is_when_lost_masses_are_set_back() -> None:
    """Where the saved copy's masses are lost and set back as edited, a geom that lies at the saved body's inertial
    frame (compiled with sameframe 2: placed at xipos) keeps its place: its flag is set back too. Without it the
    law placed gymnasium-robotics' kitchen light switch's mesh 0.46 m off on 3.14.0 (the law's error)."""
    turn = 'quat="0.7071068 0.7071068 0 0"'  # turned off the body's frame: flagged at the inertial frame, not the body's
    body = '<body pos="0 0 1"><freejoint/><geom type="sphere" size="0.05"/>{inertial}' \
           f'<geom type="box" size="0.02 0.02 0.02" pos="0.1 0 0" {turn} contype="0" conaffinity="0" mass="0"/></body>'
    xml = "<mujoco><worldbody>{}</worldbody></mujoco>"
    changed = mujoco.MjModel.from_xml_string(xml.format(body.format(inertial="")))
    again = mujoco.MjModel.from_xml_string(xml.format(body.format(
        inertial=f'<inertial pos="0.1 0 0" {turn} mass="0.5" diaginertia="1e-3 2e-3 3e-3"/>')))
    if not hasattr(again, "geom_sameframe"):
        pytest.skip(f"MuJoCo {mujoco.__version__} places every geom from its frame (no sameframe flags)")
    assert int(again.geom_sameframe[1]) == 2 and int(changed.geom_sameframe[1]) != 2  # the premise
    masses, _, rest = saved_xml.masses_apart(changed, again)
    assert masses > 1.0
    first, second = mujoco.MjData(changed), mujoco.MjData(rest)
    mujoco.mj_forward(changed, first)
    mujoco.mj_forward(rest, second)
    assert np.abs(first.geom_xpos - second.geom_xpos).max() < 1e-12
