"""A spec edited after its compile and compiled again is the spec compiled once with the edit: each `<frame>` and each
body of the model's MjSpec moved by a tenth of the model's extent and turned by 0.3 rad, after the spec was compiled,
then compiled again, places every body, joint, geom and site, and sets the reference pose, where a fresh spec with the same
edit compiles them. That is how users randomize a scene's layout and tune a robot in a script (MuJoCo's model
editing: "compile, edit, recompile"). Source: MuJoCo's documentation (Modeling: model editing; changelog 3.14.0:
changes to a frame's pos or quat take effect when the spec is recompiled, where before the frame kept the pose it
had at the first compile, from 3.2.0).

The two computations: the file's spec compiled, edited and compiled again (`recompiled`), and the file's spec edited
and compiled once (`recompiled` with `first=False`), both through `recompile.compiled` (in a child process before
MuJoCo 3.14). Compared: each body's, joint's, geom's and site's place in its parent (`body_pos`, `body_quat`,
`jnt_pos`, `jnt_axis`, `geom_pos`, `geom_quat`, `site_pos`, `site_quat`) and the reference pose `qpos0`; not the
keyframes (what a keyframe leaves out is filled from the first compile's `qpos0` and kept, by design from 3.16.0).
The elements edited are the file's, read before the first compile (which adds what replicates, composites,
flexcomps and attachments make). A spec that fuses its static bodies (`<compiler fusestatic="true"/>`) is skipped,
naming why: its compile removes the fused bodies from the spec itself (MuJoCo 3.16.0 and 4.0.1: the corpus's arm with
a fixed foot pad has three bodies before its first compile, two after), so the spec compiled again is another spec
than the one edited, and an edit of a removed body touches an element MuJoCo has freed (3.14.0 then crashes the
process or returns another model, at random). A model whose edited spec does not compile (a flex whose elements the turn
degenerates, a muscle's length range that no longer converges) is skipped, naming MuJoCo's message.

Bound: the same compile of the same numbers, 1e-9 of each quantity's scale (positions: the model's extent).

Measured figures and commands: docs/second-computations.md ("A spec compiled again takes its edits").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import recompile

SOURCE = ("MuJoCo documentation, Modeling (model editing: compile, edit, recompile); changelog 3.14.0 (a frame's "
          "pos and quat edited in an MjSpec take effect on recompile, fixed)")
SHARE = 0.1  # of the model's extent: each frame and body moved by this
TURN = 0.3  # radians: each frame and body turned by this
ROUND_OFF = 1e-9
# not the keyframes: the values a keyframe leaves out are filled from qpos0 at the first compile and kept after it
# (MuJoCo 3.16.0 on: "keyframes keep their values"), so a moved free body's keyframe differs by design
PLACES = ("body_pos", "body_quat", "jnt_pos", "jnt_axis", "geom_pos", "geom_quat", "site_pos", "site_quat", "qpos0")


def _moved(element, k: int, length: float) -> None:
    """Move and turn one spec element (a body or a frame), along a direction that turns with `k`."""
    angle = k * 2.399963  # the golden angle: no two neighbours alike
    direction = np.array([np.cos(angle), np.sin(angle), 0.5 if k % 2 else -0.5])
    element.pos = np.asarray(element.pos) + length * direction / np.linalg.norm(direction)
    turn, quat = np.zeros(4), np.zeros(4)
    mujoco.mju_axisAngle2Quat(turn, direction / np.linalg.norm(direction), TURN)
    mujoco.mju_mulQuat(quat, np.asarray(element.quat, dtype=float), turn)
    element.quat = quat


def editable(spec) -> list:
    """The spec's frames and bodies but the world, as the file writes them: read before any compile, which adds the
    elements that replicates, composites, flexcomps and attachments make."""
    return list(getattr(spec, "frames", [])) + [b for b in spec.bodies if b.name != "world"]


def edit(elements: list, extent: float) -> int:
    """Move and turn each of `elements`; how many were edited."""
    for k, element in enumerate(elements):
        _moved(element, k, SHARE * extent)
    return len(elements)


def recompiled(path: str, first: bool = True) -> mujoco.MjModel:
    """The model at `path` as a spec, compiled (with `first`), edited (`edit`), compiled; the extent travels after '#'."""
    file, _, extent = path.rpartition("#")
    spec = mujoco.MjSpec.from_file(file)
    elements = editable(spec)
    if first:
        spec.compile()
    edit(elements, float(extent))
    return spec.compile()


def _once(path: str) -> mujoco.MjModel:
    """`recompile.compiled`'s build of the edited spec compiled once."""
    return recompiled(path, first=False)


def apart(once: mujoco.MjModel, again: mujoco.MjModel) -> tuple[float, str]:
    """(the largest difference of a place or reference pose between the two compiles over ROUND_OFF of its scale,
    which)."""
    worst = (0.0, "none")
    extent = max(float(once.stat.extent), 1e-9)
    for name in PLACES:
        first, second = np.asarray(getattr(once, name)), np.asarray(getattr(again, name))
        if first.shape != second.shape:
            return float("inf"), f"{name}: {first.shape} against {second.shape}"
        scale = extent if name.endswith("pos") else 1.0
        share = float(np.max(np.abs(first - second), initial=0.0)) / (ROUND_OFF * scale)
        if share > worst[0]:
            k = int(np.argmax(np.max(np.abs(first - second).reshape(len(first), -1), axis=1)))
            worst = (share, f"{name} of element {k}")
    return worst


@pytest.mark.law("model-recompiled-takes-its-edits", source=SOURCE)
def test_recompiled_spec_takes_its_edits(law, pack_model, model_case) -> None:
    """Every frame and body of the model's spec moved and turned after a compile, compiled again, places every body,
    joint, geom and site and sets the reference pose as the same edit compiled once, to 1e-9 of each scale."""
    model = pack_model.model
    if not hasattr(mujoco, "MjSpec"):
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} has no MjSpec (3.2 on)")
    if recompile.fuses_static(str(pack_model.path)):
        pytest.skip(f"{model_case}: fuses its static bodies, which its first compile removes from the spec itself: "
                    "compiled again, it is another spec than the one edited (no second computation of the edit)")
    path = f"{pack_model.path}#{max(float(model.stat.extent), 1e-3)!r}"
    try:
        once, again = recompile.compiled(_once, path), recompile.compiled(recompiled, path)
    except (ValueError, RuntimeError) as exc:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} cannot compile the edited spec: {exc}".replace("\n", " "))
    share, which = apart(once, again)
    law.check("recompile_apart_over_round_off", share, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a compiled place or reference pose between the edited spec compiled "
                  f"again and compiled once, over {ROUND_OFF:g} of its scale: {which}; failing, MuJoCo "
                  f"{mujoco.__version__}'s recompile keeps something of the first compile (3.2.0 to 3.13.0 kept a "
                  "frame's first pose): an engine defect; build a fresh spec for each edit, or change MuJoCo version")
