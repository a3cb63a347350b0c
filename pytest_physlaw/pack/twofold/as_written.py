"""A model compiles to what its MJCF writes: each named joint's, geom's, tendon's and actuator's physical attributes,
and each named body's `<inertial>`, written on the element or inherited from its default class, are the compiled
model's values, converted as MuJoCo's XML reference documents them (degrees to radians for hinge and ball ranges; a
position servo's kp as gain and bias, a damper's kv as its gain; an inertial's principal moments turned by its
orientation, any of quat, euler, axisangle, xyaxes and zaxis, or its full tensor). The second computation is the
file's text read apart from MuJoCo's parser (`twofold.mjcf_text`): a release whose reader or compiler loses a value
(3.10.0: a damper's kv from a default class compiled as 0; 3.2.3: an inertial's euler ignored) is seen here before
any run. Source: MuJoCo's XML reference (joint, geom, tendon, actuator shortcuts, inertial; compiler angle and
eulerseq; default classes).

Bound: 1e-9 of each value's size (MuJoCo and Python read decimal text to the same doubles; a full inertia is
diagonalized by the compiler, to far below that), 1e-12 absolute. Left out, and named: unnamed elements (no name to
find them by), elements of `<replicate>`, `<attach>`, `<composite>`, `<flexcomp>`, names the compiled model lacks (a
body fused into its parent), a shortcut's kp and kv where its class chain also sets another actuator kind's defaults
(MuJoCo's shortcuts then share one default actuator), several numbers where this reading expects one, and every
inertial where the compiler rewrites inertia (`inertiafromgeom="true"`, `boundmass`, `boundinertia`,
`balanceinertia`, `settotalmass`).

Measured figures and commands: docs/second-computations.md ("A model compiles to what its file writes").
"""

from __future__ import annotations

import math
from collections import Counter

import mujoco
import numpy as np
import pytest

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
REWRITES_INERTIA = ("boundmass", "boundinertia", "balanceinertia", "settotalmass")


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
    """Every written value of the named elements against the compiled model."""
    out = Comparison()
    degrees = mjcf.compiler.get("angle", "degree") != "radian"
    for element in mjcf.elements.get("joint", []):
        _joint(model, mjcf, element, degrees, out)
    for element in mjcf.elements.get("geom", []):
        _geom(model, mjcf, element, out)
    for tag in ("spatial", "fixed"):
        for element in mjcf.elements.get(tag, []):
            _tendon(model, mjcf, element, out)
    for tag in ACTUATOR_KINDS:
        for element in mjcf.elements.get(tag, []):
            _actuator(model, mjcf, element, out)
    rewrites = [k for k in REWRITES_INERTIA if k in mjcf.compiler]
    if mjcf.compiler.get("inertiafromgeom") == "true":
        rewrites.append("inertiafromgeom")
    for element in mjcf.elements.get("body", []):
        if rewrites:
            out.left[f"inertials (the compiler rewrites them: {', '.join(rewrites)})"] += 1
        else:
            _inertial(model, mjcf, element, degrees, out)
    return out


def _id(model: mujoco.MjModel, kind: OBJ, element: Element, out: Comparison) -> int:
    found = mujoco.mj_name2id(model, kind, element.attrib["name"])
    if found < 0:
        out.left["names the compiled model lacks"] += 1
    return found


def _joint(model: mujoco.MjModel, mjcf: Mjcf, element: Element, degrees: bool, out: Comparison) -> None:
    j = _id(model, OBJ.mjOBJ_JOINT, element, out)
    if j < 0:
        return
    name = f"joint {element.attrib['name']!r}"
    kind = mjcf.written(element, "type") or "hinge"
    if kind not in JOINT_TYPES:
        out.left["joint types this reading does not know"] += 1
        return
    out.add(f"{name} type ({kind})", np.array([JOINT_TYPES[kind]], float), [model.jnt_type[j]])
    dofs = slice(int(model.jnt_dofadr[j]), int(model.jnt_dofadr[j]) + {0: 6, 1: 3}.get(JOINT_TYPES[kind], 1))
    sprung = _numbers(mjcf.written(element, "springdamper"))
    if sprung is not None and np.any(sprung != 0):
        out.left["joints whose springdamper sets their stiffness and damping"] += 1
    else:
        value = _one(mjcf.written(element, "damping"), out)
        if value is not None:
            out.add(f"{name} damping", np.full(dofs.stop - dofs.start, value[0]), model.dof_damping[dofs])
        out.add(f"{name} stiffness", _one(mjcf.written(element, "stiffness"), out), [model.jnt_stiffness[j]])
    for attr, array in (("armature", model.dof_armature), ("frictionloss", model.dof_frictionloss)):
        value = _one(mjcf.written(element, attr), out)
        if value is not None:
            out.add(f"{name} {attr}", np.full(dofs.stop - dofs.start, value[0]), array[dofs])
    span = _numbers(mjcf.written(element, "range"))
    limited = _limited(mjcf, element, span is not None)
    out.add(f"{name} limited", np.array([float(limited)]), [model.jnt_limited[j]])
    if span is not None and len(span) == 2:
        # the compiler turns a limited hinge's or ball's range from degrees; an unlimited one's stays as written
        unit = math.pi / 180.0 if degrees and limited and kind in ("hinge", "ball") else 1.0
        out.add(f"{name} range", span * unit, model.jnt_range[j])


