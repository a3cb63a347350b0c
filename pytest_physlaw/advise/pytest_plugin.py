"""`pytest --physlaw-model=X --physlaw-advise=FILE.json`: advise in CI. One test per model file, `<path>::advise`,
that fails when the model's own settings are outside the tolerance (it names the quantities), and the advice of
every model written to FILE.json at the end of the session (the shape of `pytest-physlaw advise --json`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw.advise import distance, report
from pytest_physlaw.model_files import ModelPaths


class AdvisePlugin:
    def __init__(self, config: pytest.Config, paths: ModelPaths) -> None:
        self.models = {p.resolve() for p in paths.files}
        self.output = Path(config.getoption("physlaw_advise"))
        try:
            self.tolerance = distance.Tolerance.parse(config.getoption("physlaw_advise_tol"))
        except ValueError as exc:
            raise pytest.UsageError(f"--physlaw-advise-tol: {exc}") from None
        self.entries: list[dict[str, Any]] = []

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if file_path.resolve() not in self.models:
            return None
        rel = Path(os.path.relpath(file_path, parent.config.rootpath)).as_posix()
        node = AdviseFile.from_parent(parent.session, path=file_path, nodeid=f"{rel}[advise]")
        node.plugin = self
        return node

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.entries:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            self.output.write_text(json.dumps({"schema_version": report.SCHEMA_VERSION, "models": self.entries},
                                              indent=1))


class AdviseFile(pytest.File):
    plugin: AdvisePlugin

    def collect(self) -> Any:
        yield AdviseItem.from_parent(self, name="advise")


class AdviseItem(pytest.Item):
    def runtest(self) -> None:
        from pytest_physlaw.advise.advice import advise

        plugin = self.parent.plugin
        advice = advise(self.path, plugin.tolerance)
        plugin.entries.append(report.to_json(advice))
        self.user_properties.append(("advice", report.text(advice)))
        if not advice.own_within:
            raise AdviceFinding(report.text(advice))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, AdviceFinding):
            return f"the model's own settings change the physics:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.path.name}: advise"


class AdviceFinding(Exception):
    """The model's own settings are outside the tolerance."""
