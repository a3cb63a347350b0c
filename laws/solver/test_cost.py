"""What a step costs with each solver: PGS is slower than CG on every scene and the slowest on the
small ones, where Newton is the fastest; CG is faster than Newton on the 200-box heap, where PGS and
Newton are a close call; Newton needs a handful of iterations per step where CG and PGS need tens. Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", "Cost as the system grows".

Time is only compared as a ratio of two solvers timed in the same run, in interleaved rounds, the
median over rounds (`fixtures.solver.timing`); no absolute time is a law. Iterations per step do
not depend on the machine, and the lesson's figures for them are reference laws on MuJoCo 3.14.0.

Protocol (`fixtures.solver.step_costs`, the `step_costs` fixture). Tower and 50-box heap: the
lesson's, each solver settles the scene itself (1 s, 1.5 s; cached across runs) and is then timed
over 300 steps, 30 rounds of 10. 200-box heap: a cheaper one, because settling it with PGS alone is
slow: all three solvers step on from the one state Newton settled, 16 rounds of 1 step. On a warm
cache a side process times them while the other laws run. Load makes the slower solver's longer
rounds likelier to be preempted, so it inflates the ratios the laws bound from below: noise moves
these laws away from failing, not towards it. What load cannot move is the CPU: PGS against Newton on
the 200-box heap depends on it (below), so that one check has a floor under 1.

Measured:
On this shared 2-core machine (`pytest -m law laws/solver/test_cost.py -v` prints them), MuJoCo
3.14.0 | 4.0.0 (settling the 200-box heap with PGS alone takes 16 s here):

    time ratio       tower          heap of 50     heap of 200
    PGS / CG         3.7  | 3.3     3.7  | 3.8     3.1  | 2.9
    PGS / Newton     10.4 | 7.4     4.8  | 6.0     1.2-1.3 | 1.5
    CG / Newton      2.7  | 2.4     1.4  | 1.6     0.41 | 0.54

The closest calls are PGS against Newton on the 200-box heap and CG against Newton on the heap of
50. The first is the CPU's: Newton's step there is mostly the factorisation of a 1200-dof Hessian,
which wide vector units speed up, PGS's is a sweep over rows one at a time, which they do not. It
read 1.32-1.39 in 4 repeats of `fixtures.solver.step_costs.measure("heap200", ...)` on an AMD EPYC
of family 26 (AVX-512), and 0.96 in one run on the project's 2-core CI runner;
the lesson printed 1.55. So on that scene the law is that PGS is not clearly faster than Newton. With the other core busy (`python -c "while 1: pass" &`) and other jobs sharing the machine
(load average 5), 28 runs of this module all passed, their lowest ratios 1.23 (PGS / Newton, heap of
200; median 1.41) and 1.17 (CG / Newton, heap of 50; median 1.44); tower PGS / Newton then read 12
to 63. The whole module takes about 2.3 s warm, 7 s cold (settling the heap of 50 with PGS and CG).
"""

from __future__ import annotations

import pytest

from fixtures.solver.options import SOLVERS
from fixtures.solver.step_costs import SCENES
from fixtures.solver.timing import cost_ratio
from laws.solver.lesson import require_lesson_mujoco

SOURCE = "Lesson 20.2, cost as the system grows"
RATIO_WHY = ("the lesson's ordering; median of per-round ratios of interleaved rounds, so machine noise "
             "hits both solvers alike and only a real reversal fails")
# PGS / Newton on the 200-box heap is a close call that the CPU decides (module docstring): a floor
# under 1 there; below it PGS would be clearly the faster, which no machine has shown.
PGS_OVER_NEWTON_FLOOR = {"tower": 1.0, "heap50": 1.0, "heap200": 0.7}
HEAP200_WHY = ("a close call the CPU decides: measured 1.32-1.39 (AMD EPYC family 26, AVX-512), 0.96 (a CI runner), "
               "lesson 1.55; below 0.7 PGS would be clearly faster than Newton")


@pytest.mark.law("pgs-slowest", source=SOURCE)
@pytest.mark.parametrize("scene", SCENES)
def test_pgs_is_the_slowest_solver_on_every_scene(law, step_costs, scene):
    """PGS takes longer per step than CG on the tower and both heaps, and than Newton on the tower
    and the heap of 50; on the 200-box heap it is not clearly faster than Newton (lesson, in ms:
    0.332, 0.079, 0.028; 2.077, 0.501, 0.365; 17.377, 4.471, 11.180)."""
    costs = step_costs(scene)
    law.check("pgs_over_cg_time", cost_ratio(costs, "PGS", "CG"), gt=1.0, drift=None, why=RATIO_WHY)
    law.check("pgs_over_newton_time", cost_ratio(costs, "PGS", "Newton"), gt=PGS_OVER_NEWTON_FLOOR[scene],
              drift=None, why=HEAP200_WHY if scene == "heap200" else RATIO_WHY)


