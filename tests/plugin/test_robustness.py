"""What a careful user and an unlucky CI run into: every defect is a clear message naming the thing
at fault (exit 4 for usage, a session failure for the rest), never a traceback or INTERNALERROR;
the plugin stays out of a suite that has its own `law`; checks land on the test that made them."""

from __future__ import annotations

import json
import os
import textwrap
import time

import pytest

from pytest_physlaw.check import LawChecks


def make(pytester: pytest.Pytester, source: str, name: str = "test_laws") -> None:
    pytester.makepyfile(**{name: textwrap.dedent(source)})


def clean(result: pytest.RunResult) -> str:
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback (most recent call last)" not in out, out
    return out


# --- law.check ------------------------------------------------------------------------------------

def test_with_no_tolerance_the_largest_residual_is_recorded():
    np = pytest.importorskip("numpy")
    for value in (np.array([1e-15, 5e-9, 2e-12]), [1e-15, 5e-9, 2e-12], [2e-12, 5e-9, 1e-15]):
        checks = LawChecks(tol_scale=0.0)
        checks.check("residual", value, near=0.0, abs=1e-6)
        assert checks.records["residual"].value == 5e-9


def test_the_worst_value_does_not_depend_on_order():
    np = pytest.importorskip("numpy")
    for values in ([1.0, -1.0], [-1.0, 1.0]):
        for value in (values, np.array(values)):
            checks = LawChecks()
            checks.check("s", value, near=0.0, abs=2.0)
            assert checks.records["s"].value == -1.0


def test_one_quantity_with_two_bounds_is_a_usage_error():
    checks = LawChecks()
    checks.check("x", 1.0, le=10.0)
    checks.check("x", 2.0, le=10.0)  # a loop: one bound, counted twice
    assert checks.records["x"].count == 2
    with pytest.raises(ValueError, match="law check 'x': checked before in this test with bound <= 10, now >= 2"):
        checks.check("x", 3.0, ge=2.0)


@pytest.mark.parametrize("value, error, message", [
    (10 ** 400, ValueError, "value=1000.* is too large for a float"),
    ("masked", TypeError, "a masked array is refused.*value.compressed"),
])
def test_a_huge_int_and_a_masked_array_are_refused_naming_the_quantity(value, error, message):
    np = pytest.importorskip("numpy")
    if value == "masked":
        value = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    with pytest.raises(error, match=f"law check 'q': {message}"):
        LawChecks().check("q", value, le=1.0)
    with pytest.raises(ValueError, match="law check 'q': le=1000.* is too large"):
        LawChecks().check("q", 1.0, le=10 ** 400)


def test_drift_and_its_floor_are_validated():
    with pytest.raises(ValueError, match="drift_abs=-1.0 must be finite and >= 0"):
        LawChecks().check("q", 1.0, le=2.0, drift_abs=-1)
    with pytest.raises(TypeError, match="drift_abs has no meaning with drift=None"):
        LawChecks().check("q", 1.0, le=2.0, drift=None, drift_abs=1.0)
    checks = LawChecks(drift=0.02, drift_floor=1e-3)
    checks.check("near", 1.0, near=1.0, abs=0.5)
    checks.check("band", 1.0, ge=-4.0, le=2.0)  # the tight side: the smaller bound's scale
    checks.check("zero", 1.0, ge=0.0)
    assert [(r.drift, r.drift_abs) for r in checks.records.values()] == [(0.02, 5e-4), (0.02, 2e-3), (0.02, 1e-3)]


def test_a_ten_million_element_check_costs_a_few_numpy_comparisons():
    np = pytest.importorskip("numpy")
    a = np.random.default_rng(0).random(10_000_000)

    def best(f) -> float:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        return min(times)

    ours = best(lambda: LawChecks().check("big", a, le=2.0))
    numpy = best(lambda: bool((a <= 2.0).all()))
    assert ours < 10 * numpy, (ours, numpy)


