"""The law table and the gate's regressions as Markdown (`--law-markdown PATH`).

When the environment variable GITHUB_STEP_SUMMARY names a file (GitHub Actions), the same text is
appended there, so a workflow's summary page shows the run's laws.
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_physlaw import files, model_summary
from pytest_physlaw.gate import GateResult
from pytest_physlaw.rows import HEADER, check_rows, counts, gap_rows
from pytest_physlaw.session import LawSession


def cell(text: str) -> str:
    """A table cell: pipes escaped, newlines flattened."""
    return " ".join(text.replace("|", "\\|").split())


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def render(run: LawSession, gate: GateResult | None = None) -> str:
    """The whole Markdown text: counts, the session's problems and regressions first, laws, gaps, notes."""
    lines = ["## Physics laws", "", counts(run, gate), ""]
    if run.problems:
        lines += ["### Law problems", ""] + [f"- {cell(p)}" for p in run.problems] + [""]
    if gate is not None and gate.regressions:
        lines += ["### Law regressions", ""]
        lines += [f"- {cell(str(f))}" for f in gate.regressions]
        lines.append("")
    rows = [(f"`{r.law}`" if r.law else r.law, *r.cells()[1:]) for r in check_rows(run, gate)]
    if rows:
        lines += table(HEADER, rows) + [""]
    if run.gap_pages:
        lines += ["### Known gaps", ""]
        lines += table(("gap page", "kept by", "status"),
                       [(page, ", ".join(f"`{t}`" for t in tests) or "-", status) for page, tests, status in gap_rows(run)])
        lines.append("")
    if gate is not None and gate.notes:
        lines += ["### Baseline notes", ""]
        lines += [f"- {cell(str(f))}" for f in gate.notes]
        lines.append("")
    return "\n".join(lines + models(run))


def models(run: LawSession) -> list[str]:
    """The per-model summary (`model_summary`): a row per model with its findings, the files left out."""
    if not run.models:
        return []
    rows = model_summary.model_rows(run)
    lines = ["### Models", "", model_summary.totals(run, rows), ""]
    if rows:
        cells = [(f"`{r.path}`", *r.cells()[1:], _findings(r)) for r in rows]
        lines += table((*model_summary.HEADER, "findings"), cells) + [""]
    for heading, entries in model_summary.left_out_groups(run):
        lines += [f"### {heading}", ""]
        lines += table(("file", "status", "why"), [(f"`{p}`", status, why) for p, status, why in entries]) + [""]
    return lines


def _findings(row: model_summary.ModelRow) -> str:
    return "; ".join(f"{kind} {f}" for kind, f in row.findings()) or "-"


def write_markdown(path: str | Path | None, run: LawSession, gate: GateResult | None = None) -> str:
    """Write the Markdown to `path` (parents created) and append it to GITHUB_STEP_SUMMARY if set."""
    text = render(run, gate)
    if path is not None:
        files.write_text(path, text)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(text + "\n")
    return text
