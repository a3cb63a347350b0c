"""The baseline gate: each kind of regression is caught, an unchanged run passes, bad baselines are
clear usage errors, and -k/-m raise no false "no longer collected" alarm.

The first half tests the pure comparison on hand-made records; the second half runs pytest on small
law files with pytester, saving a baseline, changing the files, and gating the next run.
"""

from __future__ import annotations

import json
import math
import textwrap

import pytest

from pytest_physlaw.gate import Baseline, Finding, compare, load_baseline, margin_shift, parse_baseline
from pytest_physlaw.record import SCHEMA_VERSION, CheckRecord, LawRecord
from pytest_physlaw.session import LawSession

PATH = "laws/test_a.py"


def le_check(value: float, bound: float = 10.0, *, quantity: str = "x", drift: float | None = 0.25) -> CheckRecord:
    """A `le=bound` check record as the fixture makes it (margin (b - v) / |b|)."""
    margin = (bound - value) / abs(bound) if math.isfinite(value) else -math.inf
    return CheckRecord(quantity, value, f"<= {bound:g}", {"le": bound}, margin,
                       math.isfinite(value) and value <= bound, drift=drift)


def near_check(value: float, near: float = 1.0, tol: float = 0.1, *, drift: float | None = 0.25) -> CheckRecord:
    margin = 1.0 - abs(value - near) / tol
    return CheckRecord("r", value, f"{near:g} ± {tol:g}", {"near": near, "tol": tol}, margin, margin >= 0, drift=drift)


def law(name: str = "test_x", *checks: CheckRecord, outcome: str = "passed", gap: str | None = None) -> LawRecord:
    return LawRecord(f"{PATH}::{name}", PATH, law=name, outcome=outcome, known_gap=gap, checks=list(checks))


def run_of(*laws: LawRecord, collect_args: tuple[str, ...] = ("laws",), deselected: tuple[str, ...] = ()) -> LawSession:
    run = LawSession(collect_args=list(collect_args), deselected=set(deselected))
    for r in laws:
        run.records[r.nodeid] = r
        run.collected[r.nodeid] = r
    return run


def baseline_of(*laws: LawRecord) -> Baseline:
    return Baseline({r.nodeid: r for r in laws}, {"mujoco": "3.14.0", "numpy": "2.0"})


def kinds(findings: list[Finding]) -> list[str]:
    return [f.kind for f in findings]


# --- the comparison, on records ---------------------------------------------------------------

def test_an_unchanged_run_passes_with_no_notes():
    base = baseline_of(law("test_x", le_check(5.0)), law("test_y", near_check(1.02)))
    result = compare(base, run_of(law("test_x", le_check(5.0)), law("test_y", near_check(1.02))))
    assert result.regressions == [] and result.notes == []


def test_a_check_that_passed_and_fails_now_is_a_regression():
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(12.0), outcome="failed")))
    assert kinds(result.regressions) == ["now-failing"]
    assert "fails now" in str(result.regressions[0]) and "[x]" in str(result.regressions[0])
    assert result.drifted == {(f"{PATH}::test_x", "x")}


def test_a_law_no_longer_collected_under_the_run_paths_is_a_regression():
    result = compare(baseline_of(law("test_gone", le_check(5.0))), run_of())
    assert kinds(result.regressions) == ["not-collected"]
    assert "no longer collected" in str(result.regressions[0])


def test_a_law_outside_the_run_paths_is_not_gated():
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(collect_args=("tests",)))
    assert result.regressions == [] and result.notes == []


def test_a_deselected_law_is_not_gated():
    nodeid = f"{PATH}::test_x"
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(deselected=(nodeid,)))
    assert result.regressions == [] and result.notes == []


def test_a_run_that_leaves_files_out_notes_the_laws_it_did_not_collect():
    result = compare(baseline_of(law("test_gone", le_check(5.0))), run_of(), leaves_files_out=True)
    assert result.regressions == [] and kinds(result.notes) == ["not-collected"]


def test_a_law_collected_but_not_run_is_a_note():
    run = run_of()
    run.collected[f"{PATH}::test_x"] = law("test_x")
    result = compare(baseline_of(law("test_x", le_check(5.0))), run)
    assert result.regressions == [] and kinds(result.notes) == ["not-run"]


