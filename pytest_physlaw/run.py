"""One pytest run as the plugin lives it: collection, the xdist transport, the start and the end.

As syrupy's `SnapshotSession` does, a `LawRun` is registered once per config as a plugin object:
the hooks that need the run are its methods (collect reports, log reports, xdist's node-down) and
the module-level hooks of plugin.py delegate to it in one line. It owns the run's `LawSession` (the
data that the gate, the report and the tables read), knows once whether it runs in an xdist worker,
and its `finish` alone decides the exit status; `outputs` only writes files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw import environment, files, gaps, gate, junit, options, outputs, report, reportfile, spec, table
from pytest_physlaw.record import LawRecord
from pytest_physlaw.rows import plural
from pytest_physlaw.scope import collect_args, leaves_files_out, relative, whole_run
from pytest_physlaw.session import LawSession, law_session

REPORT_ATTR = "physlaw_record"  # the teardown report's attribute that carries the finished record
WORKER_KEY = "physlaw"  # xdist's workeroutput key of a worker's collection

_RUN = pytest.StashKey["LawRun"]()


class LawRun:
    """The plugin's side of one pytest session (see the module docstring)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.state = law_session(config)
        self.worker = hasattr(config, "workerinput")
        self.baseline: gate.Baseline | None = None
        self.saved: dict[str, Any] | None = None  # the existing baseline a save merges into
        self.catalogue: dict[str, spec.Section] | None = None  # the existing catalogue --law-spec merges into
        self.gate: gate.GateResult | None = None
        self.save_lines: list[str] = []  # what the baseline and catalogue merges did

    @classmethod
    def register(cls, config: pytest.Config) -> LawRun:
        run = config.stash[_RUN] = cls(config)
        config.pluginmanager.register(run, f"physlaw-run-{id(config)}")
        return run

    @staticmethod
    def of(config: pytest.Config) -> LawRun:
        return config.stash[_RUN]

    # -- collection ------------------------------------------------------------------------------

    def collected(self, record: LawRecord) -> None:
        self.state.collected[record.nodeid] = record

    def deselected(self, nodeids: list[str]) -> None:
        self.state.deselected.update(nodeids)

    def identity_clashes(self, owners: dict[str, list[str]]) -> None:
        """Two laws with one identity (law id and case) are a collection error naming both."""
        for identity, nodeids in sorted(owners.items()):
            if len(nodeids) > 1:
                message = (f"law id {identity!r} is given to {len(nodeids)} tests: {', '.join(nodeids)}; a law id "
                           "and case name one law (the baseline finds a law by them), give each its own id")
                report = pytest.CollectReport(nodeids[1].partition("::")[0], "failed", message, [])
                self.config.hook.pytest_collectreport(report=report)

    def collection_finished(self, session: pytest.Session) -> None:
        """What this run collects from, and the known-gap pages it orphans or misnames."""
        config, state = self.config, self.state
        state.collect_args = collect_args(config)
        for nodeid, rec in sorted(state.collected.items()):
            if rec.known_gap:
                state.gap_pages.setdefault(rec.known_gap, []).append(nodeid)
        kept = {page: [(n, state.collected[n].path) for n in ids] for page, ids in state.gap_pages.items()}
        item_files = {p for p in (relative(item.path, config.rootpath) for item in session.items) if p}
        state.problems.extend(gaps.page_problems(
            Path(config.rootpath), options.gap_dir(config), kept,
            collected_files={r.path for r in state.collected.values()} | item_files,
            args=state.collect_args, whole=whole_run(config, state.collect_args),
            judge_orphans=not state.collect_errors, skipped_files=state.skipped_modules,
        ))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.state.collect_errors += 1
        elif report.skipped and report.nodeid.endswith(".py"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.state.skipped_modules[report.nodeid] = str(reason).removeprefix("Skipped: ")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Serial run and xdist controller alike: the teardown report carries the finished record."""
        data = getattr(report, REPORT_ATTR, None)
        if data is not None:
            record = LawRecord.from_json(data)
            self.state.records[record.nodeid] = record

    # -- the xdist transport ---------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist controller: merge what a worker collected (records come with the reports)."""
        data = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if data is not None:
            self.merge_worker(data)

    def worker_payload(self) -> dict[str, Any]:
        state = self.state
        return {
            "collected": [r.to_json() for _, r in sorted(state.collected.items())],
            "deselected": sorted(state.deselected),
            "collect_args": list(state.collect_args),
            "gap_pages": {k: list(v) for k, v in sorted(state.gap_pages.items())},
            "problems": list(state.problems),
            "environment": dict(state.environment),
            "skipped_modules": dict(state.skipped_modules),
        }

    def merge_worker(self, data: dict[str, Any]) -> None:
        """Every worker collects the same suite: the union of theirs is the controller's collection."""
        state = self.state
        for d in data["collected"]:
            state.collected.setdefault(d["nodeid"], LawRecord.from_json(d))
        state.deselected.update(data["deselected"])
        if not state.collect_args:
            state.collect_args = list(data["collect_args"])
        for page, ids in data["gap_pages"].items():
            have = state.gap_pages.setdefault(page, [])
            have.extend(i for i in ids if i not in have)
        state.problems.extend(p for p in data["problems"] if p not in state.problems)
        for key, value in data.get("environment", {}).items():
            state.environment.setdefault(key, value)
        state.skipped_modules.update(data.get("skipped_modules", {}))

    # -- start and finish ------------------------------------------------------------------------

    def start(self) -> None:
        """Check the output paths and read the baselines: a bad one is a usage error before any test."""
        if self.worker:
            return
        outputs.check_paths(self.config)
        path = outputs.cli_path(self.config, "law_baseline")
        if path is not None:
            self.baseline = _load_baseline(path, f"--law-baseline {self.config.getoption('law_baseline')}")
        save = outputs.cli_path(self.config, "law_save_baseline")
        if save is not None and files.target(save).exists():
            where = (f"--law-save-baseline {self.config.getoption('law_save_baseline')} (the existing baseline a "
                     "save merges into); move it away to start a new one")
            self.saved = _read(save, where)
        catalogue = outputs.cli_path(self.config, "law_spec")
        if catalogue is not None:
            try:
                self.catalogue = spec.read_catalogue(files.target(catalogue))
            except spec.CatalogueError as exc:
                raise pytest.UsageError(f"--law-spec {self.config.getoption('law_spec')} (the existing catalogue a "
                                        f"run merges into): {exc}; move it away to start a new one") from None

    def finish(self, session: pytest.Session) -> None:
        """A worker ships its collection; the controller gates, writes, and sets the exit status once."""
        config, state = self.config, self.state
        state.leaves_files_out = leaves_files_out(config)
        environment.gather(config, state)
        if self.worker:
            config.workeroutput[WORKER_KEY] = self.worker_payload()
            return
        state.incomplete = incompleteness(session, state)
        names = config.getini("physlaw_versions")
        if self.baseline is not None and state.incomplete is None:
            self.gate = gate.compare(self.baseline, state, report.run_versions(names))
            state.regressions = [str(f) for f in self.gate.regressions]
            state.notes = [str(f) for f in self.gate.notes]
        self.save_lines = outputs.write_all(config, state, self.gate, self.saved, names, self.catalogue)
        junit.write_gate(config, state, self.gate, self.baseline is not None)
        if (state.regressions or state.problems) and session.exitstatus in (pytest.ExitCode.OK,
                                                                             pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def summary(self, terminalreporter: Any) -> None:
        """The law table, the save line, the problems, and their counts in pytest's last line."""
        if self.worker:
            return
        tr, state = terminalreporter, self.state
        table.write_summary(tr, state, self.gate, self.config.get_verbosity())
        for line in self.save_lines:
            tr.write_line(line)
        if state.incomplete is not None and self.baseline is not None:
            tr.write_line(f"the baseline gate did not run: this run is incomplete ({state.incomplete})", yellow=True)
        for warning in state.warnings:
            tr.write_line(f"physlaw warning: {warning}", yellow=True)
        if state.problems:
            tr.write_sep("=", "physics law problems", red=True, bold=True)
            for problem in state.problems:
                tr.write_line(problem, red=True)
        for key, items in (("law regression", self.gate.regressions if self.gate else []), ("law problem", state.problems)):
            if items:
                tr.stats.setdefault(key if len(items) == 1 else key + "s", []).extend(items)


def _read(path: Path, where: str) -> dict[str, Any]:
    try:
        return reportfile.read(path, where)
    except reportfile.ReportError as exc:
        raise pytest.UsageError(str(exc)) from None


def _load_baseline(path: Path, where: str) -> gate.Baseline:
    """A saved report as a baseline; a defect, or the report of an incomplete run, is a UsageError."""
    data = _read(path, where)
    try:
        reportfile.require_complete(data, where)
    except reportfile.ReportError as exc:
        raise pytest.UsageError(str(exc)) from None
    return gate.Baseline.from_report(data)


def incompleteness(session: pytest.Session, state: LawSession) -> str | None:
    """Why this run's records are not all it selected, or None."""
    if session.config.getoption("collectonly", False):
        return "collect-only run (--collect-only)"
    if session.exitstatus == pytest.ExitCode.INTERRUPTED and not state.collect_errors:
        return "interrupted"
    if state.collect_errors:
        return plural(state.collect_errors, "collection error")
    missing = state.not_run()
    if missing:
        stop = f"stopped early ({session.shouldfail})" if session.shouldfail else "some selected laws did not run"
        return f"{stop}: {plural(len(missing), 'law')} without a result, first {missing[0]}"
    return None
