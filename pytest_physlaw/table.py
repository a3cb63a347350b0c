"""The terminal summary: a "physics laws" section with one row per check and the gaps, and a
"law regressions" section when the baseline gate fails the run.

`-q` keeps only the rows that need attention (failed unexpectedly or drifted) and the counts; by
default passing rows beyond the first FOLD_AFTER are folded into a count per file (`-v` shows every
row; the report keeps them all). The rows are also what the Markdown table shows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pytest_physlaw.gate import GateResult
from pytest_physlaw.record import LawRecord
from pytest_physlaw.report import gaps
from pytest_physlaw.session import LawSession

HEADER = ("law", "id", "quantity", "value", "bound", "margin", "outcome")
LAW_WIDTH = 48
FOLD_AFTER = 200


@dataclass(frozen=True)
class Row:
    """One check of one law as the tables show it."""

    law: str
    law_id: str
    quantity: str
    value: str
    bound: str
    margin: str
    outcome: str
    attention: bool  # failed unexpectedly or drifted: kept by -q

    def cells(self) -> tuple[str, ...]:
        return (self.law, self.law_id, self.quantity, self.value, self.bound, self.margin, self.outcome)


def check_rows(run: LawSession, gate: GateResult | None = None) -> list[Row]:
    """One row per check of every law that ran, in nodeid order; a law without checks gets one row."""
    drifted = gate.drifted if gate else set()
    rows: list[Row] = []
    for law in run.sorted_records():
        if not law.checks:
            rows.append(Row(law.nodeid, _law_id(law), "-", "-", "-", "-", law.outcome,
                            law.outcome in ("failed", "crashed", "error")))
            continue
        gap_held = _gap_held(law)
        all_passed = all(c.passed for c in law.checks)
        for c in law.checks:
            if c.passed:
                outcome, failing = "pass", False
            elif gap_held:
                outcome, failing = "gap", False
            else:
                outcome, failing = "FAIL", True
            if all_passed and law.outcome in ("failed", "crashed", "error", "xpassed"):
                outcome += " (gap closed)" if law.known_gap else f" (test {law.outcome})"
                failing = True
            flagged = (law.nodeid, c.quantity) in drifted
            if flagged:
                outcome += ", DRIFT"
            count = f" x{c.count}" if c.count > 1 else ""
            rows.append(Row(law.nodeid, _law_id(law), c.quantity + count, c.value_text(), c.bound,
                            f"{c.margin:.3g}", outcome, failing or flagged))
    return rows


def _law_id(law: LawRecord) -> str:
    """The explicit law id, "" for a law named only by its function."""
    return (law.law or "") if law.identity else ""


def _gap_held(law: LawRecord) -> bool:
    """A known gap that is still open: its failed checks are what its page documents."""
    return law.known_gap is not None and law.outcome == "xfailed"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _tally(counter: Counter) -> str:
    """Outcomes in pytest's words: a crashed law is one of the failed (pytest counts it so)."""
    crashed = counter.pop("crashed", 0)
    if crashed:
        counter["failed"] += crashed
    parts = [f"{n} {k}" + (f" ({crashed} crashed)" if k == "failed" and crashed else "")
             for k, n in sorted(counter.items())]
    return " (" + ", ".join(parts) + ")" if parts else ""


def counts(run: LawSession, gate: GateResult | None = None) -> str:
    """One line: laws by outcome, checks by verdict, gaps by status, the gate's tally."""
    laws = Counter(r.outcome for r in run.records.values())
    checks = [(c, _gap_held(r)) for r in run.records.values() for c in r.checks]
    failed = sum(not c.passed and not held for c, held in checks)
    in_gaps = sum(not c.passed and held for c, held in checks)
    parts = [plural(len(run.records), "law") + _tally(laws)]
    gap_part = f", {in_gaps} failing as open gaps say" if in_gaps else ""
    parts.append(f"{plural(len(checks), 'check')} ({len(checks) - failed - in_gaps} passed, {failed} failed{gap_part})")
    if run.gap_pages:
        status = Counter(g["status"] for g in gaps(run))
        parts.append(plural(len(run.gap_pages), "gap") + _tally(status))
    if gate is not None:
        parts.append(f"baseline: {plural(len(gate.regressions), 'regression')}, {plural(len(gate.notes), 'note')}")
    return "; ".join(parts)