def test_a_law_that_ran_without_a_quantity_it_had_is_a_regression():
    base = baseline_of(law("test_x", le_check(5.0), le_check(1.0, quantity="y")))
    result = compare(base, run_of(law("test_x", le_check(5.0), outcome="error")))
    assert kinds(result.regressions) == ["missing-quantity"]
    assert "'y'" in str(result.regressions[0])


def test_a_law_skipped_now_is_reported_not_gated():
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", outcome="skipped")))
    assert result.regressions == [] and kinds(result.notes) == ["skipped"]


def test_a_law_that_passed_and_is_now_a_known_gap_is_a_regression():
    gap = "docs/known_gaps/g.md"
    result = compare(baseline_of(law("test_x", le_check(5.0))),
                     run_of(law("test_x", le_check(12.0), outcome="xfailed", gap=gap)))
    assert kinds(result.regressions) == ["new-gap"]
    assert gap in str(result.regressions[0])


def test_a_closed_gap_is_a_note():
    gap = "docs/known_gaps/g.md"
    base = baseline_of(law("test_x", le_check(12.0), outcome="xfailed", gap=gap))
    result = compare(base, run_of(law("test_x", le_check(12.0 - 1e-9), outcome="xpassed", gap=gap)))
    assert kinds(result.notes) == ["gap-closed"] and result.regressions == []


@pytest.mark.parametrize("now", [1.0, 9.5], ids=["grew", "shrank"])
def test_a_margin_that_moved_more_than_its_drift_either_way_is_a_regression(now):
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(now))))
    assert kinds(result.regressions) == ["drift"]
    assert "more than its drift 0.25" in str(result.regressions[0])


def test_a_margin_grown_within_drift_is_a_note_and_noise_is_silent():
    grown = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(4.0))))
    assert grown.regressions == [] and kinds(grown.notes) == ["grew"]
    noise = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(4.99))))
    assert noise.regressions == [] and noise.notes == []


def test_drift_none_exempts_the_margin_but_not_the_bound():
    base = baseline_of(law("test_x", le_check(5.0, drift=None)))
    moved = compare(base, run_of(law("test_x", le_check(0.1, drift=None))))
    assert moved.regressions == []
    broke = compare(base, run_of(law("test_x", le_check(11.0, drift=None), outcome="failed")))
    assert kinds(broke.regressions) == ["now-failing"]


def test_a_per_check_drift_is_used():
    base = baseline_of(law("test_x", le_check(5.0, drift=0.05)))
    result = compare(base, run_of(law("test_x", le_check(4.0, drift=0.05))))
    assert kinds(result.regressions) == ["drift"]


def test_a_drift_after_a_bound_was_edited_says_the_bound_changed():
    result = compare(baseline_of(law("test_x", le_check(1.0, bound=10.0))),
                     run_of(law("test_x", le_check(1.0, bound=2.0))))
    assert kinds(result.regressions) == ["drift"] and kinds(result.notes) == ["bound-changed"]
    assert "value 1 -> 1, its bound changed <= 10 -> <= 2" in str(result.regressions[0])


def test_a_near_value_that_crossed_to_the_other_side_moved():
    # |1.05 - 1| = |0.95 - 1|: the same margin, a different physics.
    result = compare(baseline_of(law("test_y", near_check(1.05))), run_of(law("test_y", near_check(0.95))))
    assert kinds(result.regressions) == ["drift"]
    assert margin_shift(near_check(1.05), near_check(0.95)) == pytest.approx(1.0)


def test_a_band_value_that_crossed_to_the_other_edge_moved():
    def band(v: float) -> CheckRecord:
        return CheckRecord("b", v, ">= 1 and <= 3", {"ge": 1.0, "le": 3.0}, min(v - 1.0, (3.0 - v) / 3.0), True)
    assert margin_shift(band(1.5), band(1.5)) == 0.0
    assert margin_shift(band(1.5), band(2.7)) == pytest.approx(1.2)


