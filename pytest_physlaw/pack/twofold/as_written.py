"""A model compiles to what its MJCF writes: its `<option>`, each joint's, geom's, tendon's and actuator's physical
attributes (a joint's and tendon's limit and friction solver parameters among them), each contact pair's, each
equality constraint's (solref, solimp, a joint or tendon coupling's polynomial, a weld's torquescale), each sensor's
noise and cutoff, and each body's `<inertial>`, gravcomp and place in its parent (its pos and orientation through the
`<frame>`s and `<replicate>` copies around it), written on the element or inherited from its default class, are the
compiled model's values,
converted as MuJoCo's XML reference documents them (degrees to radians for hinge and ball ranges; a position
servo's kp as gain and bias, a damper's kv as its gain; an inertial's principal moments turned by its orientation,
any of quat, euler, axisangle, xyaxes and zaxis, or its full tensor; an option's keyword as MuJoCo's enum). The
second computation is the file's text read apart from MuJoCo's parser (`twofold.mjcf_text`): a release whose reader
or compiler loses a value (3.10.0: a damper's kv from a default class compiled as 0; 3.1.3 to 3.2.3: an inertial's
euler ignored; 3.1.5 to 3.3.0: a replicate's copy stepped along the axes of the copy before) is seen here before any
run. Source: MuJoCo's XML reference (option, joint, geom, tendon, actuator
shortcuts, inertial; compiler angle and eulerseq; default classes).

Bound: 1e-9 of each value's size (MuJoCo and Python read decimal text to the same doubles; a full inertia is
diagonalized by the compiler, to far below that), 1e-12 absolute. An element is found by the compiler's order
where the file's elements of its kind line up one to one with the model's (every named one at its name's id), else
by its name. Left out, and named: unnamed elements that do not line up (an `<attach>`, `<composite>` or
`<flexcomp>` adds elements this reading does not see), names the compiled model lacks (a body fused into its
parent), bodies the compiler aligns with their inertia (a free joint's `align`), a shortcut's kp and kv where its class chain also sets another actuator kind's defaults (MuJoCo's
shortcuts then share one default actuator), several numbers where this reading expects one, every inertial where
the compiler rewrites inertia (`inertiafromgeom="true"`, `boundmass`, `boundinertia`, `balanceinertia`,
`settotalmass`), the options of a file that attaches another model (its settings may merge), and attributes a
release lacks.

Measured figures and commands: docs/second-computations.md ("A model compiles to what its file writes").
"""

from __future__ import annotations

import math
from collections import Counter

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import mjcf_text
from pytest_physlaw.pack.twofold.mjcf_text import ACTUATOR_KINDS, Element, Mjcf

SOURCE = "MuJoCo XML reference (joint, geom, tendon, actuator, inertial, compiler, default)"
RELATIVE, ABSOLUTE = 1e-9, 1e-12
OBJ = mujoco.mjtObj
JOINT_TYPES = {"free": 0, "ball": 1, "slide": 2, "hinge": 3}
# a shortcut's attribute -> (array, index, sign) entries it compiles to
GAINS = {
    ("position", "kp"): (("actuator_gainprm", 0, 1.0), ("actuator_biasprm", 1, -1.0)),
    ("position", "kv"): (("actuator_biasprm", 2, -1.0),),
    ("velocity", "kv"): (("actuator_gainprm", 0, 1.0), ("actuator_biasprm", 2, -1.0)),
    ("intvelocity", "kp"): (("actuator_gainprm", 0, 1.0), ("actuator_biasprm", 1, -1.0)),
    ("intvelocity", "kv"): (("actuator_biasprm", 2, -1.0),),
    ("damper", "kv"): (("actuator_gainprm", 2, -1.0),),
}
# a shortcut's gain where nothing writes it: the XML reference's default (measured the same on 3.14.0 and 4.0.1)
SHORTCUT_DEFAULTS = {("position", "kp"): 1.0, ("position", "kv"): 0.0, ("velocity", "kv"): 1.0,
                     ("intvelocity", "kp"): 1.0, ("intvelocity", "kv"): 0.0, ("damper", "kv"): 0.0}
