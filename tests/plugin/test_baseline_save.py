"""Saving a baseline: a partial run merges into the file (added, updated, kept, pruned, said in the
terminal), the bytes are stable (serial, -n 2, again), the write is atomic and world-readable, an
incomplete run (interrupted, collection error, --collect-only, -x) never replaces it, and an output
path that is not a regular file is refused by name before any test runs."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

LAWS = """
    import pytest

    @pytest.mark.law("x-law")
    def test_x(law):
        law.check("x", {x}, le=10.0)

    @pytest.mark.law("y-law")
    def test_y(law):
        law.check("y", 1.0, near=1.0, rel=0.1)
"""


def write(pytester: pytest.Pytester, name: str = "test_laws", x: float = 5.0, prefix: str = "") -> None:
    text = textwrap.dedent(LAWS.format(x=x)).replace('law("', f'law("{prefix}')
    pytester.makepyfile(**{name: text})


def nodeids(path) -> list[str]:
    return [law["nodeid"] for law in json.loads(path.read_text())["laws"]]


@pytest.fixture(autouse=True)
def _umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_partial_run_updates_what_it_ran_and_keeps_the_rest(pytester):
    write(pytester)
    write(pytester, "test_more", prefix="more-")
    assert pytester.runpytest("--law-save-baseline", "base.json").ret == 0
    base = pytester.path / "base.json"
    assert len(nodeids(base)) == 4
    write(pytester, x=6.0)
    result = pytester.runpytest("--law-save-baseline", "base.json", "-k", "test_x", "test_laws.py")
    result.stdout.fnmatch_lines(["law baseline base.json: 0 added, 1 updated, 0 unchanged, 0 moved, 3 kept, 0 pruned"])
    data = {law["nodeid"]: law for law in json.loads(base.read_text())["laws"]}
    assert data["test_laws.py::test_x"]["checks"][0]["value"] == 6.0 and len(data) == 4


def test_a_law_gone_from_the_paths_a_run_collected_is_pruned_and_no_other(pytester):
    write(pytester)
    write(pytester, "test_more", prefix="more-")
    pytester.runpytest("--law-save-baseline", "base.json")
    pytester.makepyfile(test_laws="def test_y(law):\n    law.check('y', 1.0, le=2.0)\n")
    result = pytester.runpytest("--law-save-baseline", "base.json", "test_more.py")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 2 unchanged, 0 moved, 2 kept, 0 pruned"])
    result = pytester.runpytest("--law-save-baseline", "base.json", "-k", "not test_y")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 1 unchanged, 0 moved, 2 kept, 1 pruned"])
    assert "test_laws.py::test_x" not in nodeids(pytester.path / "base.json")
    assert "test_laws.py::test_y" in nodeids(pytester.path / "base.json")  # deselected: kept as it was


def test_a_renamed_law_replaces_its_old_entry(pytester):
    write(pytester)
    pytester.runpytest("--law-save-baseline", "base.json")
    (pytester.path / "test_laws.py").rename(pytester.path / "test_renamed.py")
    result = pytester.runpytest("--law-baseline", "base.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*test_renamed.py::test_x: law x-law[] moved here from test_laws.py::test_x"])
    result = pytester.runpytest("--law-save-baseline", "base.json")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 0 unchanged, 2 moved, 0 kept, 0 pruned"])
    assert nodeids(pytester.path / "base.json") == ["test_renamed.py::test_x", "test_renamed.py::test_y"]


def test_the_bytes_are_stable_serial_again_and_under_xdist(pytester):
    write(pytester)
    write(pytester, "test_more", prefix="more-")
    for name, args in (("one", []), ("two", []), ("three", ["-n", "2"])):
        assert pytester.runpytest("--law-save-baseline", f"{name}.json", *args).ret == 0
    one = (pytester.path / "one.json").read_bytes()
    assert one == (pytester.path / "two.json").read_bytes() == (pytester.path / "three.json").read_bytes()
    text = one.decode()
    assert '"timestamp"' not in text and text.endswith("}\n")
    assert list(json.loads(text)) == sorted(json.loads(text))  # keys sorted


def test_the_write_is_atomic_and_readable_like_any_file(pytester):
    write(pytester)
    assert pytester.runpytest("--law-save-baseline", "base.json", "--law-report", "r.json",
                              "--law-markdown", "t.md").ret == 0
    for name in ("base.json", "r.json", "t.md", ".physlaw"):
        assert not any(p.name.endswith(".tmp") for p in pytester.path.rglob("*")), name
    for name in ("base.json", "r.json", "t.md"):
        assert stat.S_IMODE((pytester.path / name).stat().st_mode) == 0o644, name


def test_a_symlink_is_followed_and_stays_a_link(pytester):
    write(pytester)
    (pytester.path / "real.json").write_text("")
    (pytester.path / "link.json").unlink(missing_ok=True)
    os.symlink("real.json", pytester.path / "link.json")
    (pytester.path / "real.json").unlink()
    assert pytester.runpytest("--law-save-baseline", "link.json").ret == 0
    assert (pytester.path / "link.json").is_symlink()
    assert len(nodeids(pytester.path / "real.json")) == 2


@pytest.mark.parametrize("option", ["--law-report", "--law-save-baseline", "--law-markdown", "--law-spec"])
def test_an_output_that_is_not_a_regular_file_is_refused_by_name(pytester, option):
    write(pytester)
    os.mkfifo(pytester.path / "fifo")
    (pytester.path / "afile").write_text("x")
    (pytester.path / "folder").mkdir()
    for path, says in (("fifo", "is a FIFO"), ("/dev/null", "is a character device"), ("folder", "is a folder"),
                       ("afile/out.json", "lies under"), ("", "empty path")):
        result = pytester.runpytest(f"{option}={path}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, (path, result.stdout.str())
        assert option in result.stderr.str() and says in result.stderr.str(), result.stderr.str()
        assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert stat.S_ISFIFO(os.stat(pytester.path / "fifo").st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_unwritable_default_report_warns_and_the_run_passes(pytester):
    write(pytester)
    (pytester.path / "afile").write_text("x")
    pytester.makeini("[pytest]\nphyslaw_report = afile/report.json\n")
    result = pytester.runpytest()
    assert result.ret == 0
    result.stdout.fnmatch_lines(["physlaw warning: the default report (ini physlaw_report): could not write*lies under*"])


def test_an_existing_file_that_is_no_baseline_is_not_overwritten(pytester):
    write(pytester)
    (pytester.path / "base.json").write_text("my notes, not a baseline")
    result = pytester.runpytest("--law-save-baseline", "base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--law-save-baseline base.json (the existing baseline a save merges into)" in result.stderr.str()
    assert (pytester.path / "base.json").read_text() == "my notes, not a baseline"


@pytest.mark.parametrize("args, reason", [
    (["--collect-only"], "collect-only run"),
    (["-x"], "stopped early"),
    (["broken_test.py", "test_laws.py"], "1 collection error"),
])
def test_an_incomplete_run_never_replaces_the_baseline_and_says_so(pytester, args, reason):
    write(pytester)
    pytester.runpytest("--law-save-baseline", "base.json")
    before = (pytester.path / "base.json").read_bytes()
    pytester.makepyfile(test_fail="def test_a_fail(law):\n    law.check('f', 3.0, le=1.0)\n")
    if "broken_test.py" in args:
        pytester.makepyfile(broken_test="import no_such_module_physlaw\n")
    result = pytester.runpytest("--law-save-baseline", "base.json", "--law-report", "r.json", *args)
    assert (pytester.path / "base.json").read_bytes() == before
    result.stdout.fnmatch_lines([f"--law-save-baseline base.json: not written, this run is incomplete ({reason}*"])
    assert result.ret != 0
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["complete"] is False and report["incomplete"].startswith(reason)
    result = pytester.runpytest("--law-baseline", "r.json", "test_laws.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "r.json: the report of an incomplete run" in result.stderr.str()


# `python -m pytest` whose SIGINT raises KeyboardInterrupt even where this run was started in the background by a
# shell: the shell ignores SIGINT there, an ignored signal stays ignored across exec, and Python then installs no
# KeyboardInterrupt (set in the child itself: a preexec_fn would fork a process that runs JAX's threads)
INTERRUPTIBLE_PYTEST = ("import signal, sys, pytest; signal.signal(signal.SIGINT, signal.default_int_handler); "
                        "sys.exit(int(pytest.main(sys.argv[1:])))")


def test_ctrl_c_leaves_the_baseline_as_it_was(pytester):
    """A real SIGINT in the middle of a run: the baseline keeps all its laws, the report says why."""
    laws = "\n".join(f"def test_{i}(law):\n    law.check('q', {i}.0, le=100.0)\n" for i in range(8))
    pytester.makepyfile(test_many=laws)
    assert pytester.runpytest("--law-save-baseline", "base.json").ret == 0
    before = (pytester.path / "base.json").read_bytes()
    marker = pytester.path / "started"
    pytester.makepyfile(test_many=laws.replace(
        "def test_3(law):\n", f"def test_3(law):\n    import pathlib, time\n    pathlib.Path({str(marker)!r}).touch()\n"
                              "    time.sleep(60)\n"))
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE_PYTEST, "-p", "no:cacheprovider",
                             "--law-save-baseline", "base.json", "--law-report", "r.json"], cwd=pytester.path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out
    assert (pytester.path / "base.json").read_bytes() == before
    assert "not written, this run is incomplete (interrupted)" in out
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["complete"] is False and report["incomplete"] == "interrupted"
    assert len(report["laws"]) == 3


def test_an_exempt_timing_does_not_churn_the_baseline(pytester):
    make_timing = "def test_t(law):\n    law.check('ratio', {v}, gt=1.0, drift=None)\n    law.check('x', 2.0, le=3.0)\n"
    pytester.makepyfile(test_t=make_timing.format(v=1.7))
    pytester.runpytest("--law-save-baseline", "base.json")
    before = (pytester.path / "base.json").read_bytes()
    pytester.makepyfile(test_t=make_timing.format(v=1.9))
    result = pytester.runpytest("--law-save-baseline", "base.json")
    result.stdout.fnmatch_lines(["*: 0 added, 0 updated, 1 unchanged, *"])
    assert (pytester.path / "base.json").read_bytes() == before
    pytester.makepyfile(test_t=make_timing.format(v=0.5))  # the verdict changed: saved as it is now
    pytester.runpytest("--law-save-baseline", "base.json")
    assert json.loads((pytester.path / "base.json").read_text())["laws"][0]["checks"][0]["value"] == 0.5


def test_a_partial_save_keeps_the_environment_entries_it_did_not_record(pytester, monkeypatch):
    """A one-file run imports no route: the baseline keeps the routes' versions and devices it saved
    before, and the packages of the ini list this run did not read; what this run recorded replaces them."""
    write(pytester)
    pytester.makeconftest('''
        import os

        def pytest_physlaw_environment(config):
            version = os.environ.get("PHYSLAW_TEST_ROUTE")
            return {"route": version, "route_device": "cpu"} if version else {}
    ''')
    pytester.makeini("[pytest]\nphyslaw_versions =\n    pytest\n    pluggy\n")
    monkeypatch.setenv("PHYSLAW_TEST_ROUTE", "1.0")
    assert pytester.runpytest("--law-save-baseline", "base.json").ret == 0
    monkeypatch.delenv("PHYSLAW_TEST_ROUTE")
    pytester.makeini("[pytest]\nphyslaw_versions =\n    pytest\n    no-such-package-physlaw\n")
    assert pytester.runpytest("--law-save-baseline", "base.json", "-k", "test_x").ret == 0
    env = json.loads((pytester.path / "base.json").read_text())["environment"]
    assert env["route"] == "1.0" and env["route_device"] == "cpu"
    assert set(env["versions"]) == {"pytest", "pluggy", "no-such-package-physlaw", "cpu"}  # the CPU it was saved on
    assert env["versions"]["pluggy"] is not None and env["versions"]["no-such-package-physlaw"] is None
    assert "platform" not in env and env["python"]
    monkeypatch.setenv("PHYSLAW_TEST_ROUTE", "2.0")
    assert pytester.runpytest("--law-save-baseline", "base.json").ret == 0
    assert json.loads((pytester.path / "base.json").read_text())["environment"]["route"] == "2.0"
