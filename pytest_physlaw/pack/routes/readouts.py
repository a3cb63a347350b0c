"""The route's readouts are what its step applied: the actuator forces a route reports after its last step
(`actuator_force`) are each actuator's force law at the state that step started from, under that step's controls,
as MuJoCo C computes it there (the force law of `pytest_physlaw.pack.readouts.actuation`, which judges C's own).
Source: MuJoCo's documentation ("Computation": actuation model); MJX 3.2.0-3.2.3 never wrote `actuator_force`
(it read zero whatever the actuators pushed: the regression corpus's case mjx-2068).

The second computation: MuJoCo C's `mj_forward` at the route's own state before its last step (qpos, qvel as the
route gives them back) and the last step's controls. Actuators with an activation are left out (the route gives
back no activation), and so is a route that keeps no actuator force of its own (MJX 3.1: C's stands in). The
route's `qfrc_constraint` is not judged here: the route gives back no constraint rows to sum. Bound: the route's
precision (`RouteSetup.eps`: float32 1e-6, float64 1e-12) times `reference.ENVELOPE`, a share of the force law's
terms (|gain * ctrl| + |bias|).

Measured:
`pytest --physlaw-model=MODEL.xml --physlaw-route=mjx -k readouts -s`; see docs/second-computations.md ("Readouts").
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.readouts import actuation
from pytest_physlaw.pack.routes import ran, reference, route_law
from pytest_physlaw.pack.routes.common import RouteRun, World

SOURCE = "MuJoCo documentation, Computation (actuation model); MJX 3.2.0-3.2.3 actuator_force (regressions: mjx-2068)"


def stateless(model: mujoco.MjModel) -> np.ndarray:
    """The actuators whose force law the route's state decides (no activation), of those C's law recomputes."""
    return np.array([a for a in actuation.judged(model).tolist() if int(model.actuator_actadr[a]) < 0], dtype=int)


def force_errors(model: mujoco.MjModel, run: RouteRun, worlds: list[World], actuators: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """((nworld, len(actuators)) |route actuator_force - C's force law at the route's state before its last step|,
    the law's terms' size there)."""
    data = mujoco.MjData(model)
    errors, sizes = [], []
    for w, world in enumerate(worlds):
        data.qpos[:], data.qvel[:], data.ctrl[:] = run.qpos[w, -2], run.qvel[w, -2], world.ctrl[-1]
        mujoco.mj_forward(model, data)
        want, size = actuation.force_law(model, data, actuators)
        want[actuation.group_disabled(model)] = 0.0
        got = np.asarray(run.actuator_force[w], dtype=float)
        errors.append(np.where(np.isfinite(got[actuators]), np.abs(got[actuators] - want[actuators]), np.inf))
        sizes.append(size[actuators])
    return np.array(errors), np.array(sizes)


@route_law("model-route-readouts", source=SOURCE)
def test_route_actuator_force_is_the_force_law(law, pack_model: Any, route_case, route_run, route_reference) -> None:
    """The actuator forces the route reports after its last step are, for each actuator without activation, its
    force law at the route's own state before that step under that step's controls (MuJoCo C's `mj_forward`
    there), to the route's precision times `reference.ENVELOPE` of the law's terms."""
    run, model = ran(route_run, route_case), pack_model.model
    if actuation.actuation_off(model):
        pytest.skip(f"{route_case.route}: no actuator, or actuation disabled")
    if not run.own_actuator_force:
        pytest.skip(f"{route_case.route} {run.versions}: the route keeps no actuator force of its own (MuJoCo C's "
                    "stands in): nothing of the route's to judge")
    actuators = stateless(model)
    if not actuators.size:
        pytest.skip(f"{route_case.route}: every actuator has an activation (the route gives back none) or a force "
                    "law not recomputed here")
    errors, sizes = force_errors(model, run, route_reference.worlds, actuators)
    scale = float(np.max(sizes)) if sizes.size else 0.0
    if scale == 0:
        pytest.skip(f"{route_case.route}: no actuator force at the last step of any world")
    bound = reference.ENVELOPE * route_case.setup.eps
    w, i = np.unravel_index(int(np.argmax(errors)), errors.shape)
    a = int(actuators[i])
    law.check("actuator_force_error", float(errors[w, i]) / scale, le=bound, drift_abs=bound,
              why=f"|route actuator_force - C's force law at the route's state before its last step|, a share of the "
                  f"law's terms ({scale:.3g}); worst {model.actuator(a).name or a!r} in world {route_case.route}:{w} "
                  f"(route {float(run.actuator_force[w, a]):.6g}); {route_case.setup.describe()}; failing, the route "
                  "reports another actuator force than its step applied (MJX 3.2.0-3.2.3 never wrote it): a defect of "
                  "the route")
