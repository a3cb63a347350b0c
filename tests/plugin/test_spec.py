"""--law-spec writes the law catalogue: per law file its docstring, each law's id, source, gap page,
docstring and quantities with bounds, units and why, in definition order, and no measured values,
so two runs whose measurements differ give the same file."""

from __future__ import annotations

import textwrap

import pytest

from pytest_physlaw.spec import split_case

LAWS = '''
    """Boxes stay put: the module's statement of its laws."""
    import pytest

    @pytest.mark.law("slope-holds", source="Lesson 20.2, part 3")
    @pytest.mark.parametrize("solver", ["PGS", "Newton"])
    def test_slope(law, solver):
        """A box on a slope stays put."""
        law.check("creep_mm", {creep} if solver == "PGS" else {creep} / 2, le=10.0, unit="mm", why="soft contact")
        law.check("ratio", {ratio}, near=1.0, rel=0.1, why="lesson table")

    @pytest.mark.law("a-first")
    def test_defined_second(law):
        """Defined after test_slope, so listed after it."""
        law.check("speed", {creep}, ge=0.0, le=1e3 if True else 0, unit="m/s")

    @pytest.mark.known_gap("gaps/g.md")
    def test_gap(law):
        """A known gap."""
        law.check("err", {ratio} + 5, le=1.0)
'''


@pytest.fixture
def laws(pytester):
    pytester.makeini("[pytest]\nphyslaw_gap_dir = gaps\n")
    pytester.mkdir("gaps")
    pytester.path.joinpath("gaps", "g.md").write_text("# Gap\nKept by test_laws.py.\n")

    def write(creep: float, ratio: float) -> None:
        pytester.makepyfile(test_laws=textwrap.dedent(LAWS.format(creep=creep, ratio=ratio)))
    return write


def test_split_case():
    assert split_case("a.py::test_x[PGS-1]") == ("a.py::test_x", "PGS-1")
    assert split_case("a.py::test_x") == ("a.py::test_x", "")


