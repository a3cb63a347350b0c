"""The files a run writes: the JSON report, the saved baseline, the Markdown table, the catalogue.

`check_paths` refuses a bad output path at the start (a folder, a device, a FIFO, a path under a
file, an empty name: usage errors naming the option). `write_all` writes at the end; a write that
still fails is a session problem naming the option, never a traceback, and the default report
(asked for by no option) only warns. An incomplete run writes no baseline. What to write is decided
by `run.LawRun`; this module only writes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_physlaw import files, markdown, report, spec
from pytest_physlaw.gate import GateResult
from pytest_physlaw.session import LawSession

# option dest -> its flag, for the messages
OUTPUTS = {"law_report": "--law-report", "law_save_baseline": "--law-save-baseline",
           "law_markdown": "--law-markdown", "law_spec": "--law-spec"}


def cli_path(config: pytest.Config, option: str) -> Path | None:
    """A path option, relative to where pytest was invoked; an empty one is a usage error."""
    value = config.getoption(option, None)
    if value is None:
        return None
    if not str(value).strip():
        raise pytest.UsageError(f"{OUTPUTS.get(option, option)}: empty path")
    return config.invocation_params.dir / value


def report_path(config: pytest.Config) -> Path:
    """--law-report, else ini physlaw_report relative to the rootdir."""
    return cli_path(config, "law_report") or config.rootpath / str(config.getini("physlaw_report"))


def check_paths(config: pytest.Config) -> None:
    """Every output option names a path a file can be written at, or a UsageError says why not."""
    for option, flag in OUTPUTS.items():
        path = cli_path(config, option)
        problem = files.output_problem(path) if path is not None else None
        if problem:
            raise pytest.UsageError(f"{flag} {config.getoption(option)}: {problem}")


def write_all(config: pytest.Config, run: LawSession, result: GateResult | None, saved: dict[str, Any] | None,
              versions: list[str], catalogue: dict[str, spec.Section] | None = None) -> list[str]:
    """Write every output this run asked for; return the summary lines of the merges (baseline, catalogue).

    `saved` is the baseline and `catalogue` the law catalogue already at their paths (read at the start)."""
    data = report.build_report(run, versions)
    explicit = config.getoption("law_report", None) is not None
    if explicit or run.records:
        _write(run, report_path(config), lambda p: report.write_json(p, data),
               "--law-report" if explicit else "the default report (ini physlaw_report)", soft=not explicit)
    line = _save_baseline(config, run, data, saved)
    md = cli_path(config, "law_markdown")
    if md is not None:
        _write(run, md, lambda p: markdown.write_markdown(p, run, result), "--law-markdown")
    lines = [line] if line else []
    path = cli_path(config, "law_spec")
    if path is not None:
        text, summary = spec.merge(run, config.rootpath, catalogue)
        if _write(run, path, lambda p: files.write_text(p, text), "--law-spec"):
            lines.append(summary.line(str(config.getoption("law_spec"))))
    return lines


def _save_baseline(config: pytest.Config, run: LawSession, data: dict[str, Any],
                   saved: dict[str, Any] | None) -> str | None:
    save = cli_path(config, "law_save_baseline")
    if save is None:
        return None
    flag = f"--law-save-baseline {config.getoption('law_save_baseline')}"
    if run.incomplete is not None:
        run.problems.append(f"{flag}: not written, this run is incomplete ({run.incomplete}); "
                            "the baseline is as it was")
        return None
    merged, summary = report.merge_baseline(saved, run, data["environment"])
    if _write(run, save, lambda p: report.write_json(p, merged), flag):
        return summary.line(str(config.getoption("law_save_baseline")))
    return None


def _write(run: LawSession, path: Path, write: Callable[[Path], Any], what: str, *, soft: bool = False) -> bool:
    """Run `write(path)`; a failure is a session problem naming `what` (a warning when soft)."""
    try:
        write(path)
        return True
    except OSError as exc:
        (run.warnings if soft else run.problems).append(f"{what}: could not write {path}: {exc.strerror or exc}")
        return False
