"""One law check: a measured value against its bounds, the margin left, and the worst record kept.

A check never raises for a violated bound: it records. `LawChecks.raise_if_failed` turns the
failed records of a test into one `LawViolation` at the end of the call phase. Misuse (no bound,
an empty band, a negative tolerance, a non-numeric value) raises TypeError/ValueError at once.
"""

from __future__ import annotations

import math
from typing import Any

from pytest_physlaw.record import CheckRecord

_UNSET: Any = object()


class LawViolation(AssertionError):
    """A law's measured value broke its bound. The only failure a known gap accepts."""


def _number(quantity: str, name: str, x: Any) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool) or not _is_real(x):
        raise TypeError(f"law check {quantity!r}: {name}={x!r} is not a real number")
    return float(x)


def _is_real(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return not isinstance(x, (str, bytes, complex))


def _values(quantity: str, value: Any) -> list[float]:
    """A scalar, a numpy scalar, a 0-d or n-d array, or a sequence, flattened to floats."""
    if hasattr(value, "dtype") and hasattr(value, "ravel"):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"law check {quantity!r}: value of dtype {value.dtype} is not real")
        flat = [float(v) for v in value.ravel()]
    elif isinstance(value, (list, tuple)):
        flat = [_number(quantity, "value", v) for v in value]
    else:
        flat = [_number(quantity, "value", value)]
    if not flat:
        raise ValueError(f"law check {quantity!r}: value is empty")
    return flat


class Bounds:
    """The bounds of one check, validated once, able to score any value."""

    def __init__(self, quantity: str, *, le=None, lt=None, ge=None, gt=None, near=None,
                 rel=None, abs=None, tol_scale: float = 1.0) -> None:
        self.quantity = quantity
        n = lambda name, x: _number(quantity, name, x)  # noqa: E731
        self.le, self.lt, self.ge, self.gt = n("le", le), n("lt", lt), n("ge", ge), n("gt", gt)
        self.near = n("near", near)
        rel, abs_ = n("rel", rel), n("abs", abs)
        for name, x in (("le", self.le), ("lt", self.lt), ("ge", self.ge), ("gt", self.gt), ("near", self.near)):
            if x is not None and not math.isfinite(x):
                raise ValueError(f"law check {quantity!r}: bound {name}={x} is not finite")
        for name, x in (("rel", rel), ("abs", abs_)):
            if x is not None and not (x >= 0 and math.isfinite(x)):
                raise ValueError(f"law check {quantity!r}: tolerance {name}={x} must be finite and >= 0")
        one_sided = [x for x in (self.le, self.lt, self.ge, self.gt) if x is not None]
        if self.near is None and not one_sided:
            raise TypeError(f"law check {quantity!r}: no bound given (le, lt, ge, gt or near)")
        if self.near is not None and one_sided:
            raise TypeError(f"law check {quantity!r}: near cannot be combined with le/lt/ge/gt")
        if self.le is not None and self.lt is not None or self.ge is not None and self.gt is not None:
            raise TypeError(f"law check {quantity!r}: give one upper bound (le or lt) and one lower (ge or gt)")
        upper = self.le if self.le is not None else self.lt
        lower = self.ge if self.ge is not None else self.gt
        if upper is not None and lower is not None and (lower > upper or (lower == upper and (self.lt is not None or self.gt is not None))):
            raise ValueError(f"law check {quantity!r}: empty band, lower bound {lower} above upper bound {upper}")
        self.abs = (abs_ or 0.0) * tol_scale
        self.tol = max((rel or 0.0) * tol_scale * builtin_abs(self.near or 0.0), self.abs) if self.near is not None else None
        if self.near is not None and rel is None and abs_ is None:
            raise TypeError(f"law check {quantity!r}: near needs a tolerance (rel or abs, here or as defaults)")

    def as_dict(self) -> dict[str, float]:
        d = {k: getattr(self, k) for k in ("le", "lt", "ge", "gt", "near") if getattr(self, k) is not None}
        if self.tol is not None:
            d["tol"] = self.tol
        return d

    def text(self) -> str:
        if self.near is not None:
            return f"{self.near:.6g} ± {self.tol:.3g}"
        lo = f">= {self.ge:.6g}" if self.ge is not None else (f"> {self.gt:.6g}" if self.gt is not None else None)
        hi = f"<= {self.le:.6g}" if self.le is not None else (f"< {self.lt:.6g}" if self.lt is not None else None)
        return " and ".join(s for s in (lo, hi) if s)

    def margin(self, v: float) -> float:
        """Normalised headroom, >= 0 when passing; -inf for a non-finite value."""
        if not math.isfinite(v):
            return -math.inf
        if self.near is not None:
            err = builtin_abs(v - self.near)
            if self.tol == 0:
                return 0.0 if err == 0 else -math.inf
            return 1.0 - err / self.tol
        scale = lambda b: builtin_abs(b) if b != 0 else (self.abs or 1.0)  # noqa: E731
        sides = []
        if self.le is not None:
            sides.append((self.le - v) / scale(self.le))
        if self.lt is not None:
            sides.append((self.lt - v) / scale(self.lt))
        if self.ge is not None:
            sides.append((v - self.ge) / scale(self.ge))
        if self.gt is not None:
            sides.append((v - self.gt) / scale(self.gt))
        return min(sides)

    def passes(self, v: float) -> bool:
        if not math.isfinite(v):
            return False
        if self.near is not None:
            return builtin_abs(v - self.near) <= self.tol
        return ((self.le is None or v <= self.le) and (self.lt is None or v < self.lt)
                and (self.ge is None or v >= self.ge) and (self.gt is None or v > self.gt))


