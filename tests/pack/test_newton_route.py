"""The Newton route (`--physlaw-route=newton`, `pytest_physlaw/pack/routes/newton.py`): Newton's SolverMuJoCo on
MuJoCo's CPU backend runs the user's file beside MuJoCo C. Where Newton's model of the file is not the file's
(another tree, other solver options), the route refuses it; where Newton is not installed, its laws skip naming
the packages; on a small model every law passes, and a Newton model whose inertia is put on the wrong axes (the
kind of error of Newton #3017: moments synced into the CPU model without their frame) fails the step law.

The tests that run Newton need newton and mujoco-warp (the repo's `.[newton]` extra) and skip without them.
"""

from __future__ import annotations

import json
import os
import textwrap

import mujoco
import pytest

from pytest_physlaw.pack import routes
from pytest_physlaw.pack.routes import newton as route
from pytest_physlaw.pack.routes import newton_versions
from pytest_physlaw.pack.routes.common import RouteUnsupported

SLOW = pytest.mark.skipif(not os.environ.get("PHYSLAW_SLOW_ROUTES"),
                          reason="runs Newton on a model of its own: PHYSLAW_SLOW_ROUTES=1 runs it")
# A wheel on a vertical hinge, its moments listed largest first, driven by a velocity servo; a pendulum swings
# beside it under a motor (two trees, a hinge of each kind of load).
WHEEL = """<mujoco><option timestep="0.002"/><worldbody>
  <body name="wheel" pos="0 0 0.5"><inertial pos="0 0 0" mass="6" diaginertia="0.13 0.09 0.05"/>
    <joint name="spin" axis="1 0 0" damping="0.01"/><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>
  <body name="bob" pos="1 0 1"><joint name="swing" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5" contype="0" conaffinity="0"/></body>
  </worldbody>
  <actuator><velocity name="servo" joint="spin" kv="2" ctrlrange="-4 4"/>
    <motor joint="swing" gear="2" ctrlrange="-1 1"/></actuator></mujoco>"""
LAWS = ("model-route-runs", "model-route-step", "model-route-trajectory", "model-route-settled", "model-route-cap",
        "model-route-cost", "model-route-readouts", "model-route-rays", "model-route-set-const")
# Newton casts MuJoCo C's own rays: the ray law skips there, saying so.
NOT_NEWTONS = {"model-route-rays[cpu]": "casts MuJoCo C's own rays"}


def _newton_or_skip() -> None:
    reason = routes.unavailable("newton")
    if reason:
        pytest.skip(reason)


def _run(pytester: pytest.Pytester, xml: str, conftest: str = "", ini: str = "",
         keyword: str = "route") -> tuple[pytest.RunResult, dict]:
    """The route laws alone on one model on Newton, in a process of its own; (the result, records by law)."""
    (pytester.path / "robot.xml").write_text(xml)
    pytester.makeini(f"[pytest]\nphyslaw_model_steps = 100\n{ini}\n")
    if conftest:
        pytester.makeconftest(conftest)
    result = pytester.runpytest_subprocess("--physlaw-model=robot.xml", "--physlaw-models-only", "-k", keyword,
                                           "--physlaw-route=newton", "-p", "no:cacheprovider", "-rs")
    path = pytester.path / ".physlaw" / "report.json"
    laws = json.loads(path.read_text())["laws"] if path.exists() else []
    return result, {r["law"]: r for r in laws}


def _check(record: dict, quantity: str) -> dict:
    return next(c for c in record["checks"] if c["quantity"] == quantity)


# ------------------------------------------------------------------------------------ without Newton, refusals


def test_newton_is_a_route_and_its_absence_names_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    """`newton` is a route; where newton or mujoco-warp is missing, the reason names each and what is found."""
    from pytest_physlaw import options

    assert "newton" in options.ROUTES
    monkeypatch.setattr(newton_versions, "_version", lambda name: None if name in ("newton", "mujoco-warp") else "9.9")
    reason = routes.unavailable("newton")
    assert reason is not None and "needs newton and mujoco-warp" in reason and "warp-lang 9.9" in reason


