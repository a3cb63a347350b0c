"""The terminal summary: a "physics laws" section with one row per check and the gaps, and a
"law regressions" section when the baseline gate fails the run.

It renders `rows`: `-q` keeps only the rows that need attention (failed unexpectedly or drifted)
and the counts; by default passing rows beyond the first FOLD_AFTER are folded into a count per
file (`-v` shows every row; the report keeps them all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from pytest_physlaw.gate import GateResult
from pytest_physlaw.rows import FOLD_AFTER, HEADER, Row, check_rows, counts, fold, gap_rows, plural
from pytest_physlaw.session import LawSession

LAW_WIDTH = 48  # a test name's room when the terminal's width is not known
NAME_MIN = 32  # the least room a name gets in a row: below it the law table stacks
BASE_MIN = 16  # what a shortened name keeps of its function name, the case id having the rest


def shorten(name: str, width: int = LAW_WIDTH) -> str:
    """A test name ("test_x[case]") that fits `width`: the middle of the function name elided, its
    start and end kept, and the parameter id kept whole where the function name keeps BASE_MIN
    characters beside it (the id tells the cases apart; the function name is what they share)."""
    if len(name) <= width:
        return name
    base, bracket, case = name.partition("[")
    case = bracket + case
    room = max(width // 2, width - len(base), min(len(case), width - BASE_MIN))
    if len(case) > room:
        case = _elide(case, room)
    return _elide(base, width - len(case)) + case


def _elide(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    keep = max(width - 3, 2)
    head = (2 * keep + 2) // 3
    return text[:head] + "..." + text[len(text) - (keep - head):]


def in_file(name: str, path: str) -> str:
    """A test name as its file's heading leaves it: a case id that repeats the file's path (the
    model pack's "scene.xml:torso") shows "..." for it, so what tells the cases apart stays."""
    base, bracket, case = name.partition("[")
    if bracket and len(path) > 3 and case.startswith(path):
        return f"{base}[...{case[len(path):]}"
    return name


def law_lines(rows: list[Row], width: int = 0) -> list[str]:
    """The rows as aligned text under one line per law file; a law's name is shown on its first row.

    On a terminal `width` wide the table fits it: a test name gets the room the other columns leave,
    shortened (the repeated file path, then the middle of the function name, then of the case); when
    that leaves a name less than NAME_MIN, each law's name and id get a line of their own above its
    checks. Without a width, names are shortened to LAW_WIDTH.
    """
    lines = _one_line_per_check(rows, width)
    if width and max(map(len, lines)) > width:
        return _stacked(rows, width)
    return lines


def _one_line_per_check(rows: list[Row], width: int) -> list[str]:
    others = [max(len(c) for c in col) for col in zip(HEADER[1:], *(r.cells()[1:] for r in rows))]
    left = width - sum(others) - 2 * len(others) - 2
    name_width = max(NAME_MIN, left) if width else LAW_WIDTH
    cells: list[tuple[str, ...]] = [HEADER]
    headings: dict[int, list[str]] = {}
    for row, path, name, new_file, first in _by_law(rows):
        if new_file:
            headings[len(cells)] = [path]
        cells.append(("  " + shorten(in_file(name, path), name_width) if first else "", row.law_id if first else "",
                      *row.cells()[2:]))
    return _under_headings(align(cells), headings)


def _by_law(rows: list[Row]) -> Iterator[tuple[Row, str, str, bool, bool]]:
    """Each row with its file path and test name, whether it starts a file and whether it starts a law."""
    last = None
    for row in rows:
        path, _, name = row.law.partition("::")
        yield row, path, name, path != (last or "").partition("::")[0], row.law != last
        last = row.law


def _stacked(rows: list[Row], width: int) -> list[str]:
    """A narrow terminal's table: a line per law (name and id), its checks indented below it."""
    cells: list[tuple[str, ...]] = [("    " + HEADER[2], *HEADER[3:])]
    headings: dict[int, list[str]] = {}
    for row, path, name, new_file, first in _by_law(rows):
        if new_file:
            headings[len(cells)] = [path]
        if first:
            tail = f"  {row.law_id}" if row.law_id else ""
            title = "  " + shorten(in_file(name, path), max(width - 2 - len(tail), NAME_MIN)) + tail
            headings.setdefault(len(cells), []).append(title)
        cells.append(("    " + row.quantity, *row.cells()[3:]))
    return [HEADER[0] + "  " + HEADER[1]] + _under_headings(align(cells), headings)


def _under_headings(lines: list[str], headings: dict[int, list[str]]) -> list[str]:
    """The lines with each heading (a file, a law) before the line whose index it is keyed by."""
    out = []
    for i, line in enumerate(lines):
        out.extend(headings.get(i, ()))
        out.append(line)
    return out


def align(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def gap_lines(run: LawSession) -> list[str]:
    """One line per keeping test under its page, the page and status on its first line."""
    lines: list[tuple[str, ...]] = [("gap page", "kept by", "status")]
    for page, tests, status in gap_rows(run):
        first, *rest = tests or ("-",)
        lines.append((page, first, status))
        lines.extend(("", t, "") for t in rest)
    return align(lines)


def write_summary(terminalreporter: Any, run: LawSession, gate: GateResult | None, verbosity: int) -> None:
    """The "physics laws" section, then "law regressions" when the gate found any."""
    if not run.records:  # nothing ran (--collect-only, no laws, all deselected)
        return
    tr = terminalreporter
    quiet = verbosity < 0
    rows = check_rows(run, gate)
    shown = [r for r in rows if r.attention] if quiet else rows
    folded: Counter = Counter()
    if verbosity < 1 and not quiet and len(rows) > FOLD_AFTER:
        shown, folded = fold(rows)
    tr.write_sep("=", "physics laws")
    if shown:
        for line in law_lines(shown, getattr(getattr(tr, "_tw", None), "fullwidth", 0)):
            tr.write_line(line)
    for path, n in sorted(folded.items()):
        tr.write_line(f"{path}: {plural(n, 'more passing check')} folded (-v shows every row)")
    if run.gap_pages and not quiet:
        tr.write_line("")
        for line in gap_lines(run):
            tr.write_line(line)
    if gate is not None and gate.notes and not quiet:
        tr.write_line("")
        tr.write_line("baseline notes:")
        for note in gate.notes:
            tr.write_line(f"  {note}")
    tr.write_line(counts(run, gate))
    if gate is not None and gate.regressions:
        tr.write_sep("=", "law regressions", red=True)
        for finding in gate.regressions:
            tr.write_line(str(finding), red=True)
        tr.write_line(f"the baseline gate fails this run: {plural(len(gate.regressions), 'regression')}; "
                      "if the change is meant, re-save the baseline with --law-save-baseline PATH "
                      "and give the reason in the commit", red=True, bold=True)
