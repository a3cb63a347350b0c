"""The figures Lesson 20.2 printed with MuJoCo 3.14.0, kept beside the laws as data.

`lesson_20_2.json` holds them as the lesson printed them. Reference laws compare this suite's
measurements with them only where the same MuJoCo runs; elsewhere they skip and say why.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import mujoco
import pytest

FIGURES = Path(__file__).with_name("lesson_20_2.json")
LESSON_MUJOCO = "3.14.0"


@cache
def lesson_figures() -> dict[str, Any]:
    """The lesson's figures (sizes, convergence, warmstart, slope, cost), read once."""
    return json.loads(FIGURES.read_text())


def require_lesson_mujoco(what: str) -> None:
    """Skip the calling reference law unless this is the MuJoCo the lesson measured with."""
    if mujoco.__version__ != LESSON_MUJOCO:
        pytest.skip(f"{what}: measured with MuJoCo {LESSON_MUJOCO}, this is {mujoco.__version__}")
