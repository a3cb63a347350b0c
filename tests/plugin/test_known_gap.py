"""Known gaps: a strict xfail that only a LawViolation satisfies, a page that must exist, name its
tests' files and be kept by a collected test, and an XPASS that says the gap closed."""

from __future__ import annotations

import textwrap

import pytest

GAP_LAWS = """
    import pytest

    PAGE = "docs/known_gaps/proxy-mass.md"

    @pytest.mark.known_gap(PAGE, reason="scalar mass")
    def test_gap_holds(law):
        law.check("answer_ratio", 2.0, near=1.0, rel=0.1)

    @pytest.mark.known_gap(PAGE)
    def test_gap_closed(law):
        law.check("answer_ratio", 1.02, near=1.0, rel=0.1)

    @pytest.mark.known_gap(PAGE)
    def test_gap_crashes(law):
        raise ZeroDivisionError("a bug, not the gap")

    @pytest.mark.known_gap(PAGE)
    def test_gap_misused(law):
        law.check("answer_ratio", 2.0)

    @pytest.mark.known_gap(PAGE)
    def test_gap_plain_assert(law):
        assert 2.0 == 1.0
"""


def page(pytester: pytest.Pytester, name: str, text: str, folder: str = "docs/known_gaps") -> None:
    path = pytester.path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def laws(pytester: pytest.Pytester, source: str, name: str = "test_gaps") -> None:
    pytester.makepyfile(**{name: textwrap.dedent(source)})


@pytest.fixture
def gap_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    page(pytester, "proxy-mass.md", "# Proxy mass\nKept by `test_gaps.py`.\n")
    laws(pytester, GAP_LAWS)
    return pytester


def test_only_a_law_violation_keeps_a_gap_and_a_pass_closes_it_naming_the_page(gap_suite, law_state):
    result = gap_suite.runpytest("-rxX")
    result.assert_outcomes(xfailed=1, failed=4)
    result.stdout.fnmatch_lines([
        "*XPASS(strict)? known gap closed: test_gaps.py::test_gap_closed now holds its law. "
        "Update or retire the page docs/known_gaps/proxy-mass.md*",
        "XFAIL test_gaps.py::test_gap_holds - known gap, see docs/known_gaps/proxy-mass.md: scalar mass",
    ])
    out = result.stdout.str()
    assert "ZeroDivisionError: a bug, not the gap" in out            # a crash is a real failure
    assert "TypeError: law check 'answer_ratio': no bound given" in out  # so is misuse
    assert "assert 2.0 == 1.0" in out                                # and a bare assert
    records = law_state(result).records
    outcomes = {n.split("::")[1]: (r.outcome, r.known_gap) for n, r in records.items()}
    assert outcomes == {
        "test_gap_holds": ("xfailed", "docs/known_gaps/proxy-mass.md"),
        "test_gap_closed": ("xpassed", "docs/known_gaps/proxy-mass.md"),
        "test_gap_crashes": ("crashed", "docs/known_gaps/proxy-mass.md"),
        "test_gap_misused": ("crashed", "docs/known_gaps/proxy-mass.md"),
        "test_gap_plain_assert": ("failed", "docs/known_gaps/proxy-mass.md"),
    }
    assert law_state(result).gap_pages == {"docs/known_gaps/proxy-mass.md": sorted(records)}


def test_a_known_gap_test_is_a_law(gap_suite):
    result = gap_suite.runpytest("-m", "law", "-k", "holds")
    result.assert_outcomes(xfailed=1, deselected=4)


@pytest.mark.parametrize(("marker", "message"), [
    ('known_gap("docs/known_gaps/missing.md")',
     "test_gaps.py::test_gap: known_gap page 'docs/known_gaps/missing.md' does not exist"),
    ('known_gap("elsewhere/page.md")',
     "test_gaps.py::test_gap: known_gap page 'elsewhere/page.md' is not under the known-gap folder 'docs/known_gaps'"),
    ('known_gap("/abs/docs/known_gaps/g.md")', "must be relative to the rootdir, not absolute"),
    ('known_gap("../docs/known_gaps/g.md")', "lies outside the rootdir"),
    ("known_gap()", "test_gaps.py::test_gap: @pytest.mark.known_gap needs the page"),
    ('known_gap("docs/known_gaps/g.md", pages=2)', "unknown argument(s) ['pages']"),
])
def test_a_bad_or_missing_page_is_a_collection_error_naming_test_and_page(pytester, marker, message):
    page(pytester, "g.md", "Kept by test_gaps.py.\n")
    laws(pytester, f"""
        import pytest

        @pytest.mark.{marker}
        def test_gap(law):
            law.check("q", 2.0, le=1.0)
    """)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_gaps.py*", "*1 error*"])
    assert message in result.stdout.str()


