"""The JSON law report and the saved baseline: what they hold and how a save merges.

A report is one run: its environment, whether it is complete, what it collected from, its laws
sorted by nodeid and its known gaps. A baseline is the laws kept on purpose: `--law-save-baseline`
merges this run into the existing file, so a partial run (-k, a file, --lf) updates the laws it ran
and keeps the others; a law is pruned only where this run collected the paths it lived under and
found it gone. Both are written with sorted keys, no timestamps and floats as Python prints them
(the shortest text that reads back the same number), so an unchanged run rewrites the same bytes.
"""

from __future__ import annotations

import functools
import json
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from pytest_physlaw import files, gaps
from pytest_physlaw.gate import moves
from pytest_physlaw.options import DEFAULT_VERSIONS
from pytest_physlaw.record import SCHEMA_VERSION, LawRecord
from pytest_physlaw.scope import merge_line, prunable
from pytest_physlaw.session import LawSession


def package_versions(names: list[str] | tuple[str, ...]) -> dict[str, str | None]:
    """Installed version of each distribution, None for one that is not installed."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# The widest vector extension a CPU reports, widest first. Float32 sums and a solver's timing move with the CPU
# (XLA compiles for the host's features, and its reductions' order with them): the gate names the CPU, its
# family and model as well as this, beside the packages, when it changed.
VECTOR_UNITS = ("avx512f", "avx2", "avx", "sse4_2", "sve", "asimd")


def cpu(cpuinfo: str | None = None) -> str:
    """This machine's CPU as the gate compares it: "<vendor> family F model M, <widest vector unit>" from Linux's
    /proc/cpuinfo, else the machine's architecture."""
    if cpuinfo is None:
        cpuinfo = _cpuinfo()
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    unit = next((u for u in VECTOR_UNITS if u in flags), None)
    if not fields:
        return platform.machine() or "unknown"
    vendor = fields.get("vendor_id") or fields.get("CPU implementer", "")
    family = fields.get("cpu family") or fields.get("CPU architecture", "")
    model = fields.get("model") or fields.get("CPU part", "")
    return f"{vendor} family {family} model {model}, {unit or 'no vector unit listed'}".strip()


@functools.cache
def _cpuinfo() -> str:
    """Linux's /proc/cpuinfo, read once a process (the report and the gate both ask), "" elsewhere."""
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run_versions(names: list[str] | tuple[str, ...]) -> dict[str, str | None]:
    """The packages' versions and the CPU (`cpu`): what the gate notes when one changed."""
    return {**package_versions(names), "cpu": cpu()}


def environment(versions: list[str] | tuple[str, ...] = tuple(DEFAULT_VERSIONS)) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "plugin": package_versions(["pytest-physlaw"])["pytest-physlaw"],
        "versions": run_versions(versions),
    }


def build_report(run: LawSession, versions: list[str] | tuple[str, ...] = tuple(DEFAULT_VERSIONS)) -> dict[str, Any]:
    """The run's report as JSON-ready data."""
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "complete": run.incomplete is None,
        "environment": {**run.environment, **environment(versions)},
        "run": run.run_json(),
        "laws": [r.to_json() for r in run.sorted_records()],
        "gaps": gaps.listing(run.gap_pages, run.records),
    }
    if run.incomplete is not None:
        data["incomplete"] = run.incomplete
    return data


def dumps(data: dict[str, Any]) -> str:
    """The one text form of a report: sorted keys, two-space indent, a final newline."""
    return json.dumps(data, indent=2, allow_nan=False, ensure_ascii=False, sort_keys=True) + "\n"


def write_json(path: str | Path, data: dict[str, Any]) -> Path:
    """Write `data` to `path` atomically (see `files.write_text`)."""
    return files.write_text(path, dumps(data))


# What a baseline leaves out of the environment: the kernel's build string differs from one developer's
# machine to the next and would show in every PR that re-saves the baseline (reports keep it).
MACHINE_LOCAL = ("platform",)


