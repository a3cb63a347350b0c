"""model-contact-points-lie-in-their-geoms (`pytest_physlaw.pack.twofold.contact_points`, measured by
`twofold.surfaces.gap`): every contact of a floor with boxes, a ball, a capsule and a mesh block (several contacts a
pair, multiccd's among them) places each geom's point in that geom; a contact booked deeper than its point lies (a
shallow corner given the pair's deepest depth, MuJoCo 3.11's multiccd) or moved off its face fails; a height
field's points lie in the prisms it is collided as."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import contact_points as C
from pytest_physlaw.pack.twofold import distance
from tests.pack.law_record import law_record

LAW = "model-contact-points-lie-in-their-geoms"
SCENE = """<mujoco model="boxes, a ball, a capsule and a mesh block on a floor">
  <option timestep="0.002"/>
  <asset><mesh name="block" vertex="-.1 -.1 -.05  .1 -.1 -.05  .1 .1 -.05  -.1 .1 -.05
                                    -.1 -.1 .05  .1 -.1 .05  .1 .1 .05  -.1 .1 .05"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="low" pos="0 0 .1"><freejoint/><geom name="low" type="box" size=".15 .1 .1" euler="0 0 10"/></body>
    <body name="high" pos=".03 0 .3" euler="0 0 35"><freejoint/><geom name="high" type="box" size=".08 .08 .08"/></body>
    <body name="ball" pos=".6 0 .2"><freejoint/><geom name="ball" size=".06" solref=".2 1"/></body>
    <body name="rod" pos="-.5 0 .06" euler="0 80 0"><freejoint/><geom name="rod" type="capsule" size=".04 .2"/></body>
    <body name="slab" pos=".6 .6 .06" euler="4 3 20"><freejoint/><geom name="slab" type="mesh" mesh="block" margin=".02"/></body>
    <body name="cube" pos=".62 .6 .2" euler="0 0 30"><freejoint/><geom name="cube" type="box" size=".04 .04 .04"/></body>
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


def test_the_scenes_contact_points_lie_in_their_geoms() -> None:
    model, data = _state()
    found, left = C.points_outside(model, data, C.tolerance(model))
    pairs = {distance.type_pair(model, *pair) for _, pair, _, _ in found}
    convex = {"box-mesh"} if mujoco_versions.convex_solver_distances(model) else set()  # else libccd's, left out
    assert {"plane-box", "plane-sphere", "box-box", "plane-capsule", "plane-mesh"} | convex <= pairs, (pairs, left)
    assert len(found) > len(pairs)  # several contacts a pair, each judged
    assert max(ratio for ratio, *_ in found) <= 1.0, found


def _contact(model: mujoco.MjModel, data: mujoco.MjData, geom: str) -> int:
    g = model.geom(geom).id
    return next(k for k in range(data.ncon) if g in (data.contact.geom1[k], data.contact.geom2[k]))


@pytest.mark.parametrize("fault", ["booked twice as deep", "moved off its face"])
def test_a_point_outside_its_geom_fails(fault: str) -> None:
    model, data = _state()
    i = _contact(model, data, "ball")
    depth = -float(data.contact.dist[i])
    assert depth > 0.003, depth  # the soft ball sinks several millimetres
    if fault == "booked twice as deep":  # the floor's point is lifted half a depth above the floor
        data.contact.dist[i] = -2.0 * depth
    else:  # off the ball's surface, sideways by half its radius
        data.contact.pos[i] = np.asarray(data.contact.pos[i]) + np.array([0.03, 0.0, 0.0])
    found, _ = C.points_outside(model, data, C.tolerance(model))
    ball = model.geom("ball").id
    ratio = max(r for r, pair, *_ in found if ball in pair)
    assert ratio > 1.0, ratio


def test_a_shallow_corner_booked_at_the_pairs_deepest_depth_fails() -> None:
    """MuJoCo 3.11's multiccd booked every contact of a pair at its deepest depth (the corpus' mujoco-17e6d44a). At the
    start the tilted slab's four corners lie within its margin of the floor, at their own distances."""
    model, data = _state(steps=0)
    slab = model.geom("slab").id
    rows = [k for k in range(data.ncon) if slab in (data.contact.geom1[k], data.contact.geom2[k])
            and model.geom("floor").id in (data.contact.geom1[k], data.contact.geom2[k])]
    dists = np.asarray(data.contact.dist[rows])
    assert len(rows) >= 3 and np.ptp(dists) > 0.003, dists
    data.contact.dist[rows] = dists.min()
    found, _ = C.points_outside(model, data, C.tolerance(model))
    assert max(r for r, pair, *_ in found if slab in pair) > 1.0


FIELD = """<mujoco model="a ball on a bumpy height field">
  <asset><hfield name="bumps" nrow="5" ncol="5" size=".5 .5 .1 .05"
    elevation="0 0 0 0 0  0 .3 .5 .3 0  0 .5 1 .5 0  0 .3 .5 .3 0  0 0 0 0 0"/></asset>
  <worldbody>
    <geom name="field" type="hfield" hfield="bumps"/>
    <body name="ball" pos=".12 .05 .3"><freejoint/><geom name="ball" size=".05"/></body>
  </worldbody>
</mujoco>
"""


def test_a_height_fields_points_lie_in_its_prisms_and_a_deeper_booking_fails() -> None:
    """A ball rolling down a bump: each contact's point on the field lies on the union of the prisms MuJoCo
    collides it as; a contact booked 15 mm deeper than it is (MuJoCo 3.15's margin on a height field) fails."""
    model = mujoco.MjModel.from_xml_string(FIELD)
    data = mujoco.MjData(model)
    found = []
    for _ in range(400):
        mujoco.mj_step(model, data)
        if data.ncon:
            found, _ = C.points_outside(model, data, C.tolerance(model))
            break
    if not mujoco_versions.convex_solver_distances(model):
        assert not found  # libccd's MPR: left out, named
        return
    assert found and max(r for r, *_ in found) <= 1.0, found
    data.contact.dist[0] = float(data.contact.dist[0]) - 0.015
    found, _ = C.points_outside(model, data, C.tolerance(model))
    assert max(r for r, *_ in found) > 1.0


def test_a_height_field_is_judged_where_the_convex_solver_measures_it() -> None:
    model = mujoco.MjModel.from_xml_string(FIELD)
    why = C.why_not(model, 0, 1)
    assert (why is None) == mujoco_versions.convex_solver_distances(model), why
    if why:
        assert "height field" in why and "MPR" in why


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    record = law_record(pytester, "scene.xml", "contact_points", LAW)
    assert record["outcome"] == "passed", record