REWRITES_INERTIA = ("boundmass", "boundinertia", "balanceinertia", "settotalmass")
G, B, D = mujoco.mjtGain, mujoco.mjtBias, mujoco.mjtDyn
# a shortcut's kind -> (gaintype, biastype, dyntype or None where its settings choose: a position's timeconst)
SHORTCUT_TYPES = {
    "motor": (G.mjGAIN_FIXED, B.mjBIAS_NONE, D.mjDYN_NONE),
    "position": (G.mjGAIN_FIXED, B.mjBIAS_AFFINE, None),
    "velocity": (G.mjGAIN_FIXED, B.mjBIAS_AFFINE, D.mjDYN_NONE),
    "intvelocity": (G.mjGAIN_FIXED, B.mjBIAS_AFFINE, D.mjDYN_INTEGRATOR),
    "damper": (G.mjGAIN_AFFINE, B.mjBIAS_NONE, D.mjDYN_NONE),
    "cylinder": (G.mjGAIN_FIXED, B.mjBIAS_AFFINE, D.mjDYN_FILTER),
    "adhesion": (G.mjGAIN_FIXED, B.mjBIAS_NONE, D.mjDYN_NONE),
    "muscle": (G.mjGAIN_MUSCLE, B.mjBIAS_MUSCLE, D.mjDYN_MUSCLE),
}
# each element's limit flags: (flag, its range, the compiled flag); "auto" (the default, with the compiler's
# autolimits on) is limited where the range is written
LIMITS = {
    # a joint's `limited` is `_joint`'s own row (read with its range's degrees, and with autolimits off too)
    "joint": (("actuatorfrclimited", "actuatorfrcrange", "jnt_actfrclimited"),),
    "tendon": (("limited", "range", "tendon_limited"),
               ("actuatorfrclimited", "actuatorfrcrange", "tendon_actfrclimited")),
    "actuator": (("ctrllimited", "ctrlrange", "actuator_ctrllimited"),
                 ("forcelimited", "forcerange", "actuator_forcelimited"),
                 ("actlimited", "actrange", "actuator_actlimited")),
}
INHERITS = {"position": ("ctrlrange", "actuator_ctrlrange"), "intvelocity": ("actrange", "actuator_actrange")}


ORIENTATIONS = ("quat", "euler", "axisangle", "xyaxes", "zaxis")  # an element's orientation, in any one spelling


def _numbers(text: str | None) -> np.ndarray | None:
    if text is None:
        return None
    try:
        return np.array([float(x) for x in text.split()], float)
    except ValueError:
        return None


class Comparison:
    """The compared values: [(what, written, compiled)], and Counter of what was left out and why."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, np.ndarray, np.ndarray]] = []
        self.left: Counter = Counter()

    def add(self, what: str, written: np.ndarray | None, compiled: np.ndarray) -> None:
        if written is None:
            return
        compiled = np.ravel(np.asarray(compiled, float))
        if len(written) > len(compiled):
            self.left["more numbers than the compiled array holds"] += 1
            return
        self.rows.append((what, written, compiled[:len(written)]))

    def worst(self) -> tuple[float, str, np.ndarray, np.ndarray] | None:
        found = None
        for what, written, compiled in self.rows:
            scale = RELATIVE * np.maximum(np.abs(written), np.abs(compiled)) + ABSOLUTE
            ratio = float(np.max(np.abs(written - compiled) / scale))
            if found is None or not ratio <= found[0]:
                found = (ratio, what, written, compiled)
        return found


def compare(model: mujoco.MjModel, mjcf: Mjcf) -> Comparison:
    """Every written value of the file's elements against the compiled model."""
    out = Comparison()
    degrees = mjcf.compiler.get("angle", "degree") != "radian"
    _options(model, mjcf, out)
    for element, j in matched(model, mjcf, ("joint", "freejoint"), OBJ.mjOBJ_JOINT, model.njnt, out):
        _joint(model, mjcf, element, j, degrees, out)
    for element, g in matched(model, mjcf, ("geom",), OBJ.mjOBJ_GEOM, model.ngeom, out):
        _geom(model, mjcf, element, g, out)
        _part_place(model, mjcf, element, g, degrees, out)
    for element, i in matched(model, mjcf, ("site",), OBJ.mjOBJ_SITE, model.nsite, out):
        _part_place(model, mjcf, element, i, degrees, out)
    for element, t in matched(model, mjcf, ("spatial", "fixed"), OBJ.mjOBJ_TENDON, model.ntendon, out):
        _tendon(model, mjcf, element, t, out)
    for element, a in matched(model, mjcf, ACTUATOR_KINDS, OBJ.mjOBJ_ACTUATOR, mujoco_versions.actuator_count(model),
                              out):
        _actuator(model, mjcf, element, a, out)
    for element, i in matched(model, mjcf, ("pair",), OBJ.mjOBJ_PAIR, model.npair, out):
        _pair(model, mjcf, element, i, out)
    for element, i in matched(model, mjcf, _section(mjcf, "equality"), OBJ.mjOBJ_EQUALITY, model.neq, out):
        _equality(model, mjcf, element, i, out)
    for element, i in matched(model, mjcf, _section(mjcf, "sensor"), OBJ.mjOBJ_SENSOR, model.nsensor, out):
        for attr, array in (("noise", model.sensor_noise), ("cutoff", model.sensor_cutoff)):
            out.add(f"{_label(element, i)} {attr}", _numbers(element.attrib.get(attr)), [array[i]])
    rewrites = [k for k in REWRITES_INERTIA if k in mjcf.compiler]
    if mjcf.compiler.get("inertiafromgeom") == "true":
        rewrites.append("inertiafromgeom")
    for element, b in matched(model, mjcf, ("body",), OBJ.mjOBJ_BODY, model.nbody - 1, out, first=1):
        gravcomp = _numbers(element.attrib.get("gravcomp"))
        if gravcomp is not None and hasattr(model, "body_gravcomp"):
            out.add(f"{_label(element, b)} gravcomp", gravcomp, [model.body_gravcomp[b]])
        if rewrites:
            out.left[f"inertials (the compiler rewrites them: {', '.join(rewrites)})"] += 1
        else:
            _inertial(model, mjcf, element, b, degrees, out)
        _pose(model, mjcf, element, b, degrees, out)
    return out


