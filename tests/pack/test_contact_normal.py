"""model-contact-normal-is-least-overlap (`pytest_physlaw.pack.twofold.contact_normal`, measured by
`twofold.surfaces.supports` and `prisms`): a ball in a block, boxes stacked on a floor, a capsule, an egg and a mesh
on it, and an egg and a ball on a sloped heightfield have contacts pointing the way their shapes overlap least; a
normal turned by a hundredth of a radian fails (a plane's, a box's, an ellipsoid's on a heightfield prism: 3.3.7's
tilt); a mesh on a box table is judged with one contact a pair; the capsule-box collider, libccd's normals, curved
convex pairs, multiccd's contacts and a heightfield pair with a margin are left out, naming why."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import contact_normal as N
from pytest_physlaw.pack.twofold import distance
from tests.pack.law_record import law_record

LAW = "model-contact-normal-is-least-overlap"
ROWS = " ".join(" ".join(f"{0.1 * c + 0.05 * r:.2f}" for c in range(9)) for r in range(9))  # a tilted slope
SCENE = f"""<mujoco model="shapes on a floor and on a sloped heightfield">
  <option timestep="0.002"/>
  <asset>
    <hfield name="slope" nrow="9" ncol="9" size=".8 .8 .4 .1" elevation="{ROWS}"/>
    <mesh name="wedge" vertex="0 0 0  .2 0 0  0 .2 0  0 0 .2  .2 .2 0  .2 0 .2"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <geom name="block" type="box" size=".2 .2 .2" pos="1 0 .2"/>
    <geom name="slope" type="hfield" hfield="slope" pos="0 2 0"/>
    <body name="ball" pos="1.05 0 .45"><freejoint/><geom name="ball" size=".06" solref=".2 1"/></body>
    <body name="low" pos="0 0 .1"><freejoint/><geom name="low" type="box" size=".15 .1 .1" euler="0 0 10"/></body>
    <body name="high" pos=".03 0 .3" euler="0 0 35"><freejoint/><geom name="high" type="box" size=".08 .08 .08"/></body>
    <body name="rod" pos="-.5 0 .06" euler="0 80 0"><freejoint/><geom name="rod" type="capsule" size=".04 .2"/></body>
    <body name="egg" pos="-.5 .6 .1" euler="10 70 20"><freejoint/><geom name="egg" type="ellipsoid" size=".04 .04 .06"/></body>
    <body name="wedge" pos=".6 -.6 .05"><freejoint/><geom name="wedge" type="mesh" mesh="wedge"/></body>
    <body name="hill egg" pos=".1 2.1 .3" euler="0 80 30"><freejoint/>
      <geom name="hill egg" type="ellipsoid" size=".05 .05 .08" solref=".05 1"/></body>
    <body name="hill ball" pos="-.3 1.8 .2"><freejoint/><geom name="hill ball" size=".05" solref=".05 1"/></body>
  </worldbody>
</mujoco>
"""


def _state(xml: str = SCENE, steps: int = 150) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    for _ in range(steps):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data


def _judged(model: mujoco.MjModel, data: mujoco.MjData) -> dict[str, float]:
    found, left = N.normal_apart(model, data, distance.tolerance(model))
    assert not left, left
    return {distance.pair_name(model, *pair): ratio for ratio, pair, *_ in found}


def test_the_scenes_contacts_point_the_way_their_shapes_overlap_least() -> None:
    model, data = _state()
    judged = _judged(model, data)
    kinds = {distance.type_pair(model, model.geom(a.split(" (")[0]).id, model.geom(b.split(" (")[0]).id)
             for a, b in (name.split(" / ") for name in judged)}
    assert {"plane-box", "sphere-box", "box-box", "plane-capsule", "plane-ellipsoid", "plane-mesh", "hfield-sphere",
            "hfield-ellipsoid"} <= kinds, judged
    assert max(judged.values()) <= 1.0, judged


def _turned(data: mujoco.MjData, i: int, angle: float) -> None:
    """Turn contact i's normal by `angle` about an axis across it."""
    normal = np.array(data.contact.frame[i][:3])
    axis = np.cross(normal, np.eye(3)[int(np.argmin(np.abs(normal)))])
    axis /= np.linalg.norm(axis)
    turned = np.cos(angle) * normal + np.sin(angle) * np.cross(axis, normal)
    data.contact.frame[i][:3] = turned


