"""The route ray law (`pytest_physlaw.pack.routes.rays`, model-route-rays): a route whose rays are MuJoCo C's passes;
one that meets a geom behind the ray's origin (MJX 3.1.4, regressions case mjx-719476c2), lands a millimetre
off, or misses what C meets, fails; rays whose first geom the route passes over are left out, counted.
The route here is MuJoCo C behind the adapter interface (no warp, no jax: cheap); the real routes run it with
PHYSLAW_SLOW_ROUTES=1."""

from __future__ import annotations

import json
import types

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import routes
from pytest_physlaw.pack.routes import rays
from tests.pack.route_law_run import route_law_record
from tests.pack.test_route_readouts import SLOW

# A box on the floor beside a mesh-like wedge (a box turned) and a cylinder: rays at each meet them from outside.
SCENE = """<mujoco><worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
  <body name="box" pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  <body name="post" pos="-0.4 0.2 0.2"><geom name="post" type="cylinder" size="0.05 0.2"/></body>
  <body name="ball" pos="0 -0.5 0.3"><geom type="sphere" size="0.08"/></body></worldbody></mujoco>"""
CYLINDER = int(mujoco.mjtGeom.mjGEOM_CYLINDER)


def c_route(change=None, kinds=None) -> types.SimpleNamespace:
    """An adapter whose rays are MuJoCo C's own (`rays.c_hits`), passed through `change` (a fault)."""
    def cast(model, data, pnts, vecs, setup):
        dist, geoms = rays.c_hits(model, data, pnts, vecs)
        return change(model, dist, geoms) if change else (dist, geoms)
    every = frozenset(int(t) for t in mujoco.mjtGeom.__members__.values() if int(t) < int(mujoco.mjtGeom.mjNGEOMTYPES))
    return types.SimpleNamespace(rays=cast, ray_types=lambda: kinds or every, device_kind=lambda: "cpu",
                                 versions=lambda: {"c": mujoco.__version__})


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, adapter) -> dict:
    return route_law_record(pytester, monkeypatch, adapter, SCENE, "route_rays", "model-route-rays", 50, route="mjx")


def test_a_route_casting_cs_rays_passes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _run(pytester, monkeypatch, c_route())
    assert record["outcome"] == "passed" and record["checks"][0]["value"] == 0.0, record


def _behind(model, dist, geoms):  # MJX 3.1.4: a mesh behind the origin met at a negative distance
    dist, geoms = dist.copy(), geoms.copy()
    away = np.flatnonzero(geoms < 0)[0] if (geoms < 0).any() else 0  # a ray that meets nothing ahead
    dist[away], geoms[away] = -0.5, 0
    return dist, geoms


def _off(model, dist, geoms):  # a millimetre further on every hit (the bound: 1e-4 of the scene's extent, 0.3 mm)
    return np.where(geoms >= 0, dist + 1e-3, dist), geoms


def _blind(model, dist, geoms):  # the first ray that meets something misses it
    hit = np.flatnonzero(geoms >= 0)[0]
    dist, geoms = dist.copy(), geoms.copy()
    dist[hit], geoms[hit] = -1.0, -1
    return dist, geoms


@pytest.mark.parametrize("fault", [_behind, _off, _blind], ids=["behind", "off", "misses"])
def test_a_route_meeting_other_surfaces_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault) -> None:
    record = _run(pytester, monkeypatch, c_route(fault))
    assert record["outcome"] == "failed" and float(record["checks"][0]["value"]) > 1.0, record


def test_rays_meeting_a_kind_the_route_passes_over_are_left_out() -> None:
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    origins, directions, _ = rays.aimed_rays(model, data)
    c = rays.c_hits(model, data, origins, directions)
    passes_over = c[1] >= 0
    passes_over &= np.asarray(model.geom_type)[np.maximum(c[1], 0)] == CYLINDER
    route = (np.where(passes_over, -1.0, c[0]), np.where(passes_over, -1, c[1]))  # the cylinder unseen
    every = frozenset(range(int(mujoco.mjtGeom.mjNGEOMTYPES)))
    share, judged = rays.apart(model, c, route, every - {CYLINDER}, 1e-6)
    assert passes_over.any() and not judged[passes_over].any() and share.max() == 0.0
    assert rays.apart(model, c, route, every, 1e-6)[0].max() == np.inf


@SLOW
@pytest.mark.parametrize("route", ["mjx", "warp"])
def test_each_routes_rays_meet_what_c_meets(pytester: pytest.Pytester, route: str) -> None:
    reason = routes.unavailable(route)
    if reason:
        pytest.skip(reason)
    (pytester.path / "scene.xml").write_text(SCENE)
    pytester.makeini("[pytest]\nphyslaw_model_steps = 50\n")
    pytester.runpytest_subprocess("--physlaw-model=scene.xml", "--physlaw-models-only", f"--physlaw-route={route}",
                                  "-k", "route_rays", "-p", "no:cacheprovider")
    (record,) = json.loads((pytester.path / ".physlaw" / "report.json").read_text())["laws"]
    assert record["outcome"] == "passed", record