builtin_abs = abs


class LawChecks:
    """All checks made in one test, the worst record per quantity, in first-check order."""

    def __init__(self, *, rel: float | None = None, abs: float | None = None, tol_scale: float = 1.0,
                 drift: float | None = 0.25) -> None:
        self.default_rel, self.default_abs = rel, abs
        self.tol_scale, self.default_drift = tol_scale, drift
        self.records: dict[str, CheckRecord] = {}

    def check(self, quantity: str, value: Any, *, le=None, lt=None, ge=None, gt=None, near=None,
              rel=None, abs=None, unit: str | None = None, why: str | None = None, drift=_UNSET) -> bool:
        if not isinstance(quantity, str) or not quantity:
            raise TypeError(f"law check: quantity must be a non-empty string, got {quantity!r}")
        if near is not None and rel is None and abs is None:
            rel, abs = self.default_rel, self.default_abs
        bounds = Bounds(quantity, le=le, lt=lt, ge=ge, gt=gt, near=near, rel=rel, abs=abs, tol_scale=self.tol_scale)
        values = _values(quantity, value)
        scored = [(bounds.margin(v), bounds.passes(v), v) for v in values]
        margin, passed, worst = min(scored, key=lambda s: (s[1], s[0]))
        drift = self.default_drift if drift is _UNSET else _number(quantity, "drift", drift)
        record = CheckRecord(quantity=quantity, value=worst, bound=bounds.text(), bounds=bounds.as_dict(),
                             margin=margin, passed=passed, unit=unit, why=why, drift=drift)
        old = self.records.get(quantity)
        if old is not None:
            record.count += old.count
            if (old.passed, old.margin) < (record.passed, record.margin):
                old.count = record.count
                record = old
        self.records[quantity] = record
        return passed

    @property
    def failed(self) -> list[CheckRecord]:
        return [r for r in self.records.values() if not r.passed]

    def raise_if_failed(self) -> None:
        failed = self.failed
        if failed:
            raise LawViolation(violation_table(failed))


def violation_table(records: list[CheckRecord]) -> str:
    """The failed checks as a small aligned table: quantity, value, bound, margin, why."""
    rows = [("quantity", "value", "bound", "margin", "why")]
    for r in records:
        value = f"{r.value:.6g}" + (f" {r.unit}" if r.unit else "")
        if not math.isfinite(r.value):
            value += " (not finite)"
        rows.append((r.quantity, value, r.bound, f"{r.margin:.3g}", r.why or ""))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    n = len(records)
    return f"{n} law check{'s' if n != 1 else ''} failed:\n" + "\n".join(lines)
