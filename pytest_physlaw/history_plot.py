"""The plot of `pytest-physlaw history`: one panel per check, its value across the reports against
its bounds, the steps beyond drift ringed in red and failed checks crossed.

matplotlib is imported here only, when a plot is asked for: the plugin and the other commands never
need it. A history of more checks than fit one figure shows those that stepped, then those the gate
noted moving within their drift or could not compare as they changed (other Hypothesis examples), then the gated ones whose value travelled farthest (exempt ones,
timing ratios, last), and says how many it left out (the Markdown table has them all).
"""

from __future__ import annotations

import math
from pathlib import Path

from pytest_physlaw.history import History, HistoryError, Series

MAX_PANELS = 24
COLUMNS = 3
STEP_COLOR, BOUND_COLOR, VALUE_COLOR = "#d62728", "#7f7f7f", "#1f77b4"


def chosen(history: History, limit: int = MAX_PANELS) -> list[Series]:
    """The series the figure shows: all if they fit, else the stepped ones, then the moved (or changed
    but not compared) ones, then the gated ones that travelled farthest."""
    if len(history.series) <= limit:
        return list(history.series)
    ranked = sorted(history.series, key=lambda s: (-len(s.steps), -(s.moves + s.unjudged), s.exempt, -s.spread(),
                                                   s.nodeid, s.quantity))
    return ranked[:limit]


def write(history: History, path: str) -> str:
    """Write the figure to `path` (its suffix gives the format); return a line saying what it shows."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise HistoryError(f"{path}: a plot needs matplotlib (pip install matplotlib); "
                           "a Markdown output (-o history.md) does not") from None
    shown = chosen(history)
    rows = math.ceil(len(shown) / COLUMNS)
    cols = min(COLUMNS, len(shown))
    width = max(4.5, 0.45 * len(history.labels)) * cols
    fig, axes = plt.subplots(rows, cols, figsize=(width, 3.3 * rows + 1), squeeze=False)
    for ax, series in zip(axes.flat, shown):
        _panel(ax, series, history.labels)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    left_out = len(history.series) - len(shown)
    title = f"Law history over {len(history.labels)} reports"
    if left_out:
        title += f": {len(shown)} of {len(history.series)} checks (stepped, then moved within drift, then farthest travelled)"
    height = fig.get_figheight()
    fig.suptitle(title, y=1 - 0.1 / height, va="top")
    fig.legend(handles=_legend(), loc="upper center", ncol=3, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.4 / height))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.8 / height))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"{path}: {len(shown)} of {len(history.series)} checks" + (
        f" ({left_out} left out: see the Markdown table)" if left_out else "")


def _panel(ax, series: Series, labels: list[str]) -> None:
    xs = [i for i, p in enumerate(series.points) if p is not None]
    values = [series.points[i].check.value for i in xs]
    ax.plot(xs, values, "o-", color=VALUE_COLOR, markersize=4, label="value")
    for side, style in (("le", "--"), ("lt", "--"), ("ge", ":"), ("gt", ":"), ("near", "-.")):
        bound = [(i, series.points[i].check.bounds.get(side)) for i in xs]
        bound = [(i, b) for i, b in bound if b is not None]
        if bound:
            ax.step([i for i, _ in bound], [b for _, b in bound], style, where="mid", color=BOUND_COLOR,
                    linewidth=1, label=side)
    bands = [(i, series.points[i].check.bounds) for i in xs if "tol" in series.points[i].check.bounds]
    if bands:
        ax.fill_between([i for i, _ in bands], [b["near"] - b["tol"] for _, b in bands],
                        [b["near"] + b["tol"] for _, b in bands], step="mid", color=BOUND_COLOR, alpha=0.15)
    for i in series.steps:
        point = series.points[i]
        ax.plot([i], [point.check.value], "o", markersize=11, markerfacecolor="none", markeredgecolor=STEP_COLOR,
                markeredgewidth=2)
        ax.annotate(point.change, (i, point.check.value), textcoords="offset points", xytext=(6, 6),
                    color=STEP_COLOR, fontsize=8)
    uncompared = [i for i in xs if series.points[i].uncompared]
    if uncompared:
        ax.plot(uncompared, [series.points[i].check.value for i in uncompared], "D", markersize=7,
                markerfacecolor="none", markeredgecolor=BOUND_COLOR)
    failed = [i for i in xs if not series.points[i].check.passed]
    if failed:
        ax.plot(failed, [series.points[i].check.value for i in failed], "x", color=STEP_COLOR, markersize=9)
    if _log_scale(ax, series):
        ax.set_yscale("log")
    else:
        ax.ticklabel_format(axis="y", useOffset=False)
    unit = f" ({series.unit})" if series.unit else ""
    exempt = ", not gated" if series.exempt else ""
    ax.set_title(f"{_short(series.title)}\n{series.quantity}{unit}{exempt}", fontsize=8)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(alpha=0.3)


def _legend() -> list:
    from matplotlib.lines import Line2D

    return [Line2D([], [], color=VALUE_COLOR, marker="o", markersize=4, label="value"),
            Line2D([], [], color=BOUND_COLOR, linestyle="--", label="upper bound"),
            Line2D([], [], color=BOUND_COLOR, linestyle=":", label="lower bound"),
            Line2D([], [], color=BOUND_COLOR, linestyle="-.", label="near (band: its tolerance)"),
            Line2D([], [], color=STEP_COLOR, marker="o", markerfacecolor="none", markersize=9, linestyle="none",
                   markeredgewidth=2, label="stepped beyond its drift (the gate's rule)"),
            Line2D([], [], color=STEP_COLOR, marker="x", linestyle="none", label="check failed"),
            Line2D([], [], color=BOUND_COLOR, marker="D", markerfacecolor="none", linestyle="none",
                   label="not compared (other Hypothesis examples)")]


def _log_scale(ax, series: Series) -> bool:
    """A log axis where every value and bound shown is positive and they span over two decades (a
    residual a hundred times below its bound would otherwise lie flat on zero)."""
    ys = [y for line in ax.get_lines() for y in line.get_ydata() if math.isfinite(y)]
    return bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 1e2


def _short(text: str, width: int = 52) -> str:
    """Cut in the middle, so that a case id at the end ("[PGS-20]") stays."""
    if len(text) <= width:
        return text
    keep = width - 3
    return text[:keep - keep // 3] + "..." + text[-(keep // 3):]