def test_non_finite_margins():
    nan = le_check(math.nan)
    assert margin_shift(nan, le_check(math.inf)) == 0.0  # failing either way: no drift to measure
    assert margin_shift(nan, le_check(5.0)) == math.inf
    # A failing (gap) check whose value turned finite again has moved beyond any drift.
    gap = "docs/known_gaps/g.md"
    result = compare(baseline_of(law("test_x", nan, outcome="xfailed", gap=gap)),
                     run_of(law("test_x", le_check(12.0), outcome="xfailed", gap=gap)))
    assert kinds(result.regressions) == ["drift"] and "inf" in str(result.regressions[0])
    # A passing check whose value turned NaN fails: one regression, not two.
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", nan, outcome="failed")))
    assert kinds(result.regressions) == ["now-failing"]


def test_new_laws_quantities_and_changed_bounds_are_notes():
    base = baseline_of(law("test_x", le_check(5.0)))
    changed = CheckRecord("x", 5.0, "<= 10.1", {"le": 10.1}, (10.1 - 5.0) / 10.1, True)
    run = run_of(law("test_x", changed, le_check(1.0, quantity="z")), law("test_new", le_check(1.0)))
    result = compare(base, run)
    assert result.regressions == []
    assert sorted(kinds(result.notes)) == ["bound-changed", "new-law", "new-quantity"]


def test_a_package_version_change_is_a_note():
    result = compare(baseline_of(), run_of(), {"mujoco": "4.0.0", "numpy": "2.0", "other": "1"})
    assert result.regressions == [] and [str(n) for n in result.notes] == [
        "environment: mujoco 3.14.0 in the baseline, 4.0.0 now"]


# --- bad baselines ---------------------------------------------------------------------------

def test_bad_baselines_are_usage_errors_naming_the_file(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(pytest.UsageError, match=r"none\.json: no such file"):
        load_baseline(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(pytest.UsageError, match=r"broken\.json: not JSON"):
        load_baseline(broken)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema_version": SCHEMA_VERSION + 1, "laws": []}))
    with pytest.raises(pytest.UsageError, match=rf"other\.json: schema version {SCHEMA_VERSION + 1}"):
        load_baseline(other)
    for data, message in (([], "no schema_version"), ({"schema_version": SCHEMA_VERSION, "laws": {}}, "not a list"),
                          ({"schema_version": SCHEMA_VERSION, "laws": [{"path": "a"}]},
                           r"law #0 is malformed \(lacks the key 'nodeid'\)"),
                          ({"schema_version": SCHEMA_VERSION, "laws": [{"nodeid": "t.py::t", "path": "t.py",
                                                                          "checks": [{"quantity": "q"}]}]},
                           r"law #0 \(t\.py::t\) is malformed \(lacks the key 'value'\)")):
        with pytest.raises(pytest.UsageError, match=message):
            parse_baseline(data, "b.json")


# --- end to end, with pytester ---------------------------------------------------------------

LAWS = """
    import pytest

    @pytest.mark.law("x-small")
    def test_x(law):
        "x stays small."
        law.check("x", {x}, le=10.0, unit="m", why="test bound")

    @pytest.mark.law("y-near")
    def test_y(law):
        "y is one."
        law.check("y", {y}, near=1.0, rel=0.1, why="test bound")
"""


def write_laws(pytester: pytest.Pytester, x: float = 5.0, y: float = 1.0, name: str = "test_laws") -> None:
    pytester.makepyfile(**{name: textwrap.dedent(LAWS.format(x=x, y=y))})


def saved_baseline(pytester: pytest.Pytester, *args: str) -> str:
    result = pytester.runpytest("--law-save-baseline", "baseline.json", *args)
    assert result.ret == 0, result.stdout.str()
    return "baseline.json"


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_an_unchanged_run_passes_the_gate(pytester):
    write_laws(pytester)
    baseline = saved_baseline(pytester)
    result = pytester.runpytest("--law-baseline", baseline)
    assert result.ret == 0
    assert "law regressions" not in result.stdout.str()
    assert "0 regressions" in result.stdout.str()


def test_the_gate_fails_the_session_on_a_drift(pytester):
    write_laws(pytester)
    baseline = saved_baseline(pytester)
    write_laws(pytester, x=1.0)  # still passes, margin 0.5 -> 0.9
    result = pytester.runpytest("--law-baseline", baseline)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*law regressions*", "*test_laws.py::test_x [[]x]: margin 0.5 -> 0.9*drift 0.25*",
                                 "the baseline gate fails this run: 1 regression; *--law-save-baseline*"])
    result.assert_outcomes(passed=2)


