"""--law-spec leaves a docstring's lab notebook out: the catalogue stops at a line that is exactly
`Measured:`, in the module's docstring and in each law's; the law report keeps the whole test docstring."""

from __future__ import annotations

import json

from pytest_physlaw.spec import stated

LAWS = '''
    """Boxes stay put on a slope: the law. Source: Lesson 20.2, part 3.

    How the law is checked, still part of the statement.

    Measured:
    8.99 mm on this 2-core machine, load average 5 (`pytest test_laws.py`).
    """
    import pytest

    @pytest.mark.law("slope-holds")
    def test_slope(law):
        """A box on a slope stays put.

        Measured:
        It crept 8.99 mm.
        """
        law.check("creep_mm", 8.99, le=10.0, unit="mm")

    @pytest.mark.law("no-notebook")
    def test_plain(law):
        """Only a statement; Measured: inside a line does not cut it."""
        law.check("speed", 0.0, ge=0.0)
'''


def test_stated():
    assert stated("Law.\n\nMeasured:\nfigures") == "Law."
    assert stated("Law.\nMeasured: 3 mm\nmore") == "Law.\nMeasured: 3 mm\nmore"  # not a line of its own
    assert stated("Measured:\nonly figures") is None
    assert stated(None) is None and stated("Law.") == "Law."


def test_the_catalogue_leaves_the_measured_part_out(pytester):
    pytester.makepyfile(test_laws=LAWS)
    result = pytester.runpytest("--law-spec", "laws.md", "--law-report", "r.json")
    result.assert_outcomes(passed=2)
    text = (pytester.path / "laws.md").read_text()
    assert "Boxes stay put on a slope: the law." in text and "still part of the statement." in text
    assert "A box on a slope stays put." in text
    assert "Only a statement; Measured: inside a line does not cut it." in text
    for notebook in ("Measured:\n", "load average", "8.99", "It crept"):
        assert notebook not in text
    docs = {law["law"]: law["doc"] for law in json.loads((pytester.path / "r.json").read_text())["laws"]}
    assert docs["slope-holds"].endswith("Measured:\nIt crept 8.99 mm.")
