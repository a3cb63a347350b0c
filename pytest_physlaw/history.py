"""`pytest-physlaw history`: each law's value and bounds across saved reports, as asv keeps runs.

The reports are read in the order given, one per commit (the recipe names them NN-SHA.json so that
a shell glob gives that order). A check *stepped* where the gate, run on a report against the one
before it (`gate.compare`), finds it moved beyond its drift or fail where it had passed: the gate's
own rule, so the history marks what a pull request's gate would have failed.

A series is one quantity of one law, the law found by its explicit identity where it has one (a
renamed test keeps its history), else by its nodeid. A file that is no pytest-physlaw report (no
such file, not JSON, no schema) is an error; a pytest-physlaw report this version cannot read (an
older schema, a field it rejects) is skipped and named, as a commit whose build failed is in asv.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_physlaw import files, gate, markdown, reportfile
from pytest_physlaw.record import CheckRecord, LawRecord
from pytest_physlaw.rows import plural
from pytest_physlaw.session import LawSession

# The gate's findings that mark a step: a value beyond its drift, a check that failed where it passed.
STEP_KINDS = ("drift", "now-failing")
# The gate's note of a value that moved by more than a tenth of its drift, but within it.
MOVED_KIND = "moved-within"
# The gate's note of a Hypothesis law that drew other examples: its worst values are not compared.
EXAMPLES_KIND = "examples"
OUTPUT_SUFFIXES = (".md", ".png", ".svg", ".pdf")


class HistoryError(ValueError):
    """A bad argument or file: the message is printed, exit status 2."""


@dataclass(frozen=True)
class Point:
    """One check in one report; `step` is the gate's message where it stepped from the report before,
    `moved` whether the gate noted a move within its drift there, `uncompared` whether the gate could
    not compare it (a Hypothesis law that drew other examples)."""

    check: CheckRecord
    outcome: str
    step: str | None = None
    change: str = ""
    moved: bool = False
    uncompared: bool = False


@dataclass
class Series:
    """One quantity of one law across the reports: a point per report, None where it is absent."""

    key: tuple[str, str]
    nodeid: str
    quantity: str
    points: list[Point | None]

    @property
    def steps(self) -> list[int]:
        return [i for i, p in enumerate(self.points) if p is not None and p.step]

    @property
    def moves(self) -> int:
        """How many times the gate noted a move within drift: the next thing to look at after steps."""
        return sum(1 for p in self.points if p is not None and p.moved)

    @property
    def unjudged(self) -> int:
        """How many times the value changed where the gate could not compare it (other examples)."""
        return sum(1 for p in self.points if p is not None and p.uncompared and p.change not in ("", "none", "same"))

    @property
    def exempt(self) -> bool:
        """Whether the gate leaves its value alone (drift=None, a timing ratio) in the latest report."""
        return next(p.check.drift for p in reversed(self.points) if p is not None) is None

    @property
    def title(self) -> str:
        """Its short name: the law's identity ("slope-creep[PGS-20]"), else the test's name."""
        name = self.key[0] if self.key[0] != self.nodeid else self.nodeid.split("::", 1)[-1]
        return name.removesuffix("[]")

    @property
    def unit(self) -> str:
        return next((p.check.unit for p in reversed(self.points) if p and p.check.unit), "")

    def bounds_text(self) -> str:
        """The bound, or each bound it had in turn: "<= 1 -> <= 2"."""
        seen: list[str] = []
        for p in self.points:
            if p is not None and (not seen or seen[-1] != p.check.bound):
                seen.append(p.check.bound)
        return " -> ".join(seen)

    def spread(self) -> float:
        """How far the value travelled, relative to its largest size: what orders unmarked series."""
        values = [p.check.value for p in self.points if p is not None and math.isfinite(p.check.value)]
        if len(values) < 2:
            return 0.0
        size = max(abs(v) for v in values) or 1.0
        return (max(values) - min(values)) / size


@dataclass
class History:
    """The readable reports' labels in order, each check's series, and what was skipped or noted."""

    labels: list[str]
    series: list[Series]
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    versions: list[dict[str, str | None]] = field(default_factory=list)  # each report's package versions

    def varying_versions(self) -> list[str]:
        """The packages whose version is not the same in every report (a MuJoCo upgrade)."""
        names = sorted({n for v in self.versions for n in v})
        return [n for n in names if len({v.get(n) for v in self.versions}) > 1]


def build(paths: Sequence[str], laws: Sequence[str] = ()) -> History:
    """The history of the reports at `paths`, in that order, of the laws `laws` selects (all if empty)."""
    reports, skipped = [], []
    for path in paths:
        data = _read(path, skipped)
        if data is not None:
            reports.append((path, data))
    if not reports:
        raise HistoryError(f"none of the {plural(len(paths), 'report')} can be read: " + "; ".join(skipped))
    labels = _labels([p for p, _ in reports])
    notes = [f"{label}: the report of an incomplete run ({data.get('incomplete', 'incomplete')})"
             for label, (_, data) in zip(labels, reports) if not data.get("complete", True)]
    steps = [{}] + [_steps(a, b) for (_, a), (_, b) in zip(reports, reports[1:])]
    series = _series([data for _, data in reports], steps, laws)
    if laws and not series:
        raise HistoryError(f"no law matches {', '.join(map(repr, laws))} in any report (give a law id, an "
                           "identity, a nodeid, a test file or a pattern such as 'laws/solver/*')")
    ordered = sorted(series, key=lambda s: (s.nodeid, s.quantity))
    return History(labels, ordered, skipped, notes, [reportfile.versions(data) for _, data in reports])


def _series(reports: list[dict[str, Any]], steps: list[dict[tuple[str, str], tuple[str, str]]],
            laws: Sequence[str]) -> list[Series]:
    """Every selected check's series across the reports, with the gate's steps and moves marked."""
    by_key: dict[tuple[str, str], Series] = {}
    for i, data in enumerate(reports):
        for law in data["laws"]:
            if not _selected(law, laws):
                continue
            record = LawRecord.from_json(law)
            for check in record.checks:
                key = (record.identity or record.nodeid, check.quantity)
                series = by_key.setdefault(key, Series(key, record.nodeid, check.quantity, [None] * len(reports)))
                series.nodeid = record.nodeid
                before = next((p for p in reversed(series.points[:i]) if p is not None), None)
                change = gate.change_text(before.check.value, check.value) if before else ""
                kind, message = steps[i].get((record.nodeid, check.quantity), (None, None))
                uncompared = (record.nodeid, None) in steps[i]
                series.points[i] = Point(check, record.outcome, message if kind in STEP_KINDS else None, change,
                                         kind == MOVED_KIND, uncompared)
    return list(by_key.values())


def _read(path: str, skipped: list[str]) -> dict[str, Any] | None:
    """The validated report, or None (and why in `skipped`) for a report this version cannot read."""
    try:
        return reportfile.read(path, path)
    except reportfile.ReportError as exc:
        if not _is_report(path):
            raise
        skipped.append(str(exc))
        return None


def _is_report(path: str) -> bool:
    """Whether the file is a pytest-physlaw report at all (a JSON object with a schema version)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "schema_version" in data


