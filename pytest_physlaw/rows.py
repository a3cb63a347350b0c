"""The rows every view of a run shows: one per check of each law, the gaps, and the counts.

The terminal table (`table`), the Markdown (`markdown`) and the `pytest-physlaw show` command render
these rows; none of them decides what a row says. A row needs attention when its check failed
unexpectedly or the gate flagged it: `-q` keeps only those, and a long table folds passing rows
beyond FOLD_AFTER into a count per file.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pytest_physlaw import gaps
from pytest_physlaw.gate import GateResult
from pytest_physlaw.record import LawRecord
from pytest_physlaw.session import LawSession

HEADER = ("law", "id", "quantity", "value", "bound", "margin", "outcome")
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
        status = Counter(g["status"] for g in gaps.listing(run.gap_pages, run.records))
        parts.append(plural(len(run.gap_pages), "gap") + _tally(status))
    if gate is not None:
        parts.append(f"baseline: {plural(len(gate.regressions), 'regression')}, {plural(len(gate.notes), 'note')}")
    return "; ".join(parts)


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


def gap_rows(run: LawSession) -> list[tuple[str, tuple[str, ...], str]]:
    """(page, the tests that keep it, status) per known-gap page."""
    return [(g["page"], tuple(g["tests"]), g["status"]) for g in gaps.listing(run.gap_pages, run.records)]
