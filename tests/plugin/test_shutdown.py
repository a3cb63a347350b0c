"""The process's exit skips the interpreter's last garbage collections: a handler registered before the plugin
configures (here a conftest's, at import) runs after the heap is frozen; the run's reports are written
before; the handler is registered once however many sessions a process runs."""

from __future__ import annotations

import atexit
import gc
import json
import textwrap

import pytest

from pytest_physlaw import shutdown


def test_the_heap_is_frozen_at_exit_after_the_reports(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(textwrap.dedent("""
        import atexit, gc, pathlib

        # registered before the plugin's handler, so it runs after it (atexit is last in, first out)
        atexit.register(lambda: pathlib.Path("frozen.txt").write_text(str(gc.get_freeze_count())))
    """))
    pytester.makepyfile(test_law=textwrap.dedent("""
        import pytest

        @pytest.mark.law("box-holds", source="a test")
        def test_box_holds(law):
            cycle = []
            cycle.append(cycle)  # garbage in a cycle, left for the final collection
            law.check("creep_mm", 1.0, le=10.0)
    """))
    result = pytester.runpytest_subprocess("--law-report=report.json")
    result.assert_outcomes(passed=1)
    assert json.loads((pytester.path / "report.json").read_text())["laws"]
    assert int((pytester.path / "frozen.txt").read_text()) > 0


def test_the_handler_is_registered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    registered = []
    monkeypatch.setattr(shutdown, "_registered", False)
    monkeypatch.setattr(atexit, "register", registered.append)
    shutdown.skip_final_collection()
    shutdown.skip_final_collection()
    assert registered == [gc.freeze]
