"""The route laws (`--physlaw-route=warp|mjx`, `pytest_physlaw/pack/routes.py`): without a route nothing of
them is collected or imported; an unavailable route or a refused setting skips every law with the reason;
and each law fails on a route setting that breaks it, with tiny models written here.

CI runs the cheap tests and one per route that proves a law fails (a contact capacity too small for the
scene: law 1); the other demonstrations compile more (a model and a setting each) and run with
PHYSLAW_SLOW_ROUTES=1:

    PHYSLAW_SLOW_ROUTES=1 .venv/bin/pytest tests/pack/test_routes.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import mujoco
import numpy as np
import pytest

from fixtures.solver.scenes import slope_xml
from pytest_physlaw.pack import routes

SLOW = pytest.mark.skipif(not os.environ.get("PHYSLAW_SLOW_ROUTES"),
                          reason="compiles a route for a model of its own: PHYSLAW_SLOW_ROUTES=1 runs it")
LAWS = {  # function name -> law id (without the device)
    "test_route_runs_the_model": "model-route-runs",
    "test_one_route_step_agrees_with_c": "model-route-step",
    "test_route_trajectory_stays_in_c_envelope": "model-route-trajectory",
    "test_route_settles_as_c": "model-route-settled",
    "test_route_iteration_cap": "model-route-cap",
    "test_route_cost": "model-route-cost",
    "test_route_actuator_force_is_the_force_law": "model-route-readouts",
    "test_route_rays_meet_what_c_meets": "model-route-rays",
    "test_route_set_const_is_c_set_const": "model-route-set-const",
}

# A box resting on a 20 degree slope, friction 0.5 (tan 20 = 0.36): four contacts, held by friction (the
# suite's slope scene, whose MuJoCo Warp kernels the Warp laws compile anyway). CG, as Lesson 20.2 caps it.
SLOPE = slope_xml(solver="CG")
# The same box dropped from 5 mm onto a level plane: no contact at the start, four once it lands (the slope's
# options, sizes and geom types: MJWarp builds the same kernels for both).
DROP = slope_xml(angle=0.0, solver="CG").replace('<body pos="0 0 0.0250"', '<body pos="0 0 0.0300"')
# A motor-driven pendulum beside a box on the floor: it swings under seeded controls.
SWING = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="2 2 0.1"/>
  <body name="box" pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  <body name="bob" pos="0 0 1"><joint name="swing" type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/></body></worldbody>
  <actuator><motor joint="swing" gear="2" ctrlrange="-1 1"/></actuator>
  <keyframe><key qpos="0.5 0 0.05 1 0 0 0 0.8"/></keyframe></mujoco>"""
# A box a motor pushes into a wall, the scene 2 km from the origin: float32 resolves positions there to
# 0.12 mm, the contact's penetration to no better, and the contact force, over a stiff 0.2 mm, to no better.
FAR = """<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody>
  <geom name="wall" type="box" pos="2000.1 0 0" size="0.05 0.5 0.5"/>
  <body name="box" pos="2000 0 0"><joint name="x" type="slide" axis="1 0 0"/>
    <geom type="box" size="0.05 0.05 0.05" mass="1"/></body></worldbody>
  <actuator><motor joint="x" gear="10" ctrlrange="0 1"/></actuator>
  <keyframe><key qpos="0.0002" ctrl="1"/></keyframe></mujoco>"""