def test_the_gate_catches_a_law_no_longer_collected_but_not_a_deselected_one(pytester):
    write_laws(pytester)
    baseline = saved_baseline(pytester)
    for args in (["-k", "test_y"], ["-m", "not law"], ["test_laws.py::test_y"]):
        result = pytester.runpytest("--law-baseline", baseline, *args)
        assert "law regressions" not in result.stdout.str(), args
        assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED), args
    pytester.makepyfile(test_laws="import pytest\n\ndef test_y(law):\n    law.check('y', 1.0, near=1.0, rel=0.1)\n")
    result = pytester.runpytest("--law-baseline", baseline)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*test_laws.py::test_x: in the baseline but no longer collected*"])


CHANGED = """
    import pytest

    @pytest.mark.known_gap("docs/known_gaps/x.md")
    def test_x(law):
        law.check("x", 12.0, le=10.0, unit="m")

    def test_y(law):
        law.check("z", 1.0, near=1.0, rel=0.1)
"""


def test_the_gate_catches_a_new_gap_a_lost_quantity_and_a_new_failure(pytester):
    write_laws(pytester)
    pytester.makepyfile(test_w="def test_w(law):\n    law.check('w', 1.0, le=2.0)\n")
    baseline = saved_baseline(pytester)
    pytester.mkdir("docs").joinpath("known_gaps").mkdir()
    pytester.path.joinpath("docs", "known_gaps", "x.md").write_text("# x\nKept by test_laws.py.\n")
    pytester.makepyfile(test_laws=textwrap.dedent(CHANGED))
    pytester.makepyfile(test_w="def test_w(law):\n    law.check('w', 3.0, le=2.0)\n")
    result = pytester.runpytest("--law-baseline", baseline)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*= law regressions =*",
        "test_laws.py::test_x: passed in the baseline, now a known gap (docs/known_gaps/x.md)*",
        "test_laws.py::test_y [[]y]: ran (passed) without checking 'y'",
        "test_w.py::test_w [[]w]: passed in the baseline (1, margin 0.5), fails now (3, bound <= 2, margin -0.5)",
    ])
    assert "test_laws.py::test_y [z]: new quantity" in result.stdout.str()


def test_deselection_under_xdist_raises_no_false_alarm(pytester):
    write_laws(pytester)
    baseline = saved_baseline(pytester)
    result = pytester.runpytest("-n", "2", "-k", "test_y", "--law-baseline", baseline)
    assert result.ret == 0 and "law regressions" not in result.stdout.str()


def test_ignore_and_last_failed_raise_no_false_alarm(pytester):
    write_laws(pytester)
    write_laws(pytester, name="test_more")
    baseline = saved_baseline(pytester)
    result = pytester.runpytest("--law-baseline", baseline, "--ignore", "test_more.py")
    assert result.ret == 0 and "law regressions" not in result.stdout.str()
    write_laws(pytester, x=20.0)  # test_laws.py::test_x fails, and --lf skips test_more.py
    pytester.runpytest()
    result = pytester.runpytest("--law-baseline", baseline, "--lf")
    assert "no longer collected" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*test_laws.py::test_x [[]x]: passed in the baseline*fails now*"])


def test_the_gate_is_not_fooled_by_other_paths(pytester):
    write_laws(pytester)
    pytester.mkpydir("other")
    baseline = saved_baseline(pytester)
    pytester.makepyfile(**{"other/test_o": "def test_o(law):\n    law.check('o', 1.0, le=2.0)\n"})
    result = pytester.runpytest("--law-baseline", baseline, "other")
    assert result.ret == 0, result.stdout.str()


def test_a_bad_baseline_is_a_usage_error(pytester):
    write_laws(pytester)
    pytester.path.joinpath("bad.json").write_text("[1, 2")
    result = pytester.runpytest("--law-baseline", "bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--law-baseline*bad.json: not JSON*"])
    result = pytester.runpytest("--law-baseline", "missing.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*missing.json: no such file*"])
