"""A flexcomp is placed where its file writes it: each vertex of the flex a `<flexcomp>` makes starts where the same
flexcomp, made alone at the world's origin, puts it, carried by the frames around the flexcomp and the body it is
in. The `<frame>`s and the body around an element place it whatever the element (MJCF reference: frame, "a frame
moves and rotates the elements it holds"); a release that makes a flexcomp in place of it somewhere else sets a cloth
or a soft body down where nothing was meant to be, while the run stays consistent with itself. Source: MuJoCo's XML
reference (frame, flexcomp; changelog 4.0.0: loading MJCF now applies an enclosing frame to a flexcomp).

The two computations: the model's flex vertices at `qpos0` (`flexvert_xpos` after `mj_forward`), and the flexcomp's
element copied alone into a probe model (the file's compiler settings, its mesh folder made absolute, its plugin
extensions), at the world's origin, compiled by MuJoCo, its vertices carried through the frames around the flexcomp
in the file (`as_written.place`, read apart from MuJoCo's parser) and the pose of the body it is in at `qpos0`.
Vertex for vertex: the same generator makes both. The bound is round-off: 1e-9 of the model's extent.

Measured figures and commands: docs/second-computations.md ("A flexcomp's place").
"""

from __future__ import annotations

import copy
import os
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import as_written, mjcf_text

SOURCE = "MuJoCo XML reference (frame, flexcomp); changelog 4.0.0 (an enclosing frame applied to a flexcomp)"
ROUND_OFF = 1e-9  # of the model's extent: the same generator, poses composed in another order
FOLDERS = ("meshdir", "texturedir", "assetdir")


def probe_text(mjcf: mjcf_text.Mjcf, flexcomp: ET.Element, folder: str) -> str:
    """A model of `flexcomp` alone at the world's origin: the file's compiler settings (its asset folders made
    absolute), its plugin extensions, no material (drawing only)."""
    compiler = dict(mjcf.compiler)
    for name in FOLDERS:
        if name in compiler or name == "meshdir":
            compiler[name] = os.path.join(folder, compiler.get(name, compiler.get("assetdir", ""))) + os.sep
    root = ET.Element("mujoco")
    ET.SubElement(root, "compiler", compiler)
    root.extend(copy.deepcopy(mjcf.extensions))
    alone = copy.deepcopy(flexcomp)
    alone.attrib.pop("material", None)
    ET.SubElement(root, "worldbody").append(alone)
    return ET.tostring(root, encoding="unicode")


def at_rest(model: mujoco.MjModel) -> mujoco.MjData:
    """`model` forwarded at qpos0."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return data


def vertices(model: mujoco.MjModel, name: str, data: mujoco.MjData) -> np.ndarray | None:
    """The world positions of flex `name`'s vertices in `data` (forwarded), or None where the model has no such
    flex."""
    f = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_FLEX, name)
    if f < 0:
        return None
    start, count = int(model.flex_vertadr[f]), int(model.flex_vertnum[f])
    return np.array(data.flexvert_xpos[start:start + count])


def body_pose(model: mujoco.MjModel, mjcf: mjcf_text.Mjcf, body: int,
              data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray] | None:
    """(position, rotation) in `data` (forwarded at qpos0) of the body the file writes the flexcomp in (0: the
    world), found by name; None where the file leaves it unnamed."""
    if body <= 0:
        return np.zeros(3), np.eye(3)
    name = mjcf.body_name(body)
    b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) if name else -1
    if b < 0:
        return None
    return np.array(data.xpos[b]), np.array(data.xmat[b]).reshape(3, 3)


def placements(model: mujoco.MjModel, path: str) -> tuple[list[tuple[str, float]], list[str]]:
    """([(flexcomp, its vertices' largest distance from where the file places them over the bound)], [flexcomps
    left out, each with why])."""
    mjcf = mjcf_text.read(path)
    degrees = mjcf.compiler.get("angle", "degree") != "radian"
    found, left = [], []
    bound = ROUND_OFF * max(float(model.stat.extent), 1.0)
    rest = at_rest(model)
    for element, body, frames in mjcf.flexcomps:
        name = element.get("name")
        pose, framed = body_pose(model, mjcf, body, rest), as_written.place({}, frames, mjcf.compiler, degrees)
        actual = vertices(model, name, rest) if name else None
        if actual is None or pose is None or framed is None:
            left.append(f"{name or 'an unnamed flexcomp'} (unnamed, or in an unnamed body, or its frame unread)")
            continue
        try:
            probe = mujoco.MjModel.from_xml_string(probe_text(mjcf, element, os.path.dirname(os.path.abspath(path))))
        except ValueError as exc:
            left.append(f"{name} (made alone, MuJoCo refuses it: {str(exc).splitlines()[0]})")
            continue
        alone = vertices(probe, name, at_rest(probe))
        if alone is None or alone.shape != actual.shape:
            left.append(f"{name} (made alone, another number of vertices)")
            continue
        (x, turn), (offset, rotation) = pose, framed
        expected = x + (offset + alone @ rotation.T) @ turn.T
        found.append((name, float(np.max(np.linalg.norm(actual - expected, axis=1))) / bound))
    return found, left


@pytest.mark.law("model-flexcomps-placed-as-written", source=SOURCE)
def test_flexcomps_are_placed_as_written(law, pack_model, model_case) -> None:
    """Each flexcomp's vertices start where the flexcomp made alone puts them, carried through the frames around
    it and the body it is in, to 1e-9 of the extent."""
    model = pack_model.model
    if not model.nflex:
        pytest.skip(f"{model_case}: the model has no flex")
    try:
        found, left = placements(model, str(pack_model.path))
    except mjcf_text.Unreadable as exc:
        pytest.skip(f"{model_case}: its text cannot be read apart from MuJoCo ({exc})")
    if not found:
        pytest.skip(f"{model_case}: no flexcomp to place" + (f"; left out: {'; '.join(left)}" if left else ""))
    name, worst = max(found, key=lambda f: f[1])
    law.check("flexcomp_apart_over_round_off", worst, le=1.0, drift_abs=1.0,
              why=f"the largest distance of a flexcomp's vertex at qpos0 from where the file places it (the "
                  f"flexcomp made alone, carried through its frames and body), over 1e-9 of the extent: {name!r}"
                  f"{'; left out: ' + '; '.join(left) if left else ''}; failing, MuJoCo {mujoco.__version__} "
                  "makes the flexcomp somewhere else than its file writes it (before 4.0: an enclosing <frame> "
                  "ignored), an engine defect: move the frame's pose onto the flexcomp, or change MuJoCo version")