def _run(pytester: pytest.Pytester, xml: str, *routes_: str, ini: dict[str, str] | None = None,
         steps: int = 100, extra: tuple[str, ...] = (), in_process: bool = False,
         keyword: str = "route and not route_rays and not route_set_const") -> tuple[pytest.RunResult, dict[str, dict]]:
    """The route laws alone on one model, but the ray and set_const laws (their own tests: test_route_rays.py,
    test_route_set_const.py); (the result, the law records by function name and route)."""
    (pytester.path / "robot.xml").write_text(xml)
    keys = {"physlaw_model_steps": str(steps), **(ini or {})}
    pytester.makeini("[pytest]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()))
    # A run that steps a route goes in a process of its own: an in-process run removes the modules it imported
    # when it ends, and jax's lazily imported parts abort the process when imported a second time.
    run = pytester.runpytest_subprocess if routes_ and not in_process else pytester.runpytest_inprocess
    result = run("--physlaw-model=robot.xml", "--physlaw-models-only", "-k", keyword,
                 *(f"--physlaw-route={r}" for r in routes_), "-p", "no:cacheprovider", "-rs", *extra)
    path = pytester.path / ".physlaw" / "report.json"
    laws = json.loads(path.read_text())["laws"] if path.exists() else []
    return result, {_key(r["nodeid"]): r for r in laws}


def _key(nodeid: str) -> str:
    """'robot.xml::test_route_cost[robot.xml:warp]' -> 'test_route_cost:warp'."""
    name, _, case = nodeid.split("::", 1)[1].partition("[")
    return f"{name}:{case.rstrip(']').rsplit(':', 1)[-1]}"


def _check(record: dict, quantity: str) -> dict:
    return next(c for c in record["checks"] if c["quantity"] == quantity)


def _failed(records: dict[str, dict], route: str) -> set[str]:
    return {LAWS[k.split(":")[0]] for k, r in records.items() if k.endswith(f":{route}") and r["outcome"] == "failed"}


# ------------------------------------------------------------------------------------ no route, bad settings


def test_without_a_route_nothing_of_it_is_collected_or_imported(pytester: pytest.Pytester) -> None:
    """A model run without --physlaw-route collects none of the route laws and imports no warp, MuJoCo Warp,
    jax or MJX (the pack's other laws are collected as before)."""
    (pytester.path / "robot.xml").write_text(SWING)
    pytester.makeconftest(textwrap.dedent("""
        import sys
        def pytest_collection_finish(session):
            heavy = sorted(m for m in ("warp", "mujoco_warp", "jax", "mujoco.mjx") if m in sys.modules)
            print("HEAVY", heavy)
            print("ITEMS", [i.nodeid for i in session.items])
        """))
    result = pytester.runpytest_subprocess("--physlaw-model=robot.xml", "--collect-only", "-q", "-p", "no:cacheprovider")
    heavy = next(line for line in result.stdout.lines if line.startswith("HEAVY"))
    items = next(line for line in result.stdout.lines if line.startswith("ITEMS"))
    assert heavy == "HEAVY []", result.stdout.str()
    assert "test_settled_pose" in items and "route" not in items


def test_the_pack_imports_without_warp_or_jax() -> None:
    """The route modules that the pack imports stand without warp, mujoco_warp and jax (a user of the pack
    alone has none of them)."""
    code = ("import sys\nfor m in ('warp', 'mujoco_warp', 'jax', 'jaxlib'): sys.modules[m] = None\n"
            "import pytest_physlaw.pack.laws, pytest_physlaw.pack.routes as r\nprint(sorted(r.law_ids())[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "model-route-cap[cpu]", out.stderr


@pytest.mark.parametrize(("option", "ini", "message"), [
    ("--physlaw-route=gpu", "", "invalid choice: 'gpu'"),
    ("", "physlaw_model_routes = warp gpu", "unknown route 'gpu'"),
    ("--physlaw-route=warp", "physlaw_route_iterations = 0", "physlaw_route_iterations: '0' must be a whole number >= 1"),
    ("--physlaw-route=mjx", "physlaw_route_precision = float16", "'float16' is not one of float32, float64"),
    ("--physlaw-route=warp", "physlaw_route_solver = warp=Newton mjx", "'mjx' is not ROUTE=VALUE"),
    ("--physlaw-route=warp", "physlaw_route_timestep = -1", "must be a number of seconds > 0"),
    ("--physlaw-route=warp", "physlaw_route_jacobian = banded", "'banded' is not one of dense, sparse, auto"),
])
def test_bad_routes_and_settings_are_usage_errors(pytester: pytest.Pytester, option: str, ini: str, message: str) -> None:
    (pytester.path / "robot.xml").write_text(SWING)
    pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest_inprocess("--physlaw-model=robot.xml", *([option] if option else []), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str() + result.stdout.str()


def test_per_route_settings() -> None:
    """A plain value holds for every route; ROUTE=VALUE items set one route each, the others keep their own."""
    class Config:
        def __init__(self, **ini: str) -> None:
            self.ini = ini

        def getini(self, key: str) -> str:
            return self.ini.get(key, "")

    config = Config(physlaw_route_iterations="warp=1 mjx=4", physlaw_route_precision="float64",
                    physlaw_route_nworld="1")
    warp, mjx = routes.read_setup(config, "warp"), routes.read_setup(config, "mjx")
    assert (warp.iterations, mjx.iterations, warp.precision, mjx.precision) == (1, 4, "float64", "float64")
    assert warp.nworld == 3 and warp.solver is None and warp.eps == 1e-12  # the laws' batch needs 3 worlds
    assert routes.read_setup(Config(physlaw_route_iterations="mjx=4"), "warp").iterations is None


def test_the_jacobian_layout_is_the_routes_path_and_c_keeps_the_models() -> None:
    """ini physlaw_route_jacobian sets the route's model (each layout is a path of kernels of its own); unset, the
    route runs the model's own layout."""
    from pytest_physlaw.pack.routes.common import RouteSetup, route_model

    model = mujoco.MjModel.from_xml_string(SWING)
    assert model.opt.jacobian == mujoco.mjtJacobian.mjJAC_AUTO
    sparse = route_model(model, RouteSetup("warp", jacobian="sparse"))
    assert sparse.opt.jacobian == mujoco.mjtJacobian.mjJAC_SPARSE and "jacobian=sparse" in RouteSetup(
        "warp", jacobian="sparse").describe()
    assert route_model(model, RouteSetup("warp")).opt.jacobian == mujoco.mjtJacobian.mjJAC_AUTO
    assert model.opt.jacobian == mujoco.mjtJacobian.mjJAC_AUTO  # C's model is untouched


def test_an_unavailable_route_skips_every_law_naming_the_versions(pytester: pytest.Pytester, monkeypatch) -> None:
    """mujoco-warp of another release than MuJoCo: all nine laws collected, each skipped with both versions."""
    from fixtures.warp.support import unsupported

    reason = unsupported("3.14.0", "4.0.0", "1.19.0")
    monkeypatch.setattr(routes, "unavailable", lambda route: reason)
    result, laws = _run(pytester, SWING, "warp", in_process=True, keyword="route")
    assert result.parseoutcomes() == {"skipped": 9, "deselected": result.parseoutcomes()["deselected"]}
    assert {r["law"] for r in laws.values()} == {f"{law}[cpu]" for law in LAWS.values()}
    skips = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    counted = sum(int(s.split("[", 1)[1].split("]", 1)[0]) for s in skips)  # -rs folds skips of one place: "[2]"
    assert counted == 9 and all("found mujoco 3.14.0, mujoco-warp 4.0.0" in s for s in skips), skips


def test_float64_on_warp_is_a_skip_naming_the_route(pytester: pytest.Pytester) -> None:
    """MuJoCo Warp computes in float32: asking it for float64 skips every Warp law and says so."""
    pytest.importorskip("mujoco_warp")
    result, laws = _run(pytester, SLOPE, "warp", ini={"physlaw_route_precision": "float64"}, steps=5, keyword="route")
    assert set(result.parseoutcomes()) == {"skipped", "deselected"} and len(laws) == 9
    skips = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    counted = sum(int(s.split("[", 1)[1].split("]", 1)[0]) for s in skips)
    assert counted == 9 and all("computes in float32 only" in s for s in skips), skips


# ------------------------------------------------------------------------------------ each law can fail


def _route_or_skip(route: str) -> None:
    reason = routes.unavailable(route)
    if reason:
        pytest.skip(reason)


def _warp_or_skip() -> None:
    _route_or_skip("warp")


def _mjx_or_skip() -> None:
    _route_or_skip("mjx")


def test_warp_contact_capacity_too_small_fails_law_1(pytester: pytest.Pytester) -> None:
    """A box lands on the floor with four contacts; MuJoCo Warp given room for one a world (nconmax=1) drops
    the rest and only sets its NARROWPHASE bit: law 1 fails naming it. Where the start already needs more
    (the box resting on the slope), MJWarp refuses the capacity and law 1 fails on that. At its own capacity
    every law passes on the slope (the readouts law, without an actuator there, skips)."""
    _warp_or_skip()
    result, laws = _run(pytester, DROP, "warp", ini={"physlaw_route_nconmax": "1"}, steps=50)
    assert "model-route-runs" in _failed(laws, "warp"), result.stdout.str()
    assert _check(laws["test_route_runs_the_model:warp"], "narrowphase_overflow_steps")["value"] > 0
    assert laws["test_route_cost:warp"]["law"] == "model-route-cost[cpu]"

    result, laws = _run(pytester, SLOPE, "warp", ini={"physlaw_route_nconmax": "1"}, steps=50)
    assert _failed(laws, "warp") == {"model-route-runs"}, result.stdout.str()
    assert "nconmax must be >= 4" in _check(laws["test_route_runs_the_model:warp"], "refused")["why"]
    assert result.parseoutcomes()["skipped"] == 6

    result, laws = _run(pytester, SLOPE, "warp", steps=50)
    # every law passes; model-route-readouts has no actuator to judge on the slope
    assert set(result.parseoutcomes()) == {"passed", "skipped", "deselected"}, result.stdout.str()
    assert result.parseoutcomes()["skipped"] == 1 and laws["test_route_actuator_force_is_the_force_law:warp"]["outcome"] \
        == "skipped", result.stdout.str()
    assert _check(laws["test_route_runs_the_model:warp"], "contacts_over_capacity")["value"] < 1


def test_mujoco_warp_before_3_9_tells_its_overflows_by_its_counters() -> None:
    """mujoco-warp 3.5 to 3.8 has no overflow bits but counts contacts and rows on past the capacity: a count over
    it is the overflow (without it 3.5.0 reports no narrowphase_overflow_steps: the test above fails)."""
    _warp_or_skip()
    from pytest_physlaw.pack.routes import warp as adapter

    assert adapter.counted_overflow(5, 4, np.array([3, 8]), 8) == {"NARROWPHASE": True, "NEFC": False}
    assert adapter.counted_overflow(4, 4, np.array([3, 9]), 8) == {"NARROWPHASE": False, "NEFC": True}


def test_mjx_contact_capacity_too_small_fails_law_1(pytester: pytest.Pytester) -> None:
    """MJX told to keep one contact (max_contact_points=1, from ini physlaw_route_nconmax) keeps the deepest
    corner of the box and drops three; at the route's poses MuJoCo C finds four touching: law 1 fails."""
    _mjx_or_skip()
    result, laws = _run(pytester, SLOPE, "mjx", ini={"physlaw_route_nconmax": "1"}, steps=30)
    assert "model-route-runs" in _failed(laws, "mjx"), result.stdout.str()
    assert _check(laws["test_route_runs_the_model:mjx"], "contacts_dropped_overflow_steps")["value"] > 0


@SLOW
@pytest.mark.parametrize("route", ["warp", "mjx"])
def test_a_different_timestep_fails_laws_2_and_3(pytester: pytest.Pytester, route: str) -> None:
    """Trained at twice the model's timestep, the swinging pendulum's one step and its trajectory leave C's."""
    (_warp_or_skip if route == "warp" else _mjx_or_skip)()
    result, laws = _run(pytester, SWING, route, ini={"physlaw_route_timestep": "0.004"})
    assert _failed(laws, route) >= {"model-route-step", "model-route-trajectory"}, result.stdout.str()
    assert "the route steps 0.004 s, the model 0.002 s" in _check(laws[f"test_one_route_step_agrees_with_c:{route}"],
                                                                   "qpos_over_c_spread")["why"]
    result, laws = _run(pytester, SWING, route)
    assert not _failed(laws, route), result.stdout.str()


@SLOW
@pytest.mark.parametrize("route", ["warp", "mjx"])
def test_an_iteration_cap_of_one_fails_laws_4_and_5(pytester: pytest.Pytester, route: str) -> None:
    """CG capped at 1 iteration lets the box slide down the slope where C's converged CG holds it (Lesson
    20.2): it no longer settles where C's does, and the cap moves where it settles."""
    (_warp_or_skip if route == "warp" else _mjx_or_skip)()
    result, laws = _run(pytester, SLOPE, route, ini={"physlaw_route_iterations": "1"}, steps=250)
    assert _failed(laws, route) >= {"model-route-settled", "model-route-cap"}, result.stdout.str()
    assert _check(laws[f"test_route_iteration_cap:{route}"], "capped_share")["value"] > 0.3


@SLOW
@pytest.mark.parametrize("route", ["warp", "mjx"])
def test_float32_where_the_model_needs_more_fails_law_2(pytester: pytest.Pytester, route: str) -> None:
    """Pushed into a wall 2 km from the origin, the box's contact force in float32 misses C's by some 60 times
    C's own spread at float32's precision: law 2 fails on either route; MJX in float64 passes."""
    (_warp_or_skip if route == "warp" else _mjx_or_skip)()
    result, laws = _run(pytester, FAR, route)
    assert "model-route-step" in _failed(laws, route), result.stdout.str()
    assert _check(laws[f"test_one_route_step_agrees_with_c:{route}"], "qvel_over_c_spread")["value"] > 20
    if route == "mjx":
        result, laws = _run(pytester, FAR, route, ini={"physlaw_route_precision": "float64"})
        assert not _failed(laws, route), result.stdout.str()


MUSCLE_ARM = """<mujoco><option integrator="{integrator}"/><worldbody><body><joint name="j" axis="0 1 0" range="-1 1"/>
  <geom size="0.1" mass="1"/></body></worldbody><actuator>{actuator}</actuator></mujoco>"""


@pytest.mark.parametrize("integrator, actuator, named", [
    ("implicitfast", '<muscle joint="j"/>', "implicitfast with 1 muscle(s)"),
    ("Euler", '<muscle joint="j"/>', None),
    ("implicitfast", '<position joint="j" kp="10" kv="1"/>', None),
])
def test_mjxs_undifferentiated_muscles_are_named_where_they_apply(integrator, actuator, named) -> None:
    mjx_route = pytest.importorskip("pytest_physlaw.pack.routes.mjx", exc_type=ImportError)
    model = mujoco.MjModel.from_xml_string(MUSCLE_ARM.format(integrator=integrator, actuator=actuator))
    note = mjx_route.muscles_undifferentiated(model)
    assert (note is None) if named is None else (named in note)
