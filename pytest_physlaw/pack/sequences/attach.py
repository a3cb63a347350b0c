"""A tool attached to a model leaves the model as it was: a small two-joint tool (a roll hinge and a slide finger, its
geoms touching nothing) attached by `MjSpec.attach` to a body of the compiled model's spec, the spec compiled again,
keeps each keyframe's positions and controls for the model's own joints and actuators (the tool's joints at their
reference pose) and places the model's bodies where they were at every state the runs reach.
That is how scenes are composed (a gripper on an arm, a robot into a room: MuJoCo's model editing, mjlab, robot
descriptions). Source: MuJoCo's documentation (Modeling: model editing, attachment; changelog 3.16.0: keyframes keep
their place and values when the kinematic tree changes by mjs_attach, where before the tree's new joints took the
numbers of the joints after them, from 3.2.0).

The two computations: the model compiled once (the pack's model) and the model with the tool attached, matched by
name. The tool goes where its joints come between the model's: on the first body with joints whose subtree is followed
by more joints, so that every joint after it must move along (or, where none is, on the last body with joints).

Bound: the keyframes are copies, 1e-12 of each value's scale; the poses 1e-9 of the model's extent (the same
kinematics over another body order). Releases without `MjSpec.attach` (before 3.3) are skipped, naming it.

Measured figures and commands: docs/second-computations.md ("An attached tool leaves the model as it was").
"""

from __future__ import annotations

import warnings

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import recompile
from pytest_physlaw.pack.twofold import states

SOURCE = ("MuJoCo documentation, Modeling (model editing: attachment); changelog 3.16.0 (keyframes kept when the "
          "kinematic tree changes by mjs_attach, fixed)")
PREFIX = "physlaw_tool_"
COPY = 1e-12  # a keyframe value is a copy
ROUND_OFF = 1e-9  # of the model's extent: the same kinematics, bodies in another order
TOOL = """<mujoco model="physlaw tool">
  <worldbody>
    <body name="wrist" pos="0 0 0.01">
      <joint name="roll" type="hinge" axis="0 0 1"/>
      <geom type="cylinder" size="0.01 0.005" mass="0.01" contype="0" conaffinity="0"/>
      <body name="finger" pos="0.01 0 0"><joint name="slide" type="slide" axis="1 0 0" range="0 0.02"/>
        <geom type="box" size="0.004 0.002 0.01" mass="0.005" contype="0" conaffinity="0"/></body>
    </body>
  </worldbody>
  <actuator><position name="grip" joint="slide" kp="10" ctrlrange="0 0.02"/></actuator>
</mujoco>"""


def host(model: mujoco.MjModel) -> int:
    """The body the tool goes on: the first with joints whose subtree is followed by more dofs; else the last with
    joints (0: none has joints)."""
    below = subtree_dofs(model)
    jointed = [b for b in range(1, model.nbody) if model.body_jntnum[b] > 0]
    for b in jointed:
        if int(model.body_dofadr[b]) + int(below[b]) < model.nv:  # a body's subtree's dofs are contiguous from its own
            return b
    return jointed[-1] if jointed else 0


def subtree_dofs(model: mujoco.MjModel) -> np.ndarray:
    """(nbody,) how many dofs each body's subtree has (a body's parent always comes before it)."""
    counts = np.array(model.body_dofnum, dtype=int)
    for b in range(model.nbody - 1, 0, -1):
        counts[int(model.body_parentid[b])] += counts[b]
    return counts


def attached(path: str, body_name: str) -> mujoco.MjModel:
    """The model at `path` as a spec, compiled, the tool attached to body `body_name`, compiled again."""
    spec = mujoco.MjSpec.from_file(path)
    spec.compile()  # the sequence users run: a compiled model grows a tool
    tool = mujoco.MjSpec.from_string(TOOL)
    frame = spec.body(body_name).add_frame()
    spec.attach(tool, prefix=PREFIX, frame=frame)
    return spec.compile()


def _attached_here(path: str) -> mujoco.MjModel:
    """`recompile.compiled`'s build: the body's name travels in the path's fragment."""
    file, _, body_name = path.rpartition("#")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return attached(file, body_name)


def index(model: mujoco.MjModel, again: mujoco.MjModel, kind: str) -> np.ndarray:
    """For each of `model`'s joints or actuators ("jnt", "actuator"), its id in `again` (found by name; -1 where it has
    none, an unnamed one by its order among the unnamed)."""
    obj = mujoco.mjtObj.mjOBJ_JOINT if kind == "jnt" else mujoco.mjtObj.mjOBJ_ACTUATOR
    count = model.njnt if kind == "jnt" else model.nu
    out = np.full(count, -1)
    unnamed = [i for i in range(getattr(again, "njnt" if kind == "jnt" else "nu"))
               if not mujoco.mj_id2name(again, obj, i)]
    for i in range(count):
        name = mujoco.mj_id2name(model, obj, i)
        out[i] = mujoco.mj_name2id(again, obj, name) if name else (unnamed.pop(0) if unnamed else -1)
    return out


def qpos_map(model: mujoco.MjModel, again: mujoco.MjModel) -> np.ndarray:
    """For each of `model`'s qpos entries, where it lies in `again`'s qpos (-1: its joint is lost)."""
    joints = index(model, again, "jnt")
    out = np.full(model.nq, -1)
    for j, k in enumerate(joints):
        width = _qpos_width(int(model.jnt_type[j]))
        if k >= 0:
            out[model.jnt_qposadr[j]:model.jnt_qposadr[j] + width] = np.arange(width) + again.jnt_qposadr[k]
    return out


def _qpos_width(kind: int) -> int:
    return {int(mujoco.mjtJoint.mjJNT_FREE): 7, int(mujoco.mjtJoint.mjJNT_BALL): 4}.get(kind, 1)


