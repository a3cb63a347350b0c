"""One route law run on one scene inside pytester, its route an adapter of the test's (MuJoCo C behind the adapter
interface, a fault injected or not): the record of that law from the run's JSON report."""

from __future__ import annotations

import json
import types

import pytest

from pytest_physlaw.pack import routes


def route_law_record(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, adapter: types.SimpleNamespace,
                     scene: str, keyword: str, law_id: str, steps: int, route: str = "warp") -> dict:
    """Run the pack's laws matching `keyword` on `scene` with `adapter` standing in for `route`; the one record, whose
    law must be `law_id` on the CPU."""
    (pytester.path / "scene.xml").write_text(scene)
    pytester.makeini(f"[pytest]\nphyslaw_model_steps = {steps}\n")
    monkeypatch.setattr(routes, "unavailable", lambda name: None)
    monkeypatch.setattr(routes, "adapter", lambda name: adapter)
    pytester.runpytest_inprocess("--physlaw-model=scene.xml", "--physlaw-models-only", f"--physlaw-route={route}", "-k",
                                 keyword, "-p", "no:cacheprovider")
    (record,) = json.loads((pytester.path / ".physlaw" / "report.json").read_text())["laws"]
    assert record["law"] == f"{law_id}[cpu]", record
    return record
