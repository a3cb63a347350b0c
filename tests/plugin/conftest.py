"""Helpers of the plugin's own tests: the law state of an in-process pytester run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_physlaw.session import LawSession, law_session


@pytest.fixture
def law_state() -> Callable[[pytest.RunResult], LawSession]:
    """The LawSession of an in-process `pytester.runpytest` result (serial or xdist controller)."""
    def state(result: pytest.RunResult) -> LawSession:
        return law_session(result.reprec.getcall("pytest_sessionfinish").session.config)
    return state
