"""What an MJCF file writes for each element, read from its text: the attribute on the element itself, or else
its default class's for the element's kind (the element's `class`, else the `childclass` of the nearest body or
frame around it, else the top class `main`). A class starts as a copy of the class it is nested in as that class
stands where the nested one is written, then takes its own settings: a later `<default class="main">` (an included
file's) changes `main` and the classes written after it, not those written before (MuJoCo compiles gymnasium-
robotics' Adroit hammer so: its board class keeps the built-in friction). A measure, no law: `twofold.as_written`
compares it with the compiled model. Source: MuJoCo's XML reference (Default settings; include).

Read as text with the standard library, apart from MuJoCo's parser: a release whose reader or compiler drops or
mangles a value (3.10.0 compiled a damper's kv set in a default class as 0) disagrees with it. `<include>` files are
read in place. A `<replicate count=N>` is read as N copies of what it holds, in order, copy k placed by the
replicate's offset and turn applied k times (each copy steps from the one before along that copy's own axes) and
each name inside given the suffix `sep` + k (as many digits as N has; an inner replicate's suffix first). What
`<attach>` makes is not read (its names are the compiler's), nor are elements `<composite>`, `<flexcomp>` or a
plugin make.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ACTUATOR_KINDS = ("general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle",
                  "adhesion", "dcmotor", "orientation", "plugin")  # every element of <actuator> is one actuator
NOT_READ = ("attach", "composite", "flexcomp")  # their elements are the compiler's to name


class Unreadable(Exception):
    """The MJCF text cannot be read here (a missing include, malformed XML)."""


@dataclass
class Element:
    """One element of the file: its tag, its own attributes, and its default class."""

    tag: str
    attrib: dict[str, str]
    cls: str
    order: int = 0  # its place in the file, among all elements read
    body: int = -1  # the body it belongs to, in the compiler's order (world 0); -1 outside the body tree
    # the frames between it and its body (a body's: its parent), outermost first: ("frame", its attributes, 1), or
    # ("replicate", its attributes, k) for its copy k (offset and turn applied k times)
    frames: tuple[tuple[str, dict[str, str], int], ...] = ()
    parent: int = -1  # a body's parent body, in the compiler's order

    @property
    def name(self) -> str | None:
        return self.attrib.get("name") or None


@dataclass
class Mjcf:
    """The file read: its compiler settings, its `<option>` attributes, its default classes ({class: {tag: attributes}}, each a copy of its
    parent's where it is written, with its own settings over it), and its elements by tag (`equality:KIND` and
    `sensor:KIND` for those sections' elements, whose tags repeat the body tree's; `body` elements
    carry their `inertial` child's attributes as `inertial:NAME`), named or not, in the file's order."""

    compiler: dict[str, str] = field(default_factory=dict)
    option: dict[str, str] = field(default_factory=dict)
    attaches: bool = False  # an <attach> brings another model's settings, which the compiler may merge
    defaults: dict[str, dict[str, dict[str, str]]] = field(default_factory=lambda: {"main": {}})
    elements: dict[str, list[Element]] = field(default_factory=dict)
    bodies: int = 1  # the world and each body read
    aligned: set[int] = field(default_factory=set)  # bodies whose frame the compiler aligns with their inertia
    # each <flexcomp> as written (its element whole), with the body it is in and the frames around it
    flexcomps: list[tuple[ET.Element, int, tuple[tuple[str, dict[str, str], int], ...]]] = field(default_factory=list)
    extensions: list[ET.Element] = field(default_factory=list)  # the file's <extension> elements (plugins)
    _body_names: dict[int, str] | None = field(default=None, repr=False, compare=False)

    def body_name(self, body: int) -> str | None:
        """The name the file gives body `body` (its index in the compiler's order; 0 the world: "world"), "" where
        it leaves it unnamed, None where it reads no such body."""
        if body <= 0:
            return "world"
        if self._body_names is None:  # read once: looked up for every body of the file
            self._body_names = {e.body: e.name or "" for e in self.elements.get("body", [])}
        return self._body_names.get(body)

    def written(self, element: Element, name: str, kinds: tuple[str, ...] | None = None) -> str | None:
        """The attribute as written: on the element, else its class's default for one of `kinds` (the element's
        own tag where None); None where nothing writes it."""
        if name in element.attrib:
            return element.attrib[name]
        table = self.defaults.get(element.cls, {})
        for tag in kinds or (element.tag,):
            if name in table.get(tag, {}):
                return table[tag][name]
        return None

    def in_order(self, tags: tuple[str, ...]) -> list[Element]:
        """The elements of `tags` in the order MuJoCo's compiler numbers them: by body (depth first, the world
        first), and within a body, or a section, as written (a child body's joints and geoms come after all of
        its parent's, wherever the file writes them)."""
        found = [element for tag in tags for element in self.elements.get(tag, [])]
        return sorted(found, key=lambda element: (element.body, element.order))

    def default_tags(self, element: Element, kinds: tuple[str, ...]) -> set[str]:
        """Which of `kinds` the element's class sets defaults for."""
        return {tag for tag in self.defaults.get(element.cls, {}) if tag in kinds}


def read(path: str | Path) -> Mjcf:
    """Read the MJCF file at `path` (its includes in place)."""
    path = Path(path)
    root = _root(path)
    if root.tag != "mujoco":
        raise Unreadable(f"{path}: not MJCF (its root is <{root.tag}>, not <mujoco>)")
    found = Mjcf()
    for compiler in root.iter("compiler"):
        found.compiler.update(compiler.attrib)
    for option in root.findall("option"):
        found.option.update(option.attrib)
    found.attaches = root.find(".//attach") is not None
    found.extensions = root.findall("extension")
    for default in root.findall("default"):
        _defaults(found, default, None)
    for world in root.findall("worldbody"):
        _tree(found, world, "main", 0)
    for section, tags in (("actuator", ACTUATOR_KINDS), ("tendon", ("spatial", "fixed")), ("contact", ("pair",))):
        for block in root.findall(section):
            for child in block:
                if child.tag in tags:
                    _keep(found, child, child.get("class") or "main")
    # every element of <equality> and <sensor> is one constraint or sensor: kept as "equality:weld", "sensor:touch"
    for section in ("equality", "sensor"):
        for block in root.findall(section):
            for child in block:
                if isinstance(child.tag, str):
                    _keep(found, ET.Element(f"{section}:{child.tag}", child.attrib), child.get("class") or "main")
    return found


def root(path: str | Path) -> ET.Element:
    """The MJCF file's XML root with its includes in place (`Unreadable` where it cannot be read)."""
    return _root(Path(path))


def _root(path: Path) -> ET.Element:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise Unreadable(f"{path}: {exc}") from None
    _inline(root, path.parent)
    return root


def _inline(element: ET.Element, folder: Path) -> None:
    """Replace each <include file=...> under `element` by the included file's top-level children."""
    for i, child in enumerate(list(element)):
        if child.tag == "include":
            included = _root(folder / child.get("file", ""))
            element.remove(child)
            for k, part in enumerate(list(included)):
                element.insert(i + k, part)
        else:
            _inline(child, folder)


def _defaults(found: Mjcf, default: ET.Element, parent: str | None) -> None:
    """Read one <default> in document order: a nested class starts as its parent's copy as it stands here."""
    name = default.get("class") or ("main" if parent is None else None)
    if name is None:
        return  # a nested default without a class: MuJoCo refuses it
    if name not in found.defaults:
        base = found.defaults.get(parent or "main", {})
        found.defaults[name] = {tag: dict(attrib) for tag, attrib in base.items()}
    table = found.defaults[name]
    for child in default:
        if child.tag == "default":
            _defaults(found, child, name)
        else:
            table.setdefault(child.tag, {}).update(child.attrib)


def _tree(found: Mjcf, node: ET.Element, inherited: str, body: int,
          frames: tuple[tuple[str, dict[str, str], int], ...] = (), suffix: str = "") -> None:
    """Walk a body tree in the file's order (the compiler numbers bodies so): bodies and frames pass their
    childclass down, a frame's elements belong to the body around it; joints and geoms take their own class; a
    replicate's copies one after another, each with its place and its names' suffix."""
    for child in node:
        if child.tag == "flexcomp" and not suffix:  # a replicated one's names are the compiler's
            found.flexcomps.append((child, body, frames))
        if child.tag in NOT_READ:
            continue
        if child.tag == "body":
            inertial = child.find("inertial")
            extra = {f"inertial:{k}": v for k, v in inertial.attrib.items()} if inertial is not None else {}
            own = found.bodies
            found.bodies += 1
            for joint in child:  # a free joint may align its body's frame with the inertia's (the compiler moves it)
                if joint.tag == "freejoint" or (joint.tag == "joint" and joint.get("type") == "free"):
                    align = joint.get("align", "auto")
                    if align == "true" or (align == "auto" and found.compiler.get("alignfree") == "true"):
                        found.aligned.add(own)
            _keep(found, ET.Element("body", _named(dict(child.attrib, **extra), suffix)), inherited, own, frames,
                  parent=body)
            _tree(found, child, child.get("childclass") or inherited, own, (), suffix)
        elif child.tag == "frame":
            framed = (*frames, ("frame", dict(child.attrib), 1))
            _tree(found, child, child.get("childclass") or inherited, body, framed, suffix)
        elif child.tag == "replicate":
            count = int(child.get("count", "0"))
            for k in range(count):
                _tree(found, child, inherited, body, (*frames, ("replicate", dict(child.attrib), k)),
                      f"{child.get('sep', '')}{k:0{len(str(count))}d}{suffix}")
        elif child.tag in ("joint", "freejoint", "geom", "site"):
            _keep(found, ET.Element(child.tag, _named(dict(child.attrib), suffix)), child.get("class") or inherited,
                  body, frames)


def _named(attrib: dict[str, str], suffix: str) -> dict[str, str]:
    """The attributes with a replicated element's name suffixed as the compiler names the copy."""
    if suffix and attrib.get("name"):
        attrib["name"] += suffix
    return attrib


def _keep(found: Mjcf, element: ET.Element, cls: str, body: int = -1,
          frames: tuple[tuple[str, dict[str, str], int], ...] = (), parent: int = -1) -> None:
    order = sum(len(elements) for elements in found.elements.values())
    found.elements.setdefault(element.tag, []).append(Element(element.tag, dict(element.attrib), cls, order, body,
                                                              frames, parent))
