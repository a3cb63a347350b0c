"""Progress lines: a step still running after the threshold is named in the terminal, with its time when it
ends; a short one prints nothing; outside a pytest session `waiting` is silent."""

from __future__ import annotations

import textwrap

import pytest

from pytest_physlaw.progress import waiting

LAWS = textwrap.dedent("""
    import time

    from pytest_physlaw.progress import waiting


    def test_slow_compile():
        with waiting("compiling a slow thing", after=0.2):
            time.sleep(0.8)


    def test_quick_step():
        with waiting("a quick thing", after=5.0):
            time.sleep(0.01)


    def test_failing_step():
        with waiting("a step that raises", after=0.1):
            time.sleep(0.4)
            raise RuntimeError("boom")
""")


@pytest.mark.parametrize("flags", [(), ("-q",), ("-v",)])
def test_a_long_wait_is_named_and_timed(pytester: pytest.Pytester, flags: tuple[str, ...]) -> None:
    pytester.makepyfile(test_steps=LAWS)
    result = pytester.runpytest(*flags)
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "physlaw: compiling a slow thing ..." in out
    assert "physlaw: compiling a slow thing: 1 s" in out
    assert out.index("physlaw: compiling a slow thing ...") < out.index("physlaw: compiling a slow thing: 1 s")
    assert "physlaw: a step that raises: 0 s" in out  # the closing line comes however the step ends
    assert "a quick thing" not in out


def test_without_a_session_nothing_is_printed(monkeypatch: pytest.MonkeyPatch,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    import time

    from pytest_physlaw import progress

    monkeypatch.setattr(progress, "_CONFIG", [])  # as in a side process or an xdist worker
    with waiting("outside pytest's terminal", after=0.01):
        time.sleep(0.1)
    assert "outside pytest's terminal" not in capfd.readouterr().out