def matched(model: mujoco.MjModel, mjcf: Mjcf, tags: tuple[str, ...], kind: OBJ, count: int, out: Comparison,
            first: int = 0) -> list[tuple[Element, int]]:
    """Each element of `tags` with its compiled id: all of them by the compiler's order where the file holds as
    many as the model and every named one sits at its name's id; else the named ones by name."""
    elements = mjcf.in_order(tags)
    ids = [mujoco.mj_name2id(model, kind, element.name) if element.name else -1 for element in elements]
    if len(elements) == count and all(i == first + k for k, i in enumerate(ids) if elements[k].name):
        return [(element, first + k) for k, element in enumerate(elements)]
    pairs = []
    for element, i in zip(elements, ids):
        if i >= 0:
            pairs.append((element, i))
        elif element.name:
            out.left["names the compiled model lacks"] += 1
        else:
            plural = {"body": "bodies", "spatial": "tendons", "general": "actuators"}.get(tags[0], tags[0] + "s")
            out.left[f"unnamed {plural} (the file's {len(elements)} are not the compiled {count})"] += 1
    return pairs


def _label(element: Element, i: int) -> str:
    return f"{element.tag} {element.name!r}" if element.name else f"{element.tag} #{i} (unnamed)"


def _joint(model: mujoco.MjModel, mjcf: Mjcf, element: Element, j: int, degrees: bool, out: Comparison) -> None:
    name = _label(element, j)
    # <freejoint> is <joint type="free"> with stiffness, damping, frictionloss and armature 0, no class defaults
    free = element.tag == "freejoint"
    written = (lambda attr: {"type": "free"}.get(attr, "0" if attr in ("stiffness", "damping", "frictionloss",
                                                                      "armature") else None)) if free else \
        (lambda attr: mjcf.written(element, attr, ("joint",)))
    kind = written("type") or "hinge"
    if kind not in JOINT_TYPES:
        out.left["joint types this reading does not know"] += 1
        return
    out.add(f"{name} type ({kind})", np.array([JOINT_TYPES[kind]], float), [model.jnt_type[j]])
    dofs = np.flatnonzero(np.asarray(model.dof_jntid) == j)  # the joint's dofs
    sprung = _numbers(written("springdamper"))
    if sprung is not None and np.any(sprung != 0):
        out.left["joints whose springdamper sets their stiffness and damping"] += 1
    else:
        value = _one(written("damping"), out)
        if value is not None:
            out.add(f"{name} damping", np.full(dofs.size, value[0]), model.dof_damping[dofs])
        out.add(f"{name} stiffness", _one(written("stiffness"), out), [model.jnt_stiffness[j]])
    for attr, array in (("armature", model.dof_armature), ("frictionloss", model.dof_frictionloss)):
        value = _one(written(attr), out)
        if value is not None:
            out.add(f"{name} {attr}", np.full(dofs.size, value[0]), array[dofs])
    if kind != "free":  # a free joint is never limited, nor its force (MuJoCo's test: actuation/refsite_free.xml)
        _limits(model, mjcf, element, j, "joint", written, out)
    for attr, array in (("margin", [model.jnt_margin[j]]), ("solreflimit", model.jnt_solref[j]),
                        ("solimplimit", model.jnt_solimp[j])):
        out.add(f"{name} {attr}", _numbers(written(attr)), array)
    for attr, array in (("solreffriction", model.dof_solref), ("solimpfriction", model.dof_solimp)):
        value = _numbers(written(attr))
        if value is not None:
            out.add(f"{name} {attr}", np.tile(value, dofs.size), array[dofs])
    span = _numbers(written("range"))
    # a free joint is never limited, whatever its class writes (MuJoCo's own test: user/testdata/auto_limits.xml)
    limited = kind != "free" and _limited(mjcf, written("limited"), span is not None)
    out.add(f"{name} limited", np.array([float(limited)]), [model.jnt_limited[j]])
    if span is not None and len(span) == 2 and kind != "free":
        # the compiler turns a limited hinge's or ball's range from degrees; an unlimited one's stays as written
        unit = math.pi / 180.0 if degrees and limited and kind in ("hinge", "ball") else 1.0
        out.add(f"{name} range", span * unit, model.jnt_range[j])


def _limited(mjcf: Mjcf, text: str | None, ranged: bool) -> bool:
    """Whether the joint is limited as written: limited="true"/"false", else (auto, or unset) where it has a range
    and the compiler's autolimits is on (MuJoCo's default)."""
    if text in ("true", "false"):
        return text == "true"
    return ranged and mjcf.compiler.get("autolimits", "true") == "true"


def _one(text: str | None, out: Comparison) -> np.ndarray | None:
    value = _numbers(text)
    if value is not None and len(value) != 1:
        out.left["several numbers where one was expected"] += 1
        return None
    return value


