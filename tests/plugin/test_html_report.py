"""pytest-html 4 (`--html`): each law test's row carries its checks and a plot of their margins, the
summary the baseline gate; the same under `-n 2` and `--self-contained-html`; nothing, and no import
of pytest_html, without the html plugin.

The page is read back as a browser would build it: the stdlib's HTMLParser makes an element tree of
the page, of its rows' data (the JSON that pytest-html's script renders) and of the extras in them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("pytest_html")

from pytest_physlaw import html_report  # noqa: E402

LAWS = '''
    import math
    import os
    import pytest

    K = float(os.environ.get("PHYSLAW_TEST_K", "1"))

    @pytest.mark.law("slope-holds")
    @pytest.mark.parametrize("mu", [0.4, 0.6])
    def test_slope(law, mu):
        law.check("creep_mm", 10 * (0.45 - mu), le=0.0, abs=1.0, unit="mm")
        law.check("slide <m>", 0.0468992 * K, ge=0.0, le=1.0, unit="m")
        law.check("reach", 30.0, ge=1.0)

    def test_nan(law):
        law.check("energy", math.nan, le=1.0)

    def test_plain():
        pass
'''

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = ET.Element("document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list) -> None:
        element = ET.SubElement(self.stack[-1], tag, {k: v or "" for k, v in attrs})
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        ET.SubElement(self.stack[-1], tag, {k: v or "" for k, v in attrs})

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        parent = self.stack[-1]
        if len(parent):
            parent[-1].tail = (parent[-1].tail or "") + data
        else:
            parent.text = (parent.text or "") + data


def html_tree(text: str) -> ET.Element:
    tree = _Tree()
    tree.feed(text)
    tree.close()
    return tree.root


def text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def read_page(path: Path) -> tuple[ET.Element, dict]:
    """The page's element tree and the data of its rows (tests by nodeid)."""
    page = html_tree(path.read_text(encoding="utf-8"))
    (container,) = [e for e in page.iter("div") if e.get("id") == "data-container"]
    return page, json.loads(container.get("data-jsonblob"))["tests"]


def law_checks(row: dict) -> tuple[list[list[str]], ET.Element]:
    """A row's law checks: the table's rows as text and the margin plot."""
    (extra,) = [e for e in row["extras"] if e["format_type"] == "html"]
    block = html_tree(extra["content"])
    (table,) = block.iter("table")
    rows = [[text(td) for td in tr.iter("td")] for tr in table.iter("tr")]
    (svg,) = block.iter("svg")
    return [r for r in rows if r], svg


