"""model-resized-geoms-are-compiled-alike (`pytest_physlaw.pack.sequences.resize`): a swimmer's hull and fin resized
in place, then `mj_setConst`, have the bounding volumes and ellipsoid fluid coefficients MuJoCo compiles at that size
from 3.16.0; before, the fluid coefficients fail (the model's own, where it swims) and the bounding volumes are the
release's known defect; an `mj_setConst` that does nothing (the fault) fails."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.sequences import resize
from tests.pack.law_record import law_record

LAW = "model-resized-geoms-are-compiled-alike"
FIXED = (3, 16, 0)
SWIMMER = """<mujoco model="a swimmer">
  <option density="1000" viscosity="0.0009" gravity="0 0 0"/>
  <worldbody>
    <body name="hull"><freejoint/>
      <geom type="ellipsoid" size="0.15 0.05 0.05" mass="3" fluidshape="ellipsoid"/>
      <body name="fin" pos="-0.17 0 0"><joint name="tail" axis="0 0 1" stiffness="2"/>
        <geom type="box" size="0.03 0.004 0.03" mass="0.05" fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1 1"/>
        <geom type="capsule" size="0.01 0.02" mass="0.01"/></body></body>
  </worldbody>
</mujoco>"""
DRY = SWIMMER.replace(' fluidshape="ellipsoid"', "").replace(' fluidcoef="0.5 0.25 1.5 1 1"', "")


def test_resized_geoms_are_the_geoms_compiled_at_that_size() -> None:
    found = resize.apart(mujoco.MjModel.from_xml_string(SWIMMER))
    fixed = mujoco_versions.version() >= FIXED
    assert (found["bounds"][0] <= 1.0) == fixed and (found["fluid"][0] <= 1.0) == fixed, found
    assert resize.apart(mujoco.MjModel.from_xml_string(DRY))["fluid"] == (0.0, "none")


def test_a_set_const_that_does_nothing_fails(monkeypatch) -> None:
    monkeypatch.setattr(mujoco, "mj_setConst", lambda m, d: None)
    found = resize.apart(mujoco.MjModel.from_xml_string(SWIMMER))
    assert found["bounds"][0] > 1e6 and found["fluid"][0] > 1e3, found


@pytest.mark.parametrize("scene", [SWIMMER, DRY], ids=["swimmer", "dry"])
def test_the_law_ends_by_the_release(pytester: pytest.Pytester, scene: str) -> None:
    pytester.path.joinpath("swimmer.xml").write_text(scene)
    record = law_record(pytester, "swimmer.xml", "resized_geoms", LAW)
    if mujoco_versions.version() >= FIXED:
        assert record["outcome"] == "passed", record
    elif scene is SWIMMER:  # the fluid coefficients are the model's own finding there
        assert record["outcome"] == "failed", record
    else:
        assert record["outcome"] == "xfailed" and "bounding radius" in str(record), record
