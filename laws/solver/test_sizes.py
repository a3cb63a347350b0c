"""Sizes of the solver scenes: what the solver is asked to solve.
Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", parts 1 and 4; MuJoCo's documentation, "Computation", "Contact" (pyramidal cones).

A tower of 10 boxes on a floor and heaps of 50 and 200 boxes in a bin, every box on a free joint.
Physical laws (any MuJoCo): a free body has 6 dofs; two boxes resting face to face touch at their
4 corners; a pyramidal friction cone of a 3-dimensional contact has 4 edges, so 4 constraint
rows; a box at rest is carried by at least 3 contact points, and every box stays in the bin.
Reference laws (MuJoCo 3.14.0): the sizes Lesson 20.2 printed, exactly: tower nv 60, ncon 40,
nefc 160, one island; heap of 50 nv 300, nefc 1176; heap of 200 nv 1200, nefc 4300. The lesson
read the heap sizes after its 300 timed steps from the settled heap (t = 2.1 s).

Measured:
At 1.5 s the heap sizes are 1116 and 4192 (MuJoCo 3.14.0 and 4.0.0:
`pytest laws/solver/test_sizes.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fixtures.settled import SettledState
from fixtures.solver.scenes import HALF_SIDE, WALL_HALF_THICKNESS as HALF_SIDE_WALL, heap_bin_reach
from laws.solver.lesson import require_lesson_mujoco

ROWS_PER_PYRAMIDAL_CONTACT = 4  # 2 (condim - 1) edges of the cone, condim 3
SOURCE = "Lesson 20.2, part 1 and 4"


@pytest.mark.law("tower-sizes", source=SOURCE)
def test_tower_of_ten_is_sixty_dofs_forty_contacts_one_island(law, settled_tower: SettledState) -> None:
    """The settled tower: 6 dofs a box, 4 corner contacts per face pair, 4 rows a contact, one island."""
    model = settled_tower.model()
    n = model.nbody - 1
    law.check("nv", model.nv, near=6 * n, abs=0, why="a free joint has 6 dofs")
    law.check("ncon", settled_tower.ncon, near=4 * n, abs=0,
              why="n face pairs (box on box, bottom box on floor), each touching at its 4 corners")
    law.check("nefc_per_contact", settled_tower.nefc / max(settled_tower.ncon, 1), near=ROWS_PER_PYRAMIDAL_CONTACT,
              abs=0, why="a pyramidal cone of a condim-3 contact has 4 edges, one row each")
    law.check("nisland", settled_tower.nisland, near=1, abs=0, why="every box touches the next: one island")


@pytest.mark.law("heap-sizes", source=SOURCE)
@pytest.mark.parametrize("name", ["heap50", "heap200"])
def test_settled_heap_rests_on_three_contacts_a_box(law, heaps_as_read: dict[str, SettledState], name: str) -> None:
    """A settled heap: 6 dofs a box, 4 rows a contact, and at least 3 support contacts a box."""
    state = heaps_as_read[name]
    model = state.model()
    n = model.nbody - 1
    law.check("nv", model.nv, near=6 * n, abs=0, why="a free joint has 6 dofs")
    law.check("nefc_per_contact", state.nefc / max(state.ncon, 1), near=ROWS_PER_PYRAMIDAL_CONTACT, abs=0,
              why="a pyramidal cone of a condim-3 contact has 4 edges, one row each")
    law.check("contacts_per_box", state.ncon / n, ge=3.0,
              why="a resting box needs >= 3 support points; measured 5.9 (50 boxes) and 5.4 (200) on 3.14.0")
    centres = np.array(state.qpos).reshape(n, 7)[:, :3]
    inner = heap_bin_reach(n) - HALF_SIDE_WALL
    law.check("box_offcentre_m", np.abs(centres[:, :2]), le=inner, unit="m",
              why="the walls keep every box inside the bin (inner face of the walls)")
    law.check("box_height_m", centres[:, 2], ge=HALF_SIDE - 0.002, unit="m",
              why="no box sinks through the floor: centre at least a half side up, less 2 mm of soft penetration")


@pytest.mark.law("tower-sizes-lesson", source=SOURCE)
def test_tower_sizes_are_the_lessons(law, settled_tower: SettledState, lesson_20_2: dict[str, Any]) -> None:
    """Reference: the settled tower has the lesson's nv 60, ncon 40, nefc 160 and one island."""
    require_lesson_mujoco("tower sizes")
    ref = lesson_20_2["sizes"]["tower"]
    for quantity, value in (("nv", settled_tower.model().nv), ("ncon", settled_tower.ncon),
                            ("nefc", settled_tower.nefc), ("nisland", settled_tower.nisland)):
        law.check(quantity, value, near=ref[quantity], abs=0, why="Lesson 20.2, MuJoCo 3.14.0: sizes are exact")


@pytest.mark.law("heap-sizes-lesson", source=SOURCE)
@pytest.mark.parametrize("name", ["heap50", "heap200"])
def test_heap_sizes_are_the_lessons(law, heaps_as_read: dict[str, SettledState], name: str,
                                    lesson_20_2: dict[str, Any]) -> None:
    """Reference: the heaps of 50 and 200 have the lesson's nv and nefc (300/1176, 1200/4300)."""
    require_lesson_mujoco(f"{name} sizes")
    ref = lesson_20_2["sizes"][name]
    state = heaps_as_read[name]
    law.check("nv", state.model().nv, near=ref["nv"], abs=0, why="Lesson 20.2, MuJoCo 3.14.0: sizes are exact")
    law.check("nefc", state.nefc, near=ref["nefc"], abs=0,
              why="Lesson 20.2, MuJoCo 3.14.0, read after 1.5 s + 300 steps: sizes are exact")
