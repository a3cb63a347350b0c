"""model-rays-are-scale-free (`pytest_physlaw.pack.twofold.ray_scale`): rays aimed at a table set with every kind of
geom (a plane, boxes, a sphere, a capsule, an ellipsoid, a cylinder, a mesh, a heightfield) meet the same points
whatever their direction's length; a ray returning metres instead of units of its direction for one kind of geom (a
fault wrapped around `mj_ray`: 3.0 to 3.17's SDF ray) fails, and so does a ray that meets another geom as its
direction's length changes."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import ray_scale
from tests.pack.law_record import law_record

LAW = "model-rays-are-scale-free"
TABLE = """<mujoco model="a table set with every kind of geom">
  <asset>
    <mesh name="wedge" vertex="0 0 0  .1 0 0  0 .1 0  0 0 .1  .1 .1 .05"/>
    <hfield name="bumps" nrow="4" ncol="4" size=".2 .2 .05 .02"
            elevation="0 .2 .4 0  .3 1 .8 .2  .1 .6 .9 .3  0 .2 .1 0"/>
  </asset>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <geom name="top" type="box" size=".5 .4 .02" pos="0 0 .5"/>
    <geom type="hfield" hfield="bumps" pos="-.9 0 0"/>
    <body pos=".2 .1 .6"><freejoint/><geom type="sphere" size=".05"/></body>
    <body pos="-.2 .1 .58"><freejoint/><geom type="capsule" size=".03 .08" euler="0 90 0"/></body>
    <body pos="0 -.2 .6"><freejoint/><geom type="ellipsoid" size=".06 .04 .03"/></body>
    <body pos=".3 -.2 .6"><freejoint/><geom type="cylinder" size=".04 .05"/></body>
    <body pos="-.3 -.2 .55"><freejoint/><geom type="mesh" mesh="wedge"/></body>
  </worldbody>
</mujoco>
"""


def _table() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(TABLE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def test_rays_at_every_kind_of_geom_meet_the_same_points() -> None:
    model, data = _table()
    share, which = ray_scale.apart(model, data)
    assert share <= 1.0, which
    hit = {ray_scale.cast(model, data, origin, unit)[0] for g in range(model.ngeom)
           for origin, unit, _ in ray_scale.rays(model, data, g)}
    assert set(range(1, model.ngeom)) <= hit  # each geom is met by a ray aimed at it (the plane lies under the table)


def test_a_ray_in_metres_for_one_kind_of_geom_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = mujoco.mj_ray
    box = int(mujoco.mjtGeom.mjGEOM_BOX)

    def metres(m, d, pnt, vec, *rest):  # x in metres where the ray meets a box: off by |vec| for a non-unit vec
        x = ray(m, d, pnt, vec, *rest)
        geomid = rest[-1]
        return x * float(np.linalg.norm(vec)) if x >= 0 and int(m.geom_type[geomid[0]]) == box else x
    monkeypatch.setattr(ray_scale.mujoco, "mj_ray", metres)
    model, data = _table()
    share, which = ray_scale.apart(model, data)
    assert share > 1e3, (share, which)


def test_a_ray_meeting_another_geom_as_its_length_changes_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = mujoco.mj_ray

    def short(m, d, pnt, vec, *rest):  # a long direction misses what the others meet
        return -1.0 if np.linalg.norm(vec) > 0.5 else ray(m, d, pnt, vec, *rest)
    monkeypatch.setattr(ray_scale.mujoco, "mj_ray", short)
    model, data = _table()
    share, which = ray_scale.apart(model, data)
    assert share == math.inf and "meets geoms [-1" in which, which


def test_two_boxes_side_by_side_tie_on_their_shared_face() -> None:
    """A ray aimed at a box through the face it shares with its neighbour meets either: the point is the same."""
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody>
      <geom type="box" size=".1 .1 .1" pos="0 0 0"/><geom type="box" size=".1 .1 .1" pos=".2 0 0"/>
      <body><freejoint/><geom size=".01" pos="3 3 3"/></body></worldbody></mujoco>""")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    share, which = ray_scale.apart(model, data)
    assert share <= 1.0, which


def test_the_law_runs_on_the_table_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("table.xml").write_text(TABLE)
    record = law_record(pytester, "table.xml", "rays", LAW)
    assert record["outcome"] == "passed", record