@dataclass
class SaveSummary:
    """What a save did to the baseline, by nodeid."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)

    def line(self, path: str) -> str:
        return merge_line(f"law baseline {path}", self)



def merge_baseline(old: dict[str, Any] | None, run: LawSession, env: dict[str, Any]) -> tuple[dict[str, Any], SaveSummary]:
    """The baseline after this run: its laws merged into `old` (a validated baseline, or None).

    A law this run ran replaces its entry (one that was skipped now keeps its old entry; a check exempt
    from drift keeps its saved value while its verdict and bound hold); a law that
    moved (same identity, new nodeid) replaces its old nodeid; an old law this run did not run is kept,
    unless this run collected its path whole (not deselected, no file left out, no collection error,
    module not skipped) and it is gone: then it is pruned. The environment merges alike
    (`merge_environment`): an entry this run did not record keeps the baseline's.
    """
    summary = SaveSummary()
    old_laws = {d["nodeid"]: d for d in (old or {}).get("laws", [])}
    new_laws: dict[str, dict[str, Any]] = {}
    moved = moves({k: LawRecord.from_json(v) for k, v in old_laws.items()}, run.records)
    moved_to = {v: k for k, v in moved.items()}
    for nodeid, rec in run.records.items():
        before = old_laws.get(nodeid) or old_laws.get(moved_to.get(nodeid, ""))
        if rec.outcome == "skipped" and before is not None:
            new_laws[before["nodeid"]] = before
            summary.kept.append(before["nodeid"])
            continue
        new_laws[nodeid] = _keep_exempt(before, rec.to_json())
        if before is None:
            summary.added.append(nodeid)
        elif before["nodeid"] != nodeid:
            summary.moved.append(nodeid)
        else:
            (summary.unchanged if before == new_laws[nodeid] else summary.updated).append(nodeid)
    for nodeid, entry in old_laws.items():
        if nodeid in new_laws or nodeid in moved:
            continue
        if prunable(nodeid, run):
            summary.pruned.append(nodeid)
        else:
            new_laws[nodeid] = entry
            summary.kept.append(nodeid)
    records = {k: LawRecord.from_json(v) for k, v in new_laws.items()}
    gap_pages: dict[str, list[str]] = {}
    for nodeid, rec in records.items():
        if rec.known_gap:
            gap_pages.setdefault(rec.known_gap, []).append(nodeid)
    data = {
        "schema_version": SCHEMA_VERSION,
        "complete": True,
        "environment": merge_environment((old or {}).get("environment", {}), env),
        "laws": [new_laws[k] for k in sorted(new_laws)],
        "gaps": gaps.listing(gap_pages, records),
    }
    return data, summary


def merge_environment(old: dict[str, Any], env: dict[str, Any]) -> dict[str, Any]:
    """The baseline's environment after this run: this run's entries replace the old ones, and an entry
    this run did not record (a one-file run imports no Warp, no MJX: their versions and devices) keeps
    the baseline's; `versions` merges package by package alike. Machine-local entries are left out."""
    merged = {k: v for k, v in old.items() if k not in MACHINE_LOCAL}
    for key, value in env.items():
        if key in MACHINE_LOCAL:
            continue
        before = merged.get(key)
        merged[key] = {**before, **value} if isinstance(before, dict) and isinstance(value, dict) else value
    return merged


def _keep_exempt(before: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` with each drift-exempt check (a timing) as saved before while its verdict, bound and
    unit are the same: the gate never compares its value, so rewriting it would only churn the diff."""
    if before is None:
        return entry
    old = {c["quantity"]: c for c in before.get("checks", [])}
    same = ("bound", "bounds", "passed", "unit", "drift")
    checks = []
    for c in entry["checks"]:
        o = old.get(c["quantity"])
        keep = c["drift"] is None and o is not None and all(o.get(k) == c.get(k) for k in same)
        checks.append(o if keep else c)
    return {**entry, "checks": checks}
