"""The collision laws (`pytest_physlaw/pack/twofold/collision.py`): a sound scene passes both; a contact list that
lost an overlapping pair fails `model-overlapping-pairs-collide`, a contact that reports another depth fails
`model-deepest-contact-is-distance` (each fault injected into `mj_forward`, which the runs' kept states are forwarded
with); the filter read from MuJoCo's source admits exactly the pairs MuJoCo's own collision tests; the distance shim's
probe (releases before `mj_geomDistance`) gives `mj_geomDistance`'s answer; and a wrong geom id is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import collision, distance

MODELS = Path(__file__).resolve().parents[2] / "regressions" / "models"

# a ball and a box resting on the floor, a capsule lying across the box: sphere-plane, box-plane, capsule-box contacts
SCENE = """<mujoco><worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
  <body name="ball" pos="0 0 0.1"><freejoint/><geom name="ball" type="sphere" size="0.1" mass="1"/></body>
  <body name="crate" pos="0.5 0 0.1"><freejoint/><geom name="crate" type="box" size="0.1 0.1 0.1" mass="1"/></body>
  <body name="rod" pos="0.5 0 0.25" euler="0 90 0"><freejoint/>
    <geom name="rod" type="capsule" size="0.04 0.15" mass="0.5"/></body></worldbody></mujoco>"""
OVERLAP = "model-overlapping-pairs-collide"
DEEPEST = "model-deepest-contact-is-distance"


def _record(pytester: pytest.Pytester, keyword: str, law_id: str, model: str = "model.xml") -> dict:
    pytester.runpytest_inprocess(f"--physlaw-model={model}", "-p", "no:cacheprovider", "-k", keyword)
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == law_id]
    return record


def _ball_contact_dropped(real):
    def faulty(m, d):  # the collision forgets the ball: its floor contact gone from the list
        real(m, d)
        ball = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "ball")
        n = d.ncon
        touches = (np.asarray(d.contact.geom1[:n]) == ball) | (np.asarray(d.contact.geom2[:n]) == ball)
        order = np.argsort(touches, kind="stable")  # the ball's contacts last, then cut off
        for field in dir(d.contact):
            values = getattr(d.contact, field)
            if not field.startswith("_") and isinstance(values, np.ndarray) and values.shape[:1] == (n,):
                values[:] = values[order]
        d.ncon = n - int(np.count_nonzero(touches))
    return faulty


def _depths_halved(real):
    def faulty(m, d):  # every contact reports half its depth (MuJoCo 3.3.7's box-box collider did)
        real(m, d)
        d.contact.dist[: d.ncon] *= 0.5
    return faulty


@pytest.mark.parametrize(("law_id", "keyword", "fault", "quantity"), [
    (OVERLAP, "overlapping_pairs", _ball_contact_dropped, "overlap_without_contact_over_tolerance"),
    (DEEPEST, "deepest", _depths_halved, "deepest_contact_from_distance_over_tolerance"),
], ids=[OVERLAP, DEEPEST])
def test_each_law_holds_and_fails_under_its_fault(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  law_id: str, keyword: str, fault, quantity: str) -> None:
    if not hasattr(mujoco, "mj_geomDistance") and law_id == DEEPEST:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no mj_geomDistance")
    pytester.path.joinpath("model.xml").write_text(SCENE)
    sound = _record(pytester, keyword, law_id)
    assert sound["outcome"] == "passed", sound
    (check,) = sound["checks"]
    assert check["value"] <= 1e-3, sound  # far inside the bound: 0, or round-off
    monkeypatch.setattr(mujoco, "mj_forward", fault(mujoco.mj_forward))
    record = _record(pytester, keyword, law_id)
    assert record["outcome"] == "failed", record
    (check,) = record["checks"]
    assert check["quantity"] == quantity and check["value"] > 10, record
    assert "engine defect" in check["why"], record


def test_the_overlap_law_fails_through_the_probe_too(pytester: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `mj_geomDistance` (MuJoCo before 3.1.6) the probe model measures the pair: the lost contact still
    fails."""
    pytester.path.joinpath("model.xml").write_text(SCENE)
    monkeypatch.delattr(mujoco, "mj_geomDistance", raising=False)
    assert _record(pytester, "overlapping_pairs", OVERLAP)["outcome"] == "passed"
    monkeypatch.setattr(mujoco, "mj_forward", _ball_contact_dropped(mujoco.mj_forward))
    record = _record(pytester, "overlapping_pairs", OVERLAP)
    assert record["outcome"] == "failed", record
    assert "ball (sphere)" in record["checks"][0]["why"], record


