"""The `law` fixture in a real pytest run: soft checks that fail the test in its call phase with one
LawViolation, the `law` marker of every test that requests `law`, the law record of each test with
its final outcome, tolerance defaults and --law-tol-scale, clear errors for misuse, and
`-p no:physlaw` turning it all off."""

from __future__ import annotations

import textwrap

import pytest


def make(pytester: pytest.Pytester, source: str, name: str = "test_laws") -> None:
    pytester.makepyfile(**{name: textwrap.dedent(source)})


def failure_text(result: pytest.RunResult, nodeid_end: str) -> str:
    reports = [r for r in result.reprec.getreports("pytest_runtest_logreport")
               if r.failed and r.nodeid.endswith(nodeid_end)]
    assert reports, f"no failed report of {nodeid_end}"
    return "\n".join(str(r.longrepr) for r in reports)


def test_failed_checks_fail_the_test_once_in_its_call_phase(pytester, law_state):
    make(pytester, """
        def test_slope(law):
            law.check("creep_mm", 12.0, le=10.0, unit="mm", why="soft contact creep")
            law.check("speed", -1.0, ge=0.0)
            law.check("after", 1.0, le=2.0)  # soft: checks after a failure still run
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    (report,) = [r for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed]
    assert report.when == "call"
    result.stdout.fnmatch_lines([
        "E   pytest_physlaw.LawViolation: 2 law checks failed:",
        "*quantity*value*bound*margin*why",
        "*creep_mm*12 mm*<= 10*-0.2*soft contact creep",
        "*speed*-1*>= 0*-1*",
    ])
    assert "All traceback entries are hidden" not in result.stdout.str()
    checks = law_state(result).records["test_laws.py::test_slope"].checks
    assert [(c.quantity, c.passed) for c in checks] == [("creep_mm", False), ("speed", False), ("after", True)]


def test_a_violation_is_a_call_phase_assertion_so_xfail_applies(pytester):
    make(pytester, """
        import pytest
        from pytest_physlaw import LawViolation

        @pytest.mark.xfail(raises=LawViolation, strict=True)
        def test_broken(law):
            law.check("x", 2.0, le=1.0)

        @pytest.mark.xfail(raises=AssertionError, strict=True)
        def test_broken_as_an_assertion(law):
            law.check("x", 2.0, le=1.0)
    """)
    pytester.runpytest().assert_outcomes(xfailed=2)


def test_every_kind_of_check_can_fail_in_a_run(pytester):
    make(pytester, """
        import math
        import numpy as np
        import pytest

        @pytest.mark.parametrize(("value", "bounds"), [
            (10.5, dict(le=10.0)), (10.0, dict(lt=10.0)), (1.9, dict(ge=2.0)), (2.0, dict(gt=2.0)),
            (2.5, dict(ge=1.0, le=2.0)), (1.2, dict(near=1.0, rel=0.1)), (1.2, dict(near=1.0, abs=0.1)),
            (np.array([0.5, 1.5]), dict(le=1.0)), (math.nan, dict(le=1.0)), (math.inf, dict(ge=0.0)),
        ])
        def test_fails(law, value, bounds):
            assert law.check("q", value, **bounds) is False
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=10)
    out = result.stdout.str()
    assert out.count("E   pytest_physlaw.LawViolation: 1 law check failed") == 10
    assert "nan (not finite)" in out and "inf (not finite)" in out


