"""`pytest-physlaw`: the gate, the law table and sharded CI on saved reports, and the model check-up.

  pytest-physlaw compare OLD.json NEW.json [--markdown PATH]   the gate's rules; exit 1 on regressions
  pytest-physlaw show REPORT.json [-q | -v]                     the law table of a saved report
  pytest-physlaw merge A.json B.json ... -o ALL.json            shards of one run as one report
  pytest-physlaw history R1.json R2.json ... [--law ID] [-o F]  each law's values across reports (history.py)
  pytest-physlaw new-gap PAGE --test NODEID                     a known-gap page to fill in (new_gap.py)
  pytest-physlaw check PATH... [pytest options]                 the model law pack alone, on MJCF files/folders
  pytest-physlaw upgrade --from SET --to SET PATH... [-- opts]  the pack on two version sets, gated (upgrade.py)
  pytest-physlaw advise MODEL... [--tol Q=B] [--json F] [--plot F]  the cheapest settings that keep the physics

Exit status: 0 fine, 1 regressions (compare), 2 a bad file or bad arguments (a message, never a
traceback); `check` exits as pytest does (see CHECK_EPILOG). Also `python -m pytest_physlaw`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pytest_physlaw import files, gaps, gate, history, model_summary, new_gap, report, reportfile, table, upgrade
from pytest_physlaw.findings import findings_markdown, render_findings
from pytest_physlaw.record import LawRecord
from pytest_physlaw.rows import plural
from pytest_physlaw.session import LawSession


CHECK_EPILOG = """\
Runs pytest in this process on the models alone: the folders' MJCF files, recursively, not the
project's tests nor its testpaths; the project's ini (found from the current folder: physlaw_model_accept,
physlaw_model_keyframe, the horizon...) applies. Without PATH, the models of ini physlaw_models;
with PATH, those alone. The pytest options (-k, -q/-v, -n 2, --law-baseline=, --law-save-baseline=,
--law-report=, --law-markdown=, ...) follow the paths; write a path option with "=".

