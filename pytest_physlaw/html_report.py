"""The law checks and the baseline gate in a pytest-html (4.x) report (`--html`).

Registered only when pytest-html's `html` plugin is present, and it never imports pytest_html: the
extras come from `pluginmanager.getplugin("html").extras`. Each law test's row gets a column with its
worst margin and, in its details, a table of its checks (quantity, value, bound, margin) and a small
inline SVG plot of their margins; the summary gets the gate's verdict, its regressions and the
session problems. The row reads the checks from the report's `user_properties` (see `junit`), which
travel with the report from xdist workers; the summary is written on the controller, after the gate
(pytest-html writes its file at a trylast `pytest_sessionfinish`). Plain HTML and SVG with inline
styles: the same with `--self-contained-html`.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from html import escape
from typing import Any

import pytest

from pytest_physlaw import junit, model_summary
from pytest_physlaw.junit import PropertyCheck
from pytest_physlaw.run import LawRun

NAME = "physlaw-html"
PASS, FAIL = "#2e7d32", "#c62828"

# The margin plot: a bar per check from 0 to its margin, drawn over [-1, 1] (1 is full headroom: a value
# of 0 under `le=b`, the centre of `near`); a margin beyond stops at the edge with an arrowhead.
LABEL_W, PLOT_W, TEXT_W, ROW_H, MAX_ROWS = 170, 220, 70, 16, 40


def register(config: pytest.Config) -> None:
    """Register the report hooks when pytest-html is there (not disabled by `-p no:html`)."""
    plugin = config.pluginmanager.getplugin("html")
    if plugin is not None and hasattr(plugin, "extras"):
        config.pluginmanager.register(HtmlLawReport(config, plugin.extras), NAME)


class HtmlLawReport:
    """pytest-html's hooks: a column and the details of each law row, and the summary's gate."""

    def __init__(self, config: pytest.Config, extras: Any) -> None:
        self.config = config
        self.extras = extras

    def active(self) -> bool:
        return bool(self.config.getoption("htmlpath", None))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, Any]:
        rep = yield
        if call.when == "call" and self.active():
            checks = junit.read_checks(rep.user_properties)
            if checks:
                rep.extras = [*getattr(rep, "extras", []), self.extras.html(details(checks))]
        return rep

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells.insert(2, '<th title="the smallest normalised headroom of the test\'s law checks">Worst margin</th>')

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        checks = junit.read_checks(getattr(report, "user_properties", ()))
        cells.insert(2, f'<td class="col-physlaw-margin">{worst_cell(checks)}</td>')

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix: list[str], summary: list[str], postfix: list[str],
                                    session: pytest.Session) -> None:
        run = LawRun.of(self.config)
        verdict = junit.gate_verdict(run.state, run.gate, run.baseline is not None)
        if run.baseline is not None:
            verdict += f" (baseline {self.config.getoption('law_baseline')})"
        postfix.append(gate_summary(run.gate, run.state.problems, verdict))
        if run.state.models:
            postfix.append(models_summary(run.state))


def models_summary(state: Any) -> str:
    """The per-model summary (`model_summary`): a table row per model, its findings in the last cell,
    then the files left out."""
    rows = model_summary.model_rows(state)
    out = [f'<div class="physlaw-models" style="margin-bottom:14px"><h3>Physics laws: models</h3>'
           f"<p>{escape(model_summary.totals(state, rows))}</p>"]
    if rows:
        body = [(*r.cells(), "<br>".join(f'<span style="color:{FAIL}">failed {escape(f)}</span>' if kind == "failed"
                                         else f"{kind} {escape(f)}" for kind, f in r.findings()))
                for r in rows]
        out.append(_html_table((*model_summary.HEADER, "findings"),
                               [(*(escape(c) for c in cells[:-1]), cells[-1]) for cells in body]))
    for heading, entries in model_summary.left_out_groups(state):
        out.append(f"<p><b>{heading}</b></p>")
        out.append(_html_table(("file", "status", "why"), [tuple(escape(c) for c in row) for row in entries]))
    return "".join(out) + "</div>"


def _html_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A plain table of cells already escaped."""
    head = "".join(f'<th style="text-align:left;padding:2px 10px 2px 0">{h}</th>' for h in header)
    body = "".join("<tr>" + "".join(f'<td style="padding:2px 10px 2px 0">{c}</td>' for c in row) + "</tr>"
                   for row in rows)
    return f'<table style="border-collapse:collapse;font-size:13px"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def worst_cell(checks: list[PropertyCheck]) -> str:
    if not checks:
        return ""
    worst = min(checks, key=lambda c: (c.passed, c.margin))
    colour = PASS if worst.passed else FAIL
    return (f'<span style="color:{colour}">{_num(worst.margin, 3)}</span> '
            f'<span style="color:#666">({escape(worst.quantity)})</span>')