# every geom at the origin, so that every pair overlaps: which pairs collide is the filter's choice alone
FILTERED = """<mujoco><option><flag midphase="disable"/></option><worldbody>
  <geom name="w" size="0.1"/>
  <body name="a"><freejoint/><geom name="a" size="0.1"/>
    <body name="a_child"><joint type="hinge"/><geom name="a_child" size="0.1"/>
      <body name="a_grandchild"><joint type="hinge"/><geom name="a_grandchild" size="0.1"/></body></body>
    <body name="a_welded"><geom name="a_welded" size="0.1"/></body></body>
  <body name="b"><freejoint/><geom name="b" size="0.1" contype="2" conaffinity="2"/>
    <geom name="b_ghost" size="0.1" contype="0" conaffinity="0"/></body>
  <body name="c"><freejoint/><geom name="c" size="0.1" contype="2" conaffinity="0"/></body>
  <body name="d"><freejoint/><geom name="d" type="box" size="0.1 0.1 0.1"/></body>
  <body name="m" mocap="true"><geom name="m" size="0.1"/></body>
  <body name="n" mocap="true"><geom name="n" size="0.1"/></body></worldbody>
  <contact><exclude body1="a" body2="d"/><pair geom1="b_ghost" geom2="c"/></contact></mujoco>"""


@pytest.mark.parametrize("filterparent", [True, False])
def test_the_filter_admits_the_pairs_mujoco_tests(filterparent: bool) -> None:
    """Every geom overlapping every other: the pairs `distance.admitted` keeps are the pairs MuJoCo's collision
    finds contacts for (explicit pair, bitmasks, exclude, one weld, parent and child, two dof-less bodies)."""
    model = mujoco.MjModel.from_xml_string(FILTERED)
    if not filterparent:
        model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    pairs, asleep = distance.admitted(model, data, distance.near(model, data))
    assert asleep == 0
    found = set(distance.deepest_contacts(data))
    assert set(zip(pairs.geom1.tolist(), pairs.geom2.tolist())) == found
    name = lambda g: mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g)  # noqa: E731
    named = {frozenset((name(a), name(b))) for a, b in found}
    assert frozenset(("b_ghost", "c")) in named  # the explicit pair, whatever its bitmasks
    assert frozenset(("a", "d")) not in named  # excluded
    assert (frozenset(("a", "a_child")) in named) is not filterparent  # parent and child
    assert frozenset(("a", "a_welded")) not in named  # one weld