# --- checks land on their own test --------------------------------------------------------------

def test_a_check_in_a_module_fixture_is_refused_and_a_function_fixture_check_counts(pytester):
    make(pytester, """
        import pytest

        @pytest.fixture(scope="module")
        def scene(law):
            law.check("scene_mass", 1.0, gt=0.0)
            return 1.0

        @pytest.fixture
        def per_test(law):
            law.check("per_test", 1.0, gt=0.0)

        def test_a(law, scene):
            pass

        def test_b(law, per_test):
            pass
    """)
    result = pytester.runpytest()
    out = clean(result)
    result.assert_outcomes(errors=1, passed=1)
    assert ("law check 'scene_mass': made in the module-scoped fixture 'scene', which serves many tests; check in "
            "the test (or a function-scoped fixture) with the value the fixture returns") in out


# --- identity -------------------------------------------------------------------------------------

def test_two_tests_with_one_law_id_and_case_are_a_collection_error_naming_both(pytester):
    make(pytester, """
        import pytest

        @pytest.mark.law("slope-holds")
        @pytest.mark.parametrize("solver", ["PGS", "CG"])
        def test_a(law, solver):
            law.check("x", 1.0, le=2.0)
    """)
    make(pytester, """
        import pytest

        @pytest.mark.law("slope-holds")
        @pytest.mark.parametrize("solver", ["CG"])
        def test_b(law, solver):
            law.check("x", 1.0, le=2.0)
    """, name="test_other")
    result = pytester.runpytest()
    out = clean(result)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert ("law id 'slope-holds[CG]' is given to 2 tests: test_laws.py::test_a[CG], test_other.py::test_b[CG]"
            in out) and "[PGS]" not in out.split("ERROR")[1]


# --- the table and the messages --------------------------------------------------------------------

def test_the_table_shows_the_law_id_and_a_failure_says_where_it_was_checked(pytester):
    make(pytester, """
        import pytest

        @pytest.mark.law("creep-small")
        def test_a(law):
            law.check("creep_mm", 12.0, le=10.0)
    """)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*creep_mm: checked at test_laws.py:5", "  test_a  creep-small  creep_mm  12 *FAIL"])


def test_a_hypothesis_law_keeps_the_inputs_of_its_worst_example(pytester):
    make(pytester, """
        from hypothesis import given, settings, strategies as st

        @settings(max_examples=30, derandomize=True, database=None)
        @given(x=st.sampled_from([1, 5, 10, 3]))
        def test_h(law, x):
            law.check("square", x * x, le=50.0)
    """)
    result = pytester.runpytest("--law-report", "r.json")
    check = json.loads((pytester.path / "r.json").read_text())["laws"][0]["checks"][0]
    assert check["example"] == "x=10" and check["value"] == 100.0
    result.stdout.fnmatch_lines(["*square: worst example x=10"])
    law = json.loads((pytester.path / "r.json").read_text())["laws"][0]
    assert law["examples"]["count"] > 1 and len(law["examples"]["digest"]) == 16


def test_a_large_table_folds_its_passing_rows(pytester):
    make(pytester, """
        import pytest

        @pytest.mark.parametrize("i", range(260))
        def test_many(law, i):
            law.check("x", i, le=1000.0)

        def test_bad(law):
            law.check("y", 2.0, le=1.0)
    """)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["  test_bad * FAIL", "test_laws.py: 60 more passing checks folded (-v shows every row)"])
    def shown(res: pytest.RunResult) -> int:
        return sum("  test_many[" in line and "pass" in line for line in res.stdout.lines)
    assert shown(result) == 200
    assert shown(pytester.runpytest("-v")) == 260


