"""The model law pack: generic laws run over the user's own MJCF models (`--physlaw-model PATH`).

Registered by the plugin's `pytest_configure` only when a model is given, so that the plugin itself
imports no MuJoCo. Each model file becomes a collector of its own (its nodeid is the file's path
relative to the rootdir), holding the laws of `pytest_physlaw.pack.laws`; every case id starts with
that path, so that two models never share a law identity.

A file given by name that MuJoCo cannot compile, or that has no movable body, is a collection error;
one found in a folder (`pytest_physlaw.model_files`) is no model on its own (a robot its scene includes,
an asset list): it is a skipped collector whose reason the per-model summary lists.

A model that lets its trees sleep (`<flag sleep="enable"/>`, MuJoCo 3.4 on) is measured awake: sleep stops
simulating a tree at rest, so its contacts would carry no weight and its solves need no iteration, and inverse
dynamics would weigh dofs forward dynamics skipped. The physics the laws ask about is the awake model's; sleep
changes which bodies are computed, not how they move while they are. One law runs it as written
(`twofold.sleep_contacts`): a sleeping tree must keep its contacts with what moves into it.

A finding the user accepted for a model and law (ini `physlaw_model_accept`, `settings.py`) marks
that law's tests on that model as a non-strict xfail that only a law violation satisfies: it still
runs, is reported with the user's reason and is gated like any law.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import mujoco
import pytest

from pytest_physlaw.check import LawViolation
from pytest_physlaw import mujoco_versions
from pytest_physlaw.model_files import ModelPaths
from pytest_physlaw.pack import measure, runs, settings

MAX_BODIES = 30  # bodies checked per model, in body order; the rest are one skipped case that says so


class ModelFile(pytest.Module):
    """One MJCF model: compiled at collection; its laws are the pack module's test functions."""

    model: mujoco.MjModel
    rel: str
    settings: settings.PackSettings
    bodies: list[tuple[int, str]]  # (id, name) of the bodies checked
    skipped_bodies: int
    named: bool  # given by name (its failure to compile is an error), not found in a folder
    left_out: str | None = None  # why a file found in a folder is no model
    sleeps: bool = False  # the model as written lets its trees sleep (`model` is its awake copy)

    def _getobj(self) -> ModuleType:
        return importlib.import_module("pytest_physlaw.pack.laws")

    def collect(self) -> Any:
        try:
            self.model = mujoco.MjModel.from_xml_path(str(self.path))
        except Exception as exc:  # MuJoCo's ValueError carries the compiler's message
            self._refuse(f"MuJoCo {mujoco.__version__} cannot compile this {'model' if self.named else 'file on its own'}: "
                         + (str(exc) if self.named else _one_line(exc)))
        if mujoco_versions.sleeping(self.model):  # measured awake: see the module docstring
            self.model, self.sleeps = mujoco_versions.awake(self.model), True
        movable = [(b, self.model.body(b).name or f"body{b}") for b in measure.movable_bodies(self.model)]
        if not movable:
            self._refuse("the model has no movable body (no body with a degree of freedom): the pack's laws have "
                         "nothing to measure")
        try:
            runs.keyframe_id(self.model, self.settings.keyframe)
        except ValueError as exc:
            raise self.CollectError(f"{self.rel}: {exc}") from None
        self.bodies, self.skipped_bodies = movable[:MAX_BODIES], max(0, len(movable) - MAX_BODIES)
        items = list(super().collect())
        for item in items:
            self._accept(item)
        return items

    def _refuse(self, why: str) -> None:
        """A named file is a collection error; a file found in a folder is left out (a skipped collector)."""
        if self.named:
            raise self.CollectError(f"{self.rel}: {why}")
        self.left_out = why
        raise pytest.skip.Exception(why)

    def _accept(self, item: Any) -> None:
        marker = item.get_closest_marker("law") if isinstance(item, pytest.Item) else None
        law_id = marker.args[0] if marker and marker.args else None
        accepted = self.settings.accepted_for(self.rel, law_id) if law_id else None
        if accepted is not None:
            item.add_marker(pytest.mark.xfail(reason=f"accepted finding (ini physlaw_model_accept): {accepted.reason}",
                                              raises=LawViolation, strict=False))


def _one_line(exc: Exception) -> str:
    """MuJoCo's message on one line (its "Element ..., line ..." context joined on)."""
    return " ".join(str(exc).split())


class ModelPack:
    """Plugin object: adds the models to the run's arguments and collects each as a `ModelFile`."""

    def __init__(self, config: pytest.Config, paths: ModelPaths) -> None:
        self.models = {p.resolve(): p for p in paths.files}
        self.named = {p.resolve() for p in paths.named}
        self.settings = settings.read(config)
        known = law_ids()
        for accepted in self.settings.accepted:
            if accepted.law not in known:
                raise pytest.UsageError(f"ini physlaw_model_accept: {accepted.model} {accepted.law}: the pack has no "
                                        f"law {accepted.law!r} (its laws: {', '.join(sorted(known))})")
        from pytest_physlaw.pack.routes import RoutePlugin  # the route laws (--physlaw-route); imports no route

        config.pluginmanager.register(RoutePlugin(config), f"physlaw-routes-{id(config)}")
        here = Path(config.invocation_params.dir)
        given = {(here / str(a).partition("::")[0]).resolve() for a in config.args}
        config.args.extend(str(p) for p in self.models if p not in given)  # xdist workers get them already

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> ModelFile | None:
        if file_path.resolve() not in self.models:
            return None
        rel = Path(os.path.relpath(file_path, parent.config.rootpath)).as_posix()
        # The session, not the folder, is its parent: a folder that is a Python package (gymnasium's
        # assets) would import its __init__ for package setup, which a model file has no use for.
        node = ModelFile.from_parent(parent.session, path=file_path, nodeid=rel)
        node.rel = rel
        node.settings = self.settings
        node.named = file_path.resolve() in self.named
        return node

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        """A left-out file's skip names the file, not the line of this module that skipped it."""
        rep = yield
        why = getattr(collector, "left_out", None) if isinstance(collector, ModelFile) else None
        if why is not None and rep.skipped:
            rep.longrepr = (str(collector.path), None, f"not a model: {why}")
        return rep


def law_ids() -> set[str]:
    """The law ids of the pack's tests."""
    module = importlib.import_module("pytest_physlaw.pack.laws")
    marks = (getattr(getattr(module, name), "pytestmark", []) for name in dir(module) if name.startswith("test_"))
    from pytest_physlaw.pack.routes import law_ids as route_law_ids

    return {m.args[0] for ms in marks for m in ms if m.name == "law" and m.args} | route_law_ids()
