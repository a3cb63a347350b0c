"""A tendon through its wrap object takes the shortest path. Where a spatial tendon's sidesite lies inside the sphere
or cylinder it wraps, the tendon must pass through the object: its stretch from one site to the next is the
shortest path that meets the object, straight where the sites' segment meets it, else two straight legs joined at
one point of its surface (a cylinder's in its cross-section, its height shared by the legs' lengths). Source:
MuJoCo's XML reference (tendon/spatial/geom sidesite: "if the side site is inside the geom, the tendon is
constrained to pass through the interior of the geom"); mju_wrap and wrap_inside (engine_util_misc.c) solve for
that point by Newton's method to a tolerance of 1e-6.

The second computation is the geometry: the shortest path's length, minimised over the great circle of the sphere
in the plane of its centre and the two sites (a cylinder's circle in its cross-section) on a grid refined four
times, against the path MuJoCo took (`wrap_xpos`: its straight segment or its one point). It is read on the run's
own path sampled finely: between each two states the runs reached (and between the last and the settled end) the
poses on the line joining them (`mj_integratePos`), 2,000 in all, kinematics only. A grazing path, where the sites'
segment passes the object within a fraction of a millimetre, lasts milliseconds of a swing, so the runs' states
themselves rarely land on it.

Bound: the path's length within 1e-6 of the sites' distance plus the radius (wrap_inside's tolerance) of the
shortest; the grid's own error is 1e-12 of that. Left out: a wrap whose start or end site lies inside the object
(MuJoCo wraps nothing there), and sidesites outside (`model-tendon-wraps-outside` judges those). Measured figures
and commands: docs/second-computations.md ("A tendon through its wrap object").
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.tendons import segment_distance

SOURCE = ("MuJoCo XML reference (tendon/spatial/geom sidesite: inside the geom, the tendon passes through it); "
          "mju_wrap, wrap_inside (engine_util_misc.c)")
TOLERANCE = 1e-6  # wrap_inside's Newton tolerance, of the path's scale
POSES = 2000  # the finely sampled path's poses in all
JOINT_POSES = 400  # a joint's sweep through its range
REFINE = 200  # poses between two where the path changes from straight to wrapped
CYLINDER = mujoco.mjtGeom.mjGEOM_CYLINDER


def circle_path(a: np.ndarray, b: np.ndarray, r: float) -> float:
    """The shortest length from a to b (2D, or 3D about a sphere's centre) by way of the circle (sphere) of radius r
    about the origin, where the segment a-b does not meet it: |a - p| + |p - b| least over p on the great circle
    in the plane of the origin, a and b, a grid of 720 refined four times."""
    e1 = a / np.linalg.norm(a)
    e2 = b - (b @ e1) * e1
    if np.linalg.norm(e2) < 1e-12 * np.linalg.norm(b):  # a, b and the centre in line
        e2 = np.cross(e1, np.eye(3)[int(np.argmin(np.abs(e1)))]) if a.size == 3 else np.array([-e1[1], e1[0]])
    e2 = e2 / np.linalg.norm(e2)

    def length(phi: np.ndarray) -> np.ndarray:
        p = r * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
        return np.linalg.norm(a - p, axis=1) + np.linalg.norm(b - p, axis=1)

    phis = np.linspace(-np.pi, np.pi, 721)
    step = phis[1] - phis[0]
    best = phis[int(np.argmin(length(phis)))]
    for _ in range(4):
        phis = np.linspace(best - step, best + step, 101)
        step = phis[1] - phis[0]
        best = phis[int(np.argmin(length(phis)))]
    return float(length(np.array([best]))[0])


def shortest(a: np.ndarray, b: np.ndarray, r: float, cylinder: bool) -> float:
    """The length of the shortest path from a to b (the geom's frame) that meets the sphere, or the infinite
    cylinder about z, of radius r."""
    flat_a, flat_b = (a[:2], b[:2]) if cylinder else (a, b)
    if segment_distance(flat_a, flat_b) <= r:
        return float(np.linalg.norm(b - a))
    across = circle_path(flat_a, flat_b, r)
    return float(np.hypot(across, b[2] - a[2])) if cylinder else across


@dataclass
class Worst:
    over: float = 0.0
    apart: float = 0.0
    where: str = "-"
    pose: str = "-"
    judged: int = 0
    left_out: int = 0


def path_apart(model: mujoco.MjModel, data: mujoco.MjData, wrap: rates.Wrap) -> tuple[float, float] | None:
    """(MuJoCo's path length over the wrap less the shortest, its bound) at one pose; None where left out (the
    sidesite outside the object, a site inside it)."""
    g, r = wrap.geom, float(model.geom_size[wrap.geom, 0])
    cylinder = int(model.geom_type[g]) == int(CYLINDER)
    if not rates.through(model, data, wrap) or r <= 0:
        return None
    a, b = (rates.local(model, data, g, x) for x in (wrap.start, wrap.end))
    reach = (lambda x: float(np.linalg.norm(x[:2]))) if cylinder else (lambda x: float(np.linalg.norm(x)))  # noqa: E731
    if min(reach(a), reach(b)) < r:
        return None
    if wrap.tangents is None:
        taken = float(np.linalg.norm(b - a))
    else:  # through the object: its one point (two equal tangent points); the legs and whatever joins them
        p, q = (rates.local(model, data, g, t) for t in wrap.tangents)
        taken = float(np.linalg.norm(p - a) + np.linalg.norm(q - p) + np.linalg.norm(b - q))
    scale = float(np.linalg.norm(b - a)) + r
    return taken - shortest(a, b, r, cylinder), TOLERANCE * scale


def through_tendons(model: mujoco.MjModel, states: list[mujoco.MjData]) -> list[int]:
    """The spatial tendons with a wrap whose sidesite lies inside its geom at some state of the runs."""
    found = []
    for t in range(model.ntendon):
        if any(rates.through(model, s, w) for s in states for w in rates.wraps(model, s, t)):
            found.append(t)
    return found


def forwarded(model: mujoco.MjModel, probe: mujoco.MjData, qpos: np.ndarray) -> mujoco.MjData:
    """The probe at `qpos` with its kinematics and tendons (what a tendon's path needs, no dynamics)."""
    probe.qpos[:] = qpos
    mujoco.mj_kinematics(model, probe)
    mujoco.mj_comPos(model, probe)
    mujoco.mj_tendon(model, probe)
    return probe


def between(model: mujoco.MjModel, q0: np.ndarray, q1: np.ndarray, n: int) -> list[np.ndarray]:
    """n poses on the line from q0 towards q1 (mj_differentiatePos, mj_integratePos), q0 first, q1 not."""
    dq = np.zeros(model.nv)
    mujoco.mj_differentiatePos(model, dq, 1.0, q0, q1)
    poses = []
    for k in range(n):
        q = np.array(q0, dtype=float)
        mujoco.mj_integratePos(model, q, dq, k / n)
        poses.append(q)
    return poses


def run_path(model: mujoco.MjModel, states: list[mujoco.MjData]) -> tuple[list[np.ndarray], list[str]]:
    """The runs' path: the poses on the lines joining each two successive states, about POSES in all."""
    per_gap = max(8, POSES // max(len(states) - 1, 1))
    poses, labels = [], []
    for s0, s1 in zip(states, states[1:]):
        poses += between(model, s0.qpos, s1.qpos, per_gap)
        labels += [f"t = {s0.time + k / per_gap * (s1.time - s0.time):.3f} s" for k in range(per_gap)]
    return poses + [np.array(states[-1].qpos)], labels + [f"t = {states[-1].time:.3f} s"]


def joint_sweep(model: mujoco.MjModel, start: mujoco.MjData, j: int) -> tuple[list[np.ndarray], list[str]]:
    """A hinge or slide joint alone swept through its range from the start (an unlimited hinge a whole turn, an
    unlimited slide the model's extent each way), JOINT_POSES poses."""
    adr = int(model.jnt_qposadr[j])
    if model.jnt_limited[j]:
        low, high = (float(x) for x in model.jnt_range[j])
    elif int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_HINGE):
        low, high = -np.pi, np.pi
    else:
        low, high = -float(model.stat.extent), float(model.stat.extent)
    poses, labels = [], []
    for value in np.linspace(low, high, JOINT_POSES):
        q = np.array(start.qpos, dtype=float)
        q[adr] = value
        poses.append(q)
        labels.append(f"{model.joint(j).name or j!s} = {value:.5f}")
    return poses, labels


def moving_joints(model: mujoco.MjModel, tendons: list[int]) -> set[int]:
    """The joints that move some site or geom of these tendons' paths: each object's body and its ancestors'."""
    bodies = set()
    for t in tendons:
        for i in range(int(model.tendon_adr[t]), int(model.tendon_adr[t] + model.tendon_num[t])):
            obj = int(model.wrap_objid[i])
            kind = int(model.wrap_type[i])
            if kind == rates.WRAP.mjWRAP_SITE:
                bodies.add(int(model.site_bodyid[obj]))
            elif kind in (rates.WRAP.mjWRAP_SPHERE, rates.WRAP.mjWRAP_CYLINDER):
                bodies.add(int(model.geom_bodyid[obj]))
                side = int(round(model.wrap_prm[i]))
                if side >= 0:
                    bodies.add(int(model.site_bodyid[side]))
    joints = set()
    for b in bodies:
        while b > 0:
            joints.update(range(int(model.body_jntadr[b]), int(model.body_jntadr[b] + model.body_jntnum[b])))
            b = int(model.body_parentid[b])
    return joints


def judge(model: mujoco.MjModel, data: mujoco.MjData, tendons: list[int], where: str, worst: Worst) -> tuple:
    """Each through-wrap of these tendons at one pose judged into `worst`; returns which run straight (the path's
    branch)."""
    straight = []
    for t in tendons:
        for w in rates.wraps(model, data, t):
            found = path_apart(model, data, w)
            straight.append(w.tangents is None)
            if found is None:
                worst.left_out += 1
                continue
            worst.judged += 1
            if abs(found[0]) / found[1] > worst.over:
                worst.over, worst.apart, worst.pose = abs(found[0]) / found[1], found[0], where
                worst.where = f"{model.tendon(t).name or t!s} through {model.geom(w.geom).name or w.geom!s}"
    return tuple(straight)


@pytest.mark.law("model-tendon-through-wraps-are-shortest", source=SOURCE)
def test_tendon_through_its_wrap_takes_the_shortest_path(law, pack_model, twofold_states, model_case) -> None:
    """Along the runs' path, sampled finely, each spatial tendon whose sidesite lies inside its wrap sphere or
    cylinder is, over that wrap, the shortest path that meets the object, to wrap_inside's tolerance."""
    model = pack_model.model
    for state in twofold_states:
        rates.finite_state(state, "tendon wrapping")
    tendons = through_tendons(model, twofold_states)
    if not tendons:
        pytest.skip(f"{model_case}: no spatial tendon whose sidesite lies inside its wrap sphere or cylinder")
    worst = Worst()
    probe = mujoco.MjData(model)
    probe.mocap_pos[:], probe.mocap_quat[:] = twofold_states[0].mocap_pos, twofold_states[0].mocap_quat
    sweeps = [joint_sweep(model, twofold_states[0], j) for j in sorted(moving_joints(model, tendons))
              if int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]
    for poses, labels in [run_path(model, twofold_states), *sweeps]:
        branches = [judge(model, forwarded(model, probe, q), tendons, labels[k], worst) for k, q in enumerate(poses)]
        for k in range(1, len(poses)):
            if branches[k] != branches[k - 1]:  # the path goes straight on one side, wraps on the other: grazing
                for q in between(model, poses[k - 1], poses[k], REFINE)[1:]:
                    judge(model, forwarded(model, probe, q), tendons, f"between {labels[k - 1]} and {labels[k]}",
                          worst)
    if not worst.judged:
        pytest.skip(f"{model_case}: every through-wrap left out ({worst.left_out}: a site inside its object)")
    law.check("path_apart_over_tolerance", worst.over, le=1.0, drift_abs=1.0,
              why=f"largest |the path's length over a wrap its sidesite puts through the object - the shortest path "
                  f"meeting the object| over wrap_inside's tolerance (1e-6 of the sites' distance plus the radius), "
                  f"over {worst.judged} wraps x poses (the runs' path sampled finely, and each joint moving the path swept through its range) ({worst.left_out} left out: a "
                  f"site inside the object); worst {worst.where!r} at {worst.pose}, "
                  f"{worst.apart * 1e3:+.4g} mm; failing, MuJoCo {mujoco.__version__} routes this tendon through "
                  "its object on a longer path than the geometry's shortest, so its length, moment arms and spring "
                  "force jump there: an engine defect where the sites lie outside the object (name it in a MuJoCo "
                  "issue, or change MuJoCo version)")
