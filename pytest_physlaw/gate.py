"""The baseline gate: this run's laws against a saved baseline, as regressions and notes.

A regression fails the session; a note is information. The rules:

- a law is found in the baseline by its nodeid, else by its identity (explicit law id and case), so a
  renamed or moved law keeps its history (a note says it moved);
- a check that passed in the baseline and fails now;
- a check whose value moved by more than its drift: |new - old| > drift * |old|, in either direction
  (`drift=None` exempts a noisy figure such as a timing ratio), unless both values lie within the
  check's zero `drift_abs` (|old|, |new| <= drift_abs): two round-off residuals are equal to the law.
  `drift` defaults to ini physlaw_drift (1 %), `drift_abs` to a thousandth (ini physlaw_drift_floor)
  of the check's tight scale (its `near` tolerance, else its smallest bound; a bound of 0 counts as
  its `abs`, else 1). So a value above that zero is held to its relative drift whatever its bounds
  (2.0 -> 2.1 under `ge=0, le=1e6` flags), while 1e-15 -> 3e-15 under `le=1e-9` (zero 1e-12) does
  not flag on round-off. A value that turned non-finite, or finite again, moved;
- a baseline law under the paths this run collects from that is no longer collected (deselected laws
  excepted; a module skipped at collection, a run that leaves files out with --lf or --ignore, and a
  run with collection errors only note it), or that ran without a quantity it had (a Hypothesis law
  only notes that: some examples check quantities that others do not);
- a law that passed in the baseline and is now a known gap (until the baseline is re-saved);
- a baseline that holds no law, against a run that has laws.

The worst of many values (an array, a loop, Hypothesis examples) is the same whatever their order,
so order never moves it. A Hypothesis law's worst values are compared only when the same examples
ran (the record's `examples` digest): other examples (a random profile, an edited strategy) make
other worsts, which the gate notes instead of comparing.

Notes: laws that moved, gaps that closed, values that moved within drift (by more than a tenth of
it), new laws and quantities, changed bounds, package versions. Everything here is a pure function
of the baseline's laws and the run's `LawSession`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pytest_physlaw import reportfile
from pytest_physlaw.record import CheckRecord, LawRecord
from pytest_physlaw.scope import covers
from pytest_physlaw.session import LawSession

# A value that moved by more than this fraction of its allowed drift is worth a note.
MOVE_NOTE_FRACTION = 0.1


@dataclass(frozen=True)
class Finding:
    """One thing the gate found. `kind` names the rule; `quantity` is None for whole-law findings.

    Value findings also carry `old`, `new`, `change` and `tolerance` as text, and the check's `why`,
    for the tables of `pytest-physlaw compare`.
    """

    kind: str
    nodeid: str
    message: str
    quantity: str | None = None
    old: str = ""
    new: str = ""
    change: str = ""
    tolerance: str = ""
    why: str = ""

    def __str__(self) -> str:
        where = f"{self.nodeid} [{self.quantity}]" if self.quantity else self.nodeid
        return f"{where}: {self.message}"


@dataclass
class GateResult:
    regressions: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)

    @property
    def drifted(self) -> set[tuple[str, str]]:
        """(nodeid, quantity) of every check the gate flagged, for the tables to mark."""
        return {(f.nodeid, f.quantity) for f in self.regressions if f.quantity is not None}


@dataclass
class Baseline:
    """A saved report as the gate reads it: its laws by nodeid and the package versions it ran with."""

    laws: dict[str, LawRecord]
    versions: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_report(cls, data: dict[str, Any]) -> Baseline:
        """The baseline a validated report's JSON form holds."""
        return cls({d["nodeid"]: LawRecord.from_json(d) for d in data["laws"]}, reportfile.versions(data))