exit status (pytest's):
  0  every model passed (skipped laws and accepted findings included)
  1  a finding: a law failed, or the gate failed against --law-baseline (or a law session problem)
  2  a model given by name did not compile or lacks the ini keyframe (a collection error stops the run)
  3  an internal error
  4  usage: no such path, a folder without .xml files, a bad option or ini value, no PATH and no ini models
  5  no model: the folders hold only include fragments and files that do not compile on their own
"""
CHECK_USAGE = "pytest-physlaw check [PATH ...] [pytest options]"


class CommandError(Exception):
    """A bad file or argument: the message is printed, exit status 2."""


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["check"]:  # its pytest options are pytest's to parse, not argparse's
        return check_command(argv[1:], out)
    if argv[:1] == ["advise"]:  # its own parser, imported only here: the advise package needs MuJoCo
        return advise_command(argv[1:], out)
    parser = _parser()
    own, pytest_options = upgrade.split_options(argv) if argv[:1] == ["upgrade"] else (argv, [])
    args = parser.parse_args(own)
    if pytest_options:
        args.pytest_options = pytest_options
    try:
        return args.func(args, out)
    except (CommandError, reportfile.ReportError, history.HistoryError, new_gap.GapPageError,
            upgrade.UpgradeError) as exc:
        print(f"pytest-physlaw {args.command}: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-physlaw", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compare", help="the baseline gate on two saved reports: OLD is the baseline")
    p.add_argument("old", metavar="OLD.json")
    p.add_argument("new", metavar="NEW.json")
    p.add_argument("--markdown", metavar="PATH", help="also write the findings as Markdown to PATH")
    p.add_argument("-q", "--quiet", action="store_true", help="regressions only, no notes")
    p.set_defaults(func=compare_command)
    p = sub.add_parser("show", help="the law table of a saved report")
    p.add_argument("report", metavar="REPORT.json")
    p.add_argument("-q", "--quiet", action="store_true", help="only rows that need attention")
    p.add_argument("-v", "--verbose", action="store_true", help="every row, none folded")
    p.set_defaults(func=show_command)
    p = sub.add_parser("merge", help="merge the reports of a sharded run into one")
    p.add_argument("reports", metavar="REPORT.json", nargs="+")
    p.add_argument("-o", "--output", metavar="ALL.json", required=True)
    p.set_defaults(func=merge_command)
    p = sub.add_parser("history", help="each law's value and bounds across saved reports, in the order given")
    p.add_argument("reports", metavar="REPORT.json", nargs="+", help="reports or baselines, oldest first")
    p.add_argument("--law", action="append", metavar="ID", help="only this law: id, nodeid, file or pattern")
    p.add_argument("-o", "--output", action="append", metavar="FILE", help="FILE.png, .svg, .pdf: the plot; "
                   "FILE.md: the Markdown table (repeatable)")
    p.set_defaults(func=history_command)
    p = sub.add_parser("new-gap", help="write a known-gap page for a test to fill in")
    p.add_argument("page", metavar="PAGE", help="the page to write, e.g. docs/known_gaps/name.md")
    p.add_argument("--test", required=True, metavar="NODEID", help="the test that keeps the gap")
    p.set_defaults(func=new_gap.command)
    _check_parser(sub)
    upgrade.add_parser(sub)
    sub.add_parser("advise", help="the cheapest solver, cap, tolerance, timestep and integrator that keep a model's "
                   "physics, measured (docs/advise.md)", add_help=False)
    return parser


def history_command(args: argparse.Namespace, out: TextIO) -> int:
    """`pytest-physlaw history`: the summary and the Markdown tables from `history`, then the plots from
    `history_plot` (imported only for a plot: matplotlib)."""
    built, plots = history.command(args, out)
    if plots:
        from pytest_physlaw import history_plot

        for path in plots:
            out.write(history_plot.write(built, path) + "\n")
    return 0


def _check_parser(sub: Any) -> argparse.ArgumentParser:
    """`check`'s help (its arguments are split by `check_command`, not by argparse)."""
    p = sub.add_parser("check", help="run the model law pack alone on MJCF files and folders (pytest's exit status)",
                       usage=CHECK_USAGE, epilog=CHECK_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="The law pack's check-up of each model: the law table, then a summary per model.")
    p.add_argument("paths", metavar="PATH", nargs="*", help="an MJCF file, or a folder searched for them")
    p.add_argument("pytest_options", metavar="pytest options", nargs="*", help="passed to pytest as they are")
    return p


def check_command(argv: list[str], out: TextIO) -> int:
    """`pytest-physlaw check PATH... [pytest options]`: pytest on the models alone; pytest's exit status."""
    if argv[:1] in (["-h"], ["--help"]):
        out.write(_check_parser(argparse.ArgumentParser(prog="pytest-physlaw").add_subparsers()).format_help())
        return 0
    paths, options = split_check_args(argv)
    import pytest

    return int(pytest.main(pytest_check_args(paths, options)))


def advise_command(argv: list[str], out: TextIO) -> int:
    """`pytest-physlaw advise MODEL...` (pytest_physlaw/advise/command.py)."""
    from pytest_physlaw.advise import command

    parser = argparse.ArgumentParser(prog="pytest-physlaw")
    command.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["advise", *argv])
    try:
        return args.func(args, out)
    except command.CommandError as exc:
        print(f"pytest-physlaw advise: {exc}", file=sys.stderr)
        return 2


def split_check_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """The leading arguments are paths; from the first option on (or after "--"), pytest's."""
    i = next((k for k, a in enumerate(argv) if a.startswith("-")), len(argv))
    paths, options = argv[:i], argv[i:]
    return paths, options[1:] if options[:1] == ["--"] else options


def pytest_check_args(paths: list[str], options: list[str]) -> list[str]:
    """pytest's arguments for `check`: each path as --physlaw-model=PATH ("=": not a test path, which
    would move the rootdir), the ini's models replaced by them, and only the models collected."""
    args = [f"--physlaw-model={p}" for p in paths]
    if paths:
        args += ["-o", "physlaw_models="]
    return [*args, "--physlaw-models-only", *options]


def compare_command(args: argparse.Namespace, out: TextIO) -> int:
    old = reportfile.read(args.old, args.old)
    new = reportfile.read(args.new, args.new)
    reportfile.require_complete(old, args.old)
    reportfile.require_complete(new, args.new, "the run to gate")
    result = gate.compare(gate.Baseline.from_report(old), LawSession.from_report(new), reportfile.versions(new))
    notes = [] if args.quiet else result.notes
    out.write(render_findings(result.regressions, notes, args.old, args.new))
    if args.markdown:
        _write(args.markdown, findings_markdown(result.regressions, result.notes, args.old, args.new))
    return 1 if result.regressions else 0