def keyframes_apart(model: mujoco.MjModel, again: mujoco.MjModel) -> tuple[float, str]:
    """(the largest difference of a keyframe's value for the model's own joints and actuators, or of the tool's qpos
    from its reference, over its scale; where)."""
    if again.nkey != model.nkey:
        return float("inf"), f"{model.nkey} keyframes became {again.nkey}"
    where = qpos_map(model, again)
    tool = np.setdiff1d(np.arange(again.nq), where[where >= 0])
    actuators = index(model, again, "actuator")
    worst = (0.0, "none")
    for k in range(model.nkey):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) or f"keyframe {k}"
        rows = [("qpos", model.key_qpos[k], again.key_qpos[k][where], where >= 0),
                ("tool's qpos", again.qpos0[tool], again.key_qpos[k][tool], None),
                ("ctrl", model.key_ctrl[k], again.key_ctrl[k][actuators], actuators >= 0)]
        for label, first, second, kept in rows:
            kept = np.ones(len(first), dtype=bool) if kept is None else kept
            if not np.all(kept):
                return float("inf"), f"{label} of {name}: a joint or actuator lost by the attach"
            scale = max(float(np.max(np.abs(first), initial=0.0)), 1.0)
            share = float(np.max(np.abs(np.asarray(first) - np.asarray(second)), initial=0.0)) / (COPY * scale)
            if share > worst[0]:
                worst = (share, f"{label} of {name!r}")
    return worst


def poses_apart(model: mujoco.MjModel, again: mujoco.MjModel, positions: list[np.ndarray]) -> tuple[float, str]:
    """(the largest distance of a body of the model from where it is in the model with the tool, over the extent and
    ROUND_OFF, at each of `positions` (the tool at its reference pose); which body)."""
    where = qpos_map(model, again)
    bodies = np.array([mujoco.mj_name2id(again, mujoco.mjtObj.mjOBJ_BODY, mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or "")
                       for b in range(model.nbody)])
    named = bodies >= 0
    first, second = mujoco.MjData(model), mujoco.MjData(again)
    extent = max(float(model.stat.extent), 1e-9)
    worst = (0.0, "none")
    for qpos in positions:
        first.qpos[:] = qpos
        second.qpos[:] = again.qpos0
        second.qpos[where] = qpos
        mujoco.mj_kinematics(model, first)
        mujoco.mj_kinematics(again, second)
        apart = np.linalg.norm(np.asarray(first.xpos)[named] - np.asarray(second.xpos)[bodies[named]], axis=1)
        b = int(np.argmax(apart)) if apart.size else 0
        share = float(apart[b]) / (ROUND_OFF * extent) if apart.size else 0.0
        if share > worst[0]:
            worst = (share, mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, int(np.flatnonzero(named)[b])))
    return worst


LAW = "model-attached-keeps-its-keyframes"


def _with_tool(pack_model, model_case: str) -> tuple[mujoco.MjModel, str]:
    """(the model with the tool attached, the body it went on); skips naming why where it cannot be built."""
    model = pack_model.model
    if not hasattr(mujoco, "MjSpec") or not hasattr(mujoco.MjSpec, "attach"):
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} has no MjSpec.attach (3.3 on)")
    b = host(model)
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) if b else None
    if not name:
        pytest.skip(f"{model_case}: no named body with joints to attach a tool to")
    try:
        isolated = recompile.fuses_static(str(pack_model.path))
        return recompile.compiled(_attached_here, f"{pack_model.path}#{name}", isolated), name
    except (ValueError, RuntimeError) as exc:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} cannot attach a tool to body {name!r} and compile: "
                    f"{exc}".replace("\n", " "))


@pytest.mark.law("model-attached-keeps-its-keyframes", source=SOURCE)
def test_attached_tool_keeps_the_model(law, pack_model, twofold_states, model_case) -> None:
    """A two-joint tool attached by `MjSpec.attach` to a body of the compiled model's spec keeps each keyframe's
    values for the model's joints and actuators (the tool's at its reference pose, 1e-12 of each scale) and the model's
    body poses at the reference pose, each keyframe and every state the runs reach (1e-9 of the extent)."""
    model = pack_model.model
    again, name = _with_tool(pack_model, model_case)
    positions = [np.array(model.qpos0), *np.array(model.key_qpos)]
    positions += [np.array(s.qpos) for s in states.for_solves(model, twofold_states)]
    keys, which = keyframes_apart(model, again)
    poses, body = poses_apart(model, again, positions)
    known = mujoco_versions.known_defect(LAW, "keyframes_apart_over_copy")
    if known and keys > 1.0 and poses <= 1.0:  # a pose the defect does not explain still fails
        law.follows(*known)
    law.check("keyframes_apart_over_copy", keys, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a keyframe's value for the model's own joints and controls (the tool's "
                  f"joints: from their reference pose) after a tool was attached to body {name!r}, over {COPY:g} of "
                  f"its scale: {which}; failing, MuJoCo {mujoco.__version__}'s attach moves the keyframes' numbers "
                  "(3.2.0 to 3.15 gave the tool's joints the numbers of the joints after them): an engine defect; "
                  "attach tools before writing keyframes, or change MuJoCo version")
    law.check("poses_apart_over_round_off", poses, le=1.0, drift_abs=1.0,
              why=f"the largest distance of one of the model's bodies from where it was, with the tool on body "
                  f"{name!r} at its reference pose, over {ROUND_OFF:g} of the extent, at the reference pose, "
                  f"{model.nkey} keyframes and each state: body {body!r}; failing, the attach moved the model itself: "
                  "an engine defect of the attach or the compiler")
