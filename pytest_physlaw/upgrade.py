"""`pytest-physlaw upgrade`: the gate across two version sets, without hand-made venvs.

    pytest-physlaw upgrade --from "mujoco==3.4.0" --to "mujoco==3.5.0" MODEL.xml [FOLDER ...] [-- pytest options]

Each version set (one or more pip requirements, split on spaces or commas) gets an environment of its own,
built once and kept (ini-free: `--envs DIR`, default `$PYTEST_PHYSLAW_ENVS` or `~/.cache/pytest-physlaw/envs`,
one folder per set, Python and plugin source): a venv with the set, numpy, pytest and hypothesis, and this
plugin: editable from its checkout when it runs from one, else from where pip installed it (its `direct_url.json`:
a folder, a wheel, a VCS commit), else the same release from the index, else a wheel built of its installed files. In each,
`pytest-physlaw check` runs on the models (with `--suite`, `pytest -m law` in the current folder instead) and
writes its law report; the gate then compares the new set's report against the old set's as its baseline.

Printed: each side's model table, then the gate's regressions (checks that passed on the old set and fail on
the new, values that moved beyond their drift, laws gone) and notes (package versions among them).

Exit status: 0 the physics held across the upgrade; 1 the gate found regressions; 2 a version set could not
be installed, a side did not produce a complete report, or bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pytest_physlaw import __version__, gate, plugin_origin, reportfile
from pytest_physlaw.findings import render_findings
from pytest_physlaw.record import LawRecord
from pytest_physlaw.session import LawSession

BASE = ("numpy", "pytest>=8", "hypothesis>=6.100")  # what the model pack needs beside the version set
MARK = "physlaw-env.json"  # written last: an environment without it is rebuilt
TAIL = "==================================== models"


class UpgradeError(Exception):
    """A version set that cannot be installed, a side without a report: the message is printed, exit 2."""


@dataclass(frozen=True)
class Side:
    """One version set: its requirements, its environment's folder, what it reported and how it exited."""

    name: str
    requirements: tuple[str, ...]
    env: Path


def requirements(spec: str) -> tuple[str, ...]:
    """A version set as pip requirements: "mujoco==3.4.0 mujoco-mjx==3.4.0" or comma-separated; no empty set."""
    found = tuple(r for r in re.split(r"[\s,]+", spec.strip()) if r)
    if not found:
        raise UpgradeError(f"version set {spec!r} names no requirement (write e.g. 'mujoco==3.4.0')")
    return found