@pytest.mark.law("newton-fastest-small", source=SOURCE)
@pytest.mark.parametrize("scene", ("tower", "heap50"))
def test_newton_is_the_fastest_solver_on_small_scenes(law, step_costs, scene):
    """On the tower (nv 60) and the 50-box heap (nv 300) Newton's step is the cheapest: its few
    iterations cost less than CG's many."""
    costs = step_costs(scene)
    law.check("cg_over_newton_time", cost_ratio(costs, "CG", "Newton"), gt=1.0, drift=None, why=RATIO_WHY)
    law.check("pgs_over_newton_time", cost_ratio(costs, "PGS", "Newton"), gt=1.0, drift=None, why=RATIO_WHY)


@pytest.mark.law("cg-beats-newton-heap200", source=SOURCE)
def test_cg_is_faster_than_newton_on_the_200_box_heap(law, step_costs):
    """On the 200-box heap (nv 1200) CG's step is cheaper than Newton's (lesson: 4.5 against 11.2 ms):
    each Newton iteration solves with the Hessian, whose cost grows faster with size."""
    costs = step_costs("heap200")
    law.check("newton_over_cg_time", cost_ratio(costs, "Newton", "CG"), gt=1.0, drift=None,
              why=RATIO_WHY + "; measured 1.8 to 3.0 (3.14.0, loaded machine), 1.9 (4.0.0)")


@pytest.mark.law("newton-few-iterations", source=SOURCE)
@pytest.mark.parametrize("scene", SCENES)
def test_newton_needs_a_handful_of_iterations_per_step(law, step_costs, scene):
    """Newton, warmstarted, needs a few iterations per step (lesson: 0.1, 3.9, 5.3) and no step
    comes near the limit of 100."""
    newton = step_costs(scene)["Newton"]
    law.check("newton_iterations_per_step", newton.iterations_per_step, le=10.0,
              why="measured 0.1, 3.9, 4.9 (tower, heaps of 50 and 200; 5.3 on the 200-box heap under "
                  "the lesson's protocol) on 3.14.0 and 4.0.0; twice the largest is still a handful")
    law.check("newton_max_iterations", max(newton.iterations), le=30,
              why="measured at most 1, 8, 7 in one step (11 on the 200-box heap under the lesson's "
                  "protocol; summed over up to 5 islands); 30 would be a solve losing its way")


@pytest.mark.law("first-order-many-iterations", source=SOURCE)
@pytest.mark.parametrize("scene", SCENES)
def test_cg_and_pgs_need_many_more_iterations_than_newton(law, step_costs, scene):
    """CG walks down the cost's slopes, so it needs many more iterations than Newton, which sees the
    curvature (lesson: 21.1 against 0.1, 68.0 against 3.9, 61.6 against 5.3); PGS, sweeping the
    constraints one by one, needs more still (40.2, 98.8, 110.0)."""
    costs = step_costs(scene)
    cg, pgs = costs["CG"].iterations_per_step, costs["PGS"].iterations_per_step
    law.check("newton_over_cg_iterations", costs["Newton"].iterations_per_step / cg, le=0.2,
              why="measured 0.005, 0.06, 0.09 on 3.14.0 and 4.0.0; a fifth would still be 'many more'")
    law.check("cg_over_pgs_iterations", cg / pgs, le=0.85,
              why="measured 0.53, 0.67, 0.60 (3.14.0) and 0.55, 0.58, 0.55 (4.0.0); above 0.85 CG would "
                  "no longer need clearly fewer iterations than PGS")


@pytest.mark.law("lesson-cost-iterations", source=SOURCE, rel=0.05, abs=1.0)
@pytest.mark.parametrize("scene", ("tower", "heap50"))
def test_iterations_per_step_match_the_lesson(law, step_costs, lesson_20_2, scene):
    """Mean iterations per step over the 300 timed steps, each solver having settled the scene
    itself, are the lesson's within 5 % or one iteration. This suite measures tower 40.2, 21.1, 0.1
    and heap of 50 98.8, 66.4, 3.9: CG on the heap is 66.4 where the lesson printed 68.0 (its heap
    geometry is not given in full; PGS and Newton agree to the digit). The 200-box heap is compared
    in the benchmarks (laws/solver/test_cost_benchmarks.py), which time it under this protocol."""
    require_lesson_mujoco("iterations per step of Lesson 20.2's cost table")
    costs = step_costs(scene)
    for name in SOLVERS:
        law.check(f"{name.lower()}_iterations_per_step", costs[name].iterations_per_step,
                  near=lesson_20_2["cost"][scene]["iterations"][name],
                  why="lesson's table; 5 %: a chaotic heap trajectory under CG's inexact solves, "
                      "one iteration: the lesson's rounding and platform")

