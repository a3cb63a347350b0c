"""The baseline gate: each kind of regression is caught, an unchanged run passes, bad baselines are
clear usage errors, and -k/-m raise no false "no longer collected" alarm.

The first half tests the pure comparison on hand-made records; the second half runs pytest on small
law files with pytester, saving a baseline, changing the files, and gating the next run.
"""

from __future__ import annotations

import math
import textwrap

import pytest

from pytest_physlaw.check import LawChecks
from pytest_physlaw.gate import Baseline, Finding, compare, value_move
from pytest_physlaw.reportfile import ReportError, read, validate
from pytest_physlaw.record import SCHEMA_VERSION, CheckRecord, LawRecord
from pytest_physlaw.session import LawSession

PATH = "laws/test_a.py"


def le_check(value: float, bound: float = 10.0, *, quantity: str = "x", drift: float | None = 0.01) -> CheckRecord:
    """A `le=bound` check record as the fixture makes it (margin (b - v) / |b|, zero 1e-3 * |b|)."""
    margin = (bound - value) / abs(bound) if math.isfinite(value) else -math.inf
    return CheckRecord(quantity, value, f"<= {bound:g}", {"le": bound}, margin,
                       math.isfinite(value) and value <= bound, drift=drift,
                       drift_abs=0.0 if drift is None else 1e-3 * abs(bound))


def near_check(value: float, near: float = 1.0, tol: float = 0.1, *, drift: float | None = 0.01) -> CheckRecord:
    margin = 1.0 - abs(value - near) / tol
    return CheckRecord("r", value, f"{near:g} ± {tol:g}", {"near": near, "tol": tol}, margin, margin >= 0, drift=drift,
                       drift_abs=0.0 if drift is None else 1e-3 * tol)


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


@pytest.mark.parametrize("now", [4.9, 5.1], ids=["down", "up"])
def test_a_value_that_moved_more_than_its_drift_either_way_is_a_regression(now):
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(now))))
    assert kinds(result.regressions) == ["drift"]
    finding = result.regressions[0]
    assert f"value 5 -> {now:g} ({'-' if now < 5 else '+'}2%) moved more than its drift (±0.01 rel, zero within 0.01: 0.05 here)" \
        in str(finding)
    assert (finding.old, finding.new, finding.change) == ("5", f"{now:g}", f"{'-' if now < 5 else '+'}2%")


def test_a_loose_bound_does_not_hide_a_changed_value():
    """The margin of a far bound barely moves; the value moved 2.5x and the gate says so."""
    base = baseline_of(law("test_x", le_check(0.4, bound=100.0, drift=0.01)))
    result = compare(base, run_of(law("test_x", le_check(1.0, bound=100.0, drift=0.01))))
    assert kinds(result.regressions) == ["drift"] and "+150%" in str(result.regressions[0])


def test_a_value_near_zero_under_a_far_bound_does_not_flag_on_round_off():
    base = baseline_of(law("test_x", le_check(1e-15, bound=1e-9, drift=0.01)))
    assert le_check(1e-15, bound=1e-9, drift=0.01).drift_abs == pytest.approx(1e-12)
    result = compare(base, run_of(law("test_x", le_check(7e-15, bound=1e-9, drift=0.01))))
    assert result.regressions == [] and result.notes == []
    result = compare(base, run_of(law("test_x", le_check(5e-11, bound=1e-9, drift=0.01))))
    assert kinds(result.regressions) == ["drift"]


def checked(quantity: str, value: float, **bounds: float) -> LawRecord:
    """A law of one check made as the `law` fixture makes it (default drift and zero)."""
    checks = LawChecks()
    checks.check(quantity, value, **bounds)
    return law("test_x", *checks.records.values())


# Issue 18's four cases: (bounds, baseline value, value now, flags?).
FLOOR_CASES = [
    # 2.0 -> 2.1 is +5 %: a loose sanity bound (le=1e6) must not make it zero (the old floor was 1000).
    ({"ge": 0.0, "le": 1e6}, 2.0, 2.1, True),
    # a timestep x1.1 on a small scene: -1.14 % against a stated 1 % (the old floor 1e-3 let 2.1 % through).
    ({"ge": 0.0, "le": 1.0}, 0.0468992, 0.0463668, True),
    # round-off residuals near zero, with and without a bound of 0 beside the tight one.
    ({"le": 1e-9}, 1e-15, 3e-15, False),
    ({"ge": 0.0, "le": 1e-9}, 1e-15, 3e-15, False),
]


