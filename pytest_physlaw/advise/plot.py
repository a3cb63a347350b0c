"""The plot of `advise`: every measured setting's cost (a ratio to the model's own) against its worst error / bound,
the Pareto front joined, the tolerance drawn at 1, the model's own and the recommendation marked. matplotlib is
imported here only, when a plot is asked for (as `history_plot`)."""

from __future__ import annotations

import math
from pathlib import Path

from pytest_physlaw.advise.advice import Advice


def write(advice: Advice, path: str) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError(f"{path}: a plot needs matplotlib (pip install matplotlib); the JSON does not") from None
    tol = advice.tolerance
    fig, ax = plt.subplots(figsize=(7, 4.5))
    own_rough = advice.plan.own.observation.wall_per_second
    # every setting at its rough cost (its measuring runs) over the own settings' rough cost; the front and the
    # marked points at their timed cost over the own settings' timed cost
    pts = [(p.observation.wall_per_second / own_rough, max(p.worst(tol)[0], 1e-4), p) for p in advice.plan.points
           if math.isfinite(p.worst(tol)[0])]
    ax.scatter([c for c, _, _ in pts], [w for _, w, _ in pts], s=14, color="#9a9a9a", label="measured settings")
    front = [(advice.ratio(p), max(p.worst(tol)[0], 1e-4)) for p in advice.front]
    ax.plot([c for c, _ in front], [w for _, w in front], "-o", color="#1f77b4", label="Pareto front")
    for point, color, name in ((advice.plan.own, "#d62728", "own settings"), (advice.recommended, "#2ca02c", "recommended")):
        w = point.worst(tol)[0]
        if math.isfinite(w):
            ax.scatter([advice.ratio(point)], [max(w, 1e-4)], s=80, color=color, zorder=5, label=name)
    ax.axhline(1.0, color="#7f7f7f", ls="--", lw=1, label="tolerance")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cost: time per simulated second / the model's own")
    ax.set_ylabel("worst error / its bound")
    ax.set_title(f"advise {Path(advice.model).name}: recommended {advice.recommended.setting.label()}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return f"{path}: {len(pts)} settings, {len(advice.front)} on the front"
