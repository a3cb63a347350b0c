"""The law checks and the gate's findings in pytest's JUnit XML file (`--junitxml`).

Each check of a law test becomes properties of its testcase, through `item.user_properties` (in a
run with --junitxml or --html): they travel with the test's reports, so they reach the file from
xdist workers too, and no fixture is needed (`record_property` warns under junit_family xunit2, and `record_testsuite_property` does not
work under xdist). One check gives five properties named `physlaw.<quantity>.<field>`:

    value    the worst value, as Python's repr of the float ("0.0468992", "nan", "-inf")
    unit     its unit, "" when the check gives none
    bound    the bound as the law states it ("<= 1", ">= 0 and <= 1", "1 ± 0.1")
    margin   the normalised headroom, >= 0 when passing (repr of the float)
    verdict  "pass" or "fail"

The quantity is the name between the prefix and the last dot (a quantity may hold dots itself).
A law with an id adds `physlaw.law`.

The baseline gate and the session problems fail a run without failing any test: so that a CI that
reads only the JUnit file shows why, each law the gate flags becomes a failing testcase of class
`physlaw.gate` named by the law's nodeid (its message lists the findings, its properties each
quantity's baseline and new value, change and allowed drift), the session problems one failing
testcase `physlaw.problems`, and the testsuite gets a property `physlaw.gate` ("passed", "N
regressions", or why it did not run). junitxml writes its file in `pytest_sessionfinish`; the
plugin's own `pytest_sessionfinish` runs first (tryfirst) so that the gate has decided by then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_physlaw.gate import Finding, GateResult
from pytest_physlaw.record import CheckRecord
from pytest_physlaw.rows import plural
from pytest_physlaw.session import LawSession

PREFIX = "physlaw."
FIELDS = ("value", "unit", "bound", "margin", "verdict")
GATE_CLASS = "physlaw.gate"
PROBLEMS_CLASS = "physlaw.problems"


def check_properties(law: str | None, checks: Iterable[CheckRecord]) -> list[tuple[str, str]]:
    """The (name, value) properties of one law test's checks, in check order."""
    props = [(PREFIX + "law", law)] if law else []
    for c in checks:
        fields = (repr(c.value), c.unit or "", c.bound, repr(c.margin), "pass" if c.passed else "fail")
        props.extend((f"{PREFIX}{c.quantity}.{name}", value) for name, value in zip(FIELDS, fields))
    return props


def wanted(config: pytest.Config) -> bool:
    """Whether a report reads the properties: --junitxml, or --html (pytest-html's rows read them).
    Other runs skip them: kept on every report until the end, they cost a trivial law test a tenth."""
    return bool(config.getoption("xmlpath", None) or config.getoption("htmlpath", None))


def add_check_properties(item: pytest.Item, law: str | None, checks: Iterable[CheckRecord]) -> None:
    """Before the call report is made: it, and the teardown report, copy `item.user_properties`.
    A rerun of the test (pytest-rerunfailures) replaces the properties of the run before."""
    if not wanted(item.config):
        return
    kept = [p for p in item.user_properties if not str(p[0]).startswith(PREFIX)]
    item.user_properties[:] = kept + check_properties(law, checks)


def _log_xml(config: pytest.Config) -> Any:
    """junitxml's writer of this run (controller side), or None without --junitxml: the `LogXML` that
    pytest keeps in the stash under `_pytest.junitxml.xml_key`, where its own fixtures find it."""
    from _pytest.junitxml import xml_key

    return config.stash.get(xml_key, None)


def write_gate(config: pytest.Config, state: LawSession, gate: GateResult | None, baseline: bool) -> None:
    """The gate's regressions and the session problems as failing testcases, and the gate's verdict
    as a testsuite property, in the JUnit file junitxml is about to write (nothing without one)."""
    xml = _log_xml(config)
    if xml is None:
        return
    xml.add_global_property(PREFIX + "gate", gate_verdict(state, gate, baseline))
    findings: dict[str, list[Finding]] = {}
    for f in gate.regressions if gate else []:
        findings.setdefault(f.nodeid, []).append(f)
    for i, (nodeid, found) in enumerate(findings.items()):
        record = state.records.get(nodeid) or state.collected.get(nodeid)
        _failing_case(xml, i, GATE_CLASS, nodeid, record.path if record else nodeid.partition("::")[0],
                      _gate_message(found), _finding_properties(found))
    if state.problems:
        _failing_case(xml, len(findings), PROBLEMS_CLASS, "session", "",
                      f"{plural(len(state.problems), 'law problem')}:\n" + "\n".join(state.problems), [])


def gate_verdict(state: LawSession, gate: GateResult | None, baseline: bool) -> str:
    if gate is not None:
        return plural(len(gate.regressions), "regression") if gate.regressions else "passed"
    if not baseline:
        return "not run: no --law-baseline"
    return f"not run: this run is incomplete ({state.incomplete})"


def _gate_message(found: list[Finding]) -> str:
    first = found[0]
    head = f"{first.quantity}: {first.message}" if first.quantity else first.message
    more = f" (and {plural(len(found) - 1, 'more finding')})" if len(found) > 1 else ""
    return f"baseline gate: {head}{more}\n" + "\n".join(str(f) for f in found)


def _finding_properties(found: list[Finding]) -> list[tuple[str, str]]:
    props = []
    for f in found:
        name = PREFIX + (f.quantity or "law")
        props.append((f"{name}.finding", f.kind))
        props.extend((f"{name}.{key}", text) for key, text in
                     (("baseline", f.old), ("now", f.new), ("change", f.change), ("drift", f.tolerance)) if text)
    return props


def _failing_case(xml: Any, index: int, classname: str, name: str, path: str, message: str,
                  props: list[tuple[str, str]]) -> None:
    """One failing testcase, logged into junitxml's writer as a test's call and teardown reports are:
    the same element, escaping and counts as any failed test (classname and name given as
    `record_xml_attribute` gives them)."""
    nodeid = f"{classname}::{index}"
    location = (path, None, name)
    call = pytest.TestReport(nodeid, location, {}, "failed", message, "call", user_properties=props)
    reporter = xml.node_reporter(call)
    reporter.add_attribute("classname", classname)
    reporter.add_attribute("name", name)
    xml.pytest_runtest_logreport(call)
    xml.pytest_runtest_logreport(pytest.TestReport(nodeid, location, {}, "passed", None, "teardown",
                                                   user_properties=props))


@dataclass(frozen=True)
class PropertyCheck:
    """One check as its properties tell it (what the pytest-html rows show)."""

    quantity: str
    value: float
    unit: str
    bound: str
    margin: float
    passed: bool


def read_checks(properties: Iterable[Any]) -> list[PropertyCheck]:
    """The checks among a report's `user_properties` (pairs, or lists once xdist carried them)."""
    fields: dict[str, dict[str, str]] = {}
    for name, value in properties:
        if isinstance(name, str) and name.startswith(PREFIX):
            quantity, _, field = name[len(PREFIX):].rpartition(".")
            if quantity and field in FIELDS:
                fields.setdefault(quantity, {})[field] = str(value)
    return [PropertyCheck(q, float(f["value"]), f["unit"], f["bound"], float(f["margin"]), f["verdict"] == "pass")
            for q, f in fields.items() if len(f) == len(FIELDS)]