@pytest.mark.parametrize(("bounds", "old", "new", "flags"), FLOOR_CASES,
                         ids=["loose-upper-bound", "small-value-in-unit-band", "residual-le", "residual-band"])
def test_a_value_beyond_its_relative_drift_flags_whatever_its_bounds_round_off_does_not(bounds, old, new, flags):
    result = compare(baseline_of(checked("q", old, **bounds)), run_of(checked("q", new, **bounds)))
    assert kinds(result.regressions) == (["drift"] if flags else [])
    if not flags:
        assert result.notes == []  # round-off is silent, not even a note


def test_the_zero_comes_from_the_tight_side_not_the_largest_bound():
    # a bound of 0 counts as `abs`, else 1; the smallest scale wins: le=1e-9 beside ge=0 is the law's figure.
    assert checked("q", 2.0, ge=0.0, le=1e6).checks[0].drift_abs == pytest.approx(1e-3)
    assert checked("q", 1e-15, ge=0.0, le=1e-9).checks[0].drift_abs == pytest.approx(1e-12)
    assert checked("q", 1e-15, ge=0.0, le=1e-9, abs=1e-12).checks[0].drift_abs == pytest.approx(1e-15)
    assert checked("q", 0.5, near=0.0, abs=1e-6).checks[0].drift_abs == pytest.approx(1e-9)
    # a value inside the band but above its zero is gated at its relative drift ...
    base = baseline_of(checked("q", 5e-10, ge=0.0, le=1e-9))
    assert kinds(compare(base, run_of(checked("q", 5.2e-10, ge=0.0, le=1e-9))).regressions) == ["drift"]
    # ... and a residual that leaves the round-off zero moved, though the move is below the zero itself.
    base = baseline_of(checked("q", 9e-13, le=1e-9))
    assert kinds(compare(base, run_of(checked("q", 1.5e-12, le=1e-9))).regressions) == ["drift"]
    # a round-off residual may change sign.
    base = baseline_of(checked("q", -4e-16, ge=-1e-9, le=1e-9))
    assert compare(base, run_of(checked("q", 6e-16, ge=-1e-9, le=1e-9))).regressions == []


def test_a_value_moved_within_drift_is_a_note_and_noise_is_silent():
    moved = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(5.04))))
    assert moved.regressions == [] and kinds(moved.notes) == ["moved-within"]
    noise = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", le_check(5.0 + 1e-12))))
    assert noise.regressions == [] and noise.notes == []


def test_drift_none_exempts_the_value_but_not_the_bound():
    base = baseline_of(law("test_x", le_check(5.0, drift=None)))
    moved = compare(base, run_of(law("test_x", le_check(0.1, drift=None))))
    assert moved.regressions == []
    broke = compare(base, run_of(law("test_x", le_check(11.0, drift=None), outcome="failed")))
    assert kinds(broke.regressions) == ["now-failing"]


def test_a_per_check_drift_and_zero_are_used():
    base = baseline_of(law("test_x", le_check(5.0, drift=0.5)))
    assert compare(base, run_of(law("test_x", le_check(7.0, drift=0.5)))).regressions == []
    assert kinds(compare(base, run_of(law("test_x", le_check(8.0, drift=0.5)))).regressions) == ["drift"]
    zero = [le_check(v, drift=0.01) for v in (1.0, 2.5, 3.5)]
    for record in zero:
        record.drift_abs = 3.0  # drift_abs=3: values within 3 of 0 are round-off to this law
    base = baseline_of(law("test_x", zero[0]))
    assert compare(base, run_of(law("test_x", zero[1]))).regressions == []
    assert kinds(compare(base, run_of(law("test_x", zero[2]))).regressions) == ["drift"]


def test_a_near_value_that_crossed_to_the_other_side_moved():
    # |1.05 - 1| = |0.95 - 1|: the same margin, a different physics.
    result = compare(baseline_of(law("test_y", near_check(1.05))), run_of(law("test_y", near_check(0.95))))
    assert kinds(result.regressions) == ["drift"]
    assert value_move(near_check(1.05), near_check(0.95))[0] == pytest.approx(0.1)