def _write(path: str, text: str) -> None:
    problem = files.output_problem(Path(path))
    if problem:
        raise CommandError(f"{path}: {problem}")
    files.write_text(path, text)


def show_command(args: argparse.Namespace, out: TextIO) -> int:
    data = reportfile.read(args.report, args.report)
    run = LawSession.from_report(data)
    writer = _LineWriter(out)
    verbosity = -1 if args.quiet else (1 if args.verbose else 0)
    table.write_summary(writer, run, None, verbosity)
    model_summary.write_summary(writer, run, verbosity)
    if not run.records:
        out.write(f"{args.report}: no law\n")
    if run.incomplete:
        out.write(f"{args.report}: the report of an incomplete run ({run.incomplete})\n")
    return 0


class _LineWriter:
    """The two methods of pytest's terminal reporter that `table.write_summary` uses."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write_sep(self, sep: str, title: str, **_: Any) -> None:
        self.out.write(f"{sep * 3} {title} {sep * 3}\n")

    def write_line(self, line: str, **_: Any) -> None:
        self.out.write(line + "\n")


def merge_command(args: argparse.Namespace, out: TextIO) -> int:
    shards = [(name, reportfile.read(name, name)) for name in args.reports]
    merged = merge_reports(shards)
    _write(args.output, report.dumps(merged))
    out.write(f"{args.output}: {plural(len(merged['laws']), 'law')} from "
              f"{plural(len(shards), 'report')}\n")
    return 0


def merge_reports(shards: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Reports of slices of one suite as the report of the whole run.

    Laws are united (one reported by two shards is an error naming both); a law any shard ran is
    neither deselected nor "not run"; collection paths, skipped modules and gap keepers are united;
    the environments must agree on package versions (one run has one environment).
    """
    laws: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, data in shards:
        for law in data["laws"]:
            if law["nodeid"] in laws:
                raise CommandError(f"law {law['nodeid']} is in two reports: {laws[law['nodeid']][0]} and {name}")
            laws[law["nodeid"]] = (name, law)
    first_name, first = shards[0]
    for name, data in shards[1:]:
        if reportfile.versions(data) != reportfile.versions(first):
            raise CommandError(f"{name} ran with other package versions than {first_name} "
                               f"({reportfile.versions(data)} against {reportfile.versions(first)}): not one run")
    runs = [data.get("run", {}) for _, data in shards]
    ran = set(laws)
    gap_pages: dict[str, set[str]] = {}
    for _, data in shards:
        for gap in data.get("gaps", []):
            gap_pages.setdefault(gap["page"], set()).update(gap.get("tests", []))
    records = {k: LawRecord.from_json(v) for k, (_, v) in laws.items()}
    incomplete = [f"{name}: {data.get('incomplete')}" for name, data in shards if not data.get("complete", True)]
    merged: dict[str, Any] = {
        "schema_version": first["schema_version"],
        "complete": not incomplete,
        "environment": first.get("environment", {}),
        "run": {
            "collect_args": sorted({a for r in runs for a in r.get("collect_args", [])}),
            "deselected": sorted({d for r in runs for d in r.get("deselected", [])} - ran),
            "not_run": sorted({d for r in runs for d in r.get("not_run", [])} - ran),
            "skipped_modules": dict(sorted({k: v for r in runs for k, v in r.get("skipped_modules", {}).items()}.items())),
            "leaves_files_out": any(r.get("leaves_files_out", False) for r in runs),
            **_merged_models(runs),
        },
        "laws": [laws[k][1] for k in sorted(laws)],
        "gaps": gaps.listing({p: sorted(t) for p, t in gap_pages.items()}, records),
    }
    if incomplete:
        merged["incomplete"] = "; ".join(incomplete)
    reportfile.validate(merged, "the merged report")
    return merged


def _merged_models(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The shards' model files (`run.models`), each path once (the first shard's entry), or nothing
    when no shard ran the model pack (a report without models keeps its form)."""
    models: dict[str, dict[str, Any]] = {}
    for run in runs:
        for entry in run.get("models", []):
            models.setdefault(entry["path"], entry)
    return {"models": [models[p] for p in sorted(models)]} if models else {}
