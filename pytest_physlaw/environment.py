"""The `pytest_physlaw_environment` hook's answers, checked one implementation at a time.

Each implementation's dict joins the report's `environment`; one that raises, returns something
other than a dict of JSON values, or puts a non-finite number in it is a session problem naming the
plugin it came from, never a traceback at the end of a green run.
"""

from __future__ import annotations

import math
from typing import Any

import pytest


def gather(config: pytest.Config, state: Any) -> None:
    """Each `pytest_physlaw_environment` implementation's entries; a bad one is a problem naming it."""
    for impl in config.pluginmanager.hook.pytest_physlaw_environment.get_hookimpls():
        where = f"pytest_physlaw_environment of {impl.plugin_name}"
        try:
            extra = impl.function(config=config)
        except Exception as exc:  # a suite's hook must not end the run in a traceback
            state.problems.append(f"{where} raised {type(exc).__name__}: {exc}")
            continue
        if extra is None:
            continue
        if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
            state.problems.append(f"{where} returned {type(extra).__name__}, not a dict of str keys")
            continue
        for key, value in extra.items():
            problem = json_problem(value)
            if problem:
                state.problems.append(f"{where}: entry {key!r} {problem}")
            else:
                state.environment.setdefault(key, value)


def json_problem(value: Any) -> str | None:
    """Why `value` cannot stand in the JSON report as it is, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"is {value}, not a finite number"
    if isinstance(value, (list, tuple)):
        return next((p for p in map(json_problem, value) if p), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return "has keys that are not strings"
        return next((p for p in map(json_problem, value.values()) if p), None)
    if value is None or isinstance(value, (str, int, float)):
        return None
    return f"is {type(value).__name__}, not JSON (str, number, bool, None, list or dict)"