def test_non_finite_values():
    nan = le_check(math.nan)
    assert value_move(nan, le_check(math.nan))[0] == 0.0
    assert value_move(nan, le_check(math.inf))[0] == math.inf
    assert value_move(le_check(math.inf), le_check(-math.inf))[0] == math.inf
    assert value_move(nan, le_check(5.0))[0] == math.inf
    # A failing (gap) check whose value turned finite again has moved beyond any drift.
    gap = "docs/known_gaps/g.md"
    result = compare(baseline_of(law("test_x", nan, outcome="xfailed", gap=gap)),
                     run_of(law("test_x", le_check(12.0), outcome="xfailed", gap=gap)))
    assert kinds(result.regressions) == ["drift"] and "nan (not finite) -> 12" in str(result.regressions[0])
    # A passing check whose value turned NaN fails: one regression, not two.
    result = compare(baseline_of(law("test_x", le_check(5.0))), run_of(law("test_x", nan, outcome="failed")))
    assert kinds(result.regressions) == ["now-failing"]


def hypothesis_law(value: float, digest: str, *checks: CheckRecord) -> LawRecord:
    rec = law("test_h", le_check(value), *checks)
    rec.examples = {"count": 60, "digest": digest}
    return rec


def test_a_hypothesis_law_compares_worst_values_only_over_the_same_examples():
    base = baseline_of(hypothesis_law(5.0, "aaaa"))
    same = compare(base, run_of(hypothesis_law(6.0, "aaaa")))
    assert kinds(same.regressions) == ["drift"]
    other = compare(base, run_of(hypothesis_law(6.0, "bbbb")))
    assert other.regressions == [] and kinds(other.notes) == ["examples"]
    assert "a derandomized profile" in str(other.notes[0])
    broke = compare(base, run_of(hypothesis_law(12.0, "bbbb")))
    assert kinds(broke.regressions) == ["now-failing"]


def test_a_quantity_only_some_examples_check_is_a_note_in_a_hypothesis_law():
    base = baseline_of(hypothesis_law(5.0, "aaaa", le_check(1.0, quantity="sometimes")))
    result = compare(base, run_of(hypothesis_law(5.0, "aaaa")))
    assert result.regressions == [] and kinds(result.notes) == ["missing-quantity"]


def test_a_renamed_law_keeps_its_history_by_id_and_case():
    old = LawRecord("laws/a.py::test_old[PGS]", "laws/a.py", law="slope-holds", identity="slope-holds[PGS]",
                    checks=[le_check(5.0)])
    new = LawRecord("laws/b.py::test_new[PGS]", "laws/b.py", law="slope-holds", identity="slope-holds[PGS]",
                    checks=[le_check(5.5)])
    result = compare(baseline_of(old), run_of(new, collect_args=(".",)))
    assert kinds(result.regressions) == ["drift"] and result.regressions[0].nodeid == new.nodeid
    assert kinds(result.notes) == ["moved"]
    assert "moved here from laws/a.py::test_old[PGS]" in str(result.notes[0])


def test_an_empty_baseline_against_laws_is_a_regression():
    result = compare(Baseline({}), run_of(law("test_x", le_check(5.0))))
    assert kinds(result.regressions) == ["empty-baseline"]
    assert compare(Baseline({}), run_of()).regressions == []


def test_a_law_of_a_module_skipped_at_collection_is_a_note():
    run = run_of(collect_args=(".",))
    run.skipped_modules["laws/test_a.py"] = "could not import 'mujoco_warp'"
    result = compare(baseline_of(law("test_x", le_check(5.0))), run)
    assert result.regressions == [] and kinds(result.notes) == ["skipped"]
    assert "mujoco_warp" in str(result.notes[0])


def test_another_cpu_than_the_baselines_is_a_note():
    """Float32 and timing figures move with the CPU: a run on another one says so beside any drift it finds."""
    base = Baseline({}, {"mujoco": "3.14.0", "cpu": "AuthenticAMD family 23 model 49, avx2"})
    result = compare(base, run_of(), {"mujoco": "3.14.0", "cpu": "AuthenticAMD family 26 model 2, avx512f"})
    assert result.regressions == [] and [str(n) for n in result.notes] == [
        "environment: cpu AuthenticAMD family 23 model 49, avx2 in the baseline, AuthenticAMD family 26 model 2, "
        "avx512f now"]


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

