"""The convergence table of law 1 (laws/solver/test_convergence.py) drawn as a plot: with
`--solver-plots DIR`, `pytest laws/solver/test_solver_plots.py --solver-plots DIR` writes
DIR/convergence.png (share still missing against k, log scale, one line per solver). Without the
option it skips. Not a law: the laws on these shares are law 1's; the time-per-step plot is drawn by
the challenge benchmark (laws/solver/test_challenge_sweep.py). Both at once:
`pytest laws/solver --benchmark-enable --solver-plots DIR`.
"""

from __future__ import annotations

import pytest

from fixtures.solver_convergence import convergence_table
from fixtures.solver_plots import plot_convergence

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_convergence_plot(settled_tower, solver_plot_dir):
    """Draws the missing share of each cold-started solver after k iterations, from the settled tower."""
    if solver_plot_dir is None:
        pytest.skip("no plot asked for: give --solver-plots DIR")
    table = convergence_table(settled_tower)
    shares = {solver: dict(zip(table.ks, row)) for solver, row in table.shares.items()}
    path = plot_convergence(shares, solver_plot_dir / "convergence.png",
                            title="Settled tower of 10 boxes, cold start: correction still missing")
    assert path.read_bytes()[:8] == PNG_SIGNATURE