def test_a_crash_counts_as_pytest_counts_it_and_problems_reach_the_last_line(pytester):
    make(pytester, """
        def test_misuse(law):
            law.check("x", 1.0)
    """)
    gaps = pytester.mkdir("docs").joinpath("known_gaps")
    gaps.mkdir()
    gaps.joinpath("orphan.md").write_text("# nobody keeps me\n")
    gaps.joinpath("README.md").write_text("# the gaps' index keeps nothing and is no orphan\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["1 law (1 failed (1 crashed))*", "*= 1 failed, 1 law problem in *"])
    assert "README.md" not in result.stdout.str()


# --- a suite with its own `law` -------------------------------------------------------------------

def test_a_suite_with_its_own_law_fixture_is_left_alone(pytester):
    pytester.makeconftest("""
        import pytest

        @pytest.fixture
        def law():
            return {"article": 17}
    """)
    make(pytester, "def test_statute(law):\n    assert law['article'] == 17\n")
    result = pytester.runpytest()
    assert result.ret == 0 and "physics laws" not in result.stdout.str()
    assert not (pytester.path / ".physlaw").exists()


def test_a_foreign_law_marker_says_how_to_turn_the_plugin_off(pytester):
    make(pytester, """
        import pytest

        @pytest.mark.law("civil", article=17)
        def test_statute():
            pass
    """)
    out = clean(pytester.runpytest())
    assert "-p no:physlaw" in out and "article" in out


# --- markers and gap pages ------------------------------------------------------------------------

@pytest.mark.parametrize("source, page, message", [
    ('@pytest.mark.law(rel=10**400)', None, "rel=1000.* must be a finite number >= 0"),
    ('@pytest.mark.known_gap("docs/known_gaps/g.md")\n@pytest.mark.known_gap("docs/known_gaps/g.md")', "g.md",
     "is given 2 times; a test keeps one known-gap page"),
    ('@pytest.mark.known_gap("docs/known_gaps/g.txt")', "g.txt", "is not a Markdown page (.md)"),
    ('@pytest.mark.known_gap("docs/known_gaps/out.md")', "out.md", "is a link to"),
])
def test_bad_markers_and_pages_are_collection_errors_naming_the_test(pytester, source, page, message):
    gaps = pytester.mkdir("docs").joinpath("known_gaps")
    gaps.mkdir()
    if page == "out.md":
        outside = pytester.path.parent / f"{pytester.path.name}-outside.md"
        outside.write_text("# outside, test_laws.py\n")
        os.symlink(outside, gaps / "out.md")
    elif page:
        gaps.joinpath(page).write_text("# a gap, test_laws.py\n")
    make(pytester, f"import pytest\n\n{source}\ndef test_x(law):\n    law.check('x', 2.0, le=1.0)\n")
    result = pytester.runpytest()
    out = clean(result)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "test_laws.py::test_x" in out and message.replace(".*", "") in out.replace("0" * 390, "") or \
        __import__("re").search(message, out), out


# --- baselines and environment hooks ------------------------------------------------------------

def test_an_empty_baseline_is_refused_against_a_run_with_laws(pytester):
    make(pytester, "def test_a(law):\n    law.check('x', 1.0, le=2.0)\n")
    (pytester.path / "empty.json").write_text('{"schema_version": 2, "laws": []}')
    result = pytester.runpytest("--law-baseline", "empty.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["baseline: the baseline holds no law, this run has 1*"])


def test_a_mistyped_baseline_is_a_usage_error_naming_the_key(pytester):
    make(pytester, "def test_a(law):\n    law.check('x', 1.0, le=2.0)\n")
    assert pytester.runpytest("--law-save-baseline", "b.json").ret == 0
    data = json.loads((pytester.path / "b.json").read_text())
    data["laws"][0]["checks"][0]["passed"] = "false"
    (pytester.path / "b.json").write_text(json.dumps(data))
    result = pytester.runpytest("--law-baseline", "b.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--law-baseline b.json: law #0 (test_laws.py::test_a).checks[0] ('x').passed is a string" in clean(result)


@pytest.mark.parametrize("returns, message", [
    ("[1, 2]", "returned list, not a dict"),
    ("__import__('pathlib').Path('.')", "returned PosixPath, not a dict"),
    ("{'device': float('nan')}", "entry 'device' is nan, not a finite number"),
    ("{'device': __import__('pathlib').Path('.')}", "entry 'device' is PosixPath, not JSON"),
    ("1 / 0", "raised ZeroDivisionError: division by zero"),
])
def test_a_bad_environment_hook_is_a_session_problem_naming_it(pytester, returns, message):
    pytester.makeconftest(f"""
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_physlaw_environment(config):
            return {returns}
    """)
    make(pytester, "def test_a(law):\n    law.check('x', 1.0, le=2.0)\n")
    result = pytester.runpytest("--law-report", "r.json")
    out = clean(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "pytest_physlaw_environment of " in out and message in out
    assert json.loads((pytester.path / "r.json").read_text())["laws"]


def test_an_optional_environment_hook_survives_the_plugin_turned_off(pytester):
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_physlaw_environment(config):
            return {"device": "cpu"}
    """)
    make(pytester, "def test_plain():\n    pass\n")
    result = pytester.runpytest("-p", "no:physlaw")
    assert result.ret == 0 and "INTERNALERROR" not in clean(result)


def test_a_module_skipped_at_import_notes_its_laws(pytester):
    make(pytester, "def test_w(law):\n    law.check('x', 1.0, le=2.0)\n", name="test_warpish")
    make(pytester, "def test_a(law):\n    law.check('x', 1.0, le=2.0)\n")
    assert pytester.runpytest("--law-save-baseline", "b.json").ret == 0
    make(pytester, "import pytest\npytest.importorskip('no_such_module_physlaw')\n\n"
                   "def test_w(law):\n    law.check('x', 1.0, le=2.0)\n", name="test_warpish")
    result = pytester.runpytest("--law-baseline", "b.json", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*0 regressions, 1 note*"])
    assert "its module was skipped at collection (could not import 'no_such_module_physlaw'" in result.stdout.str()


def test_pyargs_runs_are_gated_like_path_runs(pytester):
    pkg = pytester.mkdir("src").joinpath("mypkg")
    pkg.mkdir()
    pkg.joinpath("__init__.py").write_text("")
    laws = "def test_a(law):\n    law.check('a', 1.0, le=2.0)\n\ndef test_b(law):\n    law.check('b', 1.0, le=2.0)\n"
    pkg.joinpath("test_m.py").write_text(laws)
    pytester.makeini("[pytest]\npythonpath = src\n")
    assert pytester.runpytest_subprocess("--pyargs", "mypkg", "--law-save-baseline", "b.json").ret == 0
    pkg.joinpath("test_m.py").write_text(laws.replace("def test_b", "def _test_b"))
    result = pytester.runpytest_subprocess("--pyargs", "mypkg", "--law-baseline", "b.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["src/mypkg/test_m.py::test_b: in the baseline but no longer collected"])


def test_the_ini_profile_makes_a_hypothesis_law_rerun_the_same_examples(pytester):
    make(pytester, """
        from hypothesis import given, strategies as st

        @given(x=st.floats(0, 1))
        def test_h(law, x):
            law.check("x", x, le=2.0)
            if x > 0.5:
                law.check("sometimes", x, le=2.0)
    """)
    pytester.makeini("[pytest]\nphyslaw_hypothesis_profile = physlaw-ci\n")
    assert pytester.runpytest_subprocess("--law-save-baseline", "b.json").ret == 0
    result = pytester.runpytest_subprocess("--law-baseline", "b.json")
    assert result.ret == 0 and "0 regressions, 0 notes" in result.stdout.str()


def test_an_unknown_ini_profile_is_a_usage_error(pytester):
    make(pytester, "def test_a(law):\n    law.check('x', 1.0, le=2.0)\n")
    pytester.makeini("[pytest]\nphyslaw_hypothesis_profile = no-such-profile\n")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini physlaw_hypothesis_profile = no-such-profile: no Hypothesis profile of that name" in clean(result)
