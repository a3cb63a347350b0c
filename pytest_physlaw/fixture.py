"""The object the `law` fixture hands a test: `law.check(...)` and the test's records so far.

The fixture is session-scoped on purpose: one handle for the whole run, whose checks go to the
law test that is running (the plugin binds it in setup and unbinds it after teardown). So a
`@given` test reuses it across Hypothesis examples legitimately, without the function-scoped
fixture health check, and the checks of all examples accumulate in one record per quantity.
"""

from __future__ import annotations

from typing import Any

from pytest_physlaw.check import _UNSET, LawChecks
from pytest_physlaw.record import CheckRecord


class Law:
    """The `law` fixture: checks of the running law test."""

    def __init__(self) -> None:
        self._checks: LawChecks | None = None
        self._nodeid: str | None = None

    def _bind(self, nodeid: str, checks: LawChecks) -> None:
        self._nodeid, self._checks = nodeid, checks

    def _unbind(self) -> None:
        self._nodeid, self._checks = None, None

    def _current(self, quantity: Any) -> LawChecks:
        __tracebackhide__ = True
        if self._checks is None:
            raise RuntimeError(f"law.check({quantity!r}): no law test is running; request the law "
                               f"fixture in the test or in a fixture it uses")
        return self._checks

    def check(self, quantity: str, value: Any, *, le: Any = None, lt: Any = None, ge: Any = None,
              gt: Any = None, near: Any = None, rel: Any = None, abs: Any = None, unit: str | None = None,
              why: str | None = None, drift: Any = _UNSET) -> bool:
        """Check a measured `value` of `quantity` against its bounds; record it; say if it passed.

        Soft: a failed check does not raise here; the test fails at the end of its call phase
        with one LawViolation listing every failed check.
        """
        __tracebackhide__ = True
        return self._current(quantity).check(quantity, value, le=le, lt=lt, ge=ge, gt=gt, near=near,
                                             rel=rel, abs=abs, unit=unit, why=why, drift=drift)

    @property
    def nodeid(self) -> str | None:
        """The law test the checks go to, None between tests."""
        return self._nodeid

    @property
    def records(self) -> list[CheckRecord]:
        """The running test's records so far, one per quantity (its worst check)."""
        return list(self._current("records").records.values())

    @property
    def failed(self) -> list[CheckRecord]:
        """The running test's failed records so far."""
        return self._current("failed").failed

    def __repr__(self) -> str:
        return f"<law of {self._nodeid or 'no running test'}>"
