"""Fixtures of the solver laws only: the lesson's reference figures."""

from __future__ import annotations

from typing import Any

import pytest

from laws.solver.lesson import lesson_figures


@pytest.fixture(scope="session")
def lesson_20_2() -> dict[str, Any]:
    """Lesson 20.2's printed figures (MuJoCo 3.14.0), as kept in laws/solver/lesson_20_2.json."""
    return lesson_figures()