def _geom(model: mujoco.MjModel, mjcf: Mjcf, element: Element, g: int, out: Comparison) -> None:
    name = _label(element, g)
    for attr, array in (("friction", model.geom_friction[g]), ("solref", model.geom_solref[g]),
                        ("solimp", model.geom_solimp[g]), ("margin", [model.geom_margin[g]]),
                        ("gap", [model.geom_gap[g]]), ("condim", [model.geom_condim[g]]),
                        ("priority", [model.geom_priority[g]]), ("solmix", [model.geom_solmix[g]]),
                        ("contype", [model.geom_contype[g]]), ("conaffinity", [model.geom_conaffinity[g]])):
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr)), array)


def _tendon(model: mujoco.MjModel, mjcf: Mjcf, element: Element, t: int, out: Comparison) -> None:
    name = _label(element, t)
    for attr, array in (("stiffness", model.tendon_stiffness[t]), ("damping", model.tendon_damping[t]),
                        ("frictionloss", [model.tendon_frictionloss[t]]), ("range", model.tendon_range[t]),
                        ("margin", [model.tendon_margin[t]]), ("solreflimit", model.tendon_solref_lim[t]),
                        ("solimplimit", model.tendon_solimp_lim[t]), ("solreffriction", model.tendon_solref_fri[t]),
                        ("solimpfriction", model.tendon_solimp_fri[t]),
                        ("armature", _row(model, "tendon_armature", t))):
        if array is not None:
            out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr, ("tendon",))), array)
    _limits(model, mjcf, element, t, "tendon", lambda attr: mjcf.written(element, attr, ("tendon",)), out)


def _actuator(model: mujoco.MjModel, mjcf: Mjcf, element: Element, a: int, out: Comparison) -> None:
    name = _label(element, a)
    others = mjcf.default_tags(element, ACTUATOR_KINDS) - {element.tag}
    for attr, array in (("gear", _actuator_row(model, "actuator_gear", a)),
                        ("ctrlrange", _actuator_row(model, "actuator_ctrlrange", a)),
                        ("forcerange", _actuator_row(model, "actuator_forcerange", a)),
                        ("actrange", _actuator_row(model, "actuator_actrange", a)),
                        ("armature", _actuator_row(model, "actuator_armature", a)),
                        ("damping", _actuator_row(model, "actuator_damping", a))):
        if array is None:
            continue  # a release before the attribute (actuator armature and damping: 3.7)
        if attr not in element.attrib and others:
            continue  # another kind's default may set it, and the shortcuts share one default actuator
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr)), array)
    inherit = _one(mjcf.written(element, "inheritrange"), out) if element.tag in INHERITS else None
    inherited = inherit is not None and inherit[0] > 0
    if inherited:
        _inherited(model, element, a, float(inherit[0]), out)
    written = _saturation(mjcf, element) if element.tag == "dcmotor" else (lambda attr: mjcf.written(element, attr))
    if element.tag == "dcmotor":
        out.add(f"{name} forcerange (saturation)", _numbers(written("forcerange")),
                _actuator_row(model, "actuator_forcerange", a))
    if not (others and any(f not in element.attrib for f, _, _ in LIMITS["actuator"])) and not inherited:
        _limits(model, mjcf, element, a, "actuator", written, out)
    _types(model, element, a, out)
    if element.tag == "cylinder" and not (others and "cylinder" in mjcf.default_tags(element, ACTUATOR_KINDS)):
        _cylinder(model, mjcf, element, a, out)
    shortcuts = [(attr, targets) for (tag, attr), targets in GAINS.items() if tag == element.tag]
    if element.tag == "general":
        shortcuts = []
        for attr in ("gainprm", "biasprm", "dynprm"):
            written = element.attrib.get(attr) if others else mjcf.written(element, attr)
            out.add(f"{name} {attr}", _numbers(written), getattr(model, f"actuator_{attr}")[a])
    shared = bool(others) and element.tag in mjcf.default_tags(element, ACTUATOR_KINDS)
    for attr, targets in shortcuts:
        # what its own attribute or its own kind's default writes, else the documented default, whatever other kinds'
        # defaults its class chain sets (MuJoCo 3.16 on; before, a position's kp in the class leaked into a
        # cylinder's bias, a velocity's kv into a position's: commit ab7f005c); where the class writes its own kind's
        # default beside another kind's, the two share MuJoCo's one actuator default (4.0.1 takes neither): left out
        if shared and attr not in element.attrib:
            out.left["a shortcut's gain where its class sets its own and another actuator kind's defaults"] += 1
            continue
        value = _one(mjcf.written(element, attr), out)
        if value is None and (element.tag, attr) == ("position", "kv") and mjcf.written(element, "dampratio"):
            continue  # the compiler sets kv from dampratio
        if value is None:
            value = np.array([SHORTCUT_DEFAULTS[(element.tag, attr)]])
        for array, index, sign in targets:
            out.add(f"{name} {attr} ({array}[{index}])", sign * value, [getattr(model, array)[a][index]])