def details(checks: list[PropertyCheck]) -> str:
    """The table of a law test's checks, then the plot of their margins."""
    head = "".join(f'<th style="text-align:left;padding:2px 10px 2px 0">{h}</th>'
                   for h in ("quantity", "value", "bound", "margin", "verdict"))
    rows = "".join(_row(c) for c in checks)
    return (f'<div class="physlaw-checks" style="margin:6px 0"><b>Law checks</b>'
            f'<table style="border-collapse:collapse;font-size:13px;margin:4px 0">'
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{margin_plot(checks)}</div>")


def _row(c: PropertyCheck) -> str:
    value = _num(c.value, 6) + (f" {escape(c.unit)}" if c.unit else "")
    verdict = "pass" if c.passed else "FAIL"
    cells = (escape(c.quantity), value, escape(c.bound), _num(c.margin, 3),
             f'<span style="color:{PASS if c.passed else FAIL}">{verdict}</span>')
    return "<tr>" + "".join(f'<td style="padding:2px 10px 2px 0;white-space:nowrap">{x}</td>' for x in cells) + "</tr>"


def _num(x: float, digits: int) -> str:
    return f"{x:.{digits}g}" if math.isfinite(x) else escape(repr(x))


def margin_plot(checks: list[PropertyCheck]) -> str:
    """An inline SVG: one horizontal bar per check (the first MAX_ROWS), green passing, red failing."""
    shown = checks[:MAX_ROWS]
    width, top = LABEL_W + PLOT_W + TEXT_W, 14
    height = top + ROW_H * len(shown) + 16
    zero = LABEL_W + PLOT_W / 2

    def x(m: float) -> float:
        return zero + max(-1.0, min(1.0, m)) * PLOT_W / 2

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="physlaw-margins" width="{width}" height="{height}" '
             f'role="img" aria-label="margins of the law checks" style="font:11px sans-serif">',
             f'<text x="{LABEL_W}" y="10" fill="#444">margin (headroom to the bound; below 0 fails)</text>']
    for i, c in enumerate(shown):
        y = top + i * ROW_H
        m = c.margin if not math.isnan(c.margin) else -math.inf
        beyond = not -1.0 <= m <= 1.0
        end = x(m) - math.copysign(9, m) if beyond else x(m)  # room for the arrowhead
        left, right = sorted((zero, end))
        colour = PASS if c.passed else FAIL
        label = c.quantity if len(c.quantity) <= 26 else c.quantity[:25] + "…"
        parts.append(f'<g><title>{escape(c.quantity)}: margin {_num(c.margin, 6)}</title>'
                     f'<text x="{LABEL_W - 6}" y="{y + 11}" text-anchor="end">{escape(label)}</text>'
                     f'<rect x="{left:.1f}" y="{y + 3}" width="{max(right - left, 1.0):.1f}" height="{ROW_H - 6}" '
                     f'fill="{colour}"/>')
        if beyond:
            tip, back = (LABEL_W + PLOT_W, LABEL_W + PLOT_W - 7) if m > 1 else (LABEL_W, LABEL_W + 7)
            parts.append(f'<path d="M{back} {y + 1} L{tip} {y + ROW_H / 2} L{back} {y + ROW_H - 1} Z" fill="{colour}"/>')
        parts.append(f'<text x="{LABEL_W + PLOT_W + 6}" y="{y + 11}">{_num(c.margin, 3)}</text></g>')
    bottom = top + ROW_H * len(shown)
    for m in (-1.0, 0.0, 1.0):
        parts.append(f'<line x1="{x(m)}" y1="{top}" x2="{x(m)}" y2="{bottom}" stroke="{"#333" if m == 0 else "#bbb"}"/>'
                     f'<text x="{x(m)}" y="{bottom + 12}" text-anchor="middle" fill="#444">{m:g}</text>')
    parts.append("</svg>")
    more = len(checks) - len(shown)
    return "".join(parts) + (f"<div>(and {more} more checks)</div>" if more > 0 else "")


def gate_summary(gate: Any, problems: list[str], verdict: str) -> str:
    """The summary's block: the gate's verdict, a table of its regressions (a value's finding by its
    kind, "drift" or "now-failing", with the numbers beside it; the whole message as the row's
    tooltip), the session problems."""
    colour = FAIL if (gate and gate.regressions) or problems else ("#444" if gate is None else PASS)
    out = [f'<div class="physlaw-gate" style="margin-bottom:14px"><h3>Physics laws: baseline gate</h3>'
           f'<p style="color:{colour}"><b>{escape(verdict)}</b></p>']
    if gate and gate.regressions:
        head = "".join(f'<th style="text-align:left;padding:2px 10px 2px 0">{h}</th>'
                       for h in ("law", "quantity", "finding", "baseline", "now", "change", "drift allowed"))
        rows = "".join(f'<tr title="{escape(str(f))}">' + "".join(
            f'<td style="padding:2px 10px 2px 0">{escape(x)}</td>' for x in (
                f.nodeid, f.quantity or "", f.kind if f.old else f.message, f.old, f.new, f.change, f.tolerance))
            + "</tr>" for f in gate.regressions)
        out.append(f'<table style="border-collapse:collapse;font-size:13px"><thead><tr>{head}</tr></thead>'
                   f"<tbody>{rows}</tbody></table>")
    if problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in problems)
        out.append(f'<p style="color:{FAIL}"><b>Law problems</b></p><ul>{items}</ul>')
    return "".join(out) + "</div>"
