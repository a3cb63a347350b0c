"""model-flex-contact-carries-weight (`pytest_physlaw.pack.settled_pose`): a soft cube resting on the floor is carried
by its contacts' forces, to its weight; a contact force read 10 % short (the fault injected into `mj_contactForce`)
fails; a flex held by its parent (radial dofs) has nothing to judge."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-flex-contact-carries-weight"
CUBE = """<mujoco model="a soft cube on the floor">
  <option timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <flexcomp name="cube" type="grid" count="2 2 2" spacing="0.05 0.05 0.05" pos="0 0 0.035" radius="0.005"
              dim="3" mass="0.5" dof="{dof}">
      <elasticity young="1e4" poisson="0.2" damping="0.01"/>
      <edge damping="1"/>
      <contact selfcollide="none" condim="3" solref="0.01 1"/>
    </flexcomp>
  </worldbody>
</mujoco>"""
pytestmark = pytest.mark.skipif(mujoco_versions.version() < (3, 3, 0), reason="flexcomp elasticity and dof (3.3 on)")


def _record(pytester: pytest.Pytester, dof: str = "full") -> dict:
    pytester.path.joinpath("cube.xml").write_text(CUBE.format(dof=dof))
    pytester.makeini("[pytest]\nphyslaw_model_seconds = 2\n")
    return law_record(pytester, "cube.xml", "resting_flex", LAW)


def test_a_resting_soft_cube_is_carried_by_its_contacts(pytester: pytest.Pytester) -> None:
    record = _record(pytester)
    assert record["outcome"] == "passed", record
    assert record["checks"][0]["value"] == pytest.approx(1.0, abs=0.02), record


def test_contact_forces_read_short_fail(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = mujoco.mj_contactForce

    def short(m, d, i, out):
        real(m, d, i, out)
        out[:] = 0.9 * np.asarray(out)

    monkeypatch.setattr(mujoco, "mj_contactForce", short)
    record = _record(pytester)
    assert record["outcome"] == "failed", record


def test_a_flex_its_parent_holds_has_nothing_to_judge(pytester: pytest.Pytester) -> None:
    assert _record(pytester, "radial")["outcome"] == "skipped"
