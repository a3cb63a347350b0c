"""The `pytest-physlaw` command: `compare` applies the gate's rules to two saved reports (exit 1 on
regressions, 2 on a bad file, never a traceback), `show` prints a report's law table, and `merge`
makes one report of a sharded run that the gate reads like a single run's."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest

from pytest_physlaw.cli import main

LAWS = """
    import pytest

    @pytest.mark.law("{name}-slope")
    def test_slope(law):
        "A box on a slope stays put."
        law.check("creep_mm", {creep}, le=10.0, unit="mm", why="soft contact")

    @pytest.mark.parametrize("solver", ["PGS", "CG"])
    def test_iterations(law, solver):
        law.check("iterations", {{"PGS": 30.0, "CG": 8.0}}[solver], le=100.0)
"""


def suite(pytester: pytest.Pytester, creep: float = 1.0) -> None:
    for name in ("solver", "coupling"):
        pytester.makepyfile(**{f"test_{name}": textwrap.dedent(LAWS.format(name=name, creep=creep))})


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


@pytest.fixture
def reports(pytester):
    suite(pytester)
    assert pytester.runpytest("--law-report", "old.json").ret == 0
    suite(pytester, creep=1.3)
    assert pytester.runpytest("--law-report", "new.json").ret == 0
    return pytester.path


def test_compare_finds_the_changed_values_and_exits_1(reports, monkeypatch):
    monkeypatch.chdir(reports)
    code, out = run("compare", "old.json", "new.json", "--markdown", "gate.md")
    assert code == 1
    assert "law gate: old.json -> new.json: 2 regressions, 0 notes" in out
    lines = out.splitlines()
    assert lines[3].split() == ["law", "quantity", "old", "new", "change", "tolerance", "why"]
    assert any(line.split()[:7] == ["test_coupling.py::test_slope", "creep_mm", "1", "mm", "1.3", "mm", "+30%"]
               for line in lines)
    md = (reports / "gate.md").read_text()
    assert "### Regressions" in md and "| `test_solver.py::test_slope` | creep_mm | 1 mm | 1.3 mm | +30% |" in md.replace(
        "test_solver.py::test_slope |", "`test_solver.py::test_slope` |")


def test_compare_of_a_report_with_itself_exits_0(reports, monkeypatch):
    monkeypatch.chdir(reports)
    code, out = run("compare", "old.json", "old.json")
    assert code == 0 and "0 regressions, 0 notes" in out


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{", "not JSON"),
    ('{"schema_version": 2, "laws": [{"nodeid": "a", "path": "a", "checks": [{"quantity": "q", "value": 1, '
     '"bound": "<= 2", "margin": 0.5, "passed": "false"}]}]}', "passed is a string"),
    ('{"schema_version": 2, "complete": false, "incomplete": "interrupted", "laws": []}', "incomplete run (interrupted)"),
])
def test_a_bad_file_exits_2_with_a_message(reports, monkeypatch, capsys, content, message):
    monkeypatch.chdir(reports)
    if content is not None:
        (reports / "bad.json").write_text(content)
    code, out = run("compare", "bad.json", "new.json")
    err = capsys.readouterr().err
    assert code == 2 and message in err and "bad.json" in err and "Traceback" not in err


def test_show_prints_the_law_table(reports, monkeypatch):
    monkeypatch.chdir(reports)
    code, out = run("show", "new.json")
    assert code == 0
    assert "test_solver.py" in out and "solver-slope" in out and "creep_mm" in out and "1.3 mm" in out
    assert "6 laws (6 passed)" in out


def test_merge_of_shards_equals_the_single_run(pytester, monkeypatch):
    suite(pytester)
    assert pytester.runpytest("--law-report", "all.json").ret == 0
    assert pytester.runpytest("test_solver.py", "--law-report", "a.json").ret == 0
    assert pytester.runpytest("test_coupling.py", "--law-report", "b.json").ret == 0
    monkeypatch.chdir(pytester.path)
    code, out = run("merge", "a.json", "b.json", "-o", "merged.json")
    assert code == 0 and "merged.json: 6 laws from 2 reports" in out
    single, merged = (json.loads((pytester.path / n).read_text()) for n in ("all.json", "merged.json"))
    assert merged["laws"] == single["laws"] and merged["gaps"] == single["gaps"]
    assert merged["run"]["collect_args"] == ["test_coupling.py", "test_solver.py"]
    assert run("compare", "all.json", "merged.json")[0] == 0
    # the merged report is what the gate reads: a law the shards lost is a regression
    (pytester.path / "test_coupling.py").unlink()
    assert pytester.runpytest("test_solver.py", "--law-report", "a.json").ret == 0
    pytester.makepyfile(test_coupling="def test_other(law):\n    law.check('o', 1.0, le=2.0)\n")
    assert pytester.runpytest("test_coupling.py", "--law-report", "b.json").ret == 0
    run("merge", "a.json", "b.json", "-o", "merged.json")
    code, out = run("compare", "all.json", "merged.json")
    assert code == 1 and any(line.startswith("test_coupling.py::test_slope ") and
                             line.endswith("in the baseline but no longer collected") for line in out.splitlines())


def test_merge_refuses_a_law_in_two_shards(pytester, monkeypatch, capsys):
    suite(pytester)
    assert pytester.runpytest("--law-report", "a.json").ret == 0
    monkeypatch.chdir(pytester.path)
    code, _ = run("merge", "a.json", "a.json", "-o", "m.json")
    assert code == 2 and "law test_coupling.py::test_iterations[CG] is in two reports: a.json and a.json" in \
        capsys.readouterr().err
    assert not (pytester.path / "m.json").exists()


def test_the_console_script_and_python_m_run(reports):
    for cmd in ([sys.executable, "-m", "pytest_physlaw"], [str(__import__("pathlib").Path(sys.executable).parent
                                                                / "pytest-physlaw")]):
        proc = subprocess.run([*cmd, "compare", "old.json", "new.json"], cwd=reports, capture_output=True, text=True)
        assert proc.returncode == 1 and "2 regressions" in proc.stdout, proc.stderr
