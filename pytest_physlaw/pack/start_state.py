"""Laws of the start state: the model starts where a real robot could, no two geoms overlapping deeper than a
resting contact may sink, every limited joint inside its range. Sources: MuJoCo's documentation
("Computation": soft contacts), its XML reference (joint/range, key/qpos).

Measured:
`pytest --physlaw-model=MODEL.xml -k "start" -s`; see docs/checking-a-model.md ("The laws, and what a finding means")."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import runs
from pytest_physlaw.pack.contacts import contact_depths, depths_or_skip


SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"
RANGE_ROUND_OFF = 1e-6  # rad or m: an exporter's round-off at a range's end


@pytest.mark.law("model-start-penetration", source=SOURCE)
def test_start_state_is_not_interpenetrating(law, pack_model, settled, settings, model_case) -> None:
    """At the start (the starting keyframe, or qpos0 where the model has none), and at every other keyframe as
    model-start-in-range judges them, no two geoms overlap deeper than a resting contact may sink (the larger of
    its solimp width and half the thinner geom's smallest half-extent): an overlap at the start is pushed
    apart by MuJoCo's contact spring in the first steps, a force many times the robot's weight that no real start
    has, and a keyframe that overlaps so is a state the robot cannot be in. The contact force at the start over
    the model's weight is recorded for the gate."""
    model, first = pack_model.model, settled.first
    start_key = runs.keyframe_id(model, settings.keyframe)
    others = {k: keyframe_overlap(model, k) for k in range(model.nkey) if k != start_key}
    if first.ncon or not any(o is not None for o in others.values()):
        depth, allowed, where = depths_or_skip(model, first, f"{model_case}: at the start")
    else:
        depth, allowed, where = np.zeros(0), np.ones(0), []
    if depth.size:
        ratio = depth / allowed
        law.check("start_depth_over_allowed", ratio, le=1.0, drift_abs=1e-6,
                  why=f"overlap at the start over what a resting contact may sink, deepest {where[int(np.argmax(ratio))]} "
                      f"({1000 * float(np.max(depth)):.3g} mm): {_separate_at(model, settings.keyframe)}")
    if others:
        _check_other_keyframes(law, model, others)
    weight = float(np.sum(model.body_mass) * np.linalg.norm(model.opt.gravity))
    if weight > 0:
        law.check("start_force_over_weight", normal_force(model, first) / weight, ge=0, drift_abs=1e-6,
                  why="sum of the contacts' normal forces at the start over the model's weight, recorded for the gate")


def _check_other_keyframes(law, model: mujoco.MjModel, others: dict[int, tuple[float, float, str] | None]) -> None:
    """The keyframes other than the start, each judged as the start is: its worst overlap over its allowance (0
    where its geoms meet nothing with an extent), every keyframe past it named."""
    ratios = np.array([o[0] if o is not None else 0.0 for o in others.values()])
    over = [f"<key name={_key_name(model, k)}> {o[2]} {1000 * o[1]:.3g} mm ({o[0]:.3g} of its allowance)"
            for k, o in others.items() if o is not None and o[0] > 1.0]
    law.check("keyframe_depth_over_allowed", ratios, le=1.0, drift_abs=1e-6,
              why=f"worst overlap of each of the {len(others)} other keyframes over what a resting contact may sink: "
                  + ("; ".join(over) + ": move them apart in those keyframes' qpos (or move the geoms)" if over
                     else "none overlaps past it"))


def keyframe_overlap(model: mujoco.MjModel, key: int) -> tuple[float, float, str] | None:
    """(worst overlap over its allowance, its depth in m, which geoms) at keyframe `key` (`mj_resetDataKeyframe`,
    forwarded); None where no contact there is between geoms with an extent."""
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, key)
    mujoco.mj_forward(model, data)
    if not data.ncon:
        return None
    depth, allowed, where = contact_depths(model, data)
    if not depth.size:
        return None
    worst = int(np.argmax(depth / allowed))
    return float(depth[worst] / allowed[worst]), float(depth[worst]), where[worst]


def _key_name(model: mujoco.MjModel, key: int) -> str:
    return repr(model.key(key).name or key)


