"""`model-fused-bodies-keep-the-dynamics` (pack/twofold/fused.py): a model that fuses its static bodies has the mass
matrix and bias force of its unfused compile. It passes on a sound arm whose turned, offset static child is fused;
fails when the second compile's fused body is off by a part in a thousand (the fault injected in the unfused
compile) and on the corpus' dumbbell where MuJoCo fused it wrong (3.5 to 3.10); skips a model that fuses nothing,
naming why."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import mujoco
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import recompile
from pytest_physlaw.pack.twofold import fused
from tests.pack.law_record import law_record

LAW = "model-fused-bodies-keep-the-dynamics"
DUMBBELL = Path(__file__).resolve().parents[2] / "regressions" / "models" / "mujoco_0e1e0c7f_fused_dumbbell.xml"
# MuJoCo 3.5 to 3.10 put a fused child's centre of mass at ipos + R(iquat) pos (the corpus' mujoco-0e1e0c7f)
WRONG_COMPOSITE = (3, 5) <= mujoco_versions.version() < (3, 11)
# A hinged arm whose hand carries a static child (a tool turned and offset on it) and a static camera mount: both
# fused into their parents; the base is fixed to the world, a second static body fused into the world.
ARM = """<mujoco><compiler fusestatic="true"/><option timestep="0.002"/>
  <worldbody><geom type="plane" size="1 1 0.01"/>
    <body name="pedestal" pos="0 0 0.3"><geom type="cylinder" size="0.05 0.3" pos="0 0 -0.3" mass="3"/></body>
    <body name="upper" pos="0 0 0.6">
      <joint name="shoulder" axis="0 1 0" range="-90 90" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
      <body name="forearm" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0" range="-120 120" damping="0.3"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025" mass="0.6"/>
        <body name="tool" pos="0.25 0.02 0.01" euler="20 70 10">
          <geom type="box" size="0.06 0.02 0.01" pos="0.04 0 0.01" euler="0 30 0" mass="0.4"/>
          <geom type="cylinder" size="0.015 0.05" pos="0 0.03 0" mass="0.1"/>
          <site name="tool_tip" pos="0.1 0 0"/><site name="tool_mark" pos="-0.05 0 0.02"/>
        </body>
        <body name="mount" pos="0.1 0 0.03"><geom type="sphere" size="0.02" mass="0.05"/></body>
      </body></body></worldbody>
  <actuator><motor joint="shoulder" gear="5" ctrlrange="-1 1"/><motor joint="elbow" gear="3" ctrlrange="-1 1"/>
    <motor name="push" site="tool_tip" gear="1 0 0 0 0 0" ctrlrange="0 2"/></actuator>
  <sensor><framepos name="tip" objtype="site" objname="tool_tip"/></sensor>
</mujoco>"""


def _spec_fuses() -> bool:
    """Whether this release's MjSpec compiles the arm fused, as its XML compile does (3.2.3 fuses nothing, by either
    compile; there is no MjSpec before 3.2): where not, the law skips."""
    if getattr(mujoco, "MjSpec", None) is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "arm.xml"
        path.write_text(ARM)
        spec = mujoco_versions.spec_from_file(str(path))
    return spec.compile().nbody == mujoco.MjModel.from_xml_string(ARM).nbody == 3  # world, upper, forearm


SPEC_FUSES = _spec_fuses()


def _record(pytester: pytest.Pytester, model: str) -> dict:
    return law_record(pytester, model, "fusing", LAW)


@pytest.fixture
def arm(pytester: pytest.Pytester) -> str:
    if not SPEC_FUSES:
        pytest.skip(f"MuJoCo {mujoco.__version__}'s MjSpec does not compile the arm fused: the law skips")
    pytester.path.joinpath("arm.xml").write_text(ARM)
    return "arm.xml"


def test_the_fused_arm_passes(pytester: pytest.Pytester, arm: str) -> None:
    record = _record(pytester, arm)
    if WRONG_COMPOSITE:
        assert record["outcome"] == "failed", record
        return
    assert record["outcome"] == "passed", record
    assert {c["quantity"] for c in record["checks"]} == {"mass_matrix_apart_over_bound", "bias_force_apart_over_bound",
                                                       "passive_apart_over_bound", "actuation_apart_over_bound",
                                                       "readings_apart_over_bound"}
    assert max(c["value"] for c in record["checks"]) < 1e-2, record  # round-off, far inside the bound


def test_the_law_fails_when_a_fused_body_is_combined_wrong(pytester: pytest.Pytester, arm: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The second compile's hand is a part in a thousand heavier and its inertia too: the mass matrices differ
    by far more than the compile's own error."""
    real = recompile.compiled

    def heavier_hand(build, path: str) -> mujoco.MjModel:
        model = real(build, path)
        if build is fused.unfused:
            hand = model.body("forearm").id
            model.body_mass[hand] *= 1.001
            model.body_inertia[hand] *= 1.001
        return model

    monkeypatch.setattr(recompile, "compiled", heavier_hand)
    record = _record(pytester, arm)
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert "mass_matrix_apart_over_bound" in failed, record
    assert "engine defect" in json.dumps(record)