def test_the_probe_measures_as_mj_geom_distance() -> None:
    """The probe (the pair's narrowphase alone in a model of the two geoms) gives `mj_geomDistance`'s distances for
    primitive pairs, apart and overlapping; without `mj_geomDistance` a mesh is not measured (None)."""
    if not hasattr(mujoco, "mj_geomDistance"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no mj_geomDistance to compare the probe with")
    model = mujoco.MjModel.from_xml_string(SCENE.replace('pos="0 0 0.1"', 'pos="0.42 0 0.2"'))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    compared = 0
    for g1 in range(model.ngeom):
        for g2 in range(g1 + 1, model.ngeom):
            probe = mujoco_versions._probe_distance(model, data, g1, g2, 1.0)
            assert probe == pytest.approx(mujoco_versions.geom_distance(model, data, g1, g2, 1.0), abs=1e-9)
            compared += probe < 0
    assert compared == 2  # the ball in the crate and in the rod


def test_without_mj_geom_distance_a_mesh_is_not_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><asset><mesh name="t" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset><worldbody><geom size="1"/>'
        '<body><freejoint/><geom type="mesh" mesh="t"/></body></worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    monkeypatch.delattr(mujoco, "mj_geomDistance", raising=False)
    assert mujoco_versions.geom_distance(model, data, 0, 1, 0.0) is None
    assert mujoco_versions.geom_distance(model, data, 0, 0, 0.0, probe=False) is None


@pytest.mark.parametrize(("g1", "g2", "distmax"), [(0, 9, 0.0), (-1, 1, 0.0), (0, 1, float("nan"))])
def test_a_wrong_pair_is_refused(g1: int, g2: int, distmax: float) -> None:
    """A geom id out of range (MuJoCo's C call would read past its arrays) or a distmax that is not a number."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with pytest.raises(ValueError, match="geom_distance"):
        mujoco_versions.geom_distance(model, data, g1, g2, distmax)


def test_the_bound_is_the_models_ccd_tolerance() -> None:
    model = mujoco.MjModel.from_xml_string(SCENE)
    extent = float(model.stat.extent)
    assert distance.tolerance(model) == pytest.approx(2 * mujoco_versions.ccd_tolerance(model) + 1e-9 * extent)
    assert np.isfinite(distance.tolerance(model))


def test_a_pair_with_a_body_asleep_is_left_out_and_counted() -> None:
    """With `<flag sleep>` (MuJoCo 3.12 on), a pair with a body asleep is left out (its filter also depends on the
    other body); a static body (the world's, mjS_STATIC) is not asleep."""
    if not hasattr(mujoco.mjtEnableBit, "mjENBL_SLEEP"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no sleep")
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><option><flag sleep="enable"/></option><worldbody><geom type="plane" size="1 1 .1"/>'
        '<body pos="0 0 .09"><freejoint/><geom size=".1"/></body>'
        '<body pos="0 0 .28"><freejoint/><geom size=".1"/></body></worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    pairs, asleep = distance.admitted(model, data, distance.near(model, data))
    assert asleep == 0 and set(zip(pairs.geom1.tolist(), pairs.geom2.tolist())) == {(0, 1), (1, 2)}
    data.body_awake[2] = int(mujoco.mjtSleepState.mjS_ASLEEP)
    pairs, asleep = distance.admitted(model, data, distance.near(model, data))
    assert asleep == 1 and set(zip(pairs.geom1.tolist(), pairs.geom2.tolist())) == {(0, 1)}


@pytest.mark.parametrize(("model", "keyword", "law_id"), [
    ("mujoco_96844db9_fusestatic_table.xml", "overlapping_pairs", OVERLAP),
    ("mujoco_88383684_box_on_box.xml", "deepest", DEEPEST),
])
def test_the_corpus_triggers_pass_on_the_pinned_mujoco(pytester: pytest.Pytester, model: str, keyword: str,
                                                        law_id: str) -> None:
    """The corpus models whose bugs the laws catch on 3.1.5 and 3.3.7 (docs/second-computations.md) pass where MuJoCo
    is fixed: the ball stays on the fused table; box on box reports the overlap (3.4.0: 1.4e-11 of the bound)."""
    if law_id == DEEPEST and not hasattr(mujoco, "mj_geomDistance"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no mj_geomDistance")
    shutil.copy(MODELS / model, pytester.path / model)
    record = _record(pytester, keyword, law_id, model)
    assert record["outcome"] == "passed", record
    assert record["checks"][0]["value"] <= 1e-3, record


def test_a_plane_pair_whose_geom_lies_above_the_plane_cannot_overlap() -> None:
    """An overlap `mj_geomDistance` reports between a plane and a geom whose bounding box lies wholly above it is the
    pair collider's own error (MuJoCo's replicate/bowl on 3.14.0, a cylinder upright to 2e-14 read 2.87 mm into the
    floor with its lowest point 0.04 mm above it), not a contact the collision pruned: the overlap law leaves it out.
    A geom whose box reaches below the plane, or a pair without a plane, is judged."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    crate = model.geom("crate").id
    for height, above in ((0.1 + 1e-3, True), (0.1 - 1e-3, False)):
        data.qpos[model.jnt_qposadr[model.body("crate").jntadr[0]] + 2] = height
        mujoco.mj_kinematics(model, data)
        assert collision._above_the_plane(model, data, 0, crate, 1e-6) is above
        assert collision._above_the_plane(model, data, crate, 0, 1e-6) is above
    assert not collision._above_the_plane(model, data, model.geom("ball").id, crate, 1e-6)


def test_a_phantom_plane_overlap_is_left_out_and_named(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With `mj_geomDistance` made to read every pair 1 mm deep, a box floating 5 cm above the floor (no gravity) passes
    the overlap law, the phantom overlaps named (the fault without the plane test fails: the fault tests above)."""
    real = mujoco.mj_geomDistance
    monkeypatch.setattr(mujoco, "mj_geomDistance", lambda m, d, g1, g2, distmax, fromto: min(real(m, d, g1, g2, distmax, fromto), -1e-3))
    (pytester.path / "model.xml").write_text(
        """<mujoco><option gravity="0 0 0"/><worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
        <body name="crate" pos="0 0 0.15"><freejoint/><geom name="crate" type="box" size="0.1 0.1 0.1"/></body>
        </worldbody></mujoco>""")
    record = _record(pytester, "collide", OVERLAP)
    assert record["outcome"] == "passed"
    assert "bounding box lies above the plane" in record["checks"][0]["why"]
    monkeypatch.setattr(collision, "_above_the_plane", lambda *args: False)  # the box's extent not read: judged
    assert _record(pytester, "collide", OVERLAP)["outcome"] == "failed"
