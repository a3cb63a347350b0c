"""model-flex-elasticity-is-its-material (`pytest_physlaw.pack.flex_material`): a foam cube with Poisson's ratio 0.3
pushes back as a Saint Venant-Kirchhoff solid of its constants from MuJoCo 4.0.0 and 1.692 times harder before it (round
8's mujoco-7ba52b53: twice the first Lame parameter); with ratio 0 (no lambda) it passes everywhere; passive forces made
1 % stiffer (the fault injected into `mj_forward`) fail; the same cube on trilinear nodes is a linear solid of its
constants from 3.16.0 and half as stiff before (round 11's mujoco-52824daf)."""

from __future__ import annotations

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from tests.pack.law_record import law_record

LAW = "model-flex-elasticity-is-its-material"
FOAM = """<mujoco model="a foam cube">
  <option timestep="0.0005"/>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <flexcomp name="foam" type="grid" count="3 3 3" spacing="0.05 0.05 0.05" pos="0 0 0.2" euler="10 20 0"
              radius="0.005" dim="3" mass="0.5">
      <elasticity young="5e4" poisson="{poisson}" damping="0.001"/>
      <contact selfcollide="none"/>
    </flexcomp>
  </worldbody>
</mujoco>"""
FIXED = (4, 0, 0)
pytestmark = pytest.mark.skipif(mujoco_versions.version() < (3, 3, 0), reason="flexcomp elasticity in MjSpec (3.3 on)")


def _record(pytester: pytest.Pytester, poisson: float, dof: str = "") -> dict:
    xml = FOAM.format(poisson=poisson)
    if dof:
        xml = xml.replace('dim="3" mass="0.5"', f'dim="3" mass="0.5" dof="{dof}"')
    pytester.path.joinpath("foam.xml").write_text(xml)
    return law_record(pytester, "foam.xml", "flex_elasticity", LAW)


# an interpolated flex's shear modulus halved to 3.15.0 (round 11's mujoco-52824daf; trilinear flexcomps from 3.8)
NODES_FIXED = (3, 16, 0)


@pytest.mark.skipif(mujoco_versions.version() < (3, 8, 0), reason="trilinear flexcomps from MuJoCo 3.8")
def test_a_trilinear_foam_cube_is_its_material(pytester: pytest.Pytester) -> None:
    """The same cube on 8 nodes (dof="trilinear"), nu = 0: its nodes dilated by 1e-6 push back as a linear solid's
    9 K e V from 3.16.0, and otherwise before (mu where linear elasticity has 2 mu: 0.5 unturned)."""
    record = _record(pytester, 0.0, "trilinear")
    if mujoco_versions.version() < NODES_FIXED:
        # unturned it reads 0.5 (the case's 3.15.0); this turned cube 1.111 on 3.14.0
        assert record["outcome"] == "failed" and abs(record["checks"][0]["value"] - 1) > 0.1, record
    else:
        assert record["outcome"] == "passed", record
        assert abs(record["checks"][0]["value"] - 1) < 1e-5, record


def test_a_foam_cube_is_its_material(pytester: pytest.Pytester) -> None:
    record = _record(pytester, 0.3)
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "failed", record
        assert record["checks"][0]["value"] == pytest.approx(1.6923, abs=1e-3), record
    else:
        assert record["outcome"] == "passed", record


def test_a_foam_without_lambda_is_its_material_everywhere(pytester: pytest.Pytester) -> None:
    assert _record(pytester, 0.0)["outcome"] == "passed"


def test_passive_forces_one_percent_stiffer_fail(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = mujoco.mj_forward

    def stiffer(m, d, *args):
        real(m, d, *args)
        d.qfrc_passive[:] *= 1.01

    monkeypatch.setattr(mujoco, "mj_forward", stiffer)
    record = _record(pytester, 0.0)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] == pytest.approx(1.01, abs=1e-6), record


@pytest.mark.skipif(mujoco_versions.version() < (3, 8, 0), reason="trilinear flexcomps from MuJoCo 3.8")
def test_a_hollow_flex_is_left_out_naming_why(pytester: pytest.Pytester) -> None:
    """elastic2d on a 3D flex makes it hollow (MuJoCo's hollow_vs_solid.xml): its elasticity is its surface's shell,
    and a dilation of its volume is no measure of it."""
    xml = FOAM.format(poisson=0.3).replace('damping="0.001"/>', 'damping="0.001" elastic2d="bend" thickness="0.01"/>')
    pytester.path.joinpath("foam.xml").write_text(xml.replace('dim="3" mass="0.5"', 'dim="3" mass="0.5" dof="trilinear"'))
    record = law_record(pytester, "foam.xml", "flex_elasticity", LAW)
    assert record["outcome"] == "skipped", record
