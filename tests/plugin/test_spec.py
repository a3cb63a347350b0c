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
