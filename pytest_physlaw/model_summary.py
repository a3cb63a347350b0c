"""The per-model summary of a model law pack run: for each model file, how its laws ended, what they
found and how long its tests took; then the files of the folders given that are no model.

A folder of robot descriptions is checked as one run, and the law table is a row per check: a model
author needs the verdict per file. `ModelSummary` is registered by the plugin whenever a model path is
given (no MuJoCo import: a folder of include fragments alone runs no pack). It fills the run's
`LawSession.models` from the folder scan and the collect reports (a `<mujoco>` file found in a folder
that MuJoCo cannot compile is a skipped collector: the skip reaches the xdist controller with its
reason), and `model_seconds` from the test reports (setup, call and teardown durations, summed per
model file; under xdist the reports carry them to the controller). The summary is printed after the
law table, and `markdown` and `html_report` render the same rows; the report keeps the files and their
status under `run.models` (not the times: a report of an unchanged run keeps its bytes).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw.model_files import ModelPaths
from pytest_physlaw.record import LawRecord
from pytest_physlaw.reportfile import MODEL_STATUSES
from pytest_physlaw.rows import plural
from pytest_physlaw.session import LawSession, law_session
from pytest_physlaw.table import align

MODEL, NOT_A_MODEL, COLLECTION_ERROR = MODEL_STATUSES
COVERAGE_PROPERTY = "physlaw_coverage"  # the test report's user property that carries what a model's runs covered
HEADER = ("model", "laws", "passed", "failed", "skipped", "xfailed", "time")
BUCKETS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "crashed": "failed", "error": "failed",
           "skipped": "skipped", "xfailed": "xfailed"}


def rel_path(path: Path, rootpath: Path) -> str:
    """A model file's nodeid: its path relative to the rootdir (`..` outside it), posix."""
    return Path(os.path.relpath(path, rootpath)).as_posix()


class ModelSummary:
    """Plugin object: the run's model files and their status, the time each model's tests took, and
    the summary in the terminal."""

    def __init__(self, config: pytest.Config, paths: ModelPaths) -> None:
        self.config = config
        self.state = law_session(config)
        for path in paths.files:
            self.state.models[rel_path(path, config.rootpath)] = {"status": MODEL}
        for path, why in paths.left_out.items():
            self.state.models[rel_path(path, config.rootpath)] = {"status": NOT_A_MODEL, "why": why}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        entry = self.state.models.get(report.nodeid)
        if entry is None or report.passed:
            return
        if report.skipped:
            entry.update(status=NOT_A_MODEL, why=skip_reason(report.longrepr).removeprefix("not a model: "))
        else:
            entry.update(status=COLLECTION_ERROR, why=first_line(str(report.longrepr), report.nodeid))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = report.nodeid.partition("::")[0]
        if path in self.state.models:
            seconds = self.state.model_seconds
            seconds[path] = seconds.get(path, 0.0) + float(report.duration or 0.0)
            for name, value in report.user_properties:
                if name == COVERAGE_PROPERTY and isinstance(value, dict):
                    self.state.models[path]["coverage"] = value

    @pytest.hookimpl(trylast=True)  # after the law table
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not hasattr(self.config, "workerinput"):
            write_summary(terminalreporter, self.state, self.config.get_verbosity())


def skip_reason(longrepr: Any) -> str:
    """The reason of a skipped collector's report: (path, line, reason), a list once it crossed xdist."""
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def first_line(text: str, path: str) -> str:
    """A collection error's first paragraph on one line, without the model path it starts with: MuJoCo's
    compile errors put the element and the line at fault on a line of their own ("Element 'composite', line
    24"), which the reader needs."""
    lines = [s.strip().removeprefix("E ").strip() for s in text.strip().splitlines()]
    paragraph = lines[: lines.index("")] if "" in lines else lines
    return "; ".join(s for s in paragraph if s).removeprefix(f"{path}: ")


@dataclass
class ModelRow:
    """One model file: its laws by outcome (pytest's words), what failed, what was accepted, its time."""

    path: str
    outcomes: Counter = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    follows: list[str] = field(default_factory=list)  # failures that follow from another finding
    seconds: float | None = None
    coverage: dict[str, Any] | None = None  # what its runs covered (`pytest_physlaw.pack.coverage`)

    def findings(self) -> list[tuple[str, str]]:
        """(kind, finding) below the row: what failed, what follows from another finding, what was accepted."""
        return ([("failed", f) for f in self.failed] + [("follows", f) for f in self.follows]
                + [("accepted", f) for f in self.accepted])

    def cells(self) -> tuple[str, ...]:
        counts = [str(self.outcomes[k]) for k in ("passed", "failed", "skipped", "xfailed")]
        time = "-" if self.seconds is None else f"{self.seconds:.1f} s"
        return (self.path, str(sum(self.outcomes.values())), *counts, time)


def model_rows(run: LawSession) -> list[ModelRow]:
    """A row per model file the pack ran (status "model"), in path order, from the run's law records."""
    rows = {path: ModelRow(path, seconds=run.model_seconds.get(path), coverage=entry.get("coverage"))
            for path, entry in sorted(run.models.items()) if entry.get("status") == MODEL}
    for record in run.sorted_records():
        row = rows.get(record.nodeid.partition("::")[0])
        if row is None:
            continue
        bucket = BUCKETS.get(record.outcome, "failed")
        row.outcomes[bucket] += 1
        if bucket == "failed":
            row.failed.append(finding(record, row.path))
        elif bucket == "xfailed" and record.follows:
            row.follows.append(f"{finding(record, row.path)} (follows from {record.follows})")
        elif bucket == "xfailed":
            row.accepted.append(finding(record, row.path))
    return list(rows.values())