def _compiled(xml: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(xml)


def test_another_structure_or_options_is_a_refusal_naming_it() -> None:
    """Newton's MuJoCo model of the file must be the file's: the same tree and joints (named by path), the same
    solver options; else the route refuses naming what differs."""
    ours = _compiled(WHEEL)
    route.check_structure(ours, _compiled(WHEEL.replace('name="wheel"', 'name="robot_worldbody_wheel"')), "1.0")
    cases = {
        WHEEL.replace("<option ", '<option integrator="RK4" '): "integrator 1 (the file: 0)",
        WHEEL.replace('name="bob"', 'name="ball"'): "puts body 'ball' where the file has 'bob'",
        WHEEL.replace('<joint name="swing" axis="0 1 0"/>', '<joint name="swing" type="slide" axis="0 1 0"/>'):
            "other joint types",
        WHEEL.replace('<motor joint="swing" gear="2" ctrlrange="-1 1"/>', ""): "nu 1 (the file: 2)",
    }
    for theirs, message in cases.items():
        with pytest.raises(RouteUnsupported, match=message.replace("(", r"\(").replace(")", r"\)")):
            route.check_structure(ours, _compiled(theirs), "1.0")


# ------------------------------------------------------------------------------------ the route runs and can fail


PERMUTE = textwrap.dedent("""
    import numpy as np
    from pytest_physlaw.pack.routes import newton as route

    built = route.build

    def build(mjm, source):
        # the moments of each body rolled onto other axes, its frame kept: Newton #3017's kind of error
        model, solver, newton = built(mjm, source)
        solver.mj_model.body_inertia[:] = np.roll(solver.mj_model.body_inertia, 1, axis=1)
        return model, solver, newton

    route.build = build
    """)


def test_the_route_runs_a_model_and_a_misplaced_inertia_fails_the_step_law(pytester: pytest.Pytester) -> None:
    """The wheel and the pendulum on Newton: all eight laws that judge Newton pass (ids end with [cpu]; set_const's:
    masses and inertia scaled in Newton's model, notified, synced), the ray law skips naming why; the same run with the wheel's moments rolled onto other axes in Newton's CPU model (its frame
    kept) fails one step and the trajectory."""
    _newton_or_skip()
    result, laws = _run(pytester, WHEEL)
    assert set(laws) == {f"{law}[cpu]" for law in LAWS}, result.stdout.str()
    for law, why in NOT_NEWTONS.items():
        assert laws.pop(law)["outcome"] == "skipped" and why in result.stdout.str(), result.stdout.str()
    assert all(r["outcome"] == "passed" for r in laws.values()), result.stdout.str()
    assert _check(laws["model-route-step[cpu]"], "qvel_over_c_spread")["value"] < 1

    result, laws = _run(pytester, WHEEL, PERMUTE)
    failed = {law for law, r in laws.items() if r["outcome"] == "failed"}
    assert {"model-route-step[cpu]", "model-route-trajectory[cpu]"} <= failed, result.stdout.str()
    assert _check(laws["model-route-step[cpu]"], "qvel_over_c_spread")["value"] > 100


UNSYNCED = textwrap.dedent("""
    from pytest_physlaw.pack.routes import newton as route

    built = route.build

    def build(mjm, source):
        # Newton's model edited, its MuJoCo model never told: a sync that drops the new masses and inertias
        model, solver, newton = built(mjm, source)
        solver._update_model_inertial_properties = lambda *args, **kwargs: None
        return model, solver, newton

    route.build = build
    """)


def test_masses_edited_in_newtons_model_but_not_synced_fail_the_set_const_law(pytester: pytest.Pytester) -> None:
    """Newton's masses and inertias scaled and notified: its MuJoCo model's constants are C's of the same edit; where
    the sync drops them, the constants stay those of the file and the law fails."""
    _newton_or_skip()
    result, laws = _run(pytester, WHEEL, keyword="route_set_const")
    assert laws["model-route-set-const[cpu]"]["outcome"] == "passed", result.stdout.str()
    result, laws = _run(pytester, WHEEL, UNSYNCED, keyword="route_set_const")
    record = laws["model-route-set-const[cpu]"]
    assert record["outcome"] == "failed" and _check(record, "set_const_apart_over_precision")["value"] > 100, record


@SLOW
def test_float64_and_another_timestep_on_newton(pytester: pytest.Pytester) -> None:
    """Newton keeps its state in float32: float64 skips every law naming it. At twice the model's timestep the
    swinging pendulum's step and trajectory leave C's."""
    _newton_or_skip()
    result, laws = _run(pytester, WHEEL, ini="physlaw_route_precision = float64")
    skips = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    count = lambda line: int(line.split("[", 1)[1].split("]", 1)[0])  # noqa: E731  (-rs folds one place's: "[2]")
    float32 = sum(count(s) for s in skips if "float32 between SolverMuJoCo's steps" in s)
    others = [s for s in skips if "float32 between SolverMuJoCo's steps" not in s]
    assert float32 == len(LAWS) - len(NOT_NEWTONS), skips  # the laws that run Newton; the other says its own why
    assert all(any(why in s for why in NOT_NEWTONS.values()) for s in others), skips
    result, laws = _run(pytester, WHEEL, ini="physlaw_route_timestep = 0.004")
    failed = {law for law, r in laws.items() if r["outcome"] == "failed"}
    assert {"model-route-step[cpu]", "model-route-trajectory[cpu]"} <= failed, result.stdout.str()
