"""One law check: a measured value against its bounds, the margin left, and the worst record kept.

A check never raises for a violated bound: it records, and `LawChecks.raise_if_failed` turns the
failed records of a test into one `LawViolation` at the end of its call phase. Misuse (no bound,
`near` with one-sided bounds, an empty band, a negative tolerance, a non-numeric value) raises
TypeError/ValueError at once, naming the quantity.

Margins are normalised headroom, >= 0 when the check passes:
  le=b: (b - v) / |b|     ge=b: (v - b) / |b|     (a bound of 0 is normalised by `abs`, else 1)
  near=c: 1 - |v - c| / tol, tol = max(rel * |c|, abs)     a band: the smaller side.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pytest

from pytest_physlaw.record import DEFAULT_DRIFT, DEFAULT_DRIFT_FLOOR, CheckRecord

_builtin_abs = abs
UNSET: Any = object()


class LawViolation(AssertionError):
    """A law's measured value broke its bound. The only failure a known gap accepts."""

    __module__ = "pytest_physlaw"


def _real(quantity: str, name: str, x: Any) -> float:
    """`x` as a float, or a TypeError/ValueError naming the quantity and the argument."""
    __tracebackhide__ = True
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if isinstance(x, (bool, str, bytes, complex)) or (kind is not None and kind not in "iuf"):
        raise TypeError(f"law check {quantity!r}: {name}={x!r} is not a real number")
    try:
        return float(x)
    except OverflowError:
        raise ValueError(f"law check {quantity!r}: {name}={_short(x)} is too large for a float") from None
    except (TypeError, ValueError):
        raise TypeError(f"law check {quantity!r}: {name}={_short(x)} is not a real number") from None


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:40] + f"... ({len(text)} characters)"


def _non_negative(quantity: str, name: str, x: Any, alternative: str = "") -> float:
    """`x` as a finite float >= 0, or an error naming the quantity and the argument."""
    __tracebackhide__ = True
    f = _real(quantity, name, x)
    if not (math.isfinite(f) and f >= 0):
        raise ValueError(f"law check {quantity!r}: {name}={f} must be finite and >= 0{alternative}")
    return f


def _optional_real(quantity: str, name: str, x: Any) -> float | None:
    __tracebackhide__ = True
    return None if x is None else _real(quantity, name, x)


def _is_array(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "ravel")


def _array(quantity: str, value: Any) -> Any:
    """A numpy array of real values as a flat float64 array (numpy is imported only when one is given)."""
    __tracebackhide__ = True
    kind = getattr(value.dtype, "kind", None)
    if kind is None:
        raise TypeError(f"law check {quantity!r}: an array of dtype {value.dtype} is not a numpy array; "
                        f"pass a numpy array or floats")
    if kind not in "iuf":
        raise TypeError(f"law check {quantity!r}: value of dtype {value.dtype} is not real")
    if hasattr(value, "mask") and type(value).__module__.startswith("numpy.ma"):
        raise TypeError(f"law check {quantity!r}: a masked array is refused (which elements count would be "
                        f"a guess); pass value.compressed() to check the unmasked elements")
    import numpy as np

    return np.asarray(value, dtype=np.float64).ravel()


def _flat(quantity: str, value: Any) -> list[float]:
    """A scalar, a numpy scalar, or a (nested) sequence of them, flattened to floats."""
    __tracebackhide__ = True
    if _is_array(value):
        return [float(v) for v in _array(quantity, value).tolist()]
    if isinstance(value, (list, tuple)):
        out: list[float] = []
        for v in value:
            out.extend(_flat(quantity, v))
        return out
    if value is None:
        raise TypeError(f"law check {quantity!r}: value is None, not a measured number")
    return [_real(quantity, "value", value)]


def _text(quantity: str, name: str, x: Any) -> str | None:
    __tracebackhide__ = True
    if x is not None and not isinstance(x, str):
        raise TypeError(f"law check {quantity!r}: {name}={x!r} must be a string or None")
    return x


