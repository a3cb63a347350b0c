"""model-contact-depth-is-the-overlap (`pytest_physlaw.pack.twofold.contact_overlap`, measured by
`twofold.surfaces.overlap` and `box_box_depth`): a ball sunk into a block, boxes stacked on a floor and a capsule on
it report the depth their shapes overlap by; a contact whose depth is halved (MuJoCo 3.3.7's box-box) or reads the
radius (3.2.6's sphere-box) fails; a capsule in a box and ellipsoid pairs are left out, naming why; two parallel
capsules fail before MuJoCo 3.17.0, whose collider reported each end's contact."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import contact_overlap as C
from pytest_physlaw.pack.twofold import distance, surfaces
from tests.pack.law_record import law_record

LAW = "model-contact-depth-is-the-overlap"
SCENE = """<mujoco model="a ball sunk into a block, two boxes stacked and a capsule on a floor">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <geom name="block" type="box" size=".2 .2 .2" pos="1 0 .2"/>
    <body name="ball" pos="1.05 0 .45"><freejoint/><geom name="ball" size=".06" solref=".2 1"/></body>
    <body name="low" pos="0 0 .1"><freejoint/><geom name="low" type="box" size=".15 .1 .1" euler="0 0 10"/></body>
    <body name="high" pos=".03 0 .3" euler="0 0 35"><freejoint/><geom name="high" type="box" size=".08 .08 .08"/></body>
    <body name="rod" pos="-.5 0 .06" euler="0 80 0"><freejoint/><geom name="rod" type="capsule" size=".04 .2"/></body>
  </worldbody>
</mujoco>
"""


def _state(steps: int = 300) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for _ in range(steps):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_scenes_contacts_are_as_deep_as_their_shapes_overlap() -> None:
    model, data = _state()
    found, left = C.depth_apart(model, data, distance.tolerance(model))
    pairs = {distance.type_pair(model, *pair) for _, pair, _, _ in found}
    assert {"plane-box", "sphere-box", "box-box", "plane-capsule"} <= pairs, (pairs, left)
    assert max(ratio for ratio, *_ in found) <= 1.0, found


@pytest.mark.parametrize("fault", ["halved", "the radius"])
def test_a_depth_off_the_overlap_fails(fault: str) -> None:
    model, data = _state()
    ball = model.geom("ball").id
    i = next(k for k in range(data.ncon) if ball in (data.contact.geom1[k], data.contact.geom2[k]))
    depth = -float(data.contact.dist[i])
    assert depth > 0.003, depth  # the soft ball sinks several millimetres
    data.contact.dist[i] = -depth / 2 if fault == "halved" else -float(model.geom_size[ball, 0])
    found, _ = C.depth_apart(model, data, distance.tolerance(model))
    ratio = max(r for r, pair, *_ in found if ball in pair)
    assert ratio > 1.0, ratio


def test_two_boxes_depth_is_their_least_axis_overlap() -> None:
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody>
      <geom name="a" type="box" size=".1 .2 .3"/><geom name="b" type="box" size=".1 .1 .1" pos=".18 0 0" euler="0 0 5"/>
      </worldbody></mujoco>""")
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    a, b = (surfaces.shape(model, data, g) for g in range(2))
    reach = 0.1 * (np.cos(np.radians(5)) + np.sin(np.radians(5)))  # the turned box's half extent along x
    assert surfaces.box_box_depth(a, b) == pytest.approx(0.1 + reach - 0.18)


def test_a_capsule_in_a_box_and_ellipsoids_are_left_out_naming_why() -> None:
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="box" size=".2 .2 .2"/>
      <geom type="capsule" size=".05 .1"/><geom type="ellipsoid" size=".1 .2 .3"/><geom type="sphere" size=".1"/>
      </worldbody></mujoco>""")
    assert "capsule-box" in C.why_not(model, 0, 1)
    assert "ellipsoid" in C.why_not(model, 2, 3)
    assert C.why_not(model, 0, 3) is None


PARALLEL = """<mujoco model="two parallel capsules, the short one beside the middle of the long one">
  <worldbody>
    <body pos="0 0 0"><joint type="slide" axis="1 0 0"/>
      <geom name="long" type="capsule" fromto="0 0 0 0 0 .3" size=".1"/></body>
    <body pos=".15 0 .1"><freejoint/><geom name="short" type="capsule" fromto="0 0 0 0 0 .1" size=".085"/></body>
  </worldbody>
</mujoco>
"""


def test_parallel_capsules_report_their_overlap_from_3_17() -> None:
    """Two parallel capsules, the long one past both ends of the short one, 35 mm into each other: MuJoCo 3.0.1 to
    3.16.0 report a contact at each end of the long segment against the short one's nearest end (4.7 mm, tilted), and
    the law fails them; from 3.17.0 the contacts report the overlap. The pair is named parallel either way; turned by
    0.1 rad it is not."""
    from pytest_physlaw import mujoco_versions

    model = mujoco.MjModel.from_xml_string(PARALLEL)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    long, short = model.geom("long").id, model.geom("short").id
    assert C.parallel_capsules(model, data, long, short)
    found, left = C.depth_apart(model, data, distance.tolerance(model))
    (ratio, pair, depth, overlap), = found
    if mujoco_versions.version() < (3, 17):
        assert ratio > 100 and depth < 0.005, (ratio, depth)
    else:
        assert ratio <= 1.0 and depth == pytest.approx(0.035, abs=1e-9), (ratio, depth)  # 0.15 apart, radii .1, .085
    data.geom_xmat[short] = np.array([[1, 0, 0], [0, np.cos(.1), -np.sin(.1)], [0, np.sin(.1), np.cos(.1)]]).ravel()
    assert not C.parallel_capsules(model, data, long, short)


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    record = law_record(pytester, "scene.xml", "contact_depth_is", LAW)
    assert record["outcome"] == "passed", record
