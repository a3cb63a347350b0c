"""pytest-xdist: the law records made on workers reach the controller with their reports, the
collection (deselected tests, gap pages, session problems) with the workers' output, and a
`-n 2` run leaves the same records and the same JSON report as the serial run."""

from __future__ import annotations

import json
import textwrap

import pytest

pytest.importorskip("xdist")

SUITE = """
    import math
    import pytest
    from hypothesis import given, settings, strategies as st

    @pytest.mark.law("slope-holds", source="Lesson 20.2")
    @pytest.mark.parametrize("mu", [0.4, 0.5, 0.6])
    def test_slope(law, mu):
        '''A box stays put when tan(theta) < mu.'''
        law.check("creep_mm", 10 * (0.45 - mu), le=0.0, abs=1.0, unit="mm")

    def test_nan(law):
        law.check("energy", math.nan, le=1.0)

    @pytest.mark.known_gap("docs/known_gaps/g.md")
    def test_gap(law):
        law.check("answer_ratio", 2.0, near=1.0, rel=0.1)

    @settings(max_examples=15, derandomize=True, database=None)
    @given(x=st.sampled_from([0.25, 0.5, 0.75]))  # exhausted: the same examples in any process
    def test_given(law, x):
        law.check("x", x, le=1.0)

    def test_deselected_one(law):
        law.check("never", 1.0, le=0.0)
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    folder = pytester.path / "docs" / "known_gaps"
    folder.mkdir(parents=True)
    (folder / "g.md").write_text("Kept by test_suite.py.\n")
    (folder / "orphan.md").write_text("Kept by nothing.\n")
    pytester.makepyfile(test_suite=textwrap.dedent(SUITE))
    return pytester


def test_minus_n_2_leaves_the_same_records_collection_and_report_as_a_serial_run(suite, law_state):
    args = ["-p", "no:randomly", "-k", "not deselected_one"]
    serial = suite.runpytest(*args, "--law-report", "serial.json")
    parallel = suite.runpytest(*args, "-n", "2", "--law-report", "parallel.json")
    serial.assert_outcomes(passed=3, failed=2, xfailed=1, deselected=1)
    parallel.assert_outcomes(passed=3, failed=2, xfailed=1)  # xdist's controller counts no deselected
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    one, two = law_state(serial), law_state(parallel)
    assert len(one.records) == 6
    assert [r.to_json() for r in one.sorted_records()] == [r.to_json() for r in two.sorted_records()]
    assert sorted(one.collected) == sorted(two.collected) and len(one.collected) == 7
    assert one.deselected == two.deselected == {"test_suite.py::test_deselected_one"}
    assert one.gap_pages == two.gap_pages == {"docs/known_gaps/g.md": ["test_suite.py::test_gap"]}
    assert one.collect_args == two.collect_args
    assert one.problems == two.problems and "docs/known_gaps/orphan.md" in one.problems[0]
    assert "orphan known-gap page docs/known_gaps/orphan.md" in parallel.stdout.str()
    reports = [json.loads((suite.path / name).read_text()) for name in ("serial.json", "parallel.json")]
    assert reports[0]["laws"] == reports[1]["laws"] and reports[0]["gaps"] == reports[1]["gaps"]
    given = two.records["test_suite.py::test_given"].checks[0]
    assert (given.value, given.passed) == (0.75, True) and given.count >= 3
    slope = two.records["test_suite.py::test_slope[0.4]"]
    assert (slope.outcome, slope.law, slope.doc) == ("failed", "slope-holds", "A box stays put when tan(theta) < mu.")