def compare(baseline: Baseline, run: LawSession, versions: dict[str, str | None] | None = None,
            *, leaves_files_out: bool = False) -> GateResult:
    """Every regression and note of this run against the baseline.

    `versions` are this run's package versions. `leaves_files_out` says the run skipped files under its
    paths on purpose (--lf, --ignore): a law not collected there is then a note, not a regression.
    """
    result = GateResult()
    for name in sorted(set(baseline.versions) & set(versions or {})):
        if baseline.versions[name] != versions[name]:
            result.notes.append(Finding("version", "environment",
                                        f"{name} {baseline.versions[name]} in the baseline, {versions[name]} now"))
    if not baseline.laws and run.records:
        result.regressions.append(Finding("empty-baseline", "baseline", "the baseline holds no law, this run has "
                                          f"{len(run.records)}; save a baseline from a run of the laws"))
    moved = moves(baseline.laws, run.records)
    for nodeid in sorted(baseline.laws):
        base = baseline.laws[nodeid]
        now = run.records.get(nodeid) or run.records.get(moved.get(nodeid, ""))
        if now is None:
            _absent_law(base, run, result, leaves_files_out or run.leaves_files_out or run.collect_errors > 0)
            continue
        if now.nodeid != nodeid:
            result.notes.append(Finding("moved", now.nodeid, f"law {now.identity} moved here from {nodeid}"))
        _compare_law(base, now, result)
    for nodeid in sorted(set(run.records) - set(baseline.laws) - set(moved.values())):
        result.notes.append(Finding("new-law", nodeid, "new law, not in the baseline"))
    return result


def moves(base: dict[str, LawRecord], now: dict[str, LawRecord]) -> dict[str, str]:
    """Baseline nodeid -> this run's nodeid, for laws whose identity is now at another nodeid."""
    by_identity = {r.identity: r.nodeid for r in now.values() if r.identity}
    out = {}
    for nodeid, rec in base.items():
        other = by_identity.get(rec.identity) if rec.identity else None
        if other and other != nodeid and nodeid not in now and other not in base:
            out[nodeid] = other
    return out


def _absent_law(base: LawRecord, run: LawSession, result: GateResult, lenient: bool) -> None:
    nodeid = base.nodeid
    if nodeid in run.deselected:
        return
    if nodeid in run.collected:
        result.notes.append(Finding("not-run", nodeid, "collected but did not run (not gated)"))
        return
    module = next((m for m in run.skipped_modules if covers([m], nodeid)), None)
    if module is not None:
        result.notes.append(Finding("skipped", nodeid, f"its module was skipped at collection "
                                    f"({run.skipped_modules[module]}): not gated"))
    elif covers(run.collect_args, nodeid):
        if lenient:
            result.notes.append(Finding("not-collected", nodeid, "not collected by this run, which leaves files "
                                        "out (--lf, --ignore) or failed to collect some: not gated"))
        else:
            result.regressions.append(Finding("not-collected", nodeid, "in the baseline but no longer collected"))


def _compare_law(base: LawRecord, now: LawRecord, result: GateResult) -> None:
    nodeid = now.nodeid
    if now.outcome == "skipped":
        if base.outcome != "skipped":
            result.notes.append(Finding("skipped", nodeid, f"skipped now, {base.outcome} in the baseline (not gated)"))
        return
    if base.known_gap is None and base.outcome == "passed" and now.known_gap is not None:
        result.regressions.append(Finding(
            "new-gap", nodeid, f"passed in the baseline, now a known gap ({now.known_gap}); "
            "re-save the baseline if the gap is meant"))
        return
    if base.known_gap is not None and (now.outcome == "xpassed" or (now.known_gap is None and now.outcome == "passed")):
        result.notes.append(Finding("gap-closed", nodeid, f"known gap {base.known_gap} closed"))
    same_examples = base.examples == now.examples
    if not same_examples and base.examples and now.examples:
        result.notes.append(Finding("examples", nodeid, f"other Hypothesis examples than the baseline's "
                                    f"({now.examples['count']} now, {base.examples['count']} then): worst values "
                                    "not compared; a derandomized profile runs the same ones"))
    checks = {c.quantity: c for c in now.checks}
    for old in base.checks:
        new = checks.get(old.quantity)
        if new is None:
            hypothesis = base.examples is not None or now.examples is not None
            finding = Finding("missing-quantity", nodeid, f"ran ({now.outcome}) without checking {old.quantity!r}"
                              + (": a Hypothesis law, whose examples need not all check it" if hypothesis else ""),
                              old.quantity)
            (result.notes if hypothesis else result.regressions).append(finding)
        else:
            _compare_check(nodeid, old, new, result, compare_values=same_examples)
    known = {c.quantity for c in base.checks}
    for c in now.checks:
        if c.quantity not in known:
            result.notes.append(Finding("new-quantity", nodeid, "new quantity, not in the baseline", c.quantity))


