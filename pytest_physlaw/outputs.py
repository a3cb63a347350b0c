"""What a run leaves at its end: the JSON report, a saved baseline, the gate's verdict, the Markdown
table, the law catalogue and the terminal summary. The hooks in plugin.py call `start`, `finish` and
`summary`.

Every output path is checked at the start (a folder, a device, a FIFO, a path under a file, an empty
name are usage errors naming the option), so a bad path stops the run before any test. A write that
still fails at the end is a session problem naming the option, never a traceback; the default report
(asked for by no option) only warns. A run that is incomplete (interrupted, collection errors,
--collect-only, stopped early) never writes a baseline, and its report says it is incomplete.
Only the controller does this work; an xdist worker (it has `config.workerinput`) only measures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw import files, gate, markdown, report, reportfile, spec, table
from pytest_physlaw.session import LawSession, law_session

BASELINE_KEY = pytest.StashKey[gate.Baseline]()
SAVED_KEY = pytest.StashKey[dict]()  # the existing baseline a save merges into
GATE_KEY = pytest.StashKey[gate.GateResult]()
SAVE_LINE_KEY = pytest.StashKey[str]()

# option dest -> its flag, for the messages
OUTPUTS = {"law_report": "--law-report", "law_save_baseline": "--law-save-baseline",
           "law_markdown": "--law-markdown", "law_spec": "--law-spec"}


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _cli_path(config: pytest.Config, option: str) -> Path | None:
    """A path option, relative to where pytest was invoked."""
    value = config.getoption(option, None)
    if value is None:
        return None
    if not str(value).strip():
        raise pytest.UsageError(f"{OUTPUTS.get(option, option)}: empty path")
    return config.invocation_params.dir / value


def report_path(config: pytest.Config) -> Path:
    """--law-report, else ini physlaw_report relative to the rootdir."""
    return _cli_path(config, "law_report") or config.rootpath / str(config.getini("physlaw_report"))


def start(config: pytest.Config) -> None:
    """Check the output paths and read the baselines at the start: a bad one is a usage error."""
    if is_worker(config):
        return
    for option, flag in OUTPUTS.items():
        path = _cli_path(config, option)
        problem = files.output_problem(path) if path is not None else None
        if problem:
            raise pytest.UsageError(f"{flag} {config.getoption(option)}: {problem}")
    path = _cli_path(config, "law_baseline")
    if path is not None:
        config.stash[BASELINE_KEY] = load_baseline(path, f"--law-baseline {config.getoption('law_baseline')}")
    save = _cli_path(config, "law_save_baseline")
    if save is not None and files.target(save).exists():
        where = f"--law-save-baseline {config.getoption('law_save_baseline')} (the existing baseline a save merges into)"
        config.stash[SAVED_KEY] = _read(save, where + "; move it away to start a new one")


def _read(path: Path, where: str) -> dict[str, Any]:
    try:
        return reportfile.read(path, where)
    except reportfile.ReportError as exc:
        raise pytest.UsageError(str(exc)) from None


def load_baseline(path: Path, where: str) -> gate.Baseline:
    """A saved report as a baseline; a defect, or the report of an incomplete run, is a UsageError."""
    data = _read(path, where)
    if not data.get("complete", True):
        raise pytest.UsageError(f"{where}: the report of an incomplete run ({data.get('incomplete', 'incomplete')}) "
                                "is no baseline; save one from a complete run with --law-save-baseline")
    return gate.Baseline(reportfile.laws(data), reportfile.versions(data))


def finish(session: pytest.Session) -> None:
    """Write the outputs, run the gate, and fail the session on its regressions or the plugin's problems."""
    config = session.config
    if is_worker(config):
        return
    run = law_session(config)
    run.incomplete = incompleteness(session, run)
    result = None
    names = config.getini("physlaw_versions")
    if BASELINE_KEY in config.stash and run.incomplete is None:
        result = gate.compare(config.stash[BASELINE_KEY], run, report.package_versions(names))
        config.stash[GATE_KEY] = result
        run.regressions = [str(f) for f in result.regressions]
        run.notes = [str(f) for f in result.notes]
    data = report.build_report(run, names)
    explicit = config.getoption("law_report", None) is not None
    if explicit or run.records:
        _write(run, report_path(config), lambda p: report.write_json(p, data),
               "--law-report" if explicit else "the default report (ini physlaw_report)", soft=not explicit)
    _save_baseline(config, run, data)
    md = _cli_path(config, "law_markdown")
    if md is not None:
        _write(run, md, lambda p: markdown.write_markdown(p, run, result), "--law-markdown")
    catalogue = _cli_path(config, "law_spec")
    if catalogue is not None:
        _write(run, catalogue, lambda p: spec.write_spec(p, run, config.rootpath), "--law-spec")
    if (run.regressions or run.problems) and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _save_baseline(config: pytest.Config, run: LawSession, data: dict[str, Any]) -> None:
    save = _cli_path(config, "law_save_baseline")
    if save is None:
        return
    flag = f"--law-save-baseline {config.getoption('law_save_baseline')}"
    if run.incomplete is not None:
        run.problems.append(f"{flag}: not written, this run is incomplete ({run.incomplete}); "
                            "the baseline is as it was")
        return
    merged, summary = report.merge_baseline(config.stash.get(SAVED_KEY, None), run, data["environment"])
    if _write(run, save, lambda p: report.write_json(p, merged), flag):
        config.stash[SAVE_LINE_KEY] = summary.line(str(config.getoption("law_save_baseline")))


