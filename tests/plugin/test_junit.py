"""JUnit XML (`--junitxml`): each law check as properties of its testcase, serial and under `-n 2`,
and the baseline gate's regressions and the session problems as failing testcases.

The file is read back as a JUnit consumer reads it (testsuites > testsuite > testcase; a testcase's
outcome is its failure/error/skipped child; properties are name/value pairs in order), with
xml.etree: junitparser, the JUnit library for Python, reads testcase properties only through its
private element (its TestCase has no properties API), so it would add a dependency for nothing.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

LAWS = '''
    import math
    import os
    import pytest

    K = float(os.environ.get("PHYSLAW_TEST_K", "1"))

    @pytest.mark.law("slope-holds")
    @pytest.mark.parametrize("mu", [0.4, 0.6])
    def test_slope(law, mu):
        law.check("creep_mm", 10 * (0.45 - mu), le=0.0, abs=1.0, unit="mm")
        law.check("slide.m <&>", 0.0468992 * K, ge=0.0, le=1.0, unit="m")

    def test_nan(law):
        law.check("energy", math.nan, le=1.0)

    @pytest.mark.known_gap("docs/known_gaps/g.md")
    def test_gap(law):
        law.check("answer_ratio", 2.0, near=1.0, rel=0.1)

    def test_plain():
        pass
'''


@dataclass
class Case:
    outcome: str  # passed, failure, error, skipped
    message: str
    properties: list[tuple[str, str]]

    def props(self) -> dict[str, str]:
        names = [n for n, _ in self.properties]
        assert len(names) == len(set(names)), f"repeated property names {names}"  # a CI keeps one per name
        return dict(self.properties)


def read_junit(path: Path) -> tuple[dict[str, str], dict[tuple[str, str], Case], ET.Element]:
    """(suite properties, testcases by (classname, name), the testsuite element) of a pytest JUnit file."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    suite_props = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    cases = {}
    for tc in suite.findall("testcase"):
        results = [child for child in tc if child.tag in ("failure", "error", "skipped")]
        assert len(results) <= 1
        outcome = results[0].tag if results else "passed"
        message = results[0].get("message", "") if results else ""
        props = [(p.get("name"), p.get("value")) for p in tc.findall("properties/property")]
        key = (tc.get("classname"), tc.get("name"))
        assert key not in cases, f"two testcases {key}"
        cases[key] = Case(outcome, message, props)
    return suite_props, cases, suite


@pytest.fixture
def laws(pytester: pytest.Pytester) -> pytest.Pytester:
    folder = pytester.path / "docs" / "known_gaps"
    folder.mkdir(parents=True)
    (folder / "g.md").write_text("Kept by test_laws.py.\n")
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    return pytester


def test_each_check_is_five_properties_of_its_testcase(laws):
    result = laws.runpytest("-p", "no:randomly", "--junitxml", "j.xml", "--law-report", "r.json", "-W", "error")
    result.assert_outcomes(passed=2, failed=2, xfailed=1)
    suite_props, cases, _ = read_junit(laws.path / "j.xml")
    slope = cases[("test_laws", "test_slope[0.4]")]
    assert slope.outcome == "failure" and "LawViolation" in slope.message
    assert slope.properties[0] == ("physlaw.law", "slope-holds")
    props = slope.props()
    assert {k: props[f"physlaw.creep_mm.{k}"] for k in ("unit", "bound", "verdict")} == \
        {"unit": "mm", "bound": "<= 0", "verdict": "fail"}
    # a quantity's name may hold dots and XML's special characters: it is all before the last dot
    assert props["physlaw.slide.m <&>.bound"] == ">= 0 and <= 1" and props["physlaw.slide.m <&>.verdict"] == "pass"
    report = {law["nodeid"]: law for law in json.loads((laws.path / "r.json").read_text())["laws"]}
    for (classname, name), case in cases.items():
        nodeid = f"test_laws.py::{name}"
        if nodeid not in report:
            assert (name, case.properties) == ("test_plain", [])  # not a law: no properties
            continue
        checks = report[nodeid]["checks"]
        props = case.props()
        assert len(props) == 1 + 5 * len(checks)
        for c in checks:  # the values are the report's exactly (repr round-trips a float)
            p = f"physlaw.{c['quantity']}."
            assert float(props[p + "value"]) == float(c["value"]) or c["value"] == "nan" == props[p + "value"]
            assert float(props[p + "margin"]) == float(c["margin"])
            assert (props[p + "unit"], props[p + "bound"]) == (c["unit"] or "", c["bound"])
            assert props[p + "verdict"] == ("pass" if c["passed"] else "fail")
    nan = cases[("test_laws", "test_nan")].props()
    assert (nan["physlaw.energy.value"], nan["physlaw.energy.margin"]) == ("nan", "-inf")
    gap = cases[("test_laws", "test_gap")]  # a known gap: skipped (xfail), its failing check kept
    assert gap.outcome == "skipped" and gap.props()["physlaw.answer_ratio.verdict"] == "fail"
    assert suite_props == {"physlaw.gate": "not run: no --law-baseline"}