def env_dir(envs: Path, reqs: tuple[str, ...]) -> Path:
    """The kept environment of a version set: keyed by the set, this Python and where the plugin comes from."""
    root = plugin_origin.source_root()
    origin = str(root) if root else plugin_origin.origins()[0].what
    key = json.dumps([sorted(reqs), sys.version_info[:2], origin])
    slug = "-".join(re.sub(r"[^A-Za-z0-9.]+", "", r) for r in sorted(reqs))[:60]
    return envs / f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def _python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure(side: Side, out: TextIO) -> float:
    """Build `side`'s environment unless a complete one is kept; the seconds it took (0 when kept)."""
    if (side.env / MARK).is_file():
        return 0.0
    started = time.monotonic()
    out.write(f"[{side.name}] building {side.env} ({' '.join(side.requirements)})\n")
    out.flush()
    _run([sys.executable, "-m", "venv", "--clear", str(side.env)], f"{side.name}: python -m venv")
    pip = [str(_python(side.env)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, *side.requirements, *BASE], f"{side.name}: pip install {' '.join(side.requirements)}")
    install_plugin(side, pip)
    frozen = subprocess.run([str(_python(side.env)), "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    (side.env / MARK).write_text(json.dumps({"requirements": side.requirements, "freeze": frozen.splitlines()}))
    return time.monotonic() - started


def install_plugin(side: Side, pip: list[str]) -> str:
    """Install this same plugin into `side`'s environment from the first origin that installs
    (`plugin_origin.origins`: the checkout, pip's recorded origin, the index, a wheel of the installed files);
    what it came from. None installing is an UpgradeError naming each origin tried and why it failed."""
    tried = []
    for origin in plugin_origin.origins():
        try:
            if origin.wheel_of is not None:
                with tempfile.TemporaryDirectory() as folder:
                    wheel = plugin_origin.build_wheel(origin.wheel_of, Path(folder))
                    _run([*pip, "--no-deps", str(wheel)], f"{side.name}: pip install {wheel.name}")
            else:
                _run([*pip, "--no-deps", *origin.pip_args], f"{side.name}: pip install {' '.join(origin.pip_args)}")
            return origin.what
        except (UpgradeError, OSError) as exc:
            tried.append(f"- {origin.what}: {exc}")
    raise UpgradeError(f"{side.name}: the plugin (pytest-physlaw {__version__}) could not be installed from any "
                       f"origin tried:\n" + "\n".join(tried))


def _run(cmd: list[str], what: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise UpgradeError(f"{what} failed (exit {done.returncode}):\n  " + "\n  ".join(last))


def run_side(side: Side, paths: list[str], options: list[str], suite: bool, work: Path) -> tuple[Path, int, str]:
    """(report, pytest's exit status, its output) of the pack on `paths` (or the law suite) in `side`'s env."""
    report = work / f"{side.name}.json"
    report.unlink(missing_ok=True)
    python = str(_python(side.env))
    what = [python, "-m", "pytest", "-m", "law"] if suite else [python, "-m", "pytest_physlaw", "check", *paths]
    done = subprocess.run([*what, f"--law-report={report}", "-p", "no:cacheprovider", *options],
                          capture_output=True, text=True)
    (work / f"{side.name}.log").write_text(done.stdout + done.stderr)
    return report, done.returncode, done.stdout + done.stderr


def command(args: argparse.Namespace, out: TextIO) -> int:
    """The whole upgrade: both environments, both runs, the gate; the exit status above."""
    envs = Path(args.envs or os.environ.get("PYTEST_PHYSLAW_ENVS") or Path.home() / ".cache/pytest-physlaw/envs")
    work = Path(args.work)
    if not args.suite and not args.paths:
        raise UpgradeError("name the models to check (MODEL.xml or a folder), or --suite for the law suite")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UpgradeError(f"no such path: {', '.join(missing)}")
    work.mkdir(parents=True, exist_ok=True)
    sides = [Side(name, requirements(spec), Path()) for name, spec in (("from", args.old), ("to", args.new))]
    sides = [Side(s.name, s.requirements, env_dir(envs, s.requirements)) for s in sides]
    reports = []
    for side in sides:
        built = ensure(side, out)
        started = time.monotonic()
        report, status, text = run_side(side, args.paths, args.pytest_options, args.suite, work)
        ran = time.monotonic() - started
        out.write(f"\n[{side.name}] {' '.join(side.requirements)}: pytest exit {status}, {ran:.1f} s"
                  f"{f' (environment built in {built:.0f} s)' if built else ' (kept environment)'}\n")
        out.write(_table(text))
        if not report.is_file():
            raise UpgradeError(f"{side.name}: the run wrote no law report (pytest exit {status}); its output is in "
                               f"{work / (side.name + '.log')}")
        data = reportfile.read(report, f"{side.name} report")
        reports.append(data)
    old, new = reports
    before, after = LawSession.from_report(old), LawSession.from_report(new)
    out.write("\n" + verdicts(before, after))
    result = gate.compare(gate.Baseline.from_report(old), after, reportfile.versions(new))
    out.write("\n" + render_findings(result.regressions, result.notes,
                                     " ".join(sides[0].requirements), " ".join(sides[1].requirements)))
    out.write(f"reports and logs: {work}\n")
    return 1 if result.regressions else 0


def verdicts(before: LawSession, after: LawSession) -> str:
    """The laws that fail on either set, with each set's verdict and failed quantities: found, fixed or both."""
    rows = []
    for nodeid in sorted(set(before.records) | set(after.records)):
        old, new = before.records.get(nodeid), after.records.get(nodeid)
        if not any(r is not None and r.outcome == "failed" for r in (old, new)):
            continue
        change = ("fails on both" if old and new and old.outcome == new.outcome == "failed"
                  else "new finding" if new is not None and new.outcome == "failed" else "fixed")
        rows.append((nodeid, _verdict(old), _verdict(new), change))
    if not rows:
        return "no law fails on either version set\n"
    from pytest_physlaw import table

    return "laws that fail on either version set:\n" + "\n".join(
        table.align([("law", "from", "to", "change"), *rows])) + "\n"


def _verdict(record: LawRecord | None) -> str:
    if record is None:
        return "not run"
    failed = [c.quantity for c in record.checks if not c.passed]
    return f"{record.outcome}: {', '.join(failed)}" if failed else record.outcome


def _table(text: str) -> str:
    """The model table and summary of a check run (from its 'models' header on), else its last lines."""
    at = text.find(TAIL)
    lines = (text[at:] if at >= 0 else text).strip().splitlines()
    keep = [ln for ln in lines if not ln.startswith(("FAILED ", "ERROR ", "=")) or ln.startswith(TAIL)]
    return "\n".join(keep[-40:]) + "\n"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("upgrade", help="the pack (or the law suite) on two version sets in kept environments, gated",
                       description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--from", dest="old", required=True, metavar="SET", help="the version set upgraded from, e.g. "
                   "'mujoco==3.4.0' (pip requirements, space- or comma-separated)")
    p.add_argument("--to", dest="new", required=True, metavar="SET", help="the version set upgraded to")
    p.add_argument("--suite", action="store_true", help="run the law suite (pytest -m law, here) instead of the pack")
    p.add_argument("--envs", metavar="DIR", help="where the environments are kept (default $PYTEST_PHYSLAW_ENVS or "
                   "~/.cache/pytest-physlaw/envs)")
    p.add_argument("--work", metavar="DIR", default=".physlaw/upgrade", help="reports and logs (default %(default)s)")
    p.add_argument("paths", metavar="PATH", nargs="*", help="MJCF files or folders, as `check` takes them; pytest "
                   "options for both runs follow a '--'")
    p.set_defaults(func=command, pytest_options=[])


def split_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the command's own arguments, the pytest options after the first '--')."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []
