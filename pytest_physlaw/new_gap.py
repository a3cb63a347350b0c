"""`pytest-physlaw new-gap PAGE --test NODEID`: a known-gap page with its five sections to fill in.

The page names the test file of NODEID, as the plugin's gap checks require of a page (`gaps.py`), so
a run that collects the test marked `@pytest.mark.known_gap(PAGE)` accepts it as it is; the sections
say what each must hold. An existing page is never overwritten.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pytest_physlaw.gaps import INDEX_PAGES

SECTIONS = ("What", "Number", "Why", "Workaround", "What would close it")
_NODEID = re.compile(r"^(?P<file>[^:\s]+\.py)::\S+$")


class GapPageError(ValueError):
    """A bad page path or node id, or a page that exists: the message is printed, exit status 2."""


def file_of_test(nodeid: str) -> str:
    """The test file of a pytest node id ("laws/x/test_y.py::test_z[case]" -> "laws/x/test_y.py")."""
    match = _NODEID.match(nodeid)
    if not match:
        raise GapPageError(f"--test {nodeid!r} is not a test's node id: give it as pytest prints it, "
                           "rootdir-relative, such as laws/coupling/test_axis_mass.py::test_name[case]")
    return match["file"]


def page_text(page: str, nodeid: str) -> str:
    """The page: a title from its name, then the sections, each saying what it must hold."""
    path = file_of_test(nodeid)
    title = Path(page).stem.replace("-", " ").replace("_", " ")
    return f"""# Known gap: {title}

Kept by `{nodeid}` in `{path}`, a strict xfail marked
`@pytest.mark.known_gap("{page}")`.

## What

TODO: what the simulation (or the proxy, or the solver) does, and what the law says it should do.

## Number

TODO: how far off it is, measured, with the command that shows it, for instance
`pytest {nodeid} --runxfail -s`.

## Why

TODO: the cause, as far as it is known.

## Workaround

TODO: what a user does meanwhile, and what it costs.

## What would close it

TODO: the change after which `{nodeid}` holds its law. It then passes, fails strictly and names
this page: drop its `known_gap` marker and update or retire this page.
"""


def write(page: str, nodeid: str) -> Path:
    """Create the page (and its folders); refuse a page that exists or a name no gap page can have."""
    path = Path(page)
    if path.suffix != ".md" or path.name in INDEX_PAGES:
        raise GapPageError(f"{page}: a known-gap page is a Markdown file (.md) other than "
                           f"{' or '.join(INDEX_PAGES)}, which describe a folder and keep no gap")
    text = page_text(path.as_posix(), nodeid)
    if path.exists():
        raise GapPageError(f"{page} exists; new-gap never overwrites a page (edit it, or move it away first)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="\n") as f:  # "x": a page made meanwhile is kept too
            f.write(text)
    except FileExistsError:
        raise GapPageError(f"{page} exists; new-gap never overwrites a page") from None
    except OSError as exc:
        raise GapPageError(f"{page}: cannot be written: {exc.strerror or exc}") from None
    return path


def command(args: Any, out: Any) -> int:
    """Write the page; say how to mark the test that keeps it."""
    path = write(args.page, args.test)
    out.write(f"{path}: a known-gap page for {args.test}; fill in its sections ({', '.join(SECTIONS)}) and "
              f"mark the test @pytest.mark.known_gap({path.as_posix()!r})\n")
    return 0
