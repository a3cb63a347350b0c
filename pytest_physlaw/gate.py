"""The baseline gate: this run's laws against a saved report, as regressions and notes.

A regression fails the session; a note is information. The rules:

- a check that passed in the baseline and fails now;
- a baseline law under the paths this run collects from that is no longer collected (deselected
  laws excepted, so `-k`/`-m` raise no false alarm, and a run that leaves files out with --lf or
  --ignore only notes them), or that ran without a quantity it had (a law skipped now is a note);
- a law that passed in the baseline and is now a known gap (until the baseline is re-saved);
- a margin that moved by more than its check's `drift`, in either direction (`drift=None` exempts);
- notes: gaps that closed, margins that grew within drift, new laws and quantities, changed bounds.

"Margin moved" is the largest shift of any side's normalised headroom. For a one-sided bound that
is the change of the margin itself. For a band or a `near` check it also counts the value's move
measured in that bound's scale, so a value that crosses from one side of `near` to the other, or from
one edge of a band to the other, moves even though its smallest margin did not. A value (or margin)
that turned non-finite, or finite again, moved without limit; two non-finite ones did not move.

Everything here is a pure function of the baseline's data and the run's `LawSession`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw.record import SCHEMA_VERSION, CheckRecord, LawRecord
from pytest_physlaw.scope import covers
from pytest_physlaw.session import LawSession

# A margin that grew by more than this fraction of its drift is worth a note; smaller growth is noise.
GROWTH_NOTE_FRACTION = 0.1


@dataclass(frozen=True)
class Finding:
    """One thing the gate found. `kind` names the rule; `quantity` is None for whole-law findings."""

    kind: str
    nodeid: str
    message: str
    quantity: str | None = None

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


def load_baseline(path: str | Path) -> Baseline:
    """Read a saved report as a baseline; any defect is a `pytest.UsageError` naming the file."""
    path = Path(path)
    where = f"--law-baseline {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise pytest.UsageError(f"{where}: no such file (save one with --law-save-baseline {path})") from None
    except OSError as exc:
        raise pytest.UsageError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise pytest.UsageError(f"{where}: not JSON ({exc})") from None
    return parse_baseline(data, where)


def parse_baseline(data: Any, where: str = "baseline") -> Baseline:
    """The baseline in a report's JSON form, after checking it is a report of this schema."""
    if not isinstance(data, dict) or "schema_version" not in data:
        raise pytest.UsageError(f"{where}: not a pytest-physlaw report (no schema_version)")
    version = data["schema_version"]
    if version != SCHEMA_VERSION:
        raise pytest.UsageError(
            f"{where}: schema version {version!r}, this pytest-physlaw reads version {SCHEMA_VERSION}; "
            "re-save the baseline with --law-save-baseline"
        )
    laws = data.get("laws")
    if not isinstance(laws, list):
        raise pytest.UsageError(f"{where}: 'laws' is not a list")
    out: dict[str, LawRecord] = {}
    for i, entry in enumerate(laws):
        try:
            record = LawRecord.from_json(entry)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            name = entry.get("nodeid") if isinstance(entry, dict) else None
            which = f"law #{i}" + (f" ({name})" if isinstance(name, str) else "")
            fault = f"lacks the key {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            raise pytest.UsageError(f"{where}: {which} is malformed ({fault}); re-save the baseline "
                                    "with --law-save-baseline") from None
        out[record.nodeid] = record
    versions = (data.get("environment") or {}).get("versions") or {}
    return Baseline(out, dict(versions) if isinstance(versions, dict) else {})


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
    for nodeid in sorted(baseline.laws):
        base = baseline.laws[nodeid]
        now = run.records.get(nodeid)
        if now is None:
            _absent_law(base, run, result, leaves_files_out)
        else:
            _compare_law(base, now, result)
    for nodeid in sorted(set(run.records) - set(baseline.laws)):
        result.notes.append(Finding("new-law", nodeid, "new law, not in the baseline"))
    return result


