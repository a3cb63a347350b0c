"""The `law` and `known_gap` markers: their signatures, read and validated once per test.

A bad marker is reported as a collection error of the module naming the test, so these readers
raise `MarkerError` with a message that already names the test.
"""

from __future__ import annotations

import inspect
import math
import posixpath
from dataclasses import dataclass
from typing import Any

import pytest

LAW_MARKER = "law(id=None, *, source=None, rel=None, abs=None): a physics law; id and source name it " \
             "in the report, rel/abs are the default tolerances of its near= checks"
GAP_MARKER = "known_gap(page, reason=None): a strict xfail that only a LawViolation satisfies, kept by " \
             "the known-gap page (rootdir-relative) that documents the gap"


class MarkerError(ValueError):
    """A law or known_gap marker used wrongly; the message names the test."""


@dataclass(frozen=True)
class LawInfo:
    """`law` is the id or, without one, the function's name; `identity` is "id[case]" for an
    explicit id (the parametrize case, "" for none), by which the baseline finds a moved law."""

    law: str
    source: str | None
    rel: float | None
    abs: float | None
    doc: str | None
    identity: str | None = None


@dataclass(frozen=True)
class GapInfo:
    page: str
    reason: str | None


def is_law(item: pytest.Item) -> bool:
    """A law is a test that requests `law` or carries the law marker."""
    return item.get_closest_marker("law") is not None or "law" in getattr(item, "fixturenames", ())


def law_info(item: pytest.Item) -> LawInfo:
    """Id, source, default tolerances and docstring of a law test."""
    marker = item.get_closest_marker("law")
    args, kwargs = (marker.args, dict(marker.kwargs)) if marker else ((), {})
    where = f"{item.nodeid}: @pytest.mark.law"
    unknown = set(kwargs) - {"id", "source", "rel", "abs"}
    if unknown:
        raise MarkerError(f"{where} got unknown argument(s) {sorted(unknown)}; pytest-physlaw's law marker takes "
                          "id, source, rel, abs. If this marker belongs to your suite or another plugin, turn "
                          "pytest-physlaw off with -p no:physlaw (or addopts = -p no:physlaw in your ini)")
    if len(args) > 1 or (args and "id" in kwargs):
        raise MarkerError(f"{where} takes one positional argument, the law id")
    law_id = args[0] if args else kwargs.get("id")
    if law_id is not None and (not isinstance(law_id, str) or not law_id.strip()):
        raise MarkerError(f"{where}: id {law_id!r} must be a non-empty string")
    source = kwargs.get("source")
    if source is not None and not isinstance(source, str):
        raise MarkerError(f"{where}: source {source!r} must be a string")
    tol = {}
    for key in ("rel", "abs"):
        x = kwargs.get(key)
        if x is not None:
            try:
                x = float(x) if not isinstance(x, (bool, str)) else None
            except (TypeError, ValueError, OverflowError):
                x = None
            if x is None or not (math.isfinite(x) and x >= 0):
                raise MarkerError(f"{where}: {key}={kwargs[key]!r} must be a finite number >= 0")
        tol[key] = x
    name = getattr(item, "originalname", None) or item.name
    case = getattr(getattr(item, "callspec", None), "id", "")
    identity = f"{law_id}[{case}]" if law_id else None
    return LawInfo(law=law_id or name, source=source, rel=tol["rel"], abs=tol["abs"], doc=docstring(item),
                   identity=identity)


def docstring(item: pytest.Item) -> str | None:
    """The test function's docstring, cleaned (indentation removed), or None."""
    obj = getattr(item, "obj", None)
    doc = getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None


def gap_info(item: pytest.Item) -> GapInfo | None:
    """The known_gap page (normalised, rootdir-relative, posix) and reason, or None."""
    found = list(item.iter_markers("known_gap"))
    if not found:
        return None
    where = f"{item.nodeid}: @pytest.mark.known_gap"
    if len(found) > 1:
        raise MarkerError(f"{where} is given {len(found)} times; a test keeps one known-gap page")
    marker = found[0]
    kwargs: dict[str, Any] = dict(marker.kwargs)
    unknown = set(kwargs) - {"page", "reason"}
    if unknown:
        raise MarkerError(f"{where} got unknown argument(s) {sorted(unknown)}; it takes page, reason")
    args = list(marker.args)
    if len(args) > 2 or (args and "page" in kwargs) or (len(args) == 2 and "reason" in kwargs):
        raise MarkerError(f"{where} takes (page, reason=None)")
    page = args[0] if args else kwargs.get("page")
    reason = args[1] if len(args) == 2 else kwargs.get("reason")
    if not isinstance(page, str) or not page.strip():
        raise MarkerError(f"{where} needs the page of the gap, a rootdir-relative path such as "
                          f"'docs/known_gaps/name.md'; got {page!r}")
    if reason is not None and not isinstance(reason, str):
        raise MarkerError(f"{where}: reason {reason!r} must be a string")
    norm = page.strip().replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        raise MarkerError(f"{where}: page {page!r} must be relative to the rootdir, not absolute")
    norm = posixpath.normpath(norm)
    if norm.startswith("../"):
        raise MarkerError(f"{where}: page {page!r} lies outside the rootdir")
    if not norm.endswith(".md"):
        raise MarkerError(f"{where}: page {page!r} is not a Markdown page (.md)")
    return GapInfo(page=norm, reason=reason)
