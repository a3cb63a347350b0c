"""The JSON law report: the run's environment, its laws sorted by nodeid, and its known gaps.

Sorted and free of timestamps so that two runs diff cleanly; a report saved with
`--law-save-baseline` is what `--law-baseline` later reads.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from pytest_physlaw.options import DEFAULT_VERSIONS
from pytest_physlaw.record import SCHEMA_VERSION, LawRecord
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


def environment(versions: list[str] | tuple[str, ...] = tuple(DEFAULT_VERSIONS)) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "plugin": package_versions(["pytest-physlaw"])["pytest-physlaw"],
        "versions": package_versions(versions),
    }


def gap_status(page: str, keepers: list[str], records: dict[str, LawRecord]) -> str:
    """open: a keeping test failed as the gap says; closed: one passed; else how they ended."""
    outcomes = [records[n].outcome for n in keepers if n in records]
    if "xpassed" in outcomes:
        return "closed"
    if "xfailed" in outcomes:
        return "open"
    if any(o in ("failed", "error") for o in outcomes):
        return "broken"
    return "not run"


def gaps(run: LawSession) -> list[dict[str, Any]]:
    return [
        {"page": page, "tests": sorted(run.gap_pages[page]), "status": gap_status(page, run.gap_pages[page], run.records)}
        for page in sorted(run.gap_pages)
    ]


def build_report(run: LawSession, versions: list[str] | tuple[str, ...] = tuple(DEFAULT_VERSIONS)) -> dict[str, Any]:
    """The run's report as JSON-ready data."""
    return {
        "schema_version": SCHEMA_VERSION,
        "environment": {**run.environment, **environment(versions)},
        "laws": [r.to_json() for r in run.sorted_records()],
        "gaps": gaps(run),
    }


def write_json(path: str | Path, data: dict[str, Any]) -> Path:
    """Write `data` to `path` atomically (a temporary file in the same folder, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