def _labels(paths: list[str]) -> list[str]:
    """Each report's name on the plot and in the table: its file's stem, or its path if stems repeat."""
    stems = [Path(p).stem for p in paths]
    return stems if len(set(stems)) == len(stems) else list(paths)


def _selected(law: dict[str, Any], patterns: Sequence[str]) -> bool:
    """Whether a law is one `--law` names: its law id, identity or nodeid, a test file or test function
    of its nodeid, or a shell pattern of any of these."""
    if not patterns:
        return True
    names = [n for n in (law.get("law"), law.get("identity"), law["nodeid"]) if n]
    nodeid = law["nodeid"]
    return any(any(fnmatch.fnmatchcase(n, p) for n in names) or nodeid.startswith((p + "::", p + "["))
               for p in patterns)


def _steps(old: dict[str, Any], new: dict[str, Any]) -> dict[tuple[str, str | None], tuple[str, str]]:
    """(nodeid, quantity) -> (the gate's kind, its message), for each check of `new` that stepped from
    `old` or moved within its drift; (nodeid, None) for a law whose values the gate did not compare."""
    result = gate.compare(gate.Baseline.from_report(old), LawSession.from_report(new), reportfile.versions(new))
    return {(f.nodeid, f.quantity): (f.kind, f.message) for f in result.regressions + result.notes
            if (f.kind in (*STEP_KINDS, MOVED_KIND) and f.quantity is not None) or f.kind == EXAMPLES_KIND}


