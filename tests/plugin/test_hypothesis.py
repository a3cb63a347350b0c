"""`law` inside Hypothesis `@given`: no function-scoped-fixture health check, every example's checks
kept as one worst record with the count of examples, and one LawViolation after the examples
(Hypothesis sees passing examples, so it neither shrinks nor reports a law as its own failure).
The plugin registers the `physlaw-ci` profile."""

from __future__ import annotations

import json
import textwrap

import pytest

hypothesis = pytest.importorskip("hypothesis")

GIVEN_LAWS = """
    import pytest
    from hypothesis import given, settings, strategies as st

    SEEN = {"holds": [], "breaks": []}

    @pytest.fixture
    def per_test():
        return 1

    @settings(max_examples=25, database=None)
    @given(x=st.floats(0.0, 1.0))
    def test_holds(law, x):
        SEEN["holds"].append(x)
        law.check("x", x, ge=0.0, le=1.0)

    @settings(max_examples=25, database=None)
    @given(x=st.floats(0.0, 2.0))
    def test_breaks(law, x):
        SEEN["breaks"].append(x)
        law.check("x", x, le=1.5, why="half of the examples break it")

    @settings(max_examples=25, database=None)
    @given(x=st.floats(0.0, 2.0))
    def test_real_assertion(law, x):
        law.check("x", x, ge=0.0)
        assert x <= 1.5

    @settings(max_examples=5, database=None)
    @given(x=st.floats(0.0, 1.0))
    def test_function_scoped(per_test, x):
        pass

    def test_zz_counts(law):
        law.check("holds_examples", len(SEEN["holds"]), ge=1)
        law.check("breaks_examples", len(SEEN["breaks"]), ge=1)
        law.check("breaks_worst", max(SEEN["breaks"]), ge=0)
"""


def test_law_inside_given_keeps_the_worst_example_and_the_count(pytester, law_state):
    pytester.makepyfile(test_given=textwrap.dedent(GIVEN_LAWS))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=3)
    out = result.stdout.str()
    assert "uses a function-scoped fixture 'per_test'" in out   # the health check is active...
    assert "uses a function-scoped fixture 'law'" not in out     # ...and `law` does not trip it
    records = law_state(result).records
    counts = {c.quantity: c.value for c in records["test_given.py::test_zz_counts"].checks}
    holds = records["test_given.py::test_holds"].checks[0]
    assert (holds.passed, holds.count) == (True, counts["holds_examples"])
    breaks = records["test_given.py::test_breaks"].checks[0]
    assert (breaks.passed, breaks.count) == (False, counts["breaks_examples"])
    assert breaks.value == counts["breaks_worst"]                # the worst example is the record
    assert breaks.margin == pytest.approx((1.5 - breaks.value) / 1.5)
    assert out.count("LawViolation: 1 law check failed") >= 1
    assert f"(worst of {breaks.count})" in out


def test_a_law_violation_under_given_is_not_shrunk_but_a_real_assertion_is(pytester):
    pytester.makepyfile(test_given=textwrap.dedent(GIVEN_LAWS))
    result = pytester.runpytest("-p", "no:randomly", "-k", "breaks or real_assertion")
    result.assert_outcomes(failed=2, deselected=3)
    out = result.stdout.str()
    shrunk = ("Falsifying example", "Failing test case")  # Hypothesis's words, older and newer
    breaks = out[out.index("__ test_breaks __"):out.index("__ test_real_assertion __")]
    assert not any(s in breaks for s in shrunk) and "LawViolation" in breaks
    real = out[out.index("__ test_real_assertion __"):out.index("short test summary info")]
    assert any(s in real for s in shrunk) and "x=2.0" in real and "LawViolation" not in real


def test_the_physlaw_ci_profile_is_registered():
    profile = hypothesis.settings.get_profile("physlaw-ci")
    assert profile.derandomize is True and profile.deadline is None
    assert profile.database is None and profile.print_blob is True


def test_the_profile_loads_from_the_command_line(pytester):
    pytester.makepyfile(test_profile="""
        from hypothesis import settings

        def test_loaded():
            assert settings.get_current_profile_name() == "physlaw-ci"
            assert settings.default.derandomize and settings.default.database is None
    """)
    result = pytester.runpytest_subprocess("--hypothesis-profile=physlaw-ci")
    result.assert_outcomes(passed=1)


# A project module (not a test file) full of constants in the strategy's range: Hypothesis harvests
# such constants from every project module imported so far and now and then draws one.
CONSTANTS = "\n".join(f"C{i} = {0.0137 * (i + 1)!r}" for i in range(60))
DRAWS = """
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=200)
    @given(x=st.floats(0.0, 1.0))
    def test_draws(law, x):
        law.check("x", x, ge=0.0, le=1.0)
"""


def _digest(pytester: pytest.Pytester, *args: str) -> dict:
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", "--law-report", report, *args)
    assert result.ret == 0, result.stdout.str()
    laws = {law["nodeid"]: law for law in json.loads(report.read_text())["laws"]}
    return laws["test_draws.py::test_draws"]["examples"]


@pytest.mark.parametrize("profile", ["ini", "own-settings"])
def test_a_derandomized_law_draws_the_same_examples_whatever_else_runs(pytester, profile):
    """Alone, after another file that imports other project modules, and picked out by -k: one digest."""
    pytester.makeini("[pytest]\n" + ("physlaw_hypothesis_profile = physlaw-ci\n" if profile == "ini" else ""))
    draws = DRAWS if profile == "ini" else DRAWS.replace("max_examples=200", "max_examples=200, derandomize=True")
    pytester.makepyfile(scene_constants=CONSTANTS, test_draws=draws,
                        test_aaa_other="import scene_constants\n\ndef test_other():\n    assert scene_constants.C0\n")
    alone = _digest(pytester, "test_draws.py")
    assert alone["count"] > 100
    assert _digest(pytester, "test_aaa_other.py", "test_draws.py") == alone
    assert _digest(pytester, "-k", "draws") == alone