def _saturation(mjcf: Mjcf, element: Element):
    """A DC motor's force limit as its `saturation` writes it (the XML reference: a torque limit where positive, none
    at 0; 4.0.0 on: a `saturation="0"` written on the element no longer keeps its class's limit, commit a5ff8f6c),
    where it writes no forcerange of its own: the `written` reading of its limit attributes."""
    def written(attr: str) -> str | None:
        if attr not in ("forcelimited", "forcerange") or mjcf.written(element, "forcerange") is not None:
            return mjcf.written(element, attr)
        value = _numbers(mjcf.written(element, "saturation"))
        limit = float(value[0]) if value is not None and len(value) else 0.0
        if attr == "forcelimited":
            return "true" if limit > 0 else "false"
        return f"{-limit!r} {limit!r}" if limit > 0 else None
    return written


def _limits(model: mujoco.MjModel, mjcf: Mjcf, element: Element, i: int, group: str, written, out: Comparison) -> None:
    """Each limit flag of the element against the compiled one: "true" 1, "false" 0, "auto" (or unwritten) 1 where
    its range is written with the compiler's autolimits on (the XML reference's default), else 0."""
    if mjcf.compiler.get("autolimits", "true") != "true":
        out.left["limit flags (the compiler's autolimits is off)"] += 1
        return
    for flag, span, array in LIMITS[group]:
        compiled = _actuator_row(model, array, i) if group == "actuator" else _row(model, array, i)
        if compiled is None:
            continue  # a release before the flag (a tendon's actuatorfrclimited: 3.3.1)
        text = written(flag)
        if text in ("true", "false"):
            value = 1.0 if text == "true" else 0.0
        elif text in (None, "auto"):
            value = 1.0 if _numbers(written(span)) is not None else 0.0
        else:
            continue
        out.add(f"{_label(element, i)} {flag}", np.array([value]), compiled)


def _inherited(model: mujoco.MjModel, element: Element, a: int, share: float, out: Comparison) -> None:
    """A position's ctrlrange or an intvelocity's actrange set by `inheritrange`: the joint's range about its middle,
    scaled by `share` (the XML reference), against the compiled range and flag."""
    span, array = INHERITS[element.tag]
    if int(model.actuator_trntype[a]) != int(mujoco.mjtTrn.mjTRN_JOINT):
        out.left["inheritrange on a transmission other than a joint"] += 1
        return
    j = int(model.actuator_trnid[a][0])
    if not model.jnt_limited[j]:
        return  # the compiler refuses it; nothing to read
    low, high = (float(x) for x in model.jnt_range[j])
    middle, half = (low + high) / 2, share * (high - low) / 2
    out.add(f"{_label(element, a)} {span} (inheritrange {share:g})", np.array([middle - half, middle + half]),
            _actuator_row(model, array, a))
    flag = {"ctrlrange": "actuator_ctrllimited", "actrange": "actuator_actlimited"}[span]
    out.add(f"{_label(element, a)} {span}'s flag (inheritrange)", np.array([1.0]), _actuator_row(model, flag, a))


def _types(model: mujoco.MjModel, element: Element, a: int, out: Comparison) -> None:
    """A shortcut's gain, bias and dynamics types, as its kind defines them (the XML reference's actuator/shortcuts)."""
    kinds = SHORTCUT_TYPES.get(element.tag)
    if kinds is None:
        return
    for what, kind in zip(("gaintype", "biastype", "dyntype"), kinds):
        if kind is not None:
            out.add(f"{_label(element, a)} {what} ({element.tag})", np.array([float(int(kind))]),
                    _actuator_row(model, f"actuator_{what}", a))


def _cylinder(model: mujoco.MjModel, mjcf: Mjcf, element: Element, a: int, out: Comparison) -> None:
    """A cylinder's area (or diameter, pi d^2 / 4, where written) as its gain, its bias as biasprm[0:3] and its
    timeconst as dynprm[0]; where nothing writes them, the XML reference's 1, 0 0 0 and 1, whatever other kinds'
    defaults its class chain sets (MuJoCo 3.16 on: a position's kp in the class no longer becomes its bias)."""
    name = _label(element, a)
    diameter = _one(mjcf.written(element, "diameter"), out)
    area = np.pi * diameter ** 2 / 4 if diameter is not None and diameter[0] > 0 else \
        _one(mjcf.written(element, "area"), out)
    area = np.array([1.0]) if area is None else area  # the XML reference's defaults where nothing writes them
    out.add(f"{name} area", area, [_actuator_row(model, "actuator_gainprm", a)[0]])
    bias = _numbers(mjcf.written(element, "bias"))
    timeconst = _one(mjcf.written(element, "timeconst"), out)
    out.add(f"{name} bias", np.zeros(3) if bias is None else bias, _actuator_row(model, "actuator_biasprm", a))
    out.add(f"{name} timeconst", np.array([1.0]) if timeconst is None else timeconst,
            [_actuator_row(model, "actuator_dynprm", a)[0]])


