"""The state of one pytest session as the plugin sees it, kept in `config.stash`.

The fixture and the collection hooks fill it; the terminal table, the report, the catalogue and the
baseline gate only read it. Under xdist the controller's instance is the complete one: workers'
records reach it through their reports, their collection through `collection_json`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_physlaw.record import LawRecord


@dataclass
class LawSession:
    """What this run collected, deselected and measured.

    records:         finished law tests by nodeid (outcome and checks final), controller side.
    collected:       every collected law test by nodeid, deselected ones too (checks empty).
    deselected:      nodeids removed by -k/-m or other deselection.
    collect_args:    the paths this run collects from, relative to the rootdir ("laws/solver", "tests").
    skipped_modules: rootdir-relative nodeid of each module skipped at collection -> the reason.
    collect_errors:  how many collectors failed (their laws are unknown to this run).
    gap_pages:       known-gap page (rootdir-relative) -> nodeids of the tests that keep it.
    problems:        session-level failures found by the plugin (orphan gap pages, unwritable outputs,
                     a bad environment hook); each one a message naming the thing at fault.
    regressions:     the baseline gate's findings that fail the session.
    notes:           the gate's informational findings.
    warnings:        what the plugin could not do but no one asked of it (the default report unwritable).
    environment:     extra report environment from `pytest_physlaw_environment` (all processes).
    incomplete:      why this run's records are not the whole of what it selected, or None.
    leaves_files_out: the run skips files under its paths on purpose (--lf, --ignore).
    models:          the model pack's files (rootdir-relative, as their nodeids) -> {"status": "model",
                     "not a model" or "collection error", "why": the reason where not a model, "coverage": what
                     its runs covered where a law read the exercised states (`pack.coverage`)}; empty
                     without --physlaw-model (see `model_summary`).
    model_seconds:   each model's tests' setup, call and teardown durations summed (not in the report:
                     durations change every run, a report of an unchanged run keeps its bytes).
    """

    records: dict[str, LawRecord] = field(default_factory=dict)
    collected: dict[str, LawRecord] = field(default_factory=dict)
    deselected: set[str] = field(default_factory=set)
    collect_args: list[str] = field(default_factory=list)
    skipped_modules: dict[str, str] = field(default_factory=dict)
    collect_errors: int = 0
    gap_pages: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    incomplete: str | None = None
    leaves_files_out: bool = False
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    model_seconds: dict[str, float] = field(default_factory=dict)

    def sorted_records(self) -> list[LawRecord]:
        return [self.records[k] for k in sorted(self.records)]

    def not_run(self) -> list[str]:
        """Collected, selected laws without a record: what an interrupted or stopped run left."""
        return sorted(set(self.collected) - set(self.records) - self.deselected)

    def run_json(self) -> dict[str, Any]:
        """What a report keeps of the run besides its laws, for the gate of `pytest-physlaw compare`."""
        out: dict[str, Any] = {
            "collect_args": list(self.collect_args),
            "deselected": sorted(self.deselected),
            "not_run": self.not_run(),
            "skipped_modules": dict(sorted(self.skipped_modules.items())),
            "leaves_files_out": self.leaves_files_out,
        }
        if self.models:  # only a model pack run has them: other reports keep their bytes
            out["models"] = [{"path": path, **entry} for path, entry in sorted(self.models.items())]
        return out

    @classmethod
    def from_report(cls, data: dict[str, Any]) -> LawSession:
        """The session a validated report describes (a saved baseline without `run`: collected from ".")."""
        run = data.get("run", {"collect_args": ["."]})
        records = {d["nodeid"]: LawRecord.from_json(d) for d in data["laws"]}
        gap_pages = {g["page"]: [t for t in g.get("tests", []) if isinstance(t, str)]
                     for g in data.get("gaps", []) if isinstance(g, dict) and isinstance(g.get("page"), str)}
        collected = dict(records)
        for nodeid in run.get("not_run", []):
            collected[nodeid] = LawRecord(nodeid, nodeid.partition("::")[0])
        models = {m["path"]: {k: v for k, v in m.items() if k != "path"} for m in run.get("models", [])}
        return cls(records=records, collected=collected, deselected=set(run.get("deselected", [])),
                   collect_args=list(run.get("collect_args", [])), skipped_modules=dict(run.get("skipped_modules", {})),
                   leaves_files_out=bool(run.get("leaves_files_out", False)), gap_pages=gap_pages, models=models,
                   incomplete=None if data.get("complete", True) else data.get("incomplete", "incomplete"))


SESSION_KEY = pytest.StashKey[LawSession]()


def law_session(config: pytest.Config) -> LawSession:
    """The session state, created on first use."""
    if SESSION_KEY not in config.stash:
        config.stash[SESSION_KEY] = LawSession()
    return config.stash[SESSION_KEY]
