"""One law's record from the JSON report of a `--physlaw-model` run inside pytester: what the pack's law tests read."""

from __future__ import annotations

import json

import pytest


def law_record(pytester: pytest.Pytester, model: str, keyword: str, law_id: str) -> dict:
    """Run the pack on `model` with `-k keyword` and return the report's one record of `law_id`."""
    pytester.runpytest_inprocess(f"--physlaw-model={model}", "-p", "no:cacheprovider", "-k", keyword)
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == law_id]
    return record
