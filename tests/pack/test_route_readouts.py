"""The route readout law (`pytest_physlaw.pack.routes.readouts`, model-route-readouts): a route whose actuator forces
are its step's passes, and one that never writes them (MJX 3.2.0-3.2.3, regressions case mjx-2068) or reports
another servo's fails. The route here is MuJoCo C itself behind the adapter interface (no warp, no jax: cheap); the
real routes run it with PHYSLAW_SLOW_ROUTES=1 (tests/pack/test_routes.py, test_newton_route.py, and below)."""

from __future__ import annotations

import json
import os
import types

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import routes
from tests.pack.route_law_run import route_law_record
from pytest_physlaw.pack.routes.common import RouteRun

SLOW = pytest.mark.skipif(not os.environ.get("PHYSLAW_SLOW_ROUTES"),
                          reason="compiles a route for a model of its own: PHYSLAW_SLOW_ROUTES=1 runs it")
# A motor-driven pendulum, a position servo with a force range and a velocity servo, beside a box on the floor.
ARM = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="2 2 0.1"/>
  <body name="box" pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  <body name="bob" pos="0 0 1"><joint name="swing" type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
    <body pos="0.3 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.3"/></body></body>
  <body name="wheel" pos="1 0 1"><joint name="spin" type="hinge" axis="1 0 0"/>
    <geom type="cylinder" size="0.1 0.02" mass="1" contype="0" conaffinity="0"/></body></worldbody>
  <actuator><motor joint="swing" gear="2" ctrlrange="-1 1"/>
    <position name="elbow_servo" joint="elbow" kp="20" kv="1" forcerange="-3 3" ctrlrange="-1 1"/>
    <velocity joint="spin" kv="2" ctrlrange="-4 4"/></actuator></mujoco>"""


def c_route(change=None) -> types.SimpleNamespace:
    """An adapter that steps MuJoCo C: `run` gives back its states and its last step's actuator forces, passed
    through `change` (a fault)."""
    def run(model, worlds, setup, **_):
        n, steps = len(worlds), worlds[0].ctrl.shape[0]
        qpos, qvel = np.zeros((n, steps + 1, model.nq)), np.zeros((n, steps + 1, model.nv))
        xipos, xquat = np.zeros((n, steps + 1, model.nbody, 3)), np.zeros((n, steps + 1, model.nbody, 4))
        force, qfrc = np.zeros((n, model.nu)), np.zeros((n, model.nv))
        for w, world in enumerate(worlds):
            data = mujoco.MjData(model)
            data.qpos[:], data.qvel[:], data.act[:] = world.qpos, world.qvel, world.act
            mujoco.mj_forward(model, data)
            qpos[w, 0], qvel[w, 0], xipos[w, 0], xquat[w, 0] = data.qpos, data.qvel, data.xipos, data.xquat
            for i in range(steps):
                data.ctrl[:] = world.ctrl[i]
                mujoco.mj_step(model, data)
                qpos[w, i + 1], qvel[w, i + 1], xipos[w, i + 1], xquat[w, i + 1] = data.qpos, data.qvel, data.xipos, data.xquat
            force[w], qfrc[w] = data.actuator_force, data.qfrc_constraint
        if change is not None:
            change(model, force)
        zeros = np.zeros((n, steps), dtype=int)
        return RouteRun(route="warp", device="cpu", versions={"c": mujoco.__version__}, precision="float32",
                        timestep=float(model.opt.timestep), cap=int(model.opt.iterations), qpos=qpos, qvel=qvel,
                        xipos=xipos, xquat=xquat, qfrc_constraint=qfrc, actuator_force=force, niter=zeros,
                        capped=zeros.astype(bool), overflow={}, contacts_max=0, rows_max=0,
                        capacity={"contacts": None, "rows": None}, compile_seconds=0.0, step_seconds=0.0)
    return types.SimpleNamespace(run=run, device_kind=lambda: "cpu", versions=lambda: {"c": mujoco.__version__})


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, adapter) -> dict:
    return route_law_record(pytester, monkeypatch, adapter, ARM, "route_actuator_force", "model-route-readouts", 200)


def test_a_route_reporting_its_steps_forces_passes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _run(pytester, monkeypatch, c_route())
    assert record["outcome"] == "passed", record
    assert record["checks"][0]["value"] < 1e-12, record


def _never_written(model, force):  # MJX 3.2.0-3.2.3
    force[:] = 0


def _servo_unclamped(model, force):  # the position servo's force range left out: 1 % past it
    a = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, "elbow_servo")
    force[:, a] *= 1.01


@pytest.mark.parametrize("fault", [_never_written, _servo_unclamped], ids=["never-written", "servo-off"])
def test_a_route_reporting_other_forces_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault) -> None:
    record = _run(pytester, monkeypatch, c_route(fault))
    assert record["outcome"] == "failed", record
    assert not record["checks"][0]["passed"], record


@SLOW
@pytest.mark.parametrize("route", ["mjx", "warp"])
def test_each_route_reports_the_forces_it_applied(pytester: pytest.Pytester, route: str) -> None:
    """The real route on this machine (CPU): its actuator forces are its last step's force law to its precision."""
    reason = routes.unavailable(route)
    if reason:
        pytest.skip(reason)
    (pytester.path / "robot.xml").write_text(ARM)
    pytester.makeini("[pytest]\nphyslaw_model_steps = 100\n")
    pytester.runpytest_subprocess("--physlaw-model=robot.xml", "--physlaw-models-only", f"--physlaw-route={route}",
                                  "-k", "route_actuator_force", "-p", "no:cacheprovider")
    (record,) = json.loads((pytester.path / ".physlaw" / "report.json").read_text())["laws"]
    assert record["outcome"] == "passed", record