def test_the_law_fails_when_a_fused_site_is_bound_to_another(pytester: pytest.Pytester, arm: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The second compile's thruster and tip sensor bound to the tool's other site (as MuJoCo 3.3.7 to 3.15.0 kept
    the ids of sites renumbered by fusing: round 10's mujoco-3.16.0-fusestatic-name-binding): the actuator forces
    and the readings differ."""
    real = recompile.compiled

    def other_site(build, path: str) -> mujoco.MjModel:
        model = real(build, path)
        if build is fused.unfused:
            model.actuator_trnid[model.actuator("push").id, 0] = model.site("tool_mark").id
            model.sensor_objid[model.sensor("tip").id] = model.site("tool_mark").id
        return model

    monkeypatch.setattr(recompile, "compiled", other_site)
    record = _record(pytester, arm)
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert {"actuation_apart_over_bound", "readings_apart_over_bound"} <= failed, record


# MuJoCo to 3.15 fused a static body with its own gravity compensation into a parent without it (round 11's
# mujoco-3.16.0-fusestatic-gravcomp; 3.16.0 keeps such a body)
GRAVCOMP_MERGED = mujoco_versions.version() < (3, 16, 0)


def test_a_fused_float_keeps_its_gravity_compensation(pytester: pytest.Pytester, arm: str) -> None:
    """The tool made a neutrally buoyant float (gravcomp 1) on the uncompensated forearm: its compensation is a
    passive force, which the fused compile must keep."""
    pytester.path.joinpath(arm).write_text(ARM.replace('<body name="tool" ', '<body name="tool" gravcomp="1" '))
    record = _record(pytester, arm)
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    if WRONG_COMPOSITE or GRAVCOMP_MERGED:
        assert "passive_apart_over_bound" in failed or WRONG_COMPOSITE, record
        return
    assert record["outcome"] == "passed", record


def test_the_law_fails_when_a_passive_force_differs(pytester: pytest.Pytester, arm: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The second compile's elbow a thousandth stiffer: the passive forces differ."""
    real = recompile.compiled

    def stiffer(build, path: str) -> mujoco.MjModel:
        model = real(build, path)
        if build is fused.unfused:
            model.jnt_stiffness[model.joint("elbow").id] = 1e-3 + 1.001 * model.jnt_stiffness[model.joint("elbow").id]
        return model

    monkeypatch.setattr(recompile, "compiled", stiffer)
    record = _record(pytester, arm)
    assert "passive_apart_over_bound" in {c["quantity"] for c in record["checks"] if not c["passed"]}, record


def test_the_corpus_dumbbell_fails_where_mujoco_fused_it_wrong(pytester: pytest.Pytester) -> None:
    if not SPEC_FUSES:
        pytest.skip(f"MuJoCo {mujoco.__version__}'s MjSpec does not compile the arm fused: the law skips")
    pytester.path.joinpath("dumbbell.xml").write_text(DUMBBELL.read_text())
    record = _record(pytester, "dumbbell.xml")
    assert record["outcome"] == ("failed" if WRONG_COMPOSITE else "passed"), record


def test_a_model_that_fuses_nothing_is_skipped(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("unfused.xml").write_text(ARM.replace('fusestatic="true"', 'fusestatic="false"'))
    result = pytester.runpytest_inprocess("--physlaw-model=unfused.xml", "-p", "no:cacheprovider", "-k", "fusing",
                                          "-rs")
    result.assert_outcomes(skipped=1)
    assert "fusestatic is off" in result.stdout.str() or "no MjSpec" in result.stdout.str()


def test_the_two_compiles_differ_only_by_the_fused_bodies(tmp_path: Path) -> None:
    if not SPEC_FUSES:
        pytest.skip(f"MuJoCo {mujoco.__version__}'s MjSpec does not compile the arm fused")
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    assert fused.fuses(str(path))
    first, second = fused.as_written(str(path)), fused.unfused(str(path))
    assert (first.nbody, second.nbody) == (3, 6)  # world, upper, forearm against all five bodies and the world
    assert fused.same_joints(first, second)
