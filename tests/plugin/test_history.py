"""`pytest-physlaw history`: each law's value and bounds across saved reports in the order given, a
step beyond drift marked where the gate (`pytest-physlaw compare` of a report against the one before)
finds one, the `--law` filter, the output's format by its suffix, and bad files."""

from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest

from pytest_physlaw.cli import main

LAWS = """
    import pytest

    @pytest.mark.law("slope-creep")
    def test_slope(law):
        "A box on a slope stays put."
        law.check("creep_mm", {creep}, le=10.0, unit="mm", drift=0.05)
        law.check("residual", {residual}, le=1e-9)

    @pytest.mark.law("tower-iterations")
    def test_tower(law):
        law.check("iterations", {iterations}, near=1.0, abs=0.5)
"""


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def save(pytester: pytest.Pytester, name: str, creep: float = 1.0, residual: float = 1e-15,
         iterations: float = 1.0) -> str:
    """One commit's report: the suite with these figures, run with --law-report NAME.json."""
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS.format(creep=creep, residual=residual, iterations=iterations)))
    pytester.runpytest("--law-report", f"{name}.json")
    return f"{name}.json"


@pytest.fixture
def commits(pytester, monkeypatch) -> list[str]:
    """Four reports: creep moves within its 5 % drift, then steps +20 %; the round-off residual
    triples and falls back (round-off: under the floor); the tower's iterations fail at the last."""
    monkeypatch.chdir(pytester.path)
    return [save(pytester, "01-aaa"), save(pytester, "02-bbb", creep=1.02, residual=3e-15),
            save(pytester, "03-ccc", creep=1.224), save(pytester, "04-ddd", creep=1.224, iterations=2.0)]


def test_several_reports_in_the_order_given_as_a_markdown_table(commits, pytester):
    code, out = run("history", *commits, "-o", "history.md")
    assert code == 0
    assert out.splitlines()[0] == ("law history: 4 reports (01-aaa .. 04-ddd), 3 checks, 2 steps beyond drift")
    md = (pytester.path / "history.md").read_text()
    assert "| 1 | `01-aaa` |" in md and "| 4 | `04-ddd` |" in md
    rows = {line.split(" | ")[1]: line for line in md.splitlines() if line.startswith("| `test_laws.py::")}
    assert rows["creep_mm"] == "| `test_laws.py::test_slope` | creep_mm | mm | <= 10 | 1 | 1.02 | **1.224** (+20%) | 1.224 |"
    assert rows["residual"] == "| `test_laws.py::test_slope` | residual |  | <= 1e-09 | 1e-15 | 3e-15 | 1e-15 | 1e-15 |"
    assert rows["iterations"].endswith("| 1 ± 0.5 | 1 | 1 | 1 | **2 x** (+100%) |")


def test_a_step_is_marked_where_the_gate_finds_one(commits):
    """The history's steps are `compare`'s drift and now-failing regressions of consecutive reports."""
    code, out = run("history", *commits)
    steps = [line for line in out.splitlines() if line.startswith("step at ")]
    assert len(steps) == 2  # the messages are the gate's own
    assert steps[0].startswith("step at 03-ccc: test_laws.py::test_slope [creep_mm]: value 1.02 mm -> 1.224 mm "
                               "(+20%) moved more than its drift (±0.05 rel")
    assert steps[1].startswith("step at 04-ddd: test_laws.py::test_tower [iterations]: passed in the baseline (1), "
                               "fails now (2")
    for old, new in zip(commits, commits[1:]):
        gate_code, gate_out = run("compare", old, new)
        assert (gate_code == 1) == any(f"step at {new[:-5]}:" in s for s in steps), gate_out


def test_a_law_the_gate_could_not_compare_is_marked_not_stepped(commits, pytester):
    """A Hypothesis law that drew other examples: the gate compares no worst value, so its jump is no
    step, but the history says it was not compared."""
    for name, digest in (("02-bbb", "1111"), ("03-ccc", "2222")):
        data = json.loads((pytester.path / f"{name}.json").read_text())
        slope = next(law for law in data["laws"] if law["nodeid"] == "test_laws.py::test_slope")
        slope["examples"] = {"count": 60, "digest": digest}
        (pytester.path / f"{name}.json").write_text(json.dumps(data))
    code, out = run("history", *commits[1:3], "--law", "slope-creep", "-o", "h.md")
    assert code == 0 and "0 steps beyond drift" in out
    assert "not compared: 2 values of Hypothesis laws that drew other examples" in out
    row = next(line for line in (pytester.path / "h.md").read_text().splitlines() if "| creep_mm |" in line)
    assert row.endswith("| 1.02 | 1.224 ~ |")


def test_the_law_filter(commits, pytester):
    code, out = run("history", *commits, "--law", "tower-iterations", "-o", "one.md")
    assert code == 0 and "1 check," in out and "creep_mm" not in out
    md = (pytester.path / "one.md").read_text()
    assert "test_tower" in md and "test_slope" not in md
    for selector, checks in (("test_laws.py::test_slope", 2), ("test_laws.py", 3), ("*slope*", 2),
                             ("slope-creep", 2)):
        assert f" {checks} checks," in run("history", *commits, "--law", selector)[1], selector