def finding(record: LawRecord, path: str) -> str:
    """The law id and case (the model's path left out), then its failed quantities, or its outcome where
    no check failed (a crash, an error): "model-contact-depth: depth_over_radius"."""
    quantities = [c.quantity for c in record.checks if not c.passed]
    return f"{law_name(record, path)}: {', '.join(quantities) if quantities else record.outcome}"


def law_name(record: LawRecord, path: str) -> str:
    """The law id with its case, the model's path dropped ("model-tensor-proxy-answers[torso]")."""
    name = record.identity or record.nodeid.partition("::")[2]
    base, bracket, case = name.partition("[")
    case = case.removesuffix("]")
    if case.startswith(path):
        case = case[len(path):].lstrip(":")
    return f"{base}[{case}]" if bracket and case else base


def left_out(run: LawSession) -> list[tuple[str, str, str]]:
    """(path, status, why) of each file given or found that the pack did not run, in path order."""
    return [(path, e["status"], e.get("why", "")) for path, e in sorted(run.models.items()) if e.get("status") != MODEL]


def left_out_groups(run: LawSession) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """`left_out` under its headings: the files that are not models, then those that could not be checked
    (collection errors); a heading without files is left out."""
    out = left_out(run)
    groups = (("Left out (not models)", [e for e in out if e[1] == NOT_A_MODEL]),
              ("Not checked (errors)", [e for e in out if e[1] != NOT_A_MODEL]))
    return [(heading, entries) for heading, entries in groups if entries]


def totals(run: LawSession, rows: list[ModelRow]) -> str:
    """One line: models checked and how many with findings, files left out, the time."""
    failing = sum(1 for r in rows if r.failed)
    idle = sum(1 for r in rows if not r.outcomes)
    out = left_out(run)
    text = f"{plural(len(rows), 'model')} checked ({len(rows) - failing - idle} passed, {failing} with findings"
    text += f", {idle} with no law run)" if idle else ")"
    not_models = sum(1 for _, status, _ in out if status == NOT_A_MODEL)
    errors = len(out) - not_models
    if not_models:
        text += f"; {plural(not_models, 'file')} left out (not models)"
    if errors:
        text += f"; {plural(errors, 'collection error')}"
    seconds = [r.seconds for r in rows if r.seconds is not None]
    if seconds:
        text += f"; {sum(seconds):.1f} s in their tests"
    return text


def terminal_lines(run: LawSession, verbosity: int = 0) -> list[str]:
    """The table of models, each one's findings below its row, the totals, then the files left out
    (`-q`: their count only)."""
    rows = model_rows(run)
    lines: list[str] = []
    if rows:
        table = aligned([HEADER, *(r.cells() for r in rows)])
        lines.append(table[0])
        for row, line in zip(rows, table[1:]):
            lines.append(line)
            if row.coverage:
                lines.append(f"    {'covered':<8} {covered(row.coverage)}")
            lines += [f"    {kind:<8} {f}" for kind, f in row.findings()]
    lines.append(totals(run, rows))
    if verbosity >= 0:
        for heading, entries in left_out_groups(run):
            lines += ["", heading[0].lower() + heading[1:] + ":"]
            lines += ["  " + line for line in align([(p, w if s == NOT_A_MODEL else f"{s}: {w}") for p, s, w in entries])]
    return lines


def covered(coverage: dict[str, Any]) -> str:
    """What a model's runs covered, on one line: "joints 96 % of range, 21/21 reached a limit; tendons 85 % of range;
    actuators 21/21 at both ctrl ends; 61 geom pairs touched (47 self-contact)"."""
    parts = []
    if coverage.get("joints_limited"):
        parts.append(f"joints {100 * coverage['joint_range_share']:.0f} % of range, "
                     f"{coverage['joints_at_a_limit']}/{coverage['joints_limited']} reached a limit")
    if coverage.get("tendon_range_share") is not None:
        parts.append(f"tendons {100 * coverage['tendon_range_share']:.0f} % of range")
    if coverage.get("actuator_count"):
        text = f"actuators {coverage['actuators_at_both_ctrl_ends']}/{coverage['actuator_count']} at both ctrl ends"
        if coverage.get("actuators_force_limited"):
            text += (f", {coverage['actuators_force_saturated']}/{coverage['actuators_force_limited']} "
                     "at a force limit")
        parts.append(text)
    pairs, own = len(coverage.get("contact_pairs", [])), len(coverage.get("self_contact_pairs", []))
    parts.append(f"{plural(pairs, 'geom pair')} touched ({own} self-contact)")
    if coverage.get("mocap_swept"):
        parts.append("mocap " + ", ".join(f"{m} swept through {b}" for m, b in sorted(coverage["mocap_swept"].items())))
    if coverage.get("stopped"):
        parts.append(f"the reaching run stopped early: {coverage['stopped']}")
    return "; ".join(parts)


def aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """The table's lines: the path left-aligned, the counts and the time right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def write_summary(terminalreporter: Any, run: LawSession, verbosity: int = 0) -> None:
    """The "models" section (nothing when no model path was given)."""
    if not run.models:
        return
    terminalreporter.write_sep("=", "models")
    for line in terminal_lines(run, verbosity):
        terminalreporter.write_line(line)