def test_the_catalogue(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    result = pytester.runpytest("--law-spec", "docs/laws.md")
    result.assert_outcomes(passed=3, xfailed=1)
    text = (pytester.path / "docs" / "laws.md").read_text()
    assert text.startswith("# Law catalogue")
    assert "## test_laws.py\n\nBoxes stay put: the module's statement of its laws." in text
    assert text.index("### slope-holds") < text.index("### a-first") < text.index("### test_gap")
    assert "`test_slope`, cases: `Newton`, `PGS`" in text
    assert "- Source: Lesson 20.2, part 3" in text and "- Known gap: gaps/g.md" in text
    assert "A box on a slope stays put." in text
    assert "| creep_mm | <= 10 | mm | soft contact |" in text
    assert "| ratio | 1 ± 0.1 |  | lesson table |" in text
    assert "| speed | >= 0 and <= 1000 | m/s |" in text
    for measured in ("2.5", "1.25", "1.02", "6.02"):
        assert measured not in text


def test_the_catalogue_does_not_change_with_the_measurements(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    pytester.runpytest("--law-spec", "first.md")
    laws(creep=7.5, ratio=0.97)
    pytester.runpytest("--law-spec", "second.md")
    assert (pytester.path / "first.md").read_text() == (pytester.path / "second.md").read_text()


def test_the_catalogue_and_report_of_two_workers_equal_the_serial_ones(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    pytester.runpytest("--law-spec", "serial.md", "--law-report", "serial.json")
    result = pytester.runpytest("-n", "2", "--law-spec", "xdist.md", "--law-report", "xdist.json")
    result.assert_outcomes(passed=3, xfailed=1)
    for name in ("serial.md", "xdist.md", "serial.json"):
        assert (pytester.path / name).read_text() == (pytester.path / name.replace("serial", "xdist")).read_text()


MORE = '''
    """More laws, in a second file."""
    import pytest

    @pytest.mark.law("more-holds")
    def test_more(law):
        """A second file's law."""
        law.check("gap_mm", 1.0, le={bound}, unit="mm")
'''


def more(pytester: pytest.Pytester, name: str = "test_more", bound: float = 2.0) -> None:
    pytester.makepyfile(**{name: textwrap.dedent(MORE.format(bound=bound))})


def test_a_one_file_run_merges_into_the_catalogue_and_says_what_it_did(pytester, laws):
    """A law added in a new file and run alone lands where a run of everything puts it; the laws of
    the files the run did not collect are kept as they were, and an up-to-date catalogue stays the same."""
    laws(creep=2.5, ratio=1.02)
    pytester.runpytest("--law-spec", "docs/laws.md")
    catalogue = pytester.path / "docs" / "laws.md"
    before = catalogue.read_bytes()
    more(pytester)
    result = pytester.runpytest("--law-spec", "docs/laws.md", "test_more.py")
    result.stdout.fnmatch_lines(["law catalogue docs/laws.md: 1 added, 0 updated, 0 unchanged, 3 kept, 0 pruned"])
    merged = catalogue.read_bytes()
    pytester.runpytest("--law-spec", "everything.md")
    assert merged == (pytester.path / "everything.md").read_bytes()
    assert merged != before and b"### more-holds" in merged and b"### slope-holds" in merged
    result = pytester.runpytest("--law-spec", "docs/laws.md", "test_laws.py")
    result.stdout.fnmatch_lines(["law catalogue docs/laws.md: 0 added, 0 updated, 3 unchanged, 1 kept, 0 pruned"])
    assert catalogue.read_bytes() == merged


def test_a_changed_bound_updates_its_law_and_nothing_else(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    more(pytester)
    pytester.runpytest("--law-spec", "laws.md")
    more(pytester, bound=3.0)
    result = pytester.runpytest("--law-spec", "laws.md", "test_more.py")
    result.stdout.fnmatch_lines(["*: 0 added, 1 updated, 0 unchanged, 3 kept, 0 pruned"])
    text = (pytester.path / "laws.md").read_text()
    assert "| gap_mm | <= 3 | mm |" in text and "| gap_mm | <= 2 |" not in text
    pytester.runpytest("--law-spec", "fresh.md")
    assert text == (pytester.path / "fresh.md").read_text()


def test_a_law_gone_from_the_paths_a_run_collected_is_pruned_and_no_other(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    more(pytester)
    pytester.mkdir("sub")
    more(pytester, "sub/test_sub")
    pytester.runpytest("--law-spec", "laws.md")
    (pytester.path / "test_more.py").unlink()
    (pytester.path / "sub" / "test_sub.py").unlink()
    result = pytester.runpytest("--law-spec", "laws.md", "sub")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 0 unchanged, 4 kept, 1 pruned"])
    text = (pytester.path / "laws.md").read_text()
    assert "## sub/test_sub.py" not in text and "## test_more.py" in text  # test_more.py: not this run's path
    pytester.makepyfile(test_laws="import pytest\n\n@pytest.mark.law('a-first')\ndef test_defined_second(law):\n"
                                  "    law.check('speed', 1.0, ge=0.0)\n")
    result = pytester.runpytest("--law-spec", "laws.md")
    result.stdout.fnmatch_lines(["*: 0 added, 1 updated, 0 unchanged, 0 kept, 3 pruned"])
    pytester.runpytest("--law-spec", "fresh.md")
    assert (pytester.path / "laws.md").read_text() == (pytester.path / "fresh.md").read_text()


def test_a_law_that_did_not_run_keeps_its_entry(pytester, laws):
    """-k, --collect-only, -x: a law collected but not run (one of its cases) keeps its entry as the
    last run of it wrote it; a law that ran and skipped is written as it ran, as a run of everything does."""
    laws(creep=2.5, ratio=1.02)
    pytester.runpytest("--law-spec", "laws.md")
    before = (pytester.path / "laws.md").read_text()
    assert "No checks recorded" not in before
    result = pytester.runpytest("--law-spec", "laws.md", "-k", "test_gap or test_defined_second")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 2 unchanged, 1 kept, 0 pruned"])
    assert (pytester.path / "laws.md").read_text() == before
    result = pytester.runpytest("--law-spec", "laws.md", "-k", "not Newton")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 2 unchanged, 1 kept, 0 pruned"])
    result = pytester.runpytest("--law-spec", "laws.md", "--collect-only")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 0 unchanged, 3 kept, 0 pruned"])
    assert (pytester.path / "laws.md").read_text() == before
    pytester.makeconftest("import pytest\n\n@pytest.fixture(autouse=True)\ndef _skip():\n    pytest.skip('no')\n")
    result = pytester.runpytest("--law-spec", "laws.md")
    result.stdout.fnmatch_lines(["*: 0 added, 3 updated, 0 unchanged, 0 kept, 0 pruned"])
    assert "No checks recorded" in (pytester.path / "laws.md").read_text()


def test_a_run_of_everything_writes_what_it_writes_into_an_empty_file(pytester, laws):
    """Whatever the catalogue held of the run's paths (stale laws, a file since deleted), a run of
    everything rewrites it byte for byte as a run into a new file does: CI compares the two."""
    laws(creep=2.5, ratio=1.02)
    more(pytester)
    pytester.runpytest("--law-spec", "old.md")
    more(pytester, "test_gone", bound=9.0)
    pytester.runpytest("--law-spec", "old.md")
    (pytester.path / "test_gone.py").unlink()
    more(pytester, bound=5.0)
    laws(creep=7.5, ratio=0.9)
    pytester.runpytest("--law-spec", "old.md", "--law-report", "r.json")
    pytester.runpytest("--law-spec", "new.md")
    assert (pytester.path / "old.md").read_bytes() == (pytester.path / "new.md").read_bytes()


def test_an_existing_file_that_is_no_catalogue_is_not_overwritten(pytester, laws):
    laws(creep=2.5, ratio=1.02)
    (pytester.path / "notes.md").write_text("# My notes\n\nnot a catalogue\n")
    result = pytester.runpytest("--law-spec", "notes.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--law-spec notes.md (the existing catalogue a run merges into): not a law catalogue"
            in result.stderr.str())
    assert (pytester.path / "notes.md").read_text() == "# My notes\n\nnot a catalogue\n"
    (pytester.path / "empty.md").write_text("")
    assert pytester.runpytest("--law-spec", "empty.md").ret == 0
    assert (pytester.path / "empty.md").read_text().startswith("# Law catalogue")