@pytest.mark.law("model-start-in-range", source=SOURCE + "; MuJoCo XML reference (joint/range, key/qpos)")
def test_start_state_is_within_joint_ranges(law, pack_model, settings, model_case) -> None:
    """Every keyframe, and qpos0 where it is the start (no keyframe, or ini physlaw_model_keyframe = qpos0), put
    each limited joint inside its own range (a hinge's or slide's position, a ball's rotation angle): a start
    outside its range meets the limit's constraint force at the first step, a kick no real start has, and a
    keyframe outside it is a state the robot cannot reach. Within the limit's soft width (its solimp width,
    MuJoCo's default 1 mm or 1 mrad, where the limit's own spring holds a joint at rest: a keyframe saved from a
    run) or 1e-6 (an exporter's round-off at a range's end), whichever is more, is no finding. (A model that starts from a keyframe may keep qpos0, its springs' and MJX's
    reference, outside a range: 12 of 56 sound models checked do, Menagerie-style arms' folded joints.)"""
    model = pack_model.model
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE), int(mujoco.mjtJoint.mjJNT_BALL))
    limited = [j for j in range(model.njnt) if model.jnt_limited[j] and int(model.jnt_type[j]) in kinds]
    if not limited:
        pytest.skip(f"{model_case}: no limited hinge, slide or ball joint")
    from_qpos0 = model.nkey == 0 or runs.keyframe_id(model, settings.keyframe) is None
    starts = ([("qpos0", model.qpos0)] if from_qpos0 else []) + [
        (f"keyframe {model.key(k).name or k!r}", model.key_qpos[k]) for k in range(model.nkey)]
    worst, where = 0.0, "none"
    for label, qpos in starts:
        for j in limited:
            out, text = _outside_range(model, j, qpos)
            soft = float(model.jnt_solimp[j, 2])  # the width over which the limit's impedance rises
            if out - soft > worst:
                worst, where = out - soft, f"{label}: {text}, its limit's soft width {soft:.3g}"
    law.check("outside_range", worst, le=RANGE_ROUND_OFF, drift_abs=RANGE_ROUND_OFF,
              why=f"the farthest a limited joint starts outside its range past its limit's soft width (rad or m), "
                  f"{where}: set that joint's value "
                  "in <key qpos> (for qpos0: the joint's ref, or the body's pose) inside its <joint range>, or widen "
                  "the range if the robot reaches it")


def _separate_at(model: mujoco.MjModel, keyframe: str) -> str:
    """The change that separates two geoms at the start, in the model's terms: the starting keyframe's qpos, or
    (no keyframe) the bodies' pos and the joints' ref that make qpos0."""
    key = runs.keyframe_id(model, keyframe)
    if key is not None:
        return f"move them apart in <key name={model.key(key).name or key!r}> qpos (or move the geoms)"
    return ("move them apart where qpos0 puts them (the model has no keyframe, or the start is qpos0): the bodies' "
            "pos, the joints' ref, or the geoms; or add a <keyframe> that starts them apart")


def _outside_range(model: mujoco.MjModel, joint: int, qpos: np.ndarray) -> tuple[float, str]:
    """(how far `qpos` puts `joint` outside its range, a description in the model's terms)."""
    adr, (low, high) = int(model.jnt_qposadr[joint]), model.jnt_range[joint]
    name = model.joint(joint).name or f"joint {joint}"
    if int(model.jnt_type[joint]) == int(mujoco.mjtJoint.mjJNT_BALL):
        angle = 2 * math.acos(min(1.0, abs(float(qpos[adr])) / max(float(np.linalg.norm(qpos[adr:adr + 4])), 1e-300)))
        return max(0.0, angle - float(high)), f"ball {name!r} turned {angle:.4g} rad past its range {float(high):.4g}"
    value = float(qpos[adr])
    return max(0.0, float(low) - value, value - float(high)), \
        f"{name!r} at {value:.4g}, its range [{float(low):.4g}, {float(high):.4g}]"


def normal_force(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """Sum of the contacts' normal forces (`mj_contactForce`, its first component)."""
    force, total = np.zeros(6), 0.0
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, force)
        total += abs(float(force[0]))
    return total
