"""The challenge of Lesson 20.2: as the heap grows, a Newton step's cost grows faster than a CG step's,
so CG overtakes Newton, between the 50-box heap (nv 300, Newton faster) and the 200-box heap
(nv 1200, CG faster). Source: Lesson 20.2, "The constraint solver: PGS, CG and Newton, measured", challenge.

A benchmark: it runs with `pytest --benchmark-only laws/solver` (never in a plain or `-m law`
run); with `--solver-plots DIR` it draws DIR/cost_vs_nv.png. Heaps of 50 to 800 boxes are each
settled once by CG and cached (`fixtures.solver.cost_sweep`: settling 800 boxes with Newton would
take half an hour), then all solvers step on from that state, interleaved rounds after an untimed
one (rounds and steps per round sized to each heap). The benchmark's own time is the whole sweep;
its `extra_info` holds every size's nv, ms and iterations per step, the growth exponents and the
crossover.

Measured:
MuJoCo 3.14.0, this 2-core machine, two runs: CG/Newton time 1.6 and 1.5 at nv 300, 0.95 and 1.01
at nv 600, 0.41 and 0.44 at nv 1200, 0.018 and 0.011 at nv 4800; crossover at nv 558 and 604
(MuJoCo 4.0.0: 660). A step's time grows like nv^3.1 to nv^3.3 for Newton and nv^1.3 to nv^1.4 for
CG, one iteration's like nv^2.6 to nv^2.8 and nv^1.2 to nv^1.3. That fits what one iteration does
(inference from these timings): Newton factorises the Hessian of the cost, CG only multiplies by
M^-1. About 25 s warm, 3 min cold (settling the heaps), Newton's steps at 600 and 800 boxes (1.2 s
and 2.4 s each) half of it.
"""

from __future__ import annotations

import math

import pytest

from fixtures.solver.cost_sweep import SETTLE_SOLVER, SWEEP_SIZES, crossover_nv, growth_exponent, sweep_point
from fixtures.solver.options import SOLVERS
from fixtures.solver.plugin import HEAP_SECONDS
from fixtures.solver.plots import plot_cost_against_nv
from fixtures.solver.scenes import heap_xml

SOURCE = "Lesson 20.2, challenge"
WHY_TIME = "interleaved rounds from one state, median of per-round ratios; the lesson's ordering"


@pytest.mark.law("cg-overtakes-newton", source=SOURCE)
def test_cg_overtakes_newton_as_the_heap_grows(benchmark, law, settle, solver_plot_dir):
    """Newton is faster than CG on the smallest heap and slower on the largest, the crossover lies
    between nv 300 and 1200, and Newton's cost per step and per iteration grows with a larger power
    of nv than CG's."""
    states = {n: settle(heap_xml(n, solver=SETTLE_SOLVER), HEAP_SECONDS) for n in SWEEP_SIZES}
    points = benchmark.pedantic(lambda: [sweep_point(n, states[n]) for n in SWEEP_SIZES])
    nv = [p.nv for p in points]
    ratios = [p.ratio("CG", "Newton") for p in points]
    crossover = crossover_nv(nv, ratios)
    benchmark.extra_info.update(sizes=[p.summary() for p in points], crossover_nv=crossover)

    law.check("cg_over_newton_time_smallest", ratios[0], gt=1.0, drift=None,
              why=WHY_TIME + f"; nv {nv[0]}: measured 1.5 to 1.6")
    law.check("cg_over_newton_time_largest", ratios[-1], lt=1.0, drift=None,
              why=WHY_TIME + f"; nv {nv[-1]}: measured 0.01 to 0.02")
    law.check("crossover_nv", crossover if crossover is not None else math.nan, ge=300, le=1200, unit="dof",
              drift=None, why="the lesson's bracket (Newton faster at nv 300, CG at nv 1200); measured 558 and 604")
    for what, cost in (("step", lambda p, s: p.ms(s)), ("iteration", lambda p, s: p.ms_per_iteration(s))):
        exponents = {s: growth_exponent(nv, [cost(p, s) for p in points]) for s in ("CG", "Newton")}
        benchmark.extra_info[f"growth_exponent_per_{what}"] = exponents
        law.check(f"newton_minus_cg_exponent_per_{what}", exponents["Newton"] - exponents["CG"], ge=0.5,
                  drift=None, why="least-squares slopes on log axes; measured 1.8 to 1.9 (step), 1.4 to 1.5 "
                                  "(iteration): half a power of nv is a clear difference in growth")
    if solver_plot_dir is not None:
        plot_cost_against_nv({s: {p.nv: p.ms(s) for p in points} for s in SOLVERS},
                             solver_plot_dir / "cost_vs_nv.png", crossover_nv=crossover,
                             title="Time per step against nv, heaps of 50 to 800 boxes")
