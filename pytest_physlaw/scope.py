"""What a run collects from: its arguments as rootdir-relative paths, and whether one covers a node.

`collect_args` turns `config.args` into rootdir-relative posix paths ("." for the rootdir), keeping a
"::" node suffix where one was given ("laws/test_a.py::test_b"). `covers` answers whether a nodeid or
a path lies under one of them, so that a law outside the run's paths is never taken for missing;
`prunable` whether a saved law (a baseline's, a catalogue's) that this run did not collect is gone.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_physlaw.session import LawSession


def collect_args(config: pytest.Config) -> list[str]:
    """The run's collection arguments, relative to the rootdir, posix, "." for the rootdir itself."""
    rootdir = Path(config.rootpath)
    base = Path(config.invocation_params.dir)
    pyargs = bool(config.getoption("pyargs", False))
    out = []
    for arg in config.args:
        path, sep, rest = str(arg).partition("::")
        module_path = module_file(path) if pyargs else None
        full = Path(os.path.normpath(module_path or base / path))
        rel = relative(full, rootdir) or full.as_posix()  # outside the rootdir: absolute, covers nothing of it
        out.append(rel + (sep + rest if sep else ""))
    return sorted(set(out))


def module_file(name: str) -> str | None:
    """Where `--pyargs` finds a dotted module name: the package's folder or the module's file."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    return spec.origin if spec.origin not in (None, "built-in", "frozen") else None


def covers(args: Iterable[str], target: str) -> bool:
    """Whether `target` (a rootdir-relative nodeid or path) lies under one of `args`."""
    for arg in args:
        if arg == "." or target == arg:
            return True
        if "::" in arg:
            if target.startswith(arg + "::") or target.startswith(arg + "["):
                return True
        elif target.startswith(arg + "/") or target.startswith(arg + "::"):
            return True
    return False


def relative(path: str | os.PathLike[str], rootdir: str | os.PathLike[str]) -> str | None:
    """`path` relative to the rootdir, posix ("" never: "." for the rootdir), or None outside it."""
    try:
        rel = Path(os.path.normpath(path)).relative_to(rootdir).as_posix()
    except ValueError:
        return None
    return rel or "."


def leaves_files_out(config: pytest.Config) -> bool:
    """Whether this run skips files under its paths on purpose, beyond -k/-m deselection."""
    return bool(config.getoption("lf", False) or config.getoption("ignore", None)
                or config.getoption("ignore_glob", None))


def whole_run(config: pytest.Config, args: Iterable[str]) -> bool:
    """Whether this run collects the whole suite: from the rootdir or testpaths, nothing left out."""
    from_testpaths = getattr(config, "args_source", None) == pytest.Config.ArgsSource.TESTPATHS
    return (from_testpaths or "." in args) and not leaves_files_out(config)


def prunable(nodeid: str, run: LawSession) -> bool:
    """Whether this run would have collected `nodeid` had it still existed: then a law saved under it
    (in a baseline, a catalogue) that the run did not collect is gone. Never after collection errors
    or with files left out, nor under a module skipped at collection."""
    if nodeid in run.collected or nodeid in run.deselected or run.leaves_files_out or run.collect_errors:
        return False
    if any(covers([m], nodeid) for m in run.skipped_modules):
        return False
    return covers(run.collect_args, nodeid)


def merge_line(head: str, summary: Any) -> str:
    """`head: 3 added, 10 updated, ...`: the count of each list field of a merge's summary (a baseline's, a
    catalogue's), in field order."""
    return f"{head}: " + ", ".join(f"{len(getattr(summary, f.name))} {f.name}" for f in fields(summary))
