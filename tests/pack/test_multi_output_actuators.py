"""A model whose actuators take several controls (MuJoCo 3.11's orientation servo) is skipped by every law of the
pack, naming why, rather than read wrongly or crashing (`mujoco_versions.multi_output_actuators`)."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions

HEAD = """<mujoco model="a camera head on a ball joint, held by an orientation servo">
  <worldbody>
    <body name="head" pos="0 0 .5"><joint name="neck" type="ball" damping=".01"/><geom type="box" size=".03 .04 .03"/></body>
  </worldbody>
  <actuator><orientation joint="neck" kp="2" kv=".05"/></actuator>
</mujoco>
"""


def _head() -> mujoco.MjModel:
    try:
        return mujoco.MjModel.from_xml_string(HEAD)
    except ValueError:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no orientation actuator (3.11 on)")


def test_the_shim_names_a_multi_output_actuator() -> None:
    assert "multi-output actuators (1 actuators, 3 controls" in mujoco_versions.multi_output_actuators(_head())


def test_every_law_skips_naming_why(pytester: pytest.Pytester) -> None:
    _head()
    pytester.path.joinpath("head.xml").write_text(HEAD)
    result = pytester.runpytest_inprocess("--physlaw-model=head.xml", "-p", "no:cacheprovider", "-rs")
    assert result.ret == 0
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) > 40 and not outcomes.get("passed") and not outcomes.get("failed"), outcomes
    result.stdout.fnmatch_lines(["*head.xml: multi-output actuators*"])