class Bounds:
    """The bounds of one check, validated once, able to score any value.

    `rel`/`abs` are the tolerances as given; `tol_scale` (--law-tol-scale) multiplies them for
    the pass/fail test of `near`. `abs` also normalises the margin of a one-sided bound of 0.
    """

    def __init__(self, quantity: str, *, le: Any = None, lt: Any = None, ge: Any = None, gt: Any = None,
                 near: Any = None, rel: Any = None, abs: Any = None, tol_scale: float = 1.0,
                 explicit_rel: bool = True) -> None:
        __tracebackhide__ = True  # a misuse shows the test's line and the message, not these frames
        self.quantity = quantity
        self.le, self.lt = _optional_real(quantity, "le", le), _optional_real(quantity, "lt", lt)
        self.ge, self.gt = _optional_real(quantity, "ge", ge), _optional_real(quantity, "gt", gt)
        self.near = _optional_real(quantity, "near", near)
        self.rel, self.abs = _optional_real(quantity, "rel", rel), _optional_real(quantity, "abs", abs)
        self._validate(explicit_rel)
        self.tol: float | None = None
        if self.near is not None:
            self.tol = max((self.rel or 0.0) * _builtin_abs(self.near), self.abs or 0.0) * tol_scale

    def _validate(self, explicit_rel: bool) -> None:
        __tracebackhide__ = True
        q = self.quantity
        for name in ("le", "lt", "ge", "gt", "near"):
            x = getattr(self, name)
            if x is not None and not math.isfinite(x):
                raise ValueError(f"law check {q!r}: bound {name}={x} is not finite")
        for name in ("rel", "abs"):
            x = getattr(self, name)
            if x is not None and not (math.isfinite(x) and x >= 0):
                raise ValueError(f"law check {q!r}: tolerance {name}={x} must be finite and >= 0")
        one_sided = [x for x in (self.le, self.lt, self.ge, self.gt) if x is not None]
        if self.near is None and not one_sided:
            raise TypeError(f"law check {q!r}: no bound given (le, lt, ge, gt or near)")
        if self.near is not None and one_sided:
            raise TypeError(f"law check {q!r}: near cannot be combined with le/lt/ge/gt")
        if self.le is not None and self.lt is not None:
            raise TypeError(f"law check {q!r}: give one upper bound, le or lt, not both")
        if self.ge is not None and self.gt is not None:
            raise TypeError(f"law check {q!r}: give one lower bound, ge or gt, not both")
        if self.near is not None and self.rel is None and self.abs is None:
            raise TypeError(f"law check {q!r}: near needs a tolerance: rel and/or abs, here, in the law "
                            f"marker or in ini physlaw_rel/physlaw_abs")
        if self.near is None and self.rel is not None and explicit_rel:
            raise TypeError(f"law check {q!r}: rel applies to near only; a one-sided bound is exact "
                            f"(abs there only normalises the margin of a bound of 0)")
        upper = self.le if self.le is not None else self.lt
        lower = self.ge if self.ge is not None else self.gt
        if upper is not None and lower is not None:
            strict = self.lt is not None or self.gt is not None
            if lower > upper or (lower == upper and strict):
                raise ValueError(f"law check {q!r}: empty band, lower bound {lower:g} is above upper bound {upper:g}")

    def as_dict(self) -> dict[str, float]:
        d = {k: getattr(self, k) for k in ("le", "lt", "ge", "gt", "near") if getattr(self, k) is not None}
        if self.tol is not None:
            d["tol"] = self.tol
        return d

    def text(self) -> str:
        """The human form of the bound: "<= 10", ">= 0.5 and <= 2", "1 ± 0.1"."""
        if self.near is not None:
            return f"{self.near:.6g} ± {self.tol:.3g}"
        lo = f">= {self.ge:.6g}" if self.ge is not None else (f"> {self.gt:.6g}" if self.gt is not None else None)
        hi = f"<= {self.le:.6g}" if self.le is not None else (f"< {self.lt:.6g}" if self.lt is not None else None)
        return " and ".join(s for s in (lo, hi) if s)

    def _scale(self, bound: float) -> float:
        return _builtin_abs(bound) if bound != 0 else (self.abs or 1.0)

    def scale(self) -> float:
        """The size of the smallest figure this check speaks of (its tight side): the tolerance of
        `near`, else its smallest bound's scale (a bound of 0 counts as `abs`, else 1). The gate's
        zero (`drift_abs`) is a small share of it (ini physlaw_drift_floor, 1e-3): a value that far
        below the finest figure the law states is round-off to the law. Not the largest bound: a
        loose sanity bound (`le=1e6`) says nothing about how small a value is."""
        if self.near is not None:
            return self.tol
        return min(self._scale(b) for b in (self.le, self.lt, self.ge, self.gt) if b is not None)

    def margin(self, v: float) -> float:
        """Normalised headroom, >= 0 when passing; -inf for a non-finite value."""
        if not math.isfinite(v):
            return -math.inf
        if self.near is not None:
            err = _builtin_abs(v - self.near)
            if self.tol == 0:
                return 0.0 if err == 0 else -math.inf
            return 1.0 - err / self.tol
        sides = [(b - v) / self._scale(b) for b in (self.le, self.lt) if b is not None]
        sides += [(v - b) / self._scale(b) for b in (self.ge, self.gt) if b is not None]
        return min(sides)

    def passes(self, v: float) -> bool:
        if not math.isfinite(v):
            return False
        if self.near is not None:
            return _builtin_abs(v - self.near) <= self.tol
        return ((self.le is None or v <= self.le) and (self.lt is None or v < self.lt)
                and (self.ge is None or v >= self.ge) and (self.gt is None or v > self.gt))

    def rank(self, v: float) -> tuple:
        """The order of badness, smallest worst: failing first, then the smallest margin, then the
        farthest from `near` (a tolerance of 0 gives every miss margin -inf), then NaN, then the
        smallest value; so which value is the worst never depends on the values' order."""
        nan = math.isnan(v)
        far = math.inf if nan else (_builtin_abs(v - self.near) if self.near is not None else 0.0)
        return (self.passes(v), self.margin(v), -far, not nan, 0.0 if nan else v)

    def worst(self, values: list[float]) -> tuple[float, float, bool]:
        """(value, margin, passed) of the worst value (see `rank`)."""
        v = min(values, key=self.rank)
        return v, self.margin(v), self.passes(v)

    def worst_array(self, a: Any) -> tuple[float, float, bool]:
        """`worst` of a float64 array in two passes: the passing values form an interval and the
        margin falls monotonically away from it (and away from `near`), so the worst value is the
        smallest or the largest; a NaN makes both NaN, and NaN is the worst of all."""
        return self.worst([float(a.min()), float(a.max())])


