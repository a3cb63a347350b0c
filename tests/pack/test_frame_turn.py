"""model-physics-is-frame-indifferent (`pytest_physlaw.pack.twofold.frame_turn`): an arm driven through a turned
site, with a tendon, damping and a fluid, beside a free crate, passes (the turned world reads the same to round-off);
a passive force computed in the world's axes (a push along world x on the crate, the fault injected into
`mj_forward`) fails."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import frame_turn
from tests.pack.law_record import law_record

LAW = "model-physics-is-frame-indifferent"
SCENE = """<mujoco model="an arm and a crate">
  <option timestep="0.002" density="1.2" viscosity="1e-5" wind="0.3 0 0"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <site name="anchor" pos="0 .3 1.2"/>
    <body name="upper" pos="0 0 1" euler="0 20 10">
      <joint name="shoulder" type="ball" damping=".3"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      <body name="fore" pos=".3 0 0">
        <joint name="elbow" axis="0 1 0" range="-120 10" damping=".1"/>
        <geom type="capsule" fromto="0 0 0 .25 0 0" size=".03"/>
        <site name="hand" pos=".25 0 0" euler="30 0 0"/>
      </body>
    </body>
    <body name="crate" pos=".8 0 .3"><freejoint/><geom type="box" size=".1 .08 .06" fluidshape="ellipsoid"/></body>
  </worldbody>
  <tendon><spatial stiffness="30"><site site="anchor"/><site site="hand"/></spatial></tendon>
  <actuator><motor name="push" site="hand" gear="1 0 0 0 0 .2" ctrlrange="-1 1"/></actuator>
</mujoco>
"""


@pytest.fixture
def scene(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    return "scene.xml"


def _pushed_along_world_x(real):
    def forward(m, d):
        real(m, d)
        crate = m.body("crate").id
        dof = int(m.body_dofadr[crate])
        d.qfrc_passive[dof] += 0.1  # a force in the world's axes, whatever the world's turn
        d.qacc_smooth[dof] += 0.1 / float(m.body_mass[crate])
    return forward


def test_the_turned_world_reads_the_same(pytester: pytest.Pytester, scene: str) -> None:
    record = law_record(pytester, scene, "frame_indifferent", LAW)
    assert record["outcome"] == "passed", record
    assert record["checks"][0]["value"] < 1e-2, record


def test_a_force_in_the_worlds_axes_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                          scene: str) -> None:
    monkeypatch.setattr(mujoco, "mj_forward", _pushed_along_world_x(mujoco.mj_forward))
    record = law_record(pytester, scene, "frame_indifferent", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1e2, record


def test_the_turn_is_a_rotation_and_maps_a_free_body() -> None:
    rotation, quat = frame_turn.turn()
    assert np.allclose(rotation @ rotation.T, np.eye(3)) and np.isclose(np.linalg.det(rotation), 1.0)
    model = mujoco.MjModel.from_xml_string(SCENE)
    assert frame_turn.free_linear_dofs(model) == [(int(model.jnt_qposadr[2]), int(model.jnt_dofadr[2]))]