def test_misuse_makes_the_test_error_naming_the_quantity_not_fail_as_a_law(pytester, law_state):
    make(pytester, """
        import pytest

        @pytest.mark.parametrize(("value", "bounds"), [
            (1.0, {}), (1.0, dict(near=1.0, le=2.0, rel=0.1)), (1.0, dict(ge=2.0, le=1.0)),
            (1.0, dict(near=1.0, rel=-0.1)), ("1.0", dict(le=2.0)), (None, dict(le=2.0)),
            (1.0, dict(near=1.0)),
        ])
        def test_misuse(law, value, bounds):
            law.check("axis_mass", value, **bounds)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=7)
    out = result.stdout.str()
    assert "LawViolation" not in out
    # one traceback line per case (the short summary repeats it in full when CI is set)
    raised = [ln for ln in result.stdout.lines if ln.startswith("E ") and "Error: law check 'axis_mass'" in ln]
    assert len(raised) == 7
    for text in ("no bound given", "near cannot be combined", "empty band", "must be finite and >= 0",
                 "is not a real number", "value is None", "near needs a tolerance"):
        assert text in out
    assert {r.outcome for r in law_state(result).records.values()} == {"crashed"}


def test_a_test_that_requests_law_is_a_law_and_minus_m_law_selects_it(pytester):
    make(pytester, """
        import pytest

        @pytest.fixture
        def scene(law):
            return 1.0

        def test_direct(law):
            law.check("a", 1.0, le=2.0)

        def test_through_a_fixture(scene):
            pass

        @pytest.mark.law("marked")
        def test_marked_without_the_fixture():
            pass

        def test_plain():
            pass

        @pytest.mark.law("class-law", source="a class")
        class TestClass:
            def test_in_class(self, law):
                law.check("b", 1.0, le=2.0)
    """)
    result = pytester.runpytest("-m", "law", "--strict-markers", "-v")
    result.assert_outcomes(passed=4, deselected=1)
    assert "test_plain" not in result.stdout.str().replace("deselected", "")


def test_the_record_names_the_law_states_it_and_keeps_its_outcome(pytester, law_state):
    make(pytester, """
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("scene could not be built")

        @pytest.fixture
        def bad_teardown():
            yield
            raise RuntimeError("teardown broke")

        @pytest.mark.law("slope-holds", source="Lesson 20.2, part 3")
        def test_passed(law):
            '''A box on a slope stays put.

                tan 20 = 0.36 < 0.5.
            '''
            law.check("creep", 1.0, le=10.0)

        def test_failed(law):
            law.check("creep", 11.0, le=10.0)

        def test_error(law, broken):
            pass

        def test_teardown_error(law, bad_teardown):
            law.check("creep", 1.0, le=10.0)

        def test_skipped(law):
            pytest.skip("no GPU")

        @pytest.mark.xfail(reason="known")
        def test_xfailed(law):
            law.check("creep", 11.0, le=10.0)

        @pytest.mark.xfail(reason="maybe")
        def test_xpassed(law):
            law.check("creep", 1.0, le=10.0)

        @pytest.mark.parametrize("n", [1, 2])
        def test_param(law, n):
            law.check("n", n, ge=1)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=1, errors=2, skipped=1, xfailed=1, xpassed=1)
    records = law_state(result).records
    outcome = {nodeid.split("::")[1]: r.outcome for nodeid, r in records.items()}
    assert outcome == {"test_passed": "passed", "test_failed": "failed", "test_error": "error",
                       "test_teardown_error": "error", "test_skipped": "skipped", "test_xfailed": "xfailed",
                       "test_xpassed": "xpassed", "test_param[1]": "passed", "test_param[2]": "passed"}
    passed = records["test_laws.py::test_passed"]
    assert (passed.law, passed.source, passed.path) == ("slope-holds", "Lesson 20.2, part 3", "test_laws.py")
    assert passed.doc == "A box on a slope stays put.\n\ntan 20 = 0.36 < 0.5."
    failed = records["test_laws.py::test_failed"]
    assert (failed.law, failed.source, failed.doc) == ("test_failed", None, None)
    assert records["test_laws.py::test_param[2]"].law == "test_param"
    assert records["test_laws.py::test_error"].checks == []


