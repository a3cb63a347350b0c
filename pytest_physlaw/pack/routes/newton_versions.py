"""Whether the Newton route can run here, from installed metadata alone (nothing of Newton, warp or the route
laws is imported): the packages it needs, the versions found, and the MuJoCo releases Newton declares.

A module of its own so that `routes.common.unavailable` can ask it without importing the adapter (`routes.newton`),
which imports `routes.common`: no import cycle between the two.
"""

from __future__ import annotations

from importlib import metadata

PACKAGES = ("newton", "warp-lang", "mujoco-warp", "mujoco")
INSTALL = "pip install newton mujoco-warp (Newton's MuJoCo solver runs MJWarp's model even on the CPU backend)"


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str]:
    return {name: _version(name) or "not installed" for name in PACKAGES}


def unavailable() -> str | None:
    """Why the Newton route cannot run here (the versions found), or None; nothing is imported."""
    found = {name: _version(name) for name in PACKAGES}
    missing = [name for name, v in found.items() if v is None]
    if missing:
        have = ", ".join(f"{n} {v}" for n, v in found.items() if v) or "none of them"
        return f"the Newton route needs {' and '.join(missing)}, not installed (found {have}): {INSTALL}"
    return None


def declared_mismatch() -> str | None:
    """The MuJoCo packages Newton declares (its 'sim' extra) that the installed ones do not satisfy, or None."""
    from packaging.requirements import Requirement

    off = []
    for text in metadata.requires("newton") or []:
        req = Requirement(text)
        have = _version(req.name)
        if req.name in ("mujoco", "mujoco-warp") and have and req.specifier and not req.specifier.contains(have, True):
            off.append(f"{req.name}{req.specifier} (found {have})")
    return f"newton {_version('newton')} declares {', '.join(off)}" if off else None