def _section(mjcf: Mjcf, section: str) -> tuple[str, ...]:
    """The tags read from a section (`equality:weld`, ...), in any order: `in_order` keeps the file's."""
    return tuple(tag for tag in mjcf.elements if tag.startswith(section + ":"))


def _pair(model: mujoco.MjModel, mjcf: Mjcf, element: Element, i: int, out: Comparison) -> None:
    name = _label(element, i)
    for attr, array in (("friction", model.pair_friction[i]), ("solref", model.pair_solref[i]),
                        ("solreffriction", model.pair_solreffriction[i]), ("solimp", model.pair_solimp[i]),
                        ("margin", [model.pair_margin[i]]), ("gap", [model.pair_gap[i]]),
                        ("condim", [model.pair_dim[i]])):
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr)), array)


def _equality(model: mujoco.MjModel, mjcf: Mjcf, element: Element, i: int, out: Comparison) -> None:
    name = _label(element, i)
    written = (lambda attr: mjcf.written(element, attr, ("equality",)))
    for attr, array in (("solref", model.eq_solref[i]), ("solimp", model.eq_solimp[i])):
        out.add(f"{name} {attr}", _numbers(written(attr)), array)
    kind = element.tag.split(":", 1)[1]
    if kind in ("joint", "tendon"):  # eq_data[0:5]: the polynomial's coefficients (XML reference, equality/joint)
        out.add(f"{name} polycoef", _numbers(written("polycoef")), model.eq_data[i][:5])
    if kind == "weld":  # eq_data[10]: the weld's torquescale
        out.add(f"{name} torquescale", _one(written("torquescale"), out), [model.eq_data[i][10]])


def _actuator_row(model: mujoco.MjModel, array: str, a: int) -> np.ndarray | None:
    """Actuator `a`'s row of `array`: one a row per actuator, or its first control's (`ctrlrange`) or first force
    output's (`gear`) where MuJoCo 3.11's actuators take several (an orientation servo: three); None on a release
    without the array."""
    values = getattr(model, array, None)
    if values is None:
        return None
    if values.shape[0] != mujoco_versions.actuator_count(model):
        for count, address in (("nu", "actuator_ctrladr"), ("nout", "actuator_outadr")):
            if hasattr(model, address) and values.shape[0] == int(getattr(model, count)):
                return np.ravel(values[int(getattr(model, address)[a])])
    return np.ravel(values[a])


def _row(model: mujoco.MjModel, array: str, i: int) -> np.ndarray | None:
    """Row `i` of the model's `array`, None on a release without it."""
    values = getattr(model, array, None)
    return None if values is None else np.ravel(values[i])


# <option>'s keywords as MuJoCo's enums spell them (mjtIntegrator, mjtCone, mjtJacobian, mjtSolver)
KEYWORDS = {"integrator": ("mjtIntegrator", "mjINT_"), "cone": ("mjtCone", "mjCONE_"),
            "jacobian": ("mjtJacobian", "mjJAC_"), "solver": ("mjtSolver", "mjSOL_")}


def _options(model: mujoco.MjModel, mjcf: Mjcf, out: Comparison) -> None:
    """Each `<option>` attribute the file writes against `mjModel.opt`: numbers as written, keywords as MuJoCo's
    enums; attributes this release's `mjOption` lacks are left out, named."""
    if mjcf.option and mjcf.attaches:
        out.left["<option> (an attached model's settings may merge into it)"] += 1
        return
    for attr, text in mjcf.option.items():
        if attr in KEYWORDS:
            enum, prefix = KEYWORDS[attr]
            value = getattr(getattr(mujoco, enum), prefix + text.upper(), None)
            written = None if value is None else np.array([float(int(value))])
        else:
            written = _numbers(text)
        compiled = getattr(model.opt, attr, None)
        if written is None or compiled is None:
            out.left["<option> attributes this reading does not compare"] += 1
            continue
        out.add(f"option {attr}", written, np.atleast_1d(np.asarray(compiled, float)))


def _inertial(model: mujoco.MjModel, mjcf: Mjcf, element: Element, b: int, degrees: bool, out: Comparison) -> None:
    attrib = {k.split(":", 1)[1]: v for k, v in element.attrib.items() if k.startswith("inertial:")}
    if not attrib:
        return
    name = _label(element, b) + " inertial"
    out.add(f"{name} mass", _one(attrib.get("mass"), out), [model.body_mass[b]])
    out.add(f"{name} pos", _numbers(attrib.get("pos")), model.body_ipos[b])
    written = _tensor(attrib, mjcf.compiler, degrees)
    if written is None:
        out.left["inertials whose orientation or tensor this reading cannot take"] += 1
        return
    turn = np.zeros(9)
    mujoco.mju_quat2Mat(turn, np.asarray(model.body_iquat[b], float))
    turn = turn.reshape(3, 3)
    compiled = turn @ np.diag(model.body_inertia[b]) @ turn.T
    out.add(f"{name} inertia (body frame)", written.ravel(), compiled.ravel())