def test_minus_n_2_writes_the_same_testcases_and_properties(laws):
    pytest.importorskip("xdist")
    laws.runpytest("-p", "no:randomly", "--junitxml", "serial.xml").assert_outcomes(passed=2, failed=2, xfailed=1)
    laws.runpytest("-p", "no:randomly", "-n", "2", "--junitxml", "xdist.xml").assert_outcomes(
        passed=2, failed=2, xfailed=1)
    serial, parallel = read_junit(laws.path / "serial.xml"), read_junit(laws.path / "xdist.xml")
    assert serial[0] == parallel[0]
    assert {k: (c.outcome, c.properties) for k, c in serial[1].items()} == \
        {k: (c.outcome, c.properties) for k, c in parallel[1].items()}
    assert len(parallel[1][("test_laws", "test_slope[0.6]")].properties) == 11


def _save_baseline(laws: pytest.Pytester) -> None:
    laws.runpytest("-p", "no:randomly", "--law-save-baseline", "base.json")
    assert (laws.path / "base.json").exists()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "n2"])
def test_the_gates_regressions_are_failing_testcases(laws, monkeypatch, workers):
    if workers:
        pytest.importorskip("xdist")
    _save_baseline(laws)
    monkeypatch.setenv("PHYSLAW_TEST_K", "1.1")  # slide.m moves +10 %, beyond its 1 % drift
    result = laws.runpytest("-p", "no:randomly", *workers, "--law-baseline", "base.json", "--junitxml", "j.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    suite_props, cases, suite = read_junit(laws.path / "j.xml")
    assert suite_props == {"physlaw.gate": "2 regressions"}
    gate = {name: case for (classname, name), case in cases.items() if classname == "physlaw.gate"}
    assert sorted(gate) == ["test_laws.py::test_slope[0.4]", "test_laws.py::test_slope[0.6]"]
    case = gate["test_laws.py::test_slope[0.6]"]
    assert case.outcome == "failure"
    assert case.message.startswith("baseline gate: slide.m <&>: value 0.0468992 m -> 0.0515891 m (+10%)")
    assert case.props() == {"physlaw.slide.m <&>.finding": "drift", "physlaw.slide.m <&>.baseline": "0.0468992 m",
                            "physlaw.slide.m <&>.now": "0.0515891 m", "physlaw.slide.m <&>.change": "+10%",
                            "physlaw.slide.m <&>.drift": "±0.01 rel, zero within 0.001"}
    # the suite's counts take the gate's testcases in: 2 failed laws and 2 laws that regressed
    assert (suite.get("tests"), suite.get("failures")) == (str(len(cases)), "4")


def test_a_gate_that_passes_or_could_not_run_says_so_in_a_suite_property(laws):
    _save_baseline(laws)
    laws.runpytest("-p", "no:randomly", "--law-baseline", "base.json", "--junitxml", "ok.xml")
    suite_props, cases, _ = read_junit(laws.path / "ok.xml")
    assert suite_props == {"physlaw.gate": "passed"}
    assert not [k for k in cases if k[0].startswith("physlaw")]
    laws.runpytest("-p", "no:randomly", "--law-baseline", "base.json", "--junitxml", "x.xml", "-x")
    suite_props, cases, _ = read_junit(laws.path / "x.xml")
    assert suite_props["physlaw.gate"].startswith("not run: this run is incomplete (stopped early")


def test_session_problems_are_a_failing_testcase(laws):
    (laws.path / "docs" / "known_gaps" / "orphan.md").write_text("Kept by nothing.\n")
    result = laws.runpytest("-p", "no:randomly", "--junitxml", "j.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _, cases, _ = read_junit(laws.path / "j.xml")
    problems = cases[("physlaw.problems", "session")]
    assert problems.outcome == "failure" and "orphan known-gap page docs/known_gaps/orphan.md" in problems.message


def test_properties_are_written_in_every_junit_family_without_a_warning(laws):
    for family in ("xunit1", "xunit2", "legacy"):
        result = laws.runpytest("-p", "no:randomly", "-o", f"junit_family={family}", "--junitxml", "j.xml",
                                "-W", "error::pytest.PytestWarning")
        result.assert_outcomes(passed=2, failed=2, xfailed=1)
        _, cases, _ = read_junit(laws.path / "j.xml")
        assert cases[("test_laws", "test_slope[0.6]")].props()["physlaw.creep_mm.verdict"] == "pass"


def test_a_run_without_junitxml_or_html_adds_no_properties(laws):
    result = laws.runpytest("-p", "no:randomly")
    reports = result.reprec.getreports("pytest_runtest_logreport")
    assert reports and not any(r.user_properties for r in reports)