def shorten(name: str, width: int = LAW_WIDTH) -> str:
    """A test name ("test_x[case]") that fits `width`: the middle of the function name elided, its
    start and end kept, and the parameter id kept whole where it fits (it tells the cases apart)."""
    if len(name) <= width:
        return name
    base, bracket, case = name.partition("[")
    case = bracket + case
    room = max(width // 2, width - len(base))
    if len(case) > room:
        case = _elide(case, room)
    return _elide(base, width - len(case)) + case


def _elide(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    keep = max(width - 3, 2)
    head = (2 * keep + 2) // 3
    return text[:head] + "..." + text[len(text) - (keep - head):]


def law_lines(rows: list[Row], width: int = 0) -> list[str]:
    """The rows as aligned text under one line per law file; a law's name is shown on its first row.

    Test names are shortened to what a `width`-wide terminal leaves them, never below LAW_WIDTH.
    """
    others = [max(len(c) for c in col) for col in zip(HEADER[1:], *(r.cells()[1:] for r in rows))]
    name_width = max(LAW_WIDTH, width - sum(others) - 2 * len(others) - 2)
    cells: list[tuple[str, ...]] = [HEADER]
    files: dict[int, str] = {}
    last = None
    for row in rows:
        path, _, name = row.law.partition("::")
        if path != (last or "").partition("::")[0]:
            files[len(cells)] = path
        first = row.law != last
        cells.append(("  " + shorten(name, name_width) if first else "", row.law_id if first else "",
                      *row.cells()[2:]))
        last = row.law
    lines = []
    for i, line in enumerate(align(cells)):
        if i in files:
            lines.append(files[i])
        lines.append(line)
    return lines


def align(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def gap_lines(run: LawSession) -> list[str]:
    rows: list[tuple[str, ...]] = [("gap page", "kept by", "status")]
    for g in gaps(run):
        tests = g["tests"] or ["-"]
        rows.append((g["page"], tests[0], g["status"]))
        rows.extend(("", t, "") for t in tests[1:])
    return align(rows)


def fold(rows: list[Row], keep: int = FOLD_AFTER) -> tuple[list[Row], Counter]:
    """The rows to show (every one that needs attention, and passing ones up to `keep`), and the
    passing rows left out, counted per file."""
    shown, folded, passing = [], Counter(), 0
    for row in rows:
        if not row.attention:
            passing += 1
            if passing > keep:
                folded[row.law.partition("::")[0]] += 1
                continue
        shown.append(row)
    return shown, folded


def write_summary(terminalreporter: Any, run: LawSession, gate: GateResult | None, verbosity: int) -> None:
    """The "physics laws" section, then "law regressions" when the gate found any."""
    if not run.records:  # nothing ran (--collect-only, no laws, all deselected)
        return
    tr = terminalreporter
    quiet = verbosity < 0
    rows = check_rows(run, gate)
    shown = [r for r in rows if r.attention] if quiet else rows
    folded: Counter = Counter()
    if verbosity < 1 and not quiet and len(rows) > FOLD_AFTER:
        shown, folded = fold(rows)
    tr.write_sep("=", "physics laws")
    if shown:
        for line in law_lines(shown, getattr(getattr(tr, "_tw", None), "fullwidth", 0)):
            tr.write_line(line)
    for path, n in sorted(folded.items()):
        tr.write_line(f"{path}: {plural(n, 'more passing check')} folded (-v shows every row)")
    if run.gap_pages and not quiet:
        tr.write_line("")
        for line in gap_lines(run):
            tr.write_line(line)
    if gate is not None and gate.notes and not quiet:
        tr.write_line("")
        tr.write_line("baseline notes:")
        for note in gate.notes:
            tr.write_line(f"  {note}")
    tr.write_line(counts(run, gate))
    if gate is not None and gate.regressions:
        tr.write_sep("=", "law regressions", red=True)
        for finding in gate.regressions:
            tr.write_line(str(finding), red=True)
        tr.write_line(f"the baseline gate fails this run: {plural(len(gate.regressions), 'regression')}; "
                      "if the change is meant, re-save the baseline with --law-save-baseline PATH "
                      "and give the reason in the commit", red=True, bold=True)