def test_tolerance_defaults_come_from_the_marker_then_the_ini(pytester, law_state):
    pytester.makeini("[pytest]\nphyslaw_rel = 0.2\nphyslaw_abs = 0.001\n")
    make(pytester, """
        import pytest

        def test_ini(law):
            assert law.check("q", 1.15, near=1.0)        # ini rel 0.2

        @pytest.mark.law("tight", rel=0.01)
        def test_marker(law):
            assert not law.check("q", 1.15, near=1.0)    # the marker's pair replaces the ini's
            assert law.check("r", 1.15, near=1.0, rel=0.2)  # the check's own wins

        @pytest.mark.law("abs", abs=0.5)
        def test_marker_abs(law):
            assert law.check("q", 0.4, near=0.0)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    tol = law_state(result).records["test_laws.py::test_ini"].checks[0].bounds["tol"]
    assert tol == pytest.approx(0.2)


@pytest.mark.parametrize(("scale", "outcomes"), [("0", {"failed": 2}), ("1", {"passed": 1, "failed": 1}),
                                                 ("3", {"passed": 2})])
def test_the_tolerance_scale_multiplies_every_tolerance(pytester, scale, outcomes):
    make(pytester, """
        def test_close(law):
            law.check("q", 1.0 + 1e-9, near=1.0, rel=1e-6)

        def test_just_outside(law):
            law.check("q", 1.2, near=1.0, rel=0.1)
    """)
    result = pytester.runpytest(f"--law-tol-scale={scale}")
    result.assert_outcomes(**outcomes)
    if scale == "0":
        # the raw residual shows as a failure, with how far off it is: 1 + 1e-9 rounds to 1 in print
        result.stdout.fnmatch_lines(["*q*1 (off by +1e-09)*1 ± 0*-inf*"])


@pytest.mark.parametrize(("args", "ini", "message"), [
    (["--law-tol-scale=-1"], "", "--law-tol-scale: '-1' must be a finite number >= 0"),
    (["--law-tol-scale=big"], "", "--law-tol-scale: 'big' is not a number"),
    ([], "physlaw_rel = lots", "ini physlaw_rel = 'lots' is not a number"),
    ([], "physlaw_drift = -1", "ini physlaw_drift = '-1' must be a finite number >= 0"),
])
def test_bad_options_are_usage_errors_naming_the_option(pytester, args, ini, message):
    pytester.makeini(f"[pytest]\n{ini}\n")
    make(pytester, "def test_a(law):\n    pass\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


@pytest.mark.parametrize(("marker", "message"), [
    ('law(3)', "id 3 must be a non-empty string"),
    ('law("a", "b")', "takes one positional argument"),
    ('law("a", tol=0.1)', "unknown argument(s) ['tol']"),
    ('law("a", rel=-1)', "rel=-1 must be a finite number >= 0"),
    ('law("a", source=5)', "source 5 must be a string"),
])
def test_a_bad_law_marker_is_a_collection_error_naming_the_test(pytester, marker, message):
    make(pytester, f"""
        import pytest

        @pytest.mark.{marker}
        def test_bad(law):
            pass

        def test_good(law):
            pass
    """)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_laws.py*"])
    assert f"test_laws.py::test_bad: @pytest.mark.law" in result.stdout.str()
    assert message in result.stdout.str()


def test_checks_in_fixture_setup_count_and_checks_after_the_call_phase_are_refused(pytester):
    make(pytester, """
        import pytest

        @pytest.fixture
        def scene(law):
            law.check("scene_mass", 0.0, gt=0.0)   # a setup check: its failure fails the call
            yield

        @pytest.fixture
        def late(law):
            yield
            law.check("late", 1.0, le=2.0)         # after the verdict: refused, the test errors

        def test_scene(scene):
            pass

        def test_late(late):
            pass
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1, passed=1, errors=1)
    assert "scene_mass" in failure_text(result, "test_scene")
    assert "law check 'late': made after the call phase of test_laws.py::test_late" in failure_text(result, "test_late")


def test_law_outside_a_law_test_says_how_to_use_it(pytester):
    make(pytester, """
        def test_dynamic(request):
            request.getfixturevalue("law").check("q", 1.0, le=2.0)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    assert "law.check('q'): no law test is running" in result.stdout.str()


def test_benchmark_only_keeps_the_law_records_of_the_benchmarks_it_runs(pytester, law_state, monkeypatch):
    make(pytester, """
        def test_timed(law, benchmark):
            value = benchmark.pedantic(lambda: 2.0, rounds=2, iterations=1)
            law.check("value", value, near=2.0, abs=1e-12)

        def test_untimed(law):
            law.check("value", 2.0, near=2.0, abs=1e-12)
    """)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # run under -n: benchmarks would be disabled
    result = pytester.runpytest("--benchmark-only")
    result.assert_outcomes(passed=1, skipped=1)
    records = law_state(result).records
    assert [c.quantity for c in records["test_laws.py::test_timed"].checks] == ["value"]
    assert records["test_laws.py::test_untimed"].outcome == "skipped"


def test_no_physlaw_turns_the_plugin_off(pytester):
    make(pytester, """
        def test_uses_law(law):
            pass
    """)
    result = pytester.runpytest("-p", "no:physlaw")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'law' not found*"])
    result = pytester.runpytest("-p", "no:physlaw", "--law-tol-scale=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_an_in_process_run_does_not_warn_that_the_plugin_cannot_be_rewritten(pytester):
    """The outer run imported the plugin; the inner one must not warn it is too late to rewrite it."""
    make(pytester, """
        def test_a(law):
            law.check("x", 1.0, le=2.0)
    """)
    result = pytester.runpytest("-W", "error::pytest.PytestAssertRewriteWarning")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*cannot be rewritten*")