class LawChecks:
    """All checks made in one test: the worst record per quantity, in first-check order.

    `rel`/`abs` are the defaults of a `near` check that gives neither (law marker, then ini);
    `drift` is the default relative drift of a check that gives none (ini physlaw_drift), and
    `drift_floor` the share of the check's tight scale its zero (`drift_abs`) defaults to.
    `example` is the Hypothesis example running now (set by the plugin), kept with a worst record.
    """

    def __init__(self, *, rel: float | None = None, abs: float | None = None, tol_scale: float = 1.0,
                 drift: float | None = DEFAULT_DRIFT, drift_floor: float = DEFAULT_DRIFT_FLOOR) -> None:
        self.default_rel, self.default_abs = rel, abs
        self.tol_scale, self.default_drift, self.drift_floor = tol_scale, drift, drift_floor
        self.records: dict[str, CheckRecord] = {}
        self.closed_reason: str | None = None
        self.refusal: str | None = None  # while set (a fixture of a wider scope runs), checks are refused
        self.example: str | None = None
        self.premise: tuple[str, str] | None = None  # (law id, why): a failure here follows from that law's

    def check(self, quantity: str, value: Any, *, le: Any = None, lt: Any = None, ge: Any = None,
              gt: Any = None, near: Any = None, rel: Any = None, abs: Any = None, unit: str | None = None,
              why: str | None = None, drift: Any = UNSET, drift_abs: Any = None,
              where: str | None = None) -> bool:
        """Check `value` against its bounds, record it, and say whether it passed."""
        __tracebackhide__ = True
        if not isinstance(quantity, str) or not quantity.strip():
            raise TypeError(f"law check: quantity must be a non-empty string, got {quantity!r}")
        if self.closed_reason is not None:
            raise RuntimeError(f"law check {quantity!r}: {self.closed_reason}")
        if self.refusal is not None:
            raise RuntimeError(f"law check {quantity!r}: {self.refusal}")
        explicit_rel = rel is not None
        if rel is None and abs is None:
            rel, abs = (self.default_rel, self.default_abs) if near is not None else (None, self.default_abs)
        bounds = Bounds(quantity, le=le, lt=lt, ge=ge, gt=gt, near=near, rel=rel, abs=abs,
                        tol_scale=self.tol_scale, explicit_rel=explicit_rel)
        unit, why = _text(quantity, "unit", unit), _text(quantity, "why", why)
        drift, drift_abs = self._drift(quantity, drift, drift_abs, bounds)
        values, score = (_array(quantity, value), bounds.worst_array) if _is_array(value) else \
            (_flat(quantity, value), bounds.worst)
        size = len(values)
        if not size:
            raise ValueError(f"law check {quantity!r}: value is empty")
        worst, margin, passed = score(values)
        record = CheckRecord(quantity=quantity, value=worst, bound=bounds.text(), bounds=bounds.as_dict(),
                             margin=margin, passed=passed, unit=unit, why=why, drift=drift, drift_abs=drift_abs,
                             size=size, example=self.example, where=where)
        self.records[quantity] = self._merge(self.records.get(quantity), record, bounds)
        return passed

    def _drift(self, quantity: str, drift: Any, drift_abs: Any, bounds: Bounds) -> tuple[float | None, float]:
        """The relative drift and the check's zero (default: drift_floor times the check's tight scale)."""
        __tracebackhide__ = True
        if drift is UNSET:
            drift = self.default_drift
        elif drift is not None:
            drift = _non_negative(quantity, "drift", drift, ", or None")
        if drift_abs is not None:
            drift_abs = _non_negative(quantity, "drift_abs", drift_abs)
            if drift is None:
                raise TypeError(f"law check {quantity!r}: drift_abs has no meaning with drift=None (exempt)")
            return drift, drift_abs
        return drift, (0.0 if drift is None else self.drift_floor * bounds.scale())

    @staticmethod
    def _merge(old: CheckRecord | None, new: CheckRecord, bounds: Bounds) -> CheckRecord:
        """Keep the worse of two records of one quantity; a quantity keeps one bound, or it is misuse."""
        __tracebackhide__ = True
        if old is None:
            return new
        if old.bounds != new.bounds or old.drift != new.drift or old.drift_abs != new.drift_abs:
            what = "bound" if old.bounds != new.bounds else "drift"
            raise ValueError(
                f"law check {new.quantity!r}: checked before in this test with {what} "
                f"{old.bound if what == 'bound' else old.drift_text()}, now {new.bound if what == 'bound' else new.drift_text()}; "
                f"a quantity keeps one bound (give the other check its own quantity name)")
        count, size = old.count + 1, old.size + new.size
        worse = new if bounds.rank(new.value) < bounds.rank(old.value) else old
        worse.count, worse.size = count, size
        return worse

    @property
    def failed(self) -> list[CheckRecord]:
        return [r for r in self.records.values() if not r.passed]

    def close(self, reason: str) -> None:
        """Refuse further checks (the verdict has been given) with `reason`."""
        self.closed_reason = reason

    def raise_if_failed(self) -> None:
        """A LawViolation listing the failed checks; a law whose failure follows from a failed premise
        (`Law.follows`) ends xfailed instead, naming the premise: one cause, one finding."""
        __tracebackhide__ = True
        failed = self.failed
        if failed and self.premise is not None:
            law_id, why = self.premise
            pytest.xfail(f"consequence of {law_id}: {why} ({', '.join(r.quantity for r in failed)} failed)")
        if failed:
            raise LawViolation(violation_table(failed))


def violation_table(records: Iterable[CheckRecord]) -> str:
    """The failed checks as a small aligned table: quantity, value, bound, margin, why; then where
    each was checked and the Hypothesis example its worst value came from."""
    records = list(records)
    rows = [("quantity", "value", "bound", "margin", "why")]
    for r in records:
        value = r.value_text()
        if r.count > 1:
            value += f" (worst of {r.count})"
        rows.append((r.quantity, value, r.bound, f"{r.margin:.3g}", r.why or ""))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    for r in records:
        if r.where:
            lines.append(f"{r.quantity}: checked at {r.where}")
        if r.example:
            lines.append(f"{r.quantity}: worst example {r.example}")
    n = len(records)
    return f"{n} law check{'s' if n != 1 else ''} failed:\n" + "\n".join(lines)
