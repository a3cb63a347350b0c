"""pytest hooks of pytest-physlaw (first cut: the law fixture and markers)."""

from __future__ import annotations

import pytest

from pytest_physlaw.check import LawChecks


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "law(id=None, *, source=None, rel=None, abs=None): a physics law")
    config.addinivalue_line("markers", "known_gap(page, reason=None): a strict xfail that keeps a known-gap page")


@pytest.fixture
def law(request: pytest.FixtureRequest):
    marker = request.node.get_closest_marker("law")
    kw = marker.kwargs if marker else {}
    checks = LawChecks(rel=kw.get("rel"), abs=kw.get("abs"))
    yield checks
    checks.raise_if_failed()