def _compare_check(nodeid: str, old: CheckRecord, new: CheckRecord, result: GateResult, *,
                   compare_values: bool = True) -> None:
    q = new.quantity
    texts = dict(old=old.value_text(), new=new.value_text(), change=change_text(old.value, new.value),
                 tolerance=new.drift_text(), why=new.why or "")
    if old.bound != new.bound:
        result.notes.append(Finding("bound-changed", nodeid, f"bound changed: {old.bound} -> {new.bound}", q))
    if old.passed and not new.passed:
        result.regressions.append(Finding(
            "now-failing", nodeid, f"passed in the baseline ({texts['old']}), fails now ({texts['new']}, "
            f"bound {new.bound})", q, **texts))
        return
    if not old.passed and new.passed:
        result.notes.append(Finding("now-passing", nodeid, f"failed in the baseline, passes now ({texts['new']})",
                                    q, **texts))
    if new.drift is None or not compare_values:
        return
    moved, allowed = value_move(old, new)
    if moved > allowed:
        result.regressions.append(Finding(
            "drift", nodeid, f"value {texts['old']} -> {texts['new']} ({texts['change']}) moved more than its "
            f"drift ({texts['tolerance']}: {_num(allowed)} here)", q, **texts))
    elif moved > MOVE_NOTE_FRACTION * allowed and moved > 0:
        result.notes.append(Finding(
            "moved-within", nodeid, f"value {texts['old']} -> {texts['new']} ({texts['change']}) within its drift "
            f"({texts['tolerance']})", q, **texts))


def value_move(old: CheckRecord, new: CheckRecord) -> tuple[float, float]:
    """(how far the value moved, how far it may move) under the new check's drift.

    A value may move by `drift` times its baseline value; two values both within the check's zero
    (`drift_abs`) are round-off to the law and may move anywhere inside it (allowed: inf). The zero
    is not a floor added to every tolerance: a floor of 1e-3 under a value of 0.047 would make a
    stated 1 % an effective 2.1 %. Two non-finite values of one kind (NaN and NaN, inf and inf) did not
    move; a value that turned non-finite or finite again, or from inf to -inf, moved without limit.
    """
    a, b = old.value, new.value
    if not (math.isfinite(a) and math.isfinite(b)):
        same = (math.isnan(a) and math.isnan(b)) or a == b
        return (0.0 if same else math.inf), 0.0
    if abs(a) <= new.drift_abs and abs(b) <= new.drift_abs:
        return abs(b - a), math.inf
    return abs(b - a), (new.drift or 0.0) * abs(a)


def change_text(a: float, b: float) -> str:
    """How a value changed, for people: "+12.3%", "-4.1e-09", "NaN -> 1"."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return "same" if (a == b or (math.isnan(a) and math.isnan(b))) else f"{a:g} -> {b:g}"
    if a == b:
        return "none"
    if a != 0:
        return f"{100 * (b - a) / abs(a):+.3g}%"
    return f"{b - a:+.3g}"


def _num(x: float) -> str:
    return f"{x:.3g}"
