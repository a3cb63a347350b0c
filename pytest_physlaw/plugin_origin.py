"""Where this plugin came from, and how to put the same plugin into another environment (`pytest-physlaw upgrade`
builds one per version set).

The ways, best first: the checkout it runs from (editable); the origin pip recorded when it was installed
(`direct_url.json`, PEP 610: a local folder, editable or not, a wheel or sdist file or URL, a VCS URL at the commit
installed); the same release from the index; a wheel built of the installed files themselves (the distribution's
RECORD). `upgrade` tries them in that order and names each one tried when none installs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from pytest_physlaw import __version__

DISTRIBUTION = "pytest-physlaw"


@dataclass(frozen=True)
class Origin:
    """One way to install the plugin: what it is (for messages and the environment's key) and pip's arguments,
    or `wheel_of` the installed distribution to build first."""

    what: str
    pip_args: tuple[str, ...] = ()
    wheel_of: metadata.Distribution | None = None


def source_root() -> Path | None:
    """The checkout this plugin runs from (its pyproject names pytest-physlaw), or None for an installed copy."""
    root = Path(__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and re.search(r'^name\s*=\s*"pytest-physlaw"', pyproject.read_text(), re.M):
        return root
    return None


def installed() -> metadata.Distribution | None:
    """The installed distribution whose files are the ones running, or None (run from a checkout on the path)."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    here = Path(__file__).resolve()
    for file in dist.files or []:
        if file.name == here.name and Path(dist.locate_file(file)).resolve() == here:
            return dist
    return None


def recorded_origin(direct_url: str | None) -> Origin | None:
    """The origin `direct_url.json` records (PEP 610), as pip arguments; None where pip recorded none (installed
    from an index) or one this cannot reinstall (a local folder or file no longer there)."""
    if not direct_url:
        return None
    info = json.loads(direct_url)
    url = info.get("url", "")
    parsed = urlparse(url)
    local = Path(unquote(parsed.path)) if parsed.scheme == "file" else None
    if "vcs_info" in info:
        vcs = info["vcs_info"]
        rev = vcs.get("commit_id") or vcs.get("requested_revision")
        return Origin(f"{vcs.get('vcs', 'git')} {url}" + (f" at {rev}" if rev else ""),
                      (f"{vcs.get('vcs', 'git')}+{url}" + (f"@{rev}" if rev else ""),))
    if "dir_info" in info:
        if local is None or not local.is_dir():
            return None
        editable = bool(info["dir_info"].get("editable"))
        return Origin(f"the folder {local}{' (editable)' if editable else ''}",
                      ("-e", str(local)) if editable else (str(local),))
    if "archive_info" in info:
        if local is not None:
            return Origin(f"the file {local}", (str(local),)) if local.is_file() else None
        return Origin(f"the archive {url}", (url,))
    return None


def origins() -> list[Origin]:
    """Every way to install this same plugin elsewhere, best first."""
    root = source_root()
    if root is not None:
        return [Origin(f"the checkout {root} (editable)", ("-e", str(root)))]
    found: list[Origin] = []
    dist = installed()
    direct = recorded_origin(dist.read_text("direct_url.json")) if dist is not None else None
    if direct is not None:
        found.append(direct)
    found.append(Origin(f"the index's {DISTRIBUTION}=={__version__}", (f"{DISTRIBUTION}=={__version__}",)))
    if dist is not None and dist.files:
        found.append(Origin(f"a wheel of the installed files ({dist.locate_file('')})", wheel_of=dist))
    return found


def build_wheel(dist: metadata.Distribution, folder: Path) -> Path:
    """A wheel of an installed distribution's own files (its RECORD, compiled files left out), in `folder`: the
    package as installed, for an environment where neither its origin nor the index has it."""
    tag = "py3-none-any"
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    wheel = folder / f"{name}-{dist.version}-{tag}.whl"
    info = f"{name}-{dist.version}.dist-info"
    rows = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for file in dist.files or []:
            posix = file.as_posix()
            installer_own = (".pyc", "/RECORD", "/INSTALLER", "/REQUESTED", "/direct_url.json")
            if posix.endswith(installer_own) or ".." in file.parts:
                continue
            data = Path(dist.locate_file(file)).read_bytes()
            target = f"{info}/{file.name}" if file.parts[0].endswith(".dist-info") else posix
            z.writestr(target, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{target},sha256={digest},{len(data)}")
        rows.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(rows) + "\n")
    return wheel
