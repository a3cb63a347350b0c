"""The pack's fixtures and parametrization: one model file's collector, its settings and its runs.

Every law module of the pack (`solver`, `proxies`, `energy`, `rest`, `actuators`, `stepping`) reads
its model through these; `laws.py` gathers them into the module each model file collects.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.model_summary import COVERAGE_PROPERTY
from pytest_physlaw.pack import measure, options, reaching, roundoff, runs
from pytest_physlaw.pack.settings import PackSettings

SEED = 2024  # seeded poses, velocities and controls draw with SEED (+ a body's id where per body)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    node = metafunc.definition.parent
    if "model_case" in metafunc.fixturenames:
        metafunc.parametrize("model_case", [node.rel], ids=[node.rel])
    if "body_case" in metafunc.fixturenames:
        cases = [(b, name) for b, name in node.bodies]
        ids = [f"{node.rel}:{name}" for _, name in cases]
        if node.skipped_bodies:
            cases.append((None, f"{node.skipped_bodies} more"))
            ids.append(f"{node.rel}:+{node.skipped_bodies} bodies")
        metafunc.parametrize("body_case", cases, ids=ids)


@pytest.fixture(scope="module")
def pack_model(request: pytest.FixtureRequest) -> Any:
    """The model's collector: `.model` (compiled), `.rel` (its path), `.bodies`, `.settings`; every law skips, naming
    why, a model whose actuators the pack cannot read (`mujoco_versions.multi_output_actuators`: controls that are
    not their force outputs; an actuator with several of each, MuJoCo 3.11's orientation servo, is read per
    control)."""
    unread = mujoco_versions.multi_output_actuators(request.node.model)
    if unread:
        pytest.skip(f"{request.node.rel}: {unread}")
    return request.node


@pytest.fixture(scope="module")
def any_pack_model(request: pytest.FixtureRequest) -> Any:
    """The model's collector, whatever its actuators: for a law that reads each actuator by its own controls and
    outputs (`actuator_ctrladr`, `actuator_outadr`) and runs from the start on its own, not the pack's runs."""
    return request.node


@pytest.fixture(scope="module")
def settings(pack_model: Any) -> PackSettings:
    return pack_model.settings


@pytest.fixture(scope="module")
def horizon(pack_model: Any, settings: PackSettings) -> int:
    """Steps of every run of the model: the shorter of physlaw_model_seconds and physlaw_model_steps."""
    return settings.horizon(pack_model.model.opt.timestep)[0]


@pytest.fixture(scope="module")
def settled(pack_model: Any, settings: PackSettings, horizon: int) -> runs.Run:
    """The model's own run over the horizon, warm and cold iterations per step."""
    return runs.settled(pack_model.model, horizon, settings.keyframe)


@pytest.fixture(scope="module")
def settled_nudged(pack_model: Any, settings: PackSettings, horizon: int) -> runs.Run:
    """The settled run again from a start nudged at round-off's size (`roundoff.NUDGE`), warm iterations only:
    how far round-off alone moves each figure (`roundoff.drift`)."""
    return runs.settled(pack_model.model, horizon, settings.keyframe, cold=False, nudge=roundoff.NUDGE)


@pytest.fixture(scope="module")
def settled_half_step(pack_model: Any, settings: PackSettings, horizon: int) -> runs.Run:
    """The same run at half the model's timestep, twice the steps: the same simulated time."""
    model = pack_model.model
    with options.changed(model, runs.halved(model)):
        return runs.settled(model, 2 * horizon, settings.keyframe, cold=False)


@pytest.fixture(scope="module")
def driven(pack_model: Any, settings: PackSettings, horizon: int) -> runs.Driven:
    """The model under seeded controls inside their ranges (ini physlaw_model_controls = none: the start's
    controls held), its warnings and the states kept at each draw (`runs.driven`)."""
    return runs.driven(pack_model.model, horizon, settings.keyframe, SEED, seeded=settings.controls == "seeded")


@pytest.fixture(scope="module")
def reached(pack_model: Any, settings: PackSettings, horizon: int) -> reaching.Reached:
    """The reaching run over the horizon (`reaching.reaching`): controls held at their ends, unactuated joints and
    tendons pushed to their limits, mocap bodies swept through the nearest part; its kept states, what it covered, why it stopped early."""
    return reaching.reaching(pack_model.model, horizon, settings.keyframe)


@pytest.fixture(scope="module")
def exercised(driven: runs.Driven, reached: reaching.Reached) -> reaching.Exercised:
    """The states the engine laws judge (`reaching.Exercised`): `.states`, a list of forwarded MjData copies, the
    driven run's (the start first) then the reaching run's (at limits, saturated, new contact pairs); `.coverage`,
    what both runs reached (`coverage.Coverage`, `.summary()` as JSON); `.stopped`."""
    return reaching.exercised(driven, reached)


@pytest.fixture(autouse=True)
def record_coverage(request: pytest.FixtureRequest) -> None:
    """A law that reads the exercised states carries what they covered in its report (`user_properties`,
    "physlaw_coverage"), for the per-model summary (`pytest_physlaw.model_summary`), also across xdist."""
    if "exercised" in request.fixturenames:
        run = request.getfixturevalue("exercised")
        summary = run.coverage.summary()
        if run.stopped:
            summary["stopped"] = run.stopped
        if run.swept:
            summary["mocap_swept"] = run.swept
        request.node.user_properties.append((COVERAGE_PROPERTY, summary))


@pytest.fixture(scope="module")
def bodies(pack_model: Any) -> measure.Bodies:
    """The checked bodies' measuring copies of the model, which are held and which can translate."""
    return measure.bodies(pack_model.model, [b for b, _ in pack_model.bodies])


@pytest.fixture(scope="module")
def linearized(pack_model: Any, settings: PackSettings) -> measure.Linearized:
    """The model linearized at its start (`measure.linearize`): mass, stiffness, damping."""
    return measure.linearize(pack_model.model, settings.keyframe)