def markdown_text(history: History) -> str:
    """The history as Markdown: the reports, the steps beyond drift, then every series' values."""
    n = len(history.labels)
    stepped = [(s, i) for s in history.series for i in s.steps]
    lines = [f"## Law history: {plural(n, 'report')}, {plural(len(history.series), 'check')}, "
             f"{plural(len(stepped), 'step')} beyond drift", ""]
    varying = history.varying_versions()
    lines += markdown.table(("#", "report", *varying), [
        (str(i + 1), f"`{label}`", *(history.versions[i].get(n) or "-" for n in varying))
        for i, label in enumerate(history.labels)])
    lines.append("")
    for title, items in (("Skipped", history.skipped), ("Notes", history.notes)):
        if items:
            lines += [f"### {title}", ""] + [f"- {markdown.cell(t)}" for t in items] + [""]
    if stepped:
        lines += ["### Steps beyond drift", ""]
        lines += markdown.table(("law", "quantity", "#", "old", "new", "change", "drift"), [
            (f"`{s.nodeid}`", s.quantity, str(i + 1), _before(s, i), s.points[i].check.value_text(),
             s.points[i].change, s.points[i].check.drift_text()) for s, i in stepped])
        lines.append("")
    lines += ["### Values", "", "Bold: stepped beyond its drift from the report before; x: the check failed; "
              "~: not compared by the gate (a Hypothesis law that drew other examples than the report before); "
              "-: not in that report.", ""]
    header = ("law", "quantity", "unit", "bound", *(str(i + 1) for i in range(n)))
    lines += markdown.table(header, [(f"`{s.nodeid}`", s.quantity, s.unit, s.bounds_text(),
                                      *(_cell(p) for p in s.points)) for s in history.series])
    return "\n".join(lines) + "\n"


def _before(series: Series, i: int) -> str:
    before = next((p for p in reversed(series.points[:i]) if p is not None), None)
    return before.check.value_text() if before else "-"


def _cell(point: Point | None) -> str:
    if point is None:
        return "-"
    text = f"{point.check.value:.6g}" + ("" if point.check.passed else " x") + (" ~" if point.uncompared else "")
    return f"**{text}** ({point.change})" if point.step else text


def summary_lines(history: History) -> list[str]:
    """What the command prints: the counts, what was skipped and each step beyond drift."""
    stepped = [(s, i) for s in history.series for i in s.steps]
    lines = [f"law history: {plural(len(history.labels), 'report')} ({history.labels[0]} .. {history.labels[-1]}), "
             f"{plural(len(history.series), 'check')}, {plural(len(stepped), 'step')} beyond drift"]
    uncompared = sum(1 for s in history.series for p in s.points if p is not None and p.uncompared)
    lines += [f"skipped {t}" for t in history.skipped] + [f"note: {t}" for t in history.notes]
    if uncompared:
        lines.append(f"not compared: {plural(uncompared, 'value')} of Hypothesis laws that drew other examples "
                     "than the report before (marked ~ in the Markdown table, a grey diamond on the plot)")
    lines += [f"step at {history.labels[i]}: {s.nodeid} [{s.quantity}]: {s.points[i].step}" for s, i in stepped]
    return lines


def output_kind(path: str) -> str:
    """"markdown" or "plot" by the output's suffix; anything else is a usage error."""
    suffix = Path(path).suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise HistoryError(f"{path}: the output's suffix says its format: {', '.join(OUTPUT_SUFFIXES)}")
    return "markdown" if suffix == ".md" else "plot"


def command(args: Any, out: Any) -> tuple[History, list[str]]:
    """`pytest-physlaw history REPORT... [--law ID] [-o FILE]`: the summary on `out`, the Markdown outputs
    written; returns the history and the plot outputs, which the CLI draws with `history_plot` (this
    module never imports it: the plot depends on the history, not the other way)."""
    outputs = [(path, output_kind(path)) for path in args.output or []]
    for path, _ in outputs:
        problem = files.output_problem(Path(path))
        if problem:
            raise HistoryError(f"{path}: {problem}")
    history = build(args.reports, args.law or ())
    out.write("\n".join(summary_lines(history)) + "\n")
    for path, kind in outputs:
        if kind == "markdown":
            files.write_text(path, markdown_text(history))
            out.write(f"{path}: the Markdown table of {plural(len(history.series), 'check')}\n")
    return history, [path for path, kind in outputs if kind == "plot"]
