"""A line in the terminal while a law waits on something long (a kernel compile, a JIT trace, a settling).

Laws report when they end; a cold run can sit for half a minute on one compile before the next dot
appears. Code that starts such a step wraps it in `waiting("compiling MuJoCo Warp's kernels (slope,
CG)")`: if the step is still running after `AFTER` seconds, the terminal gets a line naming it, and
when it ends another with its time. A step that ends sooner prints nothing, so a warm run's output is
unchanged. Outside pytest, in an xdist worker (no terminal of its own) or under `-p no:terminal`
nothing is printed. The line is written from a timer thread while the test's thread is busy in the
step, with pytest's output capture suspended for the write, as `capsys.disabled()` does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

AFTER = 3.0  # s: a wait shorter than this passes without a line

_LOCK = threading.Lock()
_CONFIG: list[pytest.Config] = []  # running sessions, innermost last (pytester runs one inside another)


def attach(config: pytest.Config) -> None:
    """Let `waiting` write to this session's terminal (called by the plugin at configure)."""
    if getattr(config, "workerinput", None) is None:  # an xdist worker's output goes nowhere
        _CONFIG.append(config)


def detach(config: pytest.Config) -> None:
    if config in _CONFIG:
        _CONFIG.remove(config)


def _write(line: str) -> None:
    with _LOCK:
        if not _CONFIG:
            return
        config = _CONFIG[-1]
        reporter: Any = config.pluginmanager.get_plugin("terminalreporter")
        capman: Any = config.pluginmanager.get_plugin("capturemanager")
        if reporter is None:
            return
        if capman is None:
            reporter.write_line(line)
            return
        with capman.global_and_fixture_disabled():
            reporter.write_line(line)


@contextmanager
def waiting(what: str, after: float = AFTER) -> Iterator[None]:
    """Run the block; if it is still running after `after` seconds, say in the terminal what it waits
    for, and when it ends how long it took."""
    start = time.perf_counter()
    told = threading.Event()

    def tell() -> None:
        told.set()
        _write(f"physlaw: {what} ...")

    timer = threading.Timer(after, tell)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # a line being written now comes before the closing one
        if told.is_set():
            _write(f"physlaw: {what}: {time.perf_counter() - start:.0f} s")