def _write(run: LawSession, path: Path, write: Any, what: str, *, soft: bool = False) -> bool:
    """Run `write(path)`; a failure is a session problem naming `what` (a warning line when soft)."""
    try:
        write(path)
        return True
    except OSError as exc:
        message = f"{what}: could not write {path}: {exc.strerror or exc}"
        if soft:
            run.warnings.append(message)
        else:
            run.problems.append(message)
        return False


def incompleteness(session: pytest.Session, run: LawSession) -> str | None:
    """Why this run's records are not all it selected, or None."""
    config = session.config
    if config.getoption("collectonly", False):
        return "collect-only run (--collect-only)"
    if session.exitstatus == pytest.ExitCode.INTERRUPTED and not run.collect_errors:
        return "interrupted"
    if run.collect_errors:
        return f"{table.plural(run.collect_errors, 'collection error')}"
    missing = run.not_run()
    if missing:
        stop = f"stopped early ({session.shouldfail})" if session.shouldfail else "some selected laws did not run"
        return f"{stop}: {table.plural(len(missing), 'law')} without a result, first {missing[0]}"
    return None


def summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The "physics laws" section, "law regressions" when the gate failed the run, the problems, and
    their counts in pytest's last line."""
    if is_worker(config):
        return
    run = law_session(config)
    result = config.stash.get(GATE_KEY, None)
    table.write_summary(terminalreporter, run, result, config.get_verbosity())
    tr = terminalreporter
    if SAVE_LINE_KEY in config.stash:
        tr.write_line(config.stash[SAVE_LINE_KEY])
    if run.incomplete is not None and (BASELINE_KEY in config.stash):
        tr.write_line(f"the baseline gate did not run: this run is incomplete ({run.incomplete})", yellow=True)
    for warning in run.warnings:
        tr.write_line(f"physlaw warning: {warning}", yellow=True)
    if run.problems:
        tr.write_sep("=", "physics law problems", red=True, bold=True)
        for problem in run.problems:
            tr.write_line(problem, red=True)
    for key, items in (("law regression", result.regressions if result else []), ("law problem", run.problems)):
        if items:
            tr.stats.setdefault(key if len(items) == 1 else key + "s", []).extend(items)
