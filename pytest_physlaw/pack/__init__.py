"""The model law pack: generic laws run over the user's own MJCF models (`--physlaw-model PATH`).

Registered by the plugin's `pytest_configure` only when a model is given, so that the plugin itself
imports no MuJoCo. Each model file becomes a collector of its own (its nodeid is the file's path
relative to the rootdir), holding the laws of `pytest_physlaw.pack.laws`; every case id starts with
that path, so that two models never share a law identity.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import mujoco
import pytest

from pytest_physlaw.pack import measure

MAX_BODIES = 30  # bodies checked per model, in body order; the rest are one skipped case that says so


class ModelFile(pytest.Module):
    """One MJCF model: compiled at collection; its laws are the pack module's test functions."""

    model: mujoco.MjModel
    rel: str
    bodies: list[tuple[int, str]]  # (id, name) of the bodies checked
    skipped_bodies: int

    def _getobj(self) -> ModuleType:
        return importlib.import_module("pytest_physlaw.pack.laws")

    def collect(self) -> Any:
        try:
            self.model = mujoco.MjModel.from_xml_path(str(self.path))
        except Exception as exc:  # MuJoCo's ValueError carries the compiler's message
            raise self.CollectError(f"{self.rel}: MuJoCo {mujoco.__version__} cannot compile this model: {exc}") from None
        movable = [(b, self.model.body(b).name or f"body{b}") for b in measure.movable_bodies(self.model)]
        if not movable:
            raise self.CollectError(f"{self.rel}: the model has no movable body (no body with a degree of "
                                    "freedom): the pack's laws have nothing to measure")
        self.bodies, self.skipped_bodies = movable[:MAX_BODIES], max(0, len(movable) - MAX_BODIES)
        return super().collect()


class ModelPack:
    """Plugin object: adds the models to the run's arguments and collects each as a `ModelFile`."""

    def __init__(self, config: pytest.Config, models: list[Path]) -> None:
        self.models = {p.resolve(): p for p in models}
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
        return node