def _limited(mjcf: Mjcf, element: Element, ranged: bool) -> bool:
    """Whether the joint is limited as written: limited="true"/"false", else (auto, or unset) where it has a range
    and the compiler's autolimits is on (MuJoCo's default)."""
    text = mjcf.written(element, "limited")
    if text in ("true", "false"):
        return text == "true"
    return ranged and mjcf.compiler.get("autolimits", "true") == "true"


def _one(text: str | None, out: Comparison) -> np.ndarray | None:
    value = _numbers(text)
    if value is not None and len(value) != 1:
        out.left["several numbers where one was expected"] += 1
        return None
    return value


def _geom(model: mujoco.MjModel, mjcf: Mjcf, element: Element, out: Comparison) -> None:
    g = _id(model, OBJ.mjOBJ_GEOM, element, out)
    if g < 0:
        return
    name = f"geom {element.attrib['name']!r}"
    for attr, array in (("friction", model.geom_friction[g]), ("solref", model.geom_solref[g]),
                        ("solimp", model.geom_solimp[g]), ("margin", [model.geom_margin[g]]),
                        ("gap", [model.geom_gap[g]]), ("condim", [model.geom_condim[g]]),
                        ("priority", [model.geom_priority[g]])):
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr)), array)


def _tendon(model: mujoco.MjModel, mjcf: Mjcf, element: Element, out: Comparison) -> None:
    t = _id(model, OBJ.mjOBJ_TENDON, element, out)
    if t < 0:
        return
    name = f"tendon {element.attrib['name']!r}"
    for attr, array in (("stiffness", model.tendon_stiffness[t]), ("damping", model.tendon_damping[t]),
                        ("frictionloss", [model.tendon_frictionloss[t]]), ("range", model.tendon_range[t])):
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr, ("tendon",))), array)


def _actuator(model: mujoco.MjModel, mjcf: Mjcf, element: Element, out: Comparison) -> None:
    a = _id(model, OBJ.mjOBJ_ACTUATOR, element, out)
    if a < 0:
        return
    name = f"{element.tag} {element.attrib['name']!r}"
    others = mjcf.default_tags(element, ACTUATOR_KINDS) - {element.tag}
    for attr, array in (("gear", model.actuator_gear[a]), ("ctrlrange", model.actuator_ctrlrange[a]),
                        ("forcerange", model.actuator_forcerange[a])):
        if attr not in element.attrib and others:
            continue  # another kind's default may set it, and the shortcuts share one default actuator
        out.add(f"{name} {attr}", _numbers(mjcf.written(element, attr)), array)
    shortcuts = [(attr, targets) for (tag, attr), targets in GAINS.items() if tag == element.tag]
    if element.tag == "general":
        shortcuts = []
        for attr in ("gainprm", "biasprm"):
            written = element.attrib.get(attr) if others else mjcf.written(element, attr)
            out.add(f"{name} {attr}", _numbers(written), getattr(model, f"actuator_{attr}")[a])
    for attr, targets in shortcuts:
        if others and attr not in element.attrib:
            out.left["a shortcut's gain where its class chain also sets another actuator kind's defaults"] += 1
            continue
        value = _one(mjcf.written(element, attr), out)
        if value is None:
            continue
        for array, index, sign in targets:
            out.add(f"{name} {attr} ({array}[{index}])", sign * value, [getattr(model, array)[a][index]])


def _inertial(model: mujoco.MjModel, mjcf: Mjcf, element: Element, degrees: bool, out: Comparison) -> None:
    attrib = {k.split(":", 1)[1]: v for k, v in element.attrib.items() if k.startswith("inertial:")}
    if not attrib:
        return
    b = _id(model, OBJ.mjOBJ_BODY, element, out)
    if b < 0:
        return
    name = f"body {element.attrib['name']!r} inertial"
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
    given = [k for k in ("quat", "euler", "axisangle", "xyaxes", "zaxis") if k in attrib]
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
        if sine > 1e-12:
            return _about(axis / sine, math.atan2(sine, z[2]))
        return np.eye(3) if z[2] > 0 else np.diag([1.0, -1.0, -1.0])  # along -z: half a turn about x
    return None


def _about(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` about the unit `axis` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


@pytest.mark.law("model-compiled-as-written", source=SOURCE)
def test_compiled_as_written(law, pack_model, model_case) -> None:
    """Each named element's physical attributes, as its MJCF file writes them (on the element or from its default
    class), are the compiled model's, to 1e-9 of their size."""
    try:
        mjcf = mjcf_text.read(pack_model.path)
    except mjcf_text.Unreadable as exc:
        pytest.skip(f"{model_case}: the MJCF text cannot be read here ({exc})")
    compared = compare(pack_model.model, mjcf)
    left = dict(compared.left)
    if mjcf.unnamed:
        left["unnamed elements"] = mjcf.unnamed
    named = "; ".join(f"{why}: {n}" for why, n in sorted(left.items()))
    worst = compared.worst()
    if worst is None:
        pytest.skip(f"{model_case}: no named element writes a value this law compares" + (f" (left out: {named})"
                                                                                          if named else ""))
    ratio, what, written, compiled = worst
    law.check("apart_over_round_off", ratio, le=1.0, drift_abs=1.0,
              why=f"|compiled - written| over 1e-9 of the value + 1e-12, worst of {len(compared.rows)} values: {what}, "
                  f"written {np.array2string(written, precision=6)}, compiled {np.array2string(compiled, precision=6)}"
                  + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__} compiled the file to another value than it writes (3.10.0: "
                  "a damper's kv from a default class as 0): a reader or compiler defect, not the model's; report it, "
                  "or change MuJoCo version")
