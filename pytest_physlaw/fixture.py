"""The object the `law` fixture hands a test: `law.check(...)` and the test's records so far.

The fixture is session-scoped on purpose: one handle for the whole run, whose checks go to the
law test that is running (the plugin binds it in setup and unbinds it after teardown). So a
`@given` test reuses it across Hypothesis examples legitimately, without the function-scoped
fixture health check, and the checks of all examples accumulate in one record per quantity.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from pytest_physlaw.check import UNSET, LawChecks
from pytest_physlaw.record import CheckRecord


class Law:
    """The `law` fixture: checks of the running law test."""

    def __init__(self, rootdir: str | os.PathLike[str] | None = None) -> None:
        self._checks: LawChecks | None = None
        self._nodeid: str | None = None
        self._rootdir = os.fspath(rootdir) if rootdir is not None else None

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
              why: str | None = None, drift: Any = UNSET, drift_abs: Any = None) -> bool:
        """Check a measured `value` of `quantity` against its bounds; record it; say if it passed.

        Soft: a failed check does not raise here; the test fails at the end of its call phase
        with one LawViolation listing every failed check. `drift`/`drift_abs` are how far the value
        may move against a saved baseline (relative / absolute), `drift=None` exempts it.
        """
        __tracebackhide__ = True
        return self._current(quantity).check(quantity, value, le=le, lt=lt, ge=ge, gt=gt, near=near,
                                             rel=rel, abs=abs, unit=unit, why=why, drift=drift,
                                             drift_abs=drift_abs, where=self._caller())

    def follows(self, premise: str, why: str) -> None:
        """Declare that, if this law's checks fail, the failure follows from `premise`, another law that
        failed on the same subject (a contact sinking deeper because the timestep is unresolved): the test
        then ends xfailed, "consequence of PREMISE: WHY", and the run's exit status and the model table
        count the cause once. Call it only after measuring that the premise failed; checks that pass
        pass as ever."""
        __tracebackhide__ = True
        if not (isinstance(premise, str) and premise.strip() and isinstance(why, str) and why.strip()):
            raise ValueError(f"law.follows(premise={premise!r}, why={why!r}): both must be non-empty strings")
        self._current("follows").premise = (premise.strip(), why.strip())

    def _caller(self) -> str:
        """file:line of the `law.check` call, rootdir-relative where it lies under the rootdir."""
        frame = sys._getframe(2)
        path = frame.f_code.co_filename
        if self._rootdir:
            rel = os.path.relpath(path, self._rootdir)
            if not rel.startswith(".."):
                path = rel.replace(os.sep, "/")
        return f"{path}:{frame.f_lineno}"

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
