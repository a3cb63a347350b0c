"""advise's tests keep its reference cache in their own folder, never the user's ~/.cache."""

from __future__ import annotations

import pytest

from pytest_physlaw.advise.command import CACHE_ENV


@pytest.fixture(autouse=True)
def _advise_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("advise-cache")))
