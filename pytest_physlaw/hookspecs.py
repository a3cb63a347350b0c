"""Hooks pytest-physlaw offers to the suites that use it."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec
def pytest_physlaw_environment(config: pytest.Config) -> dict[str, Any]:
    """Entries for the law report's `environment`, such as the device a GPU route ran on.

    Called at the end of the session in every process (under xdist each worker's answer reaches the
    controller). The dicts of all implementations are merged; an entry never replaces one of the
    plugin's own keys (python, platform, versions, ...).
    """