def _absent_law(base: LawRecord, run: LawSession, result: GateResult, leaves_files_out: bool) -> None:
    nodeid = base.nodeid
    if nodeid in run.deselected:
        return
    if nodeid in run.collected:
        result.notes.append(Finding("not-run", nodeid, "collected but did not run (not gated)"))
    elif covers(run.collect_args, nodeid):
        if leaves_files_out:
            result.notes.append(Finding("not-collected", nodeid, "not collected by this run, which leaves files "
                                        "out (--lf, --ignore): not gated"))
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
    checks = {c.quantity: c for c in now.checks}
    for old in base.checks:
        new = checks.get(old.quantity)
        if new is None:
            result.regressions.append(Finding(
                "missing-quantity", nodeid, f"ran ({now.outcome}) without checking {old.quantity!r}", old.quantity))
        else:
            _compare_check(nodeid, old, new, result)
    known = {c.quantity for c in base.checks}
    for c in now.checks:
        if c.quantity not in known:
            result.notes.append(Finding("new-quantity", nodeid, "new quantity, not in the baseline", c.quantity))


def _compare_check(nodeid: str, old: CheckRecord, new: CheckRecord, result: GateResult) -> None:
    q = new.quantity
    if old.bound != new.bound:
        result.notes.append(Finding("bound-changed", nodeid, f"bound changed: {old.bound} -> {new.bound}", q))
    if old.passed and not new.passed:
        result.regressions.append(Finding(
            "now-failing", nodeid, f"passed in the baseline ({_value(old)}, margin {_num(old.margin)}), "
            f"fails now ({_value(new)}, bound {new.bound}, margin {_num(new.margin)})", q))
        return
    if not old.passed and new.passed:
        result.notes.append(Finding("now-passing", nodeid, f"failed in the baseline, passes now ({_value(new)})", q))
    if new.drift is None:
        return
    shift = margin_shift(old, new)
    if shift > new.drift:
        cause = f", its bound changed {old.bound} -> {new.bound}" if old.bound != new.bound else ""
        result.regressions.append(Finding(
            "drift", nodeid, f"margin {_num(old.margin)} -> {_num(new.margin)} (value {_value(old)} -> "
            f"{_value(new)}{cause}) moved {_num(shift)}, more than its drift {new.drift:g}", q))
    elif new.margin - old.margin > max(GROWTH_NOTE_FRACTION * new.drift, 0.0) and shift > 0:
        result.notes.append(Finding(
            "grew", nodeid, f"margin grew {_num(old.margin)} -> {_num(new.margin)} within drift {new.drift:g}", q))


def margin_shift(old: CheckRecord, new: CheckRecord) -> float:
    """How far a check's normalised headroom moved between two records of it (see the module doc)."""
    finite_old = math.isfinite(old.value) and math.isfinite(old.margin)
    finite_new = math.isfinite(new.value) and math.isfinite(new.margin)
    if not (finite_old or finite_new):
        return 0.0
    if finite_old != finite_new:
        return math.inf
    shift = abs(new.margin - old.margin)
    if old.bounds == new.bounds:
        for scale in _side_scales(new.bounds):
            shift = max(shift, abs(new.value - old.value) / scale)
    return shift


def _side_scales(bounds: dict[str, float]) -> list[float]:
    """The scale each side's margin is normalised by, where the record shows it.

    A `near` side is scaled by its tolerance; a one-sided bound b by |b|. A bound of 0 is scaled by
    the check's `abs`, which the record does not keep, so it is left to the margin's own shift.
    """
    if "near" in bounds:
        tol = bounds.get("tol") or 0.0
        return [tol] if tol > 0 else []
    return [abs(b) for k, b in bounds.items() if k in ("le", "lt", "ge", "gt") and b]


def _num(x: float) -> str:
    return f"{x:.3g}"


def _value(c: CheckRecord) -> str:
    return c.value_text()
