"""Known gaps: each `known_gap` test keeps a page under ini `physlaw_gap_dir`, and each page is kept.

At collection a test's page must exist (else a collection error naming the test and the page).
After collection every page must be kept by a collected test (deselected ones count) and must
name the file of every test that keeps it; a page that fails either is a session problem.
When a gap test passes (a strict XPASS) its failure says the gap closed and names the page.
A gap's status (open, closed, broken, not run) comes from its keeping tests' outcomes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_physlaw.record import LawRecord
from pytest_physlaw.scope import covers

_PY_FILE = re.compile(r"[\w./-]+\.py\b")


def page_error(nodeid: str, page: str, rootdir: Path, gap_dir: str) -> str | None:
    """Why the page of a gap test is unusable, or None."""
    if not page.startswith(gap_dir + "/"):
        return (f"{nodeid}: known_gap page {page!r} is not under the known-gap folder {gap_dir!r} "
                f"(ini physlaw_gap_dir)")
    if not (rootdir / page).is_file():
        return f"{nodeid}: known_gap page {page!r} does not exist (paths are relative to the rootdir {rootdir})"
    real, root = (rootdir / page).resolve(), rootdir.resolve()
    if not real.is_relative_to(root):
        return f"{nodeid}: known_gap page {page!r} is a link to {real}, outside the rootdir {root}"
    return None


def xfail_reason(page: str, reason: str | None) -> str:
    return f"known gap, see {page}" + (f": {reason}" if reason else "")


def closed_message(nodeid: str, page: str) -> str:
    return (f"[XPASS(strict)] known gap closed: {nodeid} now holds its law. Update or retire the page "
            f"{page} and drop the known_gap marker.")


INDEX_PAGES = ("README.md", "index.md")  # a folder's index describes the gaps, it keeps none


def pages(rootdir: Path, gap_dir: str) -> list[str]:
    """Every gap page under the gap folder (Markdown, not an index page), rootdir-relative, sorted."""
    folder = rootdir / gap_dir
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(rootdir).as_posix() for p in folder.rglob("*.md")
                  if p.is_file() and p.name not in INDEX_PAGES)


def named_files(text: str) -> set[str]:
    return set(_PY_FILE.findall(text))


def page_problems(rootdir: Path, gap_dir: str, kept: dict[str, list[tuple[str, str]]], *,
                  collected_files: set[str], args: Iterable[str], whole: bool,
                  judge_orphans: bool = True, skipped_files: Iterable[str] = ()) -> list[str]:
    """Orphan pages and pages that do not name their tests' files, one message per problem.

    `kept` maps a page to (nodeid, test file) of the collected tests that keep it. In a whole run
    every page is judged as a possible orphan; in a narrower one only a page all of whose named
    test files this run collected whole (so a test elsewhere cannot be keeping it). A page naming a
    module skipped at collection (`skipped_files`: an optional route that cannot run here) is not an
    orphan: its tests were not collected, they did not go away.
    """
    skipped = set(skipped_files)
    args = list(args)
    problems = []
    for page in pages(rootdir, gap_dir):
        text = (rootdir / page).read_text(encoding="utf-8", errors="replace")
        keepers = kept.get(page, [])
        if not keepers:
            files = named_files(text)
            if files & skipped:
                continue
            judged = whole or (files and all(f in collected_files and covers(args, f) for f in files))
            if judge_orphans and judged:
                problems.append(f"orphan known-gap page {page}: no collected test keeps it; mark the test that "
                                f"shows the gap @pytest.mark.known_gap({page!r}) or retire the page")
            continue
        for path in sorted({p for _, p in keepers}):
            if path not in text:
                ids = ", ".join(n for n, p in keepers if p == path)
                problems.append(f"known-gap page {page} does not name {path}, the file of the test(s) that "
                                f"keep it: {ids}")
    return problems


def status(keepers: list[str], records: dict[str, LawRecord]) -> str:
    """open: a keeping test failed as the gap says; closed: one passed; else how they ended."""
    outcomes = [records[n].outcome for n in keepers if n in records]
    if "xpassed" in outcomes:
        return "closed"
    if "xfailed" in outcomes:
        return "open"
    if any(o in ("failed", "crashed", "error") for o in outcomes):
        return "broken"
    return "not run"


def listing(gap_pages: dict[str, list[str]], records: dict[str, LawRecord]) -> list[dict[str, Any]]:
    """Each page with the tests that keep it and its status, as the report lists them."""
    return [{"page": page, "tests": sorted(gap_pages[page]), "status": status(gap_pages[page], records)}
            for page in sorted(gap_pages)]
