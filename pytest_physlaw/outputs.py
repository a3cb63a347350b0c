"""What a run leaves at its end: the JSON report, a saved baseline, the gate's verdict, the Markdown
table, the law catalogue and the terminal summary. The hooks in plugin.py call these three functions.

Only the controller does this work; an xdist worker (it has `config.workerinput`) only measures.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_physlaw import gate, markdown, report, spec, table
from pytest_physlaw.session import law_session

BASELINE_KEY = pytest.StashKey[gate.Baseline]()
GATE_KEY = pytest.StashKey[gate.GateResult]()


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _cli_path(config: pytest.Config, option: str) -> Path | None:
    """A path option, relative to where pytest was invoked."""
    value = config.getoption(option, None)
    return None if value is None else config.invocation_params.dir / value


def report_path(config: pytest.Config) -> Path:
    """--law-report, else ini physlaw_report relative to the rootdir."""
    return _cli_path(config, "law_report") or config.rootpath / str(config.getini("physlaw_report"))


def start(config: pytest.Config) -> None:
    """Read the baseline at the start, so that a bad one is a usage error before any test runs."""
    path = _cli_path(config, "law_baseline")
    if path is not None and not is_worker(config):
        config.stash[BASELINE_KEY] = gate.load_baseline(path)


def finish(session: pytest.Session) -> None:
    """Write the outputs, run the gate, and fail the session on its regressions or the plugin's problems."""
    config = session.config
    if is_worker(config):
        return
    run = law_session(config)
    result = None
    if BASELINE_KEY in config.stash:
        versions = report.package_versions(config.getini("physlaw_versions"))
        result = gate.compare(config.stash[BASELINE_KEY], run, versions, leaves_files_out=leaves_files_out(config))
        config.stash[GATE_KEY] = result
        run.regressions = [str(f) for f in result.regressions]
        run.notes = [str(f) for f in result.notes]
    data = None
    explicit = config.getoption("law_report", None) is not None
    if explicit or run.records:
        data = report.build_report(run, config.getini("physlaw_versions"))
        report.write_json(report_path(config), data)
    save = _cli_path(config, "law_save_baseline")
    if save is not None:
        report.write_json(save, data or report.build_report(run, config.getini("physlaw_versions")))
    md = _cli_path(config, "law_markdown")
    if md is not None:
        markdown.write_markdown(md, run, result)
    catalogue = _cli_path(config, "law_spec")
    if catalogue is not None:
        spec.write_spec(catalogue, run, config.rootpath)
    if (run.regressions or run.problems) and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def summary(terminalreporter, config: pytest.Config) -> None:
    """The "physics laws" section (and "law regressions" when the gate failed the run)."""
    if is_worker(config):
        return
    table.write_summary(terminalreporter, law_session(config), config.stash.get(GATE_KEY, None),
                        config.get_verbosity())


def leaves_files_out(config: pytest.Config) -> bool:
    """Whether this run skips files under its paths on purpose, beyond -k/-m deselection."""
    return bool(config.getoption("lf", False) or config.getoption("ignore", None)
                or config.getoption("ignore_glob", None))
