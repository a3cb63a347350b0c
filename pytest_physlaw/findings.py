"""The gate's findings as text: the terminal table of `compare` and `upgrade`, and the Markdown of `--markdown`
(one module both commands import, so neither imports the other)."""

from __future__ import annotations

from pytest_physlaw import gate, markdown, table
from pytest_physlaw.rows import plural

FINDING_HEADER = ("law", "quantity", "old", "new", "change", "tolerance", "why")


def finding_rows(findings: list[gate.Finding]) -> list[tuple[str, ...]]:
    """One row per finding; a finding without values says its message in the `change` column."""
    return [(f.nodeid, f.quantity or "-", f.old, f.new, f.change or f.message, f.tolerance, f.why) for f in findings]


def render_findings(regressions: list[gate.Finding], notes: list[gate.Finding], old: str, new: str) -> str:
    """The gate's verdict line, then its regressions and notes as aligned tables (`old` -> `new` name the runs)."""
    lines = [f"law gate: {old} -> {new}: {plural(len(regressions), 'regression')}, "
             f"{plural(len(notes), 'note')}"]
    for title, findings in (("regressions", regressions), ("notes", notes)):
        if findings:
            lines += ["", f"{title}:"] + table.align([FINDING_HEADER, *finding_rows(findings)])
    return "\n".join(lines) + "\n"


def findings_markdown(regressions: list[gate.Finding], notes: list[gate.Finding], old: str, new: str) -> str:
    """The same findings as a Markdown section (a PR comment)."""
    lines = [f"## Law gate: `{old}` -> `{new}`", "",
             f"{plural(len(regressions), 'regression')}, {plural(len(notes), 'note')}", ""]
    for title, findings in (("Regressions", regressions), ("Notes", notes)):
        if findings:
            lines += [f"### {title}", ""] + markdown.table(FINDING_HEADER, finding_rows(findings)) + [""]
    return "\n".join(lines)
