"""Which files the model law pack runs over: the MJCF files given by name, and those found in folders.

`--physlaw-model` and ini `physlaw_models` take files and folders. A file given by name is a model,
whatever it holds: one MuJoCo cannot compile is a collection error, as the user asked for it. A folder
is searched recursively for `*.xml`, and each file's root element is read with a fast XML parse
(no MuJoCo: a folder of include fragments alone never imports it). A `<mujoco>` file is a candidate;
an include fragment (`<mujocoinclude>`), another XML (`<config>`, a URDF `<robot>`) or a file that is
not XML is left out with the reason, and so, later, is a candidate MuJoCo cannot compile on its own
(a robot included by its scene): in a folder such files are normal, and the summary lists them
instead of failing the run. Hidden folders and folders that hold no models (virtual environments,
`__pycache__`, `node_modules`, `*.egg-info`) are not entered.

A file reached twice (by name and through its folder, or through two folders) is one model, checked
once; by name wins, so its compile failure stays an error.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

MODEL_ROOT = "mujoco"
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


@dataclass
class ModelPaths:
    """What the pack runs over, every path absolute and resolved.

    named:    files given by name (a failure to compile is a collection error).
    found:    `<mujoco>` files found in the folders given (a failure to compile leaves them out).
    left_out: files under the folders given that are no model, with the reason.
    """

    named: list[Path] = field(default_factory=list)
    found: list[Path] = field(default_factory=list)
    left_out: dict[Path, str] = field(default_factory=dict)

    @property
    def files(self) -> list[Path]:
        """The candidates, each once: the named files, then those found in folders."""
        return self.named + [p for p in self.found if p not in self.named]

    def given(self) -> bool:
        """Whether any model path was given at all (a folder of fragments alone counts)."""
        return bool(self.named or self.found or self.left_out)

    def add_file(self, path: Path) -> None:
        if path not in self.named:
            self.named.append(path)
        self.left_out.pop(path, None)

    def add_folder(self, folder: Path) -> int:
        """Add the folder's `<mujoco>` files and its left-out files; return how many `.xml` files it holds."""
        found, left_out = scan(folder)
        self.found.extend(p for p in found if p not in self.found)
        for path, why in left_out.items():
            if path not in self.named:
                self.left_out.setdefault(path, why)
        return len(found) + len(left_out)


def root_element(path: Path) -> str | None:
    """The tag of the file's root element, or None where it is not well-formed XML up to that element.

    Reads only up to the root's start tag: a large model costs no more than a small one."""
    try:
        with open(path, "rb") as f:
            for _, element in ET.iterparse(f, events=("start",)):
                return element.tag
    except (ET.ParseError, OSError, UnicodeError, ValueError):
        return None
    return None


def why_not_a_model(path: Path) -> str | None:
    """Why a file found in a folder is no MJCF model (None: its root is `<mujoco>`, a candidate)."""
    tag = root_element(path)
    if tag == MODEL_ROOT:
        return None
    if tag is None:
        return "not XML (or not well-formed)"
    if tag == "mujocoinclude":
        return "an include fragment (root <mujocoinclude>)"
    return f"not MJCF (root <{tag}>)"


def scan(folder: Path) -> tuple[list[Path], dict[Path, str]]:
    """The `<mujoco>` files under `folder` (sorted), and the other `.xml` files with why they are left out."""
    found: list[Path] = []
    left_out: dict[Path, str] = {}
    for path in xml_files(folder):
        why = why_not_a_model(path)
        if why is None:
            found.append(path)
        else:
            left_out[path] = why
    return found, left_out


def xml_files(folder: Path) -> list[Path]:
    """Every `*.xml` file under `folder`, resolved and sorted, outside the folders `skipped_folder` names."""
    out: list[Path] = []
    for root, dirs, names in os.walk(folder):  # links to folders are not followed: no loops
        dirs[:] = sorted(d for d in dirs if not skipped_folder(Path(root) / d))
        out.extend(Path(root, n).resolve() for n in names if n.lower().endswith(".xml"))
    return sorted(set(out))


def skipped_folder(folder: Path) -> bool:
    """A folder that holds no models of the user's: hidden, a cache, a package store or a virtual
    environment (it has a `pyvenv.cfg`)."""
    name = folder.name
    return (name.startswith(".") or name in SKIPPED_FOLDERS or name.endswith(".egg-info")
            or (folder / "pyvenv.cfg").is_file())
