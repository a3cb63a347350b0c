"""The state of one pytest session as the plugin sees it, kept in `config.stash`.

The fixture and the collection hooks fill it; the terminal table, the report, the catalogue and the
baseline gate only read it. Under xdist the controller's instance is the complete one: workers'
records reach it through their reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_physlaw.record import LawRecord


@dataclass
class LawSession:
    """What this run collected, deselected and measured.

    records:      finished law tests by nodeid (outcome and checks final), controller side.
    collected:    every collected law test by nodeid, deselected ones too (checks empty).
    deselected:   nodeids removed by -k/-m or other deselection.
    collect_args: the paths this run collects from, relative to the rootdir ("laws/solver", "tests").
    gap_pages:    known-gap page (rootdir-relative) -> nodeids of the tests that keep it.
    problems:     session-level failures found by the plugin (orphan gap pages, pages that do not name
                  their tests); each one a message naming the thing at fault.
    regressions:  the baseline gate's findings that fail the session.
    notes:        the gate's informational findings (closed gaps, margins grown within drift).
    environment:  extra report environment from `pytest_physlaw_environment` (all processes).
    """

    records: dict[str, LawRecord] = field(default_factory=dict)
    collected: dict[str, LawRecord] = field(default_factory=dict)
    deselected: set[str] = field(default_factory=set)
    collect_args: list[str] = field(default_factory=list)
    gap_pages: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)

    def sorted_records(self) -> list[LawRecord]:
        return [self.records[k] for k in sorted(self.records)]


SESSION_KEY = pytest.StashKey[LawSession]()


def law_session(config: pytest.Config) -> LawSession:
    """The session state, created on first use."""
    if SESSION_KEY not in config.stash:
        config.stash[SESSION_KEY] = LawSession()
    return config.stash[SESSION_KEY]
