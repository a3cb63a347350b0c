"""`LawChecks.check` on its own: every kind of bound passes and fails, margins are the issue's
normalised headroom, non-finite values always fail, misuse raises naming the quantity, and a
quantity checked many times keeps its worst record and the count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_physlaw.check import LawChecks, LawViolation


def one(value, **bounds):
    """Check `value` once in a fresh LawChecks; the record and whether it passed."""
    checks = LawChecks()
    passed = checks.check("q", value, **bounds)
    return checks.records["q"], passed


@pytest.mark.parametrize(("bounds", "good", "bad"), [
    ({"le": 10.0}, 10.0, 10.5),
    ({"lt": 10.0}, 9.99, 10.0),
    ({"ge": 2.0}, 2.0, 1.9),
    ({"gt": 2.0}, 2.01, 2.0),
    ({"ge": 1.0, "le": 2.0}, 1.5, 2.5),
    ({"gt": 1.0, "lt": 2.0}, 1.5, 1.0),
    ({"near": 1.0, "rel": 0.1}, 1.09, 1.11),
    ({"near": 1.0, "abs": 0.5}, 0.5, 0.49),
    ({"near": 0.0, "abs": 1e-3}, -1e-3, 2e-3),
])
def test_every_kind_of_bound_passes_inside_and_fails_outside(bounds, good, bad):
    rec, passed = one(good, **bounds)
    assert passed and rec.passed and rec.margin >= 0
    rec, passed = one(bad, **bounds)
    assert not passed and not rec.passed and rec.margin <= 0


@pytest.mark.parametrize(("value", "bounds", "margin"), [
    (3.0, {"le": 10.0}, 0.7),                       # (b - v) / |b|
    (12.0, {"le": 10.0}, -0.2),
    (3.0, {"ge": 2.0}, 0.5),                        # (v - b) / |b|
    (-3.0, {"ge": -2.0}, -0.5),
    (0.25, {"le": 0.0, "abs": 0.5}, -0.5),          # a bound of 0: normalised by abs
    (0.25, {"le": 0.0}, -0.25),                     # ... or by 1
    (1.05, {"near": 1.0, "rel": 0.1}, 0.5),         # 1 - |v - near| / tol
    (1.0, {"near": 1.0, "rel": 0.1, "abs": 0.5}, 1.0),
    (1.3, {"near": 1.0, "rel": 0.1, "abs": 0.5}, 0.4),  # tol = max(rel * |near|, abs) = 0.5
    (1.9, {"ge": 1.0, "le": 2.0}, 0.05),            # a band: the smaller side
    (1.1, {"ge": 1.0, "le": 2.0}, 0.1),
])
def test_margin_is_the_normalised_headroom(value, bounds, margin):
    assert one(value, **bounds)[0].margin == pytest.approx(margin)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.float32("nan")])
@pytest.mark.parametrize("bounds", [{"le": 1e300}, {"ge": -1e300}, {"near": 0.0, "abs": 1e300}])
def test_a_non_finite_value_always_fails_and_says_so(bad, bounds):
    checks = LawChecks()
    assert checks.check("q", bad, **bounds) is False
    assert checks.records["q"].margin == -math.inf
    with pytest.raises(LawViolation, match="not finite"):
        checks.raise_if_failed()


def test_numpy_scalars_and_0d_arrays_are_values():
    for v in (np.float64(0.5), np.float32(0.5), np.int64(0), np.array(0.5)):
        rec, passed = one(v, le=1.0)
        assert passed and isinstance(rec.value, float)


def test_an_array_is_checked_element_wise_and_recorded_by_its_worst_element():
    rec, passed = one(np.array([[0.1, 0.9], [0.5, 0.2]]), le=1.0)
    assert passed and rec.value == 0.9 and rec.margin == pytest.approx(0.1)
    rec, passed = one([0.1, [1.5, np.nan], 2.0], le=1.0)
    assert not passed and math.isnan(rec.value)  # NaN is worse than any finite failure
    rec, passed = one((0.1, 3.0, 2.0), le=1.0)
    assert not passed and rec.value == 3.0


def test_a_quantity_checked_many_times_keeps_its_worst_record_and_the_count():
    checks = LawChecks()
    for v in (1.0, 4.0, 2.0):
        checks.check("creep", v, le=5.0, unit="mm")
    rec = checks.records["creep"]
    assert (rec.value, rec.count, rec.passed) == (4.0, 3, True)
    checks.check("creep", 6.0, le=5.0)
    checks.check("creep", 0.0, le=5.0)
    rec = checks.records["creep"]
    assert (rec.value, rec.count, rec.passed) == (6.0, 5, False)
    with pytest.raises(LawViolation, match=r"worst of 5"):
        checks.raise_if_failed()


def test_records_keep_first_check_order_and_every_check_runs():
    checks = LawChecks()
    assert checks.check("b", 2.0, le=1.0) is False
    assert checks.check("a", 0.0, le=1.0) is True
    assert checks.check("b", 0.0, le=1.0) is True
    assert list(checks.records) == ["b", "a"]
    assert [r.quantity for r in checks.failed] == ["b"]


def test_the_violation_is_one_table_of_every_failed_check():
    checks = LawChecks()
    checks.check("speed", 5.0, le=4.0, unit="m/s", why="the lesson's bound")
    checks.check("fine", 1.0, le=4.0)
    checks.check("ratio", 0.5, near=1.0, rel=0.1, why="10 % of the body's answer")
    with pytest.raises(LawViolation) as info:
        checks.raise_if_failed()
    text = str(info.value)
    assert text.startswith("2 law checks failed:")
    header, speed, ratio = text.splitlines()[1:]
    assert header.split() == ["quantity", "value", "bound", "margin", "why"]
    assert speed.split()[:5] == ["speed", "5", "m/s", "<=", "4"] and "the lesson's bound" in speed
    assert "1 ± 0.1" in ratio and "-4" in ratio and "fine" not in text
    assert ratio.split()[1:4] == ["0.5", "(off", "by"] and "-0.5)" in ratio  # how far off near it is
    assert isinstance(info.value, AssertionError)


def test_a_passing_set_of_checks_raises_nothing():
    checks = LawChecks()
    checks.check("q", 1.0, le=2.0)
    checks.raise_if_failed()


def test_defaults_give_near_its_tolerance_unless_the_check_gives_one():
    checks = LawChecks(rel=0.1)
    assert checks.check("a", 1.05, near=1.0)
    assert not checks.check("b", 1.05, near=1.0, abs=0.01)  # the check's own tolerance wins
    assert checks.records["b"].bounds == {"near": 1.0, "tol": 0.01}


def test_the_tolerance_scale_multiplies_rel_and_abs_and_zero_shows_raw_residuals():
    assert LawChecks(tol_scale=2.0).check("q", 1.15, near=1.0, rel=0.1)
    assert not LawChecks(tol_scale=0.5).check("q", 1.06, near=1.0, rel=0.1)
    zero = LawChecks(tol_scale=0.0)
    assert not zero.check("q", 1.0 + 1e-12, near=1.0, rel=0.1, abs=1e-3)
    assert zero.records["q"].value == 1.0 + 1e-12 and zero.records["q"].margin == -math.inf
    assert zero.records["q"].value_text() == "1 (off by +1e-12)"  # the residual, though 1 + 1e-12 prints as 1
    assert zero.check("exact", 1.0, near=1.0, rel=0.1)  # no residual, no failure
    assert zero.check("one-sided", 0.5, le=1.0)  # one-sided bounds have no tolerance to scale


def test_drift_defaults_to_the_session_value_and_none_exempts():
    checks = LawChecks(drift=0.4)
    checks.check("a", 1.0, le=2.0)
    checks.check("b", 1.0, le=2.0, drift=None)
    checks.check("c", 1.0, le=2.0, drift=0.05)
    assert [r.drift for r in checks.records.values()] == [0.4, None, 0.05]


@pytest.mark.parametrize(("kwargs", "error", "text"), [
    ({}, TypeError, "no bound"),
    ({"near": 1.0, "le": 2.0, "rel": 0.1}, TypeError, "near cannot be combined"),
    ({"near": 1.0}, TypeError, "near needs a tolerance"),
    ({"ge": 2.0, "le": 1.0}, ValueError, "empty band"),
    ({"gt": 1.0, "lt": 1.0}, ValueError, "empty band"),
    ({"le": 1.0, "lt": 2.0}, TypeError, "one upper bound"),
    ({"ge": 1.0, "gt": 0.0}, TypeError, "one lower bound"),
    ({"near": 1.0, "rel": -0.1}, ValueError, "tolerance rel=-0.1"),
    ({"near": 1.0, "abs": -1.0}, ValueError, "tolerance abs=-1"),
    ({"near": 1.0, "rel": math.nan}, ValueError, "tolerance rel=nan"),
    ({"le": math.inf}, ValueError, "not finite"),
    ({"le": "10"}, TypeError, "le='10' is not a real number"),
    ({"le": 1.0, "rel": 0.1}, TypeError, "rel applies to near only"),
    ({"le": 1.0, "drift": -0.1}, ValueError, "drift"),
    ({"le": 1.0, "unit": 3}, TypeError, "unit"),
    ({"le": 1.0, "why": ["a"]}, TypeError, "why"),
])
def test_misuse_raises_naming_the_quantity(kwargs, error, text):
    with pytest.raises(error, match=r"'slope_creep'") as info:
        LawChecks().check("slope_creep", 1.0, **kwargs)
    assert text in str(info.value)


@pytest.mark.parametrize("value", ["1.0", None, True, 1 + 2j, b"1", {"a": 1}, object(),
                                   np.array([True]), np.array(["a"]), [1.0, "x"], []])
def test_a_non_numeric_or_empty_value_raises_naming_the_quantity(value):
    with pytest.raises((TypeError, ValueError), match="'axis_mass'"):
        LawChecks().check("axis_mass", value, le=1.0)


class ForeignArray:
    """An array of another library: a dtype without numpy's `kind`, and a ravel."""
    dtype = "float32"

    def ravel(self):
        return self


def test_an_array_without_a_numpy_dtype_is_refused_naming_the_quantity():
    with pytest.raises(TypeError, match="'axis_mass': an array of dtype float32 is not a numpy array"):
        LawChecks().check("axis_mass", ForeignArray(), le=1.0)


@pytest.mark.parametrize("quantity", ["", "  ", None, 3])
def test_the_quantity_must_be_a_name(quantity):
    with pytest.raises(TypeError, match="quantity must be a non-empty string"):
        LawChecks().check(quantity, 1.0, le=2.0)


def test_misuse_leaves_no_record():
    checks = LawChecks()
    with pytest.raises(TypeError):
        checks.check("q", 1.0)
    assert checks.records == {}


def test_a_closed_set_of_checks_refuses_more_with_the_reason():
    checks = LawChecks()
    checks.close("made after the call phase")
    with pytest.raises(RuntimeError, match="'late'.*after the call phase"):
        checks.check("late", 1.0, le=2.0)