def test_known_gap_and_xfail_together_is_a_collection_error(pytester):
    page(pytester, "g.md", "Kept by test_gaps.py.\n")
    laws(pytester, """
        import pytest

        @pytest.mark.xfail(reason="mine")
        @pytest.mark.known_gap("docs/known_gaps/g.md")
        def test_gap(law):
            law.check("q", 2.0, le=1.0)
    """)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "known_gap already makes the test a strict xfail" in result.stdout.str()


def test_the_gap_folder_is_an_ini_key(pytester):
    pytester.makeini("[pytest]\nphyslaw_gap_dir = notes/gaps\n")
    page(pytester, "g.md", "Kept by test_gaps.py.\n", folder="notes/gaps")
    laws(pytester, """
        import pytest

        @pytest.mark.known_gap("notes/gaps/g.md")
        def test_gap(law):
            law.check("q", 2.0, le=1.0)
    """)
    pytester.runpytest().assert_outcomes(xfailed=1)


def test_an_orphan_page_fails_the_session_naming_it(gap_suite):
    page(gap_suite, "retired.md", "# Once kept by test_old.py\n")
    result = gap_suite.runpytest("-k", "holds")
    result.assert_outcomes(xfailed=1, deselected=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*physics law problems*",
        "orphan known-gap page docs/known_gaps/retired.md: no collected test keeps it*",
    ])
    assert "proxy-mass.md: no collected test" not in result.stdout.str()


def test_a_page_whose_module_skips_at_collection_is_no_orphan(gap_suite):
    """An optional route that cannot run here (its module skips at import) leaves its gap pages kept."""
    page(gap_suite, "route-gap.md", "# Kept by test_route.py\n")
    gap_suite.makepyfile(test_route="""
        import pytest
        pytest.skip("the route needs a package not installed here", allow_module_level=True)

        @pytest.mark.known_gap("docs/known_gaps/route-gap.md")
        def test_route_gap(law):
            law.check("q", 2.0, le=1.0)
    """)
    result = gap_suite.runpytest("-k", "holds or route")
    assert "route-gap.md" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    gap_suite.path.joinpath("test_route.py").unlink()
    result = gap_suite.runpytest("-k", "holds")
    result.stdout.fnmatch_lines(["orphan known-gap page docs/known_gaps/route-gap.md: no collected test keeps it*"])


def test_deselected_keepers_count_so_minus_k_and_minus_m_raise_no_orphan(gap_suite):
    for args in (["-k", "nothing_matches"], ["-m", "not law"]):
        result = gap_suite.runpytest(*args)
        assert "orphan known-gap page" not in result.stdout.str(), args
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, args
    result = gap_suite.runpytest("--deselect", "test_gaps.py::test_gap_holds", "-k", "holds")
    assert "orphan known-gap page" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_narrower_run_judges_only_pages_whose_test_files_it_collects(pytester):
    page(pytester, "kept-elsewhere.md", "Kept by test_other.py.\n")
    page(pytester, "dropped.md", "Kept by test_laws.py until its test was removed.\n")
    laws(pytester, "def test_a(law):\n    law.check('q', 0.0, le=1.0)\n", name="test_laws")
    laws(pytester, """
        import pytest

        @pytest.mark.known_gap("docs/known_gaps/kept-elsewhere.md")
        def test_gap(law):
            law.check("q", 2.0, le=1.0)
    """, name="test_other")
    result = pytester.runpytest("test_laws.py")
    out = result.stdout.str()
    assert "kept-elsewhere.md" not in out                       # its file was not collected
    assert "orphan known-gap page docs/known_gaps/dropped.md" in out  # its file was, and keeps nothing
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result = pytester.runpytest("test_laws.py::test_a")  # a node id: the file is not collected whole
    assert result.ret == pytest.ExitCode.OK and "orphan known-gap page" not in result.stdout.str()


def test_a_page_must_name_the_file_of_every_test_that_keeps_it(pytester):
    page(pytester, "g.md", "Kept by test_gaps.py.\n")
    laws(pytester, """
        import pytest

        @pytest.mark.known_gap("docs/known_gaps/g.md")
        def test_gap(law):
            law.check("q", 2.0, le=1.0)
    """)
    laws(pytester, """
        import pytest

        @pytest.mark.known_gap("docs/known_gaps/g.md")
        def test_gap_too(law):
            law.check("q", 2.0, le=1.0)
    """, name="test_unnamed")
    result = pytester.runpytest()
    result.assert_outcomes(xfailed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["known-gap page docs/known_gaps/g.md does not name test_unnamed.py, the file of "
                                 "the test(s) that keep it: test_unnamed.py::test_gap_too"])
    assert "does not name test_gaps.py" not in result.stdout.str()


def test_a_healthy_set_of_pages_passes(gap_suite):
    result = gap_suite.runpytest("-k", "holds")
    assert result.ret == pytest.ExitCode.OK
    assert "physics law problems" not in result.stdout.str()