def _pose(model: mujoco.MjModel, mjcf: Mjcf, element: Element, b: int, degrees: bool, out: Comparison) -> None:
    """A body's place in its parent: its pos and orientation through the frames and replicate copies around it."""
    if element.body in mjcf.aligned or element.parent in mjcf.aligned:
        out.left["bodies the compiler aligns with their inertia, or in one (a free joint's align)"] += 1
        return
    if (mjcf.body_name(element.parent) or "") != (model.body(int(model.body_parentid[b])).name or "world"):
        # its written parent fused into the grandparent (fusestatic): its place is composed through it
        out.left["bodies whose parent the compiler fuses into its own"] += 1
        return
    _placed(element.attrib, element, model.body_pos[b], model.body_quat[b], _label(element, b), mjcf, degrees, out)


def _part_place(model: mujoco.MjModel, mjcf: Mjcf, element: Element, i: int, degrees: bool, out: Comparison) -> None:
    """A geom's or site's place in its body, through the frames and replicate copies around it (a fromto: its
    middle, its z axis along it); not compared: a mesh or SDF geom, or a primitive fitted to a mesh (the compiler
    moves it to its mesh's own frame, or the fit's);
    left out, named: a part of a body the compiler aligns or fuses into another."""
    kind = mjcf.written(element, "type") or "sphere"
    if element.tag == "geom" and (kind in ("mesh", "sdf") or mjcf.written(element, "mesh") is not None):
        return  # its place is the mesh's frame, or the primitive fitted to it, by design (XML reference: geom mesh)
    if element.body in mjcf.aligned or mjcf.compiler.get("fusestatic") == "true":
        out.left[f"{element.tag}s of bodies the compiler aligns or fuses"] += 1
        return
    array = model.geom_pos if element.tag == "geom" else model.site_pos
    turns = model.geom_quat if element.tag == "geom" else model.site_quat
    ends = _numbers(mjcf.written(element, "fromto"))
    if ends is None:
        _placed(_part_pose(mjcf, element), element, array[i], turns[i], _label(element, i), mjcf, degrees, out)
        return
    # fromto sets a place and an axis (the XML reference): its middle, and its z axis along the segment; the turn
    # about that axis and the axis's sense are the compiler's (a capsule, cylinder, box or ellipsoid is symmetric)
    if len(ends) != 6 or not np.any(ends[3:] != ends[:3]):
        out.left[f"{element.tag}s whose fromto this reading cannot take"] += 1
        return
    placed = place({"pos": _text((ends[:3] + ends[3:]) / 2)}, element.frames, mjcf.compiler, degrees)
    if placed is None:
        out.left[f"{element.tag}s whose place this reading cannot take"] += 1
        return
    axis = placed[1] @ (ends[3:] - ends[:3]) / np.linalg.norm(ends[3:] - ends[:3])
    turn = np.zeros(9)
    mujoco.mju_quat2Mat(turn, np.asarray(turns[i], float))
    compiled = turn.reshape(3, 3)[:, 2]
    name = _label(element, i)
    out.add(f"{name} pos (in its body)", placed[0], array[i])
    out.add(f"{name} fromto axis (in its body)", axis, compiled if axis @ compiled >= 0 else -compiled)


def _text(values: np.ndarray) -> str:
    return " ".join(repr(float(v)) for v in values)


def _placed(attrib: dict[str, str], element: Element, pos: np.ndarray, quat: np.ndarray, name: str, mjcf: Mjcf,
            degrees: bool, out: Comparison) -> None:
    placed = place(attrib, element.frames, mjcf.compiler, degrees)
    if placed is None:
        out.left[f"{element.tag}s whose place this reading cannot take"] += 1
        return
    turn = np.zeros(9)
    mujoco.mju_quat2Mat(turn, np.asarray(quat, float))
    where = "its parent" if element.tag == "body" else "its body"
    out.add(f"{name} pos (in {where})", placed[0], pos)
    out.add(f"{name} orientation (in {where})", placed[1].ravel(), turn)


def _part_pose(mjcf: Mjcf, element: Element) -> dict[str, str]:
    """The element's pos and orientation as written: an orientation spelled on the element is its own, whatever
    spelling its class's default uses (MuJoCo 3.16 on: a default class's euler no longer overrides a geom's or site's
    own quat, commit 9fd6ee02); else its class's."""
    attrib = {k: v for k in ("pos", *ORIENTATIONS) if (v := mjcf.written(element, k)) is not None}
    own = [k for k in ORIENTATIONS if k in element.attrib]
    if own:
        attrib = {k: v for k, v in attrib.items() if k == "pos" or k in own}
    return attrib