GOOD_CHECK = {"quantity": "q", "value": 1.0, "bound": "<= 2", "bounds": {"le": 2.0}, "margin": 0.5, "passed": True}


def report_with(law: dict | None = None, **top) -> dict:
    data = {"schema_version": SCHEMA_VERSION, "laws": [law] if law is not None else []}
    data.update(top)
    return data


def a_law(**fields) -> dict:
    out = {"nodeid": "t.py::t", "path": "t.py", "checks": [dict(GOOD_CHECK)]}
    out.update(fields)
    return out


def a_check(**fields) -> dict:
    return a_law(checks=[{**GOOD_CHECK, **fields}])


@pytest.mark.parametrize("data, message", [
    ([], r"not a pytest-physlaw report \(no schema_version\)"),
    ({"schema_version": SCHEMA_VERSION + 1, "laws": []}, f"schema version {SCHEMA_VERSION + 1}"),
    ({"schema_version": SCHEMA_VERSION, "laws": {}}, "laws is an object , not a list"),
    (report_with(complete="yes"), "complete is a string"),
    (report_with({"path": "a"}), "law #0 lacks the key 'nodeid'"),
    (report_with(a_law(checks={})), r"law #0 \(t.py::t\).checks is an object , not a list"),
    (report_with(a_law(outcome="fine")), "outcome is 'fine', not one of"),
    (report_with(a_check(passed="false")), r"checks\[0\] \('q'\).passed is a string \(\"false\"\), not true/false"),
    (report_with(a_check(value=None)), r"\.value is null"),
    (report_with(a_check(margin=None)), r"\.margin is null"),
    (report_with(a_check(value="lots")), r"\.value is a string"),
    (report_with(a_check(count=0)), r"\.count is 0, not a count >= 1"),
    (report_with(a_check(drift=-1)), r"\.drift is -1, not a finite number >= 0"),
    (report_with(a_check(bounds={"below": 1})), "unknown key 'below'"),
    ({**report_with(a_law()), "laws": [a_law(), a_law()]}, r"law #1 \(t.py::t\) appears twice"),
    ({**report_with(), "laws": [a_law(identity="x[]"), a_law(nodeid="u.py::u", identity="x[]")]},
     "law id 'x\\[\\]' is given to two laws"),
    (report_with(environment={"versions": []}), "environment.versions is a list"),
])
def test_a_defective_report_is_refused_naming_the_key(data, message):
    with pytest.raises(ReportError, match=message):
        validate(data, "b.json")


def test_bad_files_are_refused_naming_the_file(tmp_path):
    with pytest.raises(ReportError, match=r"none\.json: no such file"):
        read(tmp_path / "none.json", "none.json")
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(ReportError, match=r"broken\.json: not JSON"):
        read(tmp_path / "broken.json", "broken.json")
    (tmp_path / "binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ReportError, match=r"binary\.json: not a text file"):
        read(tmp_path / "binary.json", "binary.json")
    (tmp_path / "nan.json").write_text('{"schema_version": 2, "laws": [], "x": NaN}')
    with pytest.raises(ReportError, match="NaN is not JSON"):
        read(tmp_path / "nan.json", "nan.json")
    with pytest.raises(ReportError, match="is a folder"):
        read(tmp_path, "tmp")


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
    text = textwrap.dedent(LAWS.format(x=x, y=y))
    if name != "test_laws":  # a law id names one law: another file's copy gets its own ids
        text = text.replace('law("', f'law("{name}-')
    pytester.makepyfile(**{name: text})


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
    result.stdout.fnmatch_lines(["*law regressions*", "*test_laws.py::test_x [[]x]: value 5 m -> 1 m (-80%) moved more "
                                 "than its drift (±0.01 rel, zero within 0.01: 0.05 here)",
                                 "the baseline gate fails this run: 1 regression; *--law-save-baseline*",
                                 "*= 2 passed, 1 law regression in *"])
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
        "test_w.py::test_w [[]w]: passed in the baseline (1), fails now (3, bound <= 2)",
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
