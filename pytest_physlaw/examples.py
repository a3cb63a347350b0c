"""Hypothesis inside a law: the profile a suite asks for, and which examples a `@given` law ran.

The plugin wraps Hypothesis's public `inner_test` (the hook plugins such as pytest-trio use) to tell
the law's checks which example is running, so a worst record keeps its example's inputs, and to
fingerprint the set of examples, so the gate compares worst values only over the same examples.
Hypothesis, where installed, is imported at configure time only to register and load the profile.

A derandomized law (or one with a fixed seed) must draw the same examples whatever else runs: a
shard, one file, `-k`. Hypothesis seeds it from the test's own source, but now and then draws a
"local constant" from a pool it harvests from every non-test module of the project imported so far
in the process (`hypothesis.internal.conjecture.providers`), so the draws depended on which fixtures
and scenes other tests had imported (`laws/solver` alone drew other friction examples than the
whole suite). `same_draws` empties that pool while such a law runs: its examples are then a function
of the test and its strategies alone.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pytest_physlaw.check import LawChecks

_SEEN = pytest.StashKey[list]()


def load_profile(config: pytest.Config) -> None:
    """Register `physlaw-ci` before Hypothesis's plugin loads a profile; load ini
    physlaw_hypothesis_profile unless --hypothesis-profile names one (that one wins)."""
    name = str(config.getini("physlaw_hypothesis_profile")).strip()
    try:
        from hypothesis import settings
        from hypothesis.errors import InvalidArgument
    except ImportError:
        if name:
            raise pytest.UsageError(f"ini physlaw_hypothesis_profile = {name}: Hypothesis is not installed") from None
        return
    settings.register_profile("physlaw-ci", derandomize=True, deadline=None, database=None, print_blob=True)
    if name and not config.getoption("hypothesis_profile", None):
        try:
            settings.load_profile(name)
        except InvalidArgument:
            raise pytest.UsageError(f"ini physlaw_hypothesis_profile = {name}: no Hypothesis profile of that "
                                    "name is registered") from None


def fixed_draws(item: pytest.Item) -> bool:
    """Whether this Hypothesis test draws fixed examples: a derandomized profile or a fixed seed."""
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)  # @settings, else the profile
    if own is None:
        from hypothesis import settings

        own = settings.default
    seeded = getattr(test, "_hypothesis_internal_use_seed", None) is not None or \
        item.config.getoption("hypothesis_seed", None) is not None
    return bool(getattr(own, "derandomize", False)) or seeded


@contextmanager
def same_draws(item: pytest.Item) -> Iterator[None]:
    """While a law with fixed draws runs, Hypothesis draws no constant from the project's imported
    modules (see the module docstring). A Hypothesis without that pool is left as it is."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        providers = None
    pool = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    constants = getattr(providers, "Constants", None)
    if pool is None or cache is None or constants is None or not fixed_draws(item):
        yield
        return
    none = constants()
    providers._get_local_constants = lambda: none
    cache.clear()  # the permitted constants cached per (type, constraints) came from the full pool
    try:
        yield
    finally:
        providers._get_local_constants = pool
        cache.clear()


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def recording(inner: Any, item: pytest.Item, checks: LawChecks) -> Any:
    """Hypothesis's inner test, wrapped to tell the checks which example runs (fixtures left out)."""
    seen = item.stash.setdefault(_SEEN, [])
    fixtures = set(getattr(item, "funcargs", {}))

    def run_example(*args: Any, **kwargs: Any) -> Any:
        drawn = {k: v for k, v in kwargs.items() if k not in fixtures}
        text = ADDRESS.sub("", ", ".join(f"{k}={v!r}" for k, v in sorted(drawn.items())))
        checks.example = text if len(text) <= 500 else text[:480] + "... (cut)"
        seen.append(text)
        try:
            return inner(*args, **kwargs)
        finally:
            checks.example = None

    return run_example


def fingerprint(item: pytest.Item) -> dict[str, Any] | None:
    """How many Hypothesis examples ran, and a digest of which (order left out)."""
    seen = item.stash.get(_SEEN, None)
    if seen is None:
        return None
    digest = hashlib.sha256("\n".join(sorted(set(seen))).encode()).hexdigest()[:16]
    return {"count": len(set(seen)), "digest": digest}
