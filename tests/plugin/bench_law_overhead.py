"""What the plugin costs: N trivial law tests against the same N tests written as bare asserts.

    .venv/bin/python tests/plugin/bench_law_overhead.py [N [ROUNDS]]   (default 2000 tests, 3 rounds)
    .venv/bin/python tests/plugin/bench_law_overhead.py --write DIR [N]  (only write the two suites, to
        time them with your own tool: DIR/laws and DIR/asserts, each run as `python -m pytest -q`)

Writes both suites to a temporary folder and runs them side by side in fresh pytest processes,
interleaved for ROUNDS rounds (a shared machine is noisy: the minimum of each is kept), and prints
the CPU times and their ratio; a third suite, the asserts with `-p no:physlaw`, shows the cost of
merely loading the plugin. Not collected by pytest (the name does not start with test_).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
from pathlib import Path

PER_FILE = 100

LAW = '''
def test_{i}(law):
    """Trivial law {i}, three checks."""
    law.check("q", {i}.0, le={i}.0 + 1.0, unit="m", why="a bound")
    law.check("r", {i}.0, ge={i}.0 - 1.0)
    law.check("s", {i}.0, near={i}.0, abs=1e-9)
'''
ASSERT = '''
def test_{i}():
    """Trivial assert {i}, three asserts."""
    assert {i}.0 <= {i}.0 + 1.0
    assert {i}.0 >= {i}.0 - 1.0
    assert abs({i}.0 - {i}.0) <= 1e-9
'''


def write_suite(root: Path, template: str, n: int) -> None:
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\n")
    for f in range(0, n, PER_FILE):
        body = "".join(template.format(i=i) for i in range(f, min(f + PER_FILE, n)))
        (root / f"test_{f // PER_FILE:03d}.py").write_text(body)


def run(root: Path, *args: str) -> float:
    """CPU seconds (user + system) of one pytest run of the suite in `root`, which must pass.

    CPU time, not wall time: other work on a shared machine stretches the wall clock, far less the
    CPU time the run itself used.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           *args], cwd=root, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"run in {root} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(n: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        laws, asserts = Path(tmp) / "laws", Path(tmp) / "asserts"
        write_suite(laws, LAW, n)
        write_suite(asserts, ASSERT, n)
        times: dict[str, list[float]] = {"laws": [], "asserts": [], "bare": []}
        for _ in range(rounds):
            times["laws"].append(run(laws))
            times["asserts"].append(run(asserts))
            times["bare"].append(run(asserts, "-p", "no:physlaw"))
        t_laws, t_asserts, t_bare = (min(times[k]) for k in ("laws", "asserts", "bare"))
    print("rounds:", {k: [round(t, 2) for t in v] for k, v in times.items()})
    print(f"{n} law tests:                   {t_laws:6.2f} s CPU")
    print(f"{n} bare-assert tests:           {t_asserts:6.2f} s CPU")
    print(f"{n} bare-assert, -p no:physlaw:  {t_bare:6.2f} s CPU")
    print(f"ratio law / assert: {t_laws / t_asserts:.2f}   per law test: "
          f"{(t_laws - t_asserts) / n * 1e3:.2f} ms more")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        out, count = Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 2000
        out.mkdir(parents=True, exist_ok=True)
        write_suite(out / "laws", LAW, count)
        write_suite(out / "asserts", ASSERT, count)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