def place(attrib: dict[str, str], frames: tuple, compiler: dict[str, str],
          degrees: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """(position, rotation) an element's pos and orientation write, in its body's frame (a body's: its parent's),
    through the frames around it, outermost first: a <frame>'s pos and orientation once, a <replicate>'s offset and
    euler k times for its copy k (copy k steps from copy k - 1 along copy k - 1's axes); None where an orientation
    cannot be taken."""
    pos, turn = np.zeros(3), np.eye(3)
    for tag, frame, times in frames:
        step = _numbers(frame.get("offset" if tag == "replicate" else "pos"))
        rotation = orientation({k: v for k, v in frame.items() if tag != "replicate" or k == "euler"}, compiler,
                               degrees)
        if rotation is None or (step is not None and len(step) != 3):
            return None
        step = np.zeros(3) if step is None else step
        for _ in range(times):
            pos, turn = pos + turn @ step, turn @ rotation
    own, rotation = _numbers(attrib.get("pos")), orientation(attrib, compiler, degrees)
    if rotation is None or (own is not None and len(own) != 3):
        return None
    return pos + turn @ (np.zeros(3) if own is None else own), turn @ rotation


def _tensor(attrib: dict[str, str], compiler: dict[str, str], degrees: bool) -> np.ndarray | None:
    """The inertia tensor the inertial writes, in its body's frame."""
    full = _numbers(attrib.get("fullinertia"))
    if full is not None:
        if len(full) != 6:
            return None
        xx, yy, zz, xy, xz, yz = full
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    diagonal = _numbers(attrib.get("diaginertia"))
    turn = orientation(attrib, compiler, degrees)
    if diagonal is None or len(diagonal) != 3 or turn is None:
        return None
    return turn @ np.diag(diagonal) @ turn.T


def orientation(attrib: dict[str, str], compiler: dict[str, str], degrees: bool) -> np.ndarray | None:
    """The rotation an element's orientation attribute writes (quat, euler, axisangle, xyaxes, zaxis; identity where
    none), MuJoCo's conventions: quat w x y z; euler by the compiler's eulerseq, each lowercase axis turning with the
    frame, each uppercase fixed; angles in degrees unless `<compiler angle="radian">`."""
    unit = math.pi / 180.0 if degrees else 1.0
    given = [k for k in ORIENTATIONS if k in attrib]
    if len(given) > 1:
        return None
    values = _numbers(attrib[given[0]]) if given else np.zeros(0)
    if values is None:
        return None
    if not given:
        return np.eye(3)
    kind = given[0]
    if kind == "quat" and len(values) == 4:
        out = np.zeros(9)
        mujoco.mju_quat2Mat(out, values / np.linalg.norm(values))
        return out.reshape(3, 3)
    if kind == "euler" and len(values) == 3:
        turn = np.eye(3)
        for axis, angle in zip(compiler.get("eulerseq", "xyz"), values * unit):
            step = _about(np.eye(3)["xyz".index(axis.lower())], angle)
            turn = turn @ step if axis.islower() else step @ turn
        return turn
    if kind == "axisangle" and len(values) == 4:
        return _about(values[:3] / np.linalg.norm(values[:3]), values[3] * unit)
    if kind == "xyaxes" and len(values) == 6:
        x = values[:3] / np.linalg.norm(values[:3])
        y = values[3:] - (values[3:] @ x) * x
        y /= np.linalg.norm(y)
        return np.column_stack([x, y, np.cross(x, y)])
    if kind == "zaxis" and len(values) == 3:
        z = values / np.linalg.norm(values)
        axis = np.cross([0.0, 0.0, 1.0], z)
        sine = float(np.linalg.norm(axis))
        # the compiler (user_util.cc: mjuu_z2quat, mjuu_normvec) takes a squared sine under 1e-14 as no turn
        if sine * sine >= 1e-14:
            return _about(axis / sine, math.atan2(sine, z[2]))
        return np.eye(3) if z[2] > 0 else np.diag([1.0, -1.0, -1.0])  # along -z: half a turn about x
    return None


def _about(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` about the unit `axis` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


@pytest.mark.law("model-compiled-as-written", source=SOURCE)
def test_compiled_as_written(law, pack_model, model_case) -> None:
    """Each element's physical attributes, as its MJCF file writes them (on the element or from its default
    class), are the compiled model's, to 1e-9 of their size."""
    try:
        mjcf = mjcf_text.read(pack_model.path)
    except mjcf_text.Unreadable as exc:
        pytest.skip(f"{model_case}: the MJCF text cannot be read here ({exc})")
    compared = compare(pack_model.model, mjcf)
    left = dict(compared.left)
    named = "; ".join(f"{why}: {n}" for why, n in sorted(left.items()))
    worst = compared.worst()
    if worst is None:
        pytest.skip(f"{model_case}: no element writes a value this law compares" + (f" (left out: {named})"
                                                                                          if named else ""))
    ratio, what, written, compiled = worst
    law.check("apart_over_round_off", ratio, le=1.0, drift_abs=1.0,
              why=f"|compiled - written| over 1e-9 of the value + 1e-12, worst of {len(compared.rows)} values: {what}, "
                  f"written {np.array2string(written, precision=6)}, compiled {np.array2string(compiled, precision=6)}"
                  + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__} compiled the file to another value than it writes (3.10.0: "
                  "a damper's kv from a default class as 0; 3.3.0: a replicate's copies stepped along the axes of the "
                  "copy before): a reader or compiler defect, not the model's; report it, or change MuJoCo version")