@pytest.mark.parametrize("geom", ["low", "high", "hill egg", "hill ball", "ball"])
def test_a_normal_turned_by_a_hundredth_of_a_radian_fails(geom: str) -> None:
    model, data = _state()
    g = model.geom(geom).id
    pairs = distance.deepest_contacts(data)
    key, (_, i) = min(((k, v) for k, v in pairs.items() if g in k), key=lambda kv: kv[1][0])
    before = _judged(model, data)[distance.pair_name(model, *key)]
    _turned(data, i, 0.01)
    after = _judged(model, data)[distance.pair_name(model, *key)]
    assert before <= 1.0 < after, (before, after)


def test_tilts_are_unit_directions_at_the_stated_angles() -> None:
    normal = np.array([0.3, -0.4, 0.866])
    normal /= np.linalg.norm(normal)
    tilts = N.tilted(normal)
    assert np.allclose(np.linalg.norm(tilts, axis=1), 1.0)
    angles = np.sort(np.unique(np.round(np.arccos(np.clip(tilts @ normal, -1, 1)), 8)))
    assert np.allclose(angles, N.TILTS)


def test_capsule_box_libccd_and_a_margined_heightfield_are_left_out_naming_why() -> None:
    model = mujoco.MjModel.from_xml_string("""<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 .1 .1"/>
      </asset><worldbody><geom type="box" size=".2 .2 .2"/><geom type="capsule" size=".05 .1"/>
      <geom type="hfield" hfield="h"/><geom type="sphere" size=".1" margin=".01"/><geom type="ellipsoid" size=".1 .1 .2"/>
      </worldbody></mujoco>""")
    assert "capsule-box" in N.why_not(model, 0, 1)
    assert "margin" in N.why_not(model, 2, 3)
    assert N.why_not(model, 2, 4) is None  # a heightfield's prisms: flat tops
    assert "curved" in N.why_not(model, 0, 4)  # EPA's normal on an ellipsoid: approximate
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_NATIVECCD)
    assert "libccd" in N.why_not(model, 2, 4)


def test_two_polytopes_are_judged_with_one_contact_a_pair_and_left_out_under_multiccd() -> None:
    xml = """<mujoco><option><flag multiccd="{flag}"/></option><asset>
      <mesh name="wedge" vertex="0 0 0  .2 0 0  0 .2 0  0 0 .2  .2 .2 0  .2 0 .2"/></asset><worldbody>
      <geom name="table" type="box" size=".5 .5 .05"/>
      <body name="wedge" pos="-.1 -.1 .049" euler="0 0 20"><freejoint/><geom name="wedge" type="mesh" mesh="wedge"/></body>
      </worldbody></mujoco>"""
    model, data = _state(xml.format(flag="disable"), steps=50)
    judged = _judged(model, data)
    assert list(judged) == ["table (box) / wedge (mesh)"] and judged["table (box) / wedge (mesh)"] <= 1.0, judged
    model = mujoco.MjModel.from_xml_string(xml.format(flag="enable"))
    assert "multiccd" in N.why_not(model, 0, 1)


def test_the_law_runs_on_a_model_and_passes(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("scene.xml").write_text(SCENE)
    record = law_record(pytester, "scene.xml", "normal_is_least", LAW)
    assert record["outcome"] == "passed", record


def test_smooth_shapes_on_rough_terrain_point_along_the_faces_they_rest_on() -> None:
    rng = np.random.default_rng(3)
    rows = " ".join(f"{h:.3f}" for h in rng.uniform(0, 1, 15 * 15))
    shapes = ['sphere" size=".05', 'capsule" size=".03 .06', 'ellipsoid" size=".04 .05 .07']
    bodies = "".join(f'<body pos="{x:.3f} {y:.3f} {0.35 + 0.05 * i:.3f}" euler="{i * 37} {i * 53} {i * 11}"><freejoint/>'
                     f'<geom type="{shapes[i % 3]}"/></body>' for i, (x, y) in enumerate(rng.uniform(-.6, .6, (12, 2))))
    model = mujoco.MjModel.from_xml_string(f"""<mujoco><asset><hfield name="rough" nrow="15" ncol="15"
      size=".8 .8 .15 .1" elevation="{rows}"/></asset><worldbody><geom type="hfield" hfield="rough"/>{bodies}
      </worldbody></mujoco>""")
    data, judged = mujoco.MjData(model), []
    for step in range(400):
        mujoco.mj_step(model, data)
        if step % 20 == 19:
            judged += N.normal_apart(model, data, distance.tolerance(model))[0]
    assert len(judged) > 50 and max(r for r, *_ in judged) <= 1.0, (len(judged), max(judged))
