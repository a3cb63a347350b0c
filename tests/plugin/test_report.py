"""The JSON law report: schema version, environment, laws sorted by nodeid with their checks, gaps
with their keeping tests and status; written atomically at ini physlaw_report, moved by --law-report,
and written as a baseline by --law-save-baseline."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_physlaw.record import SCHEMA_VERSION
from pytest_physlaw.report import cpu, package_versions, write_json

LAWS = '''
    import math
    import pytest

    @pytest.mark.law("b-law", source="a lesson")
    def test_b(law):
        """B holds."""
        law.check("speed", 2.0, le=4.0, unit="m/s", why="a bound")
        for v in (1.0, 3.0, 2.0):
            law.check("many", v, ge=0.5)

    def test_a(law):
        law.check("nan", math.nan, le=1.0)

    @pytest.mark.known_gap("docs/known_gaps/g.md")
    def test_gap(law):
        law.check("err", 3.0, le=1.0)

    @pytest.mark.known_gap("docs/known_gaps/h.md")
    def test_closed(law):
        law.check("err", 0.5, le=1.0)
'''


@pytest.fixture
def law_files(pytester):
    gaps = pytester.mkdir("docs").joinpath("known_gaps")
    gaps.mkdir()
    for page in ("g.md", "h.md"):
        gaps.joinpath(page).write_text("# A gap\nKept by test_laws.py.\n")
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    return pytester


def test_versions_of_missing_packages_are_null():
    versions = package_versions(["pytest", "surely-not-installed-physlaw"])
    assert versions["pytest"] == pytest.__version__ and versions["surely-not-installed-physlaw"] is None


def test_write_json_is_atomic_and_makes_parents(tmp_path):
    path = write_json(tmp_path / "a" / "b" / "r.json", {"x": 1})
    assert json.loads(path.read_text()) == {"x": 1}
    assert sorted(p.name for p in path.parent.iterdir()) == ["r.json"]  # no temporary left behind


def test_the_default_report(law_files):
    result = law_files.runpytest()
    result.assert_outcomes(passed=1, failed=2, xfailed=1)
    data = json.loads((law_files.path / ".physlaw" / "report.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    env = data["environment"]
    assert env["python"] and env["platform"]
    assert set(env["versions"]) == {"numpy", "mujoco", "warp-lang", "pytest", "hypothesis", "cpu"}
    assert env["versions"]["pytest"] == pytest.__version__
    laws = data["laws"]
    assert [law["nodeid"] for law in laws] == sorted(law["nodeid"] for law in laws)
    by_name = {law["nodeid"].split("::")[1]: law for law in laws}
    b = by_name["test_b"]
    assert (b["law"], b["source"], b["doc"], b["outcome"], b["known_gap"]) == ("b-law", "a lesson", "B holds.", "passed", None)
    speed, many = b["checks"]
    assert (speed["quantity"], speed["value"], speed["unit"], speed["bound"], speed["margin"], speed["passed"],
            speed["count"], speed["why"]) == ("speed", 2.0, "m/s", "<= 4", 0.5, True, 1, "a bound")
    assert (many["value"], many["count"]) == (1.0, 3)  # the worst of three
    nan = by_name["test_a"]["checks"][0]
    assert (nan["value"], nan["margin"], nan["passed"]) == ("nan", "-inf", False)
    assert by_name["test_gap"]["outcome"] == "xfailed" and by_name["test_gap"]["known_gap"] == "docs/known_gaps/g.md"
    assert by_name["test_closed"]["outcome"] == "xpassed"
    assert data["gaps"] == [
        {"page": "docs/known_gaps/g.md", "tests": ["test_laws.py::test_gap"], "status": "open"},
        {"page": "docs/known_gaps/h.md", "tests": ["test_laws.py::test_closed"], "status": "closed"},
    ]


def test_the_report_is_moved_by_the_option_and_the_ini(law_files):
    law_files.runpytest("--law-report", "out/r.json")
    assert (law_files.path / "out" / "r.json").is_file()
    law_files.makeini("[pytest]\nphyslaw_report = reports/laws.json\nphyslaw_versions =\n    pytest\n    nosuchpkg\n")
    law_files.runpytest()
    data = json.loads((law_files.path / "reports" / "laws.json").read_text())
    assert data["environment"]["versions"] == {"pytest": pytest.__version__, "nosuchpkg": None, "cpu": cpu()}


def test_the_saved_baseline_is_the_report_without_its_run(law_files):
    law_files.runpytest("--law-save-baseline", "base/line.json", "--law-report", "r.json")
    saved = json.loads((law_files.path / "base" / "line.json").read_text())
    report = json.loads((law_files.path / "r.json").read_text())
    assert report.pop("run")["collect_args"] == ["."]
    assert report["environment"].pop("platform") and "platform" not in saved["environment"]
    assert saved == report


def test_two_runs_give_the_same_report(law_files):
    law_files.runpytest("--law-report", "one.json")
    law_files.runpytest("--law-report", "two.json")
    assert (law_files.path / "one.json").read_text() == (law_files.path / "two.json").read_text()


def test_the_gaps_show_in_the_terminal(law_files):
    result = law_files.runpytest()
    result.stdout.fnmatch_lines([
        "gap page * kept by * status",
        "docs/known_gaps/g.md * test_laws.py::test_gap * open",
        "docs/known_gaps/h.md * test_laws.py::test_closed * closed",
    ])


ENVIRONMENT_HOOK = '''
    def pytest_physlaw_environment(config):
        where = "worker" if hasattr(config, "workerinput") else "main"
        return {"route_device": where, "python": "not this"}
'''


@pytest.mark.parametrize(("workers", "measured_in"), [([], "main"), (["-n", "2"], "worker")],
                         ids=["serial", "xdist"])
def test_suites_add_environment_entries_through_the_hook(pytester, workers, measured_in):
    """A suite's `pytest_physlaw_environment` reaches the report (from xdist workers too), never
    replacing one of the plugin's own keys."""
    pytester.makeconftest(ENVIRONMENT_HOOK)
    pytester.makepyfile(test_env="def test_one(law):\n    law.check('x', 1.0, le=2.0)\n")
    result = pytester.runpytest_subprocess(*workers, "--law-report", "r.json")
    result.assert_outcomes(passed=1)
    env = json.loads((pytester.path / "r.json").read_text())["environment"]
    assert env["route_device"] == measured_in
    assert env["python"] != "not this"


@pytest.mark.parametrize("cpuinfo, says", [
    ("vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\nflags\t\t: fpu sse4_2 avx avx2 fma\n\n"
     "vendor_id\t: AuthenticAMD\n", "AuthenticAMD family 23 model 49, avx2"),
    ("vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nflags\t\t: avx2 avx512f avx512_vp2intersect\n",
     "AuthenticAMD family 26 model 2, avx512f"),
    ("CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\nFeatures\t: fp asimd\n", "0x41 family 8 model 0xd0c, asimd"),
], ids=["zen2-avx2", "zen5-avx512", "arm"])
def test_the_cpu_is_named_by_vendor_family_model_and_vector_unit(cpuinfo: str, says: str) -> None:
    """Float32 and timing figures move with the CPU (XLA compiles for its features): the gate notes it changed."""
    assert cpu(cpuinfo) == says
