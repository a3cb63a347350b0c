"""Where the proxies and the scene kit live in this process: one import name for each module.

A wheel installs the repo's `coupling/` as `pytest_physlaw.coupling` and its `fixtures/` as
`pytest_physlaw.scenes`: PyPI has packages named `coupling` and `fixtures`, which top-level names
would shadow. A source checkout keeps them top-level (`import coupling`, `from fixtures.solver import ...`,
as the suite writes them). Their internal imports are relative, so either name works; but a module
imported under two names is two modules (two `ScalarProxy` classes: isinstance fails across them),
so code that may run in both places (the law pack, `fixtures.coupling.answer`) imports them through
`coupling()` and `scenes()`, and `claim` (called by both packages' `__init__`) refuses a second name.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).resolve().parent


@cache
def names() -> tuple[str, str]:
    """(coupling's import name, the scene kit's) in this process."""
    if (_HERE / "coupling" / "__init__.py").is_file():  # a wheel: both live inside this package
        return "pytest_physlaw.coupling", "pytest_physlaw.scenes"
    try:
        spec = importlib.util.find_spec("coupling")
    except (ImportError, ValueError):
        spec = None
    origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    if origin == _HERE.parent / "coupling" / "__init__.py":  # the checkout's folders are on sys.path
        return "coupling", "fixtures"
    return "pytest_physlaw.coupling", "pytest_physlaw.scenes"  # an editable install, run from elsewhere


def coupling() -> ModuleType:
    """The proxies package (`coupling` in a checkout, `pytest_physlaw.coupling` installed)."""
    return importlib.import_module(names()[0])


def scenes(module: str) -> ModuleType:
    """A module of the scene kit, e.g. `scenes("settled")` or `scenes("solver.options")` (`fixtures.settled` in a checkout)."""
    return importlib.import_module(f"{names()[1]}.{module}")


def claim(name: str, file: str) -> None:
    """Refuse to import the package at `file` as `name` when another name already holds it."""
    here = os.path.realpath(file)
    for other, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if other != name and path and os.path.basename(path) == "__init__.py" and os.path.realpath(path) == here:
            raise ImportError(f"{here} is already imported as {other!r}; importing it again as {name!r} would make "
                              f"two copies of every class (isinstance fails across them): import {other!r}")