@pytest.fixture
def laws(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    return pytester


def _row(tests: dict, nodeid: str) -> dict:
    (row,) = tests[nodeid]
    return row


def test_each_law_row_shows_its_checks_and_a_plot_of_their_margins(laws):
    laws.runpytest("-p", "no:randomly", "--html", "r.html", "--self-contained-html", "--law-report", "r.json")
    page, tests = read_page(laws.path / "r.html")
    rows, svg = law_checks(_row(tests, "test_laws.py::test_slope[0.4]"))
    assert rows == [["creep_mm", "0.5 mm", "<= 0", "-0.5", "FAIL"],
                    ["slide <m>", "0.0468992 m", ">= 0 and <= 1", "0.0469", "pass"],
                    ["reach", "30", ">= 1", "29", "pass"]]
    bars = [r for r in svg.iter("rect")]
    assert [b.get("fill") for b in bars] == [html_report.FAIL, html_report.PASS, html_report.PASS]
    zero = html_report.LABEL_W + html_report.PLOT_W / 2
    # -0.5 is a bar a quarter of the plot wide left of 0; 29 stops at the right edge, with an arrowhead
    assert float(bars[0].get("x")) + float(bars[0].get("width")) == pytest.approx(zero)
    assert float(bars[0].get("width")) == pytest.approx(html_report.PLOT_W / 4, abs=0.1)
    edge = zero + html_report.PLOT_W / 2
    assert edge - 10 < float(bars[2].get("x")) + float(bars[2].get("width")) < edge - 5
    (arrow,) = svg.iter("path")
    assert arrow.get("fill") == html_report.PASS and f"L{edge:g} " in arrow.get("d")
    report = {law["nodeid"]: law for law in json.loads((laws.path / "r.json").read_text())["laws"]}
    for nodeid, law in report.items():  # every law's row, its checks in check order
        assert [r[0] for r in law_checks(_row(tests, nodeid))[0]] == [c["quantity"] for c in law["checks"]]
    nan_rows, _ = law_checks(_row(tests, "test_laws.py::test_nan"))
    assert nan_rows == [["energy", "nan", "<= 1", "-inf", "FAIL"]]
    assert _row(tests, "test_laws.py::test_plain")["extras"] == []
    (header,) = [tr for tr in page.iter("tr") if tr.find("th") is not None and "Worst margin" in text(tr)]
    cells = _row(tests, "test_laws.py::test_slope[0.6]")["resultsTableRow"]
    assert text(html_tree(cells[2])) == "0.0469 (slide <m>)"  # the column beside the test's name
    (gate,) = [d for d in page.iter("div") if d.get("class") == "physlaw-gate"]
    assert "not run: no --law-baseline" in text(gate)


def test_minus_n_2_and_assets_give_the_same_rows(laws):
    pytest.importorskip("xdist")
    laws.runpytest("-p", "no:randomly", "--html", "serial.html", "--self-contained-html")
    laws.runpytest("-p", "no:randomly", "-n", "2", "--html", "xdist.html")
    _, serial = read_page(laws.path / "serial.html")
    _, parallel = read_page(laws.path / "xdist.html")
    assert sorted(serial) == sorted(parallel)
    for nodeid in serial:
        one, two = _row(serial, nodeid), _row(parallel, nodeid)
        assert one["extras"] == two["extras"] and one["resultsTableRow"][2] == two["resultsTableRow"][2]
    assert law_checks(_row(parallel, "test_laws.py::test_slope[0.6]"))[0][0] == ["creep_mm", "-1.5 mm", "<= 0",
                                                                              "1.5", "pass"]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "n2"])
def test_the_summary_shows_the_gates_regressions(laws, monkeypatch, workers):
    if workers:
        pytest.importorskip("xdist")
    laws.runpytest("-p", "no:randomly", "--law-save-baseline", "base.json")
    monkeypatch.setenv("PHYSLAW_TEST_K", "1.1")
    result = laws.runpytest("-p", "no:randomly", *workers, "--law-baseline", "base.json", "--html", "r.html",
                            "--self-contained-html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    page, _ = read_page(laws.path / "r.html")
    (gate,) = [d for d in page.iter("div") if d.get("class") == "physlaw-gate"]
    assert text(gate.find("p")) == "2 regressions (baseline base.json)"
    (table,) = gate.iter("table")
    rows = [[text(td) for td in tr.iter("td")] for tr in table.iter("tr")]
    assert [r for r in rows if r] == [
        ["test_laws.py::test_slope[0.4]", "slide <m>", "drift", "0.0468992 m", "0.0515891 m", "+10%",
         "±0.01 rel, zero within 0.001"],
        ["test_laws.py::test_slope[0.6]", "slide <m>", "drift", "0.0468992 m", "0.0515891 m", "+10%",
         "±0.01 rel, zero within 0.001"]]


def test_without_the_html_plugin_nothing_is_registered_or_imported(laws):
    result = laws.runpytest("-p", "no:randomly", "-p", "no:html")
    result.assert_outcomes(passed=2, failed=2)
    config = result.reprec.getcall("pytest_sessionfinish").session.config
    assert config.pluginmanager.get_plugin(html_report.NAME) is None
    code = ("import sys, pytest_physlaw.plugin, pytest_physlaw.html_report, pytest_physlaw.junit; "
            "sys.exit('pytest_html' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_with_the_plugin_but_no_html_report_the_reports_carry_no_extras(laws):
    result = laws.runpytest("-p", "no:randomly")
    reports = result.reprec.getreports("pytest_runtest_logreport")
    assert reports and not any(getattr(r, "extras", None) for r in reports)