def test_a_law_no_report_has_is_an_error(commits, capsys):
    code, _ = run("history", *commits, "--law", "no-such-law")
    err = capsys.readouterr().err
    assert code == 2 and "no law matches 'no-such-law' in any report" in err


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_the_plot_format_follows_the_suffix(commits, pytester, suffix, magic):
    pytest.importorskip("matplotlib")
    code, out = run("history", *commits, "-o", f"plots/history{suffix}")
    assert code == 0 and f"plots/history{suffix}: 3 of 3 checks" in out
    assert (pytester.path / f"plots/history{suffix}").read_bytes().startswith(magic)


def test_an_unknown_suffix_is_refused_before_reading(commits, capsys, pytester):
    code, _ = run("history", "missing.json", "-o", "history.txt")
    err = capsys.readouterr().err
    assert code == 2 and "history.txt: the output's suffix says its format: .md, .png, .svg, .pdf" in err
    assert not (pytester.path / "history.txt").exists()


def test_without_matplotlib_a_plot_is_a_clear_error_and_markdown_still_works(commits, monkeypatch, capsys, pytester):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    code, _ = run("history", *commits, "-o", "history.png")
    err = capsys.readouterr().err
    assert code == 2 and "a plot needs matplotlib (pip install matplotlib)" in err and "Traceback" not in err
    assert run("history", *commits, "-o", "history.md")[0] == 0


def test_the_plugin_and_the_other_commands_never_import_matplotlib(pytester):
    code = ("import sys, pytest_physlaw.cli, pytest_physlaw.plugin, pytest_physlaw.history; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    assert pytester.run(sys.executable, "-c", code).ret == 0


@pytest.mark.parametrize("content, message", [
    (None, "missing.json: no such file"),
    ("{", "missing.json: not JSON"),
    ('{"laws": []}', "missing.json: not a pytest-physlaw report (no schema_version)"),
])
def test_a_file_that_is_no_report_is_an_error(commits, capsys, pytester, content, message):
    if content is not None:
        (pytester.path / "missing.json").write_text(content)
    code, _ = run("history", commits[0], "missing.json")
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_a_report_this_version_cannot_read_is_skipped_and_named(commits, pytester):
    old = json.loads((pytester.path / commits[0]).read_text())
    (pytester.path / "00-old.json").write_text(json.dumps({**old, "schema_version": 1}))
    code, out = run("history", "00-old.json", *commits)
    assert code == 0
    assert "law history: 4 reports (01-aaa .. 04-ddd)" in out
    assert "skipped 00-old.json: schema version 1, this pytest-physlaw reads version 2" in out


def test_no_readable_report_is_an_error(commits, pytester, capsys):
    (pytester.path / "00-old.json").write_text('{"schema_version": 1, "laws": []}')
    code, _ = run("history", "00-old.json")
    assert code == 2 and "none of the 1 report can be read: 00-old.json: schema version 1" in capsys.readouterr().err


def test_the_reports_table_shows_package_versions_that_differ(commits, pytester):
    for name, mujoco in (("01-aaa", "3.14.0"), ("02-bbb", "4.0.0")):
        data = json.loads((pytester.path / f"{name}.json").read_text())
        data["environment"]["versions"]["mujoco"] = mujoco
        (pytester.path / f"{name}.json").write_text(json.dumps(data))
    assert run("history", *commits[:2], "-o", "h.md")[0] == 0
    md = (pytester.path / "h.md").read_text()
    assert "| # | report | mujoco |" in md and "| 1 | `01-aaa` | 3.14.0 |" in md and "| 2 | `02-bbb` | 4.0.0 |" in md


def test_a_baseline_reads_as_a_report(commits, pytester):
    pytester.runpytest("--law-save-baseline", "baseline.json")
    code, out = run("history", *commits, "baseline.json")
    assert code == 0 and "5 reports (01-aaa .. baseline)" in out


def test_a_crowded_plot_shows_steps_then_moves_then_gated_values_exempt_ones_last():
    from pytest_physlaw.history import History, Point, Series
    from pytest_physlaw.history_plot import chosen
    from pytest_physlaw.record import CheckRecord

    def series(name: str, values: list[float], *, drift: float | None = 0.01, step: int = -1,
               moved: int = -1) -> Series:
        points = [Point(CheckRecord(name, v, "<= 100", {"le": 100.0}, 1.0, True, drift=drift), "passed",
                        "moved more than its drift" if i == step else None, "", i == moved)
                  for i, v in enumerate(values)]
        return Series((f"t.py::{name}", name), f"t.py::{name}", name, points)

    timing = series("timing_ratio", [1.0, 9.0, 2.0], drift=None)
    still, moved, stepped = series("still", [5.0] * 3), series("moved", [5.0, 5.04, 5.0], moved=1), \
        series("stepped", [5.0, 5.0, 6.0], step=2)
    history = History(["a", "b", "c"], [moved, still, stepped, timing])
    assert [s.quantity for s in chosen(history, limit=3)] == ["stepped", "moved", "still"]
    assert chosen(history, limit=4) == history.series
