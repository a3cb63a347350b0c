"""A tendon over its wrap object takes the shortest path its rules allow. A spatial tendon's stretch from one site to
the next past a sphere or cylinder is the shortest path that stays outside the object where no sidesite is given (a
geodesic: straight where the sites' segment clears the object, else two tangent legs and the arc between them the
short way round), and the shortest path that meets the object where its sidesite lies inside it (straight where the
segment meets it, else two legs joined at one point of its surface); a cylinder's height is shared by the lengths.
Source: MuJoCo's XML reference (tendon/spatial/geom: "If the minimum-length path does not touch the geom it has no
effect; otherwise the path wraps around the surface of the geom"; sidesite: "if the side site is inside the geom,
the tendon is constrained to pass through the interior of the geom"); mju_wrap, wrap_circle and wrap_inside
(engine_util_misc.c; wrap_inside solves for its point by Newton's method to a tolerance of 1e-6).

The second computation is the geometry: the shortest length, in the plane of the sphere's centre and the two sites
(a cylinder's cross-section), in closed form outside the object and minimised over the circle (a grid refined four
times) through it, against the path MuJoCo took (`wrap_xpos`: its tangent points, its one point, or none). It is read
on three sets of poses, kinematics only: the runs' path sampled finely (the poses on the lines joining the states the
runs reached, 2,000 in all); each joint that moves such a tendon's sites or object swept alone through its range (an
unlimited hinge a whole turn); and, where the path turns from straight to wrapped between two poses, 200 poses
between them, and the turning point, bisected to round-off, approached from each side at distances halving down to
2^-36 of the gap (1e-11; within round-off of it the path is either branch, and not judged). The
onset of a wrap and a grazing path live there, for microradians of a swing, so the runs' states rarely land on them.

Bound: the path's length within 1e-6 of the sites' distance plus the radius (wrap_inside's tolerance) of the
shortest; the grid's own error is 1e-12 of that. A path that is not finite fails. Left out: a wrap whose start or end
site lies inside the object (MuJoCo wraps nothing there), and sidesites outside (which way round is theirs to say:
`model-tendon-wraps-outside` judges them). Measured figures and commands: docs/second-computations.md ("A tendon's
shortest path over its wrap object").
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.tendons import segment_distance

SOURCE = ("MuJoCo XML reference (tendon/spatial/geom: the minimum-length path wraps the geom; sidesite inside: the "
          "tendon passes through it); mju_wrap, wrap_circle, wrap_inside (engine_util_misc.c)")
TOLERANCE = 1e-6  # wrap_inside's Newton tolerance, of the path's scale
POSES = 2000  # the runs' path sampled finely: poses in all
SWEEP = 4000  # the joints' sweeps: poses in all (at most 400, at least 40 a joint)
REFINE = 200  # poses between two where the path turns from straight to wrapped
HALVINGS = 48  # the turning point bisected to round-off
APPROACH = 36  # then approached from each side at distances halving from the gap down to 2^-36 of it
CYLINDER = int(mujoco.mjtGeom.mjGEOM_CYLINDER)
HINGE, SLIDE = int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)


# -- the geometry's shortest path ----------------------------------------------------------------------------------

def plane_axes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal axes of the plane through the origin, a and b (any plane containing a where they are in line)."""
    e1 = a / np.linalg.norm(a)
    e2 = b - (b @ e1) * e1
    if np.linalg.norm(e2) < 1e-12 * np.linalg.norm(b):
        e2 = np.cross(e1, np.eye(3)[int(np.argmin(np.abs(e1)))]) if a.size == 3 else np.array([-e1[1], e1[0]])
    return e1, e2 / np.linalg.norm(e2)


def around(a: np.ndarray, b: np.ndarray, r: float) -> float:
    """The shortest length from a to b outside the circle (sphere) of radius r about the origin, both outside it:
    straight where the segment clears it, else the two tangent legs and the arc between the tangent points the short
    way round, in the plane of the origin, a and b."""
    da, db = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    between = float(np.arccos(np.clip(a @ b / (da * db), -1.0, 1.0)))
    arc = between - np.arccos(r / da) - np.arccos(r / db)
    if arc <= 0.0:
        return float(np.linalg.norm(b - a))
    return float(np.sqrt(da * da - r * r) + np.sqrt(db * db - r * r) + r * arc)


def through(a: np.ndarray, b: np.ndarray, r: float) -> float:
    """The shortest length from a to b by way of the circle (sphere) of radius r about the origin: straight where the
    segment meets it, else |a - p| + |p - b| least over p on the great circle in the plane of the origin, a and b, a
    grid of 720 refined four times."""
    if segment_distance(a, b) <= r:
        return float(np.linalg.norm(b - a))
    e1, e2 = plane_axes(a, b)

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


def shortest(a: np.ndarray, b: np.ndarray, r: float, cylinder: bool, inside: bool) -> float:
    """The shortest path from a to b (the geom's frame) outside the sphere, or the infinite cylinder about z, of
    radius r (inside: one that meets it); a cylinder's across its cross-section, its height added as a helix's."""
    way = through if inside else around
    if not cylinder:
        return way(a, b, r)
    return float(np.hypot(way(a[:2], b[:2], r), b[2] - a[2]))


def taken(a: np.ndarray, b: np.ndarray, tangents: list[np.ndarray] | None, r: float, cylinder: bool) -> float:
    """The length of MuJoCo's path over the wrap (the geom's frame): straight, or the legs to and from its tangent
    points and the arc between them, swept the way the first leg arrives (a sphere's on the great circle through the
    two points, a cylinder's a helix); 0 where the two points are one (a path through the object)."""
    if tangents is None:
        return float(np.linalg.norm(b - a))
    p, q = tangents
    legs = float(np.linalg.norm(p - a) + np.linalg.norm(b - q))
    if np.array_equal(p, q):
        return legs
    flat = (lambda x: np.array([x[0], x[1], 0.0])) if cylinder else (lambda x: x)  # noqa: E731
    fp, fq, arrive = flat(p), flat(q), flat(p - a)
    normal = np.cross(fp, arrive)
    if np.linalg.norm(normal) < 1e-12 * np.linalg.norm(fp) * max(np.linalg.norm(arrive), 1e-300):
        normal = np.cross(fp, fq)
    normal /= max(np.linalg.norm(normal), 1e-300)
    angle = float(np.arctan2(np.cross(fp, fq) @ normal, fp @ fq)) % (2 * np.pi)
    arc = r * angle
    return legs + (float(np.hypot(arc, q[2] - p[2])) if cylinder else arc)


# -- at one pose ---------------------------------------------------------------------------------------------------

def judged_wrap(model: mujoco.MjModel, data: mujoco.MjData, wrap: rates.Wrap) -> bool:
    """Whether this wrap is the law's: a sphere or cylinder with no sidesite, or one inside it."""
    return wrap.side < 0 or rates.through(model, data, wrap)


def path_apart(model: mujoco.MjModel, data: mujoco.MjData, wrap: rates.Wrap) -> tuple[float, float] | None:
    """(MuJoCo's path length over the wrap less the shortest, its bound) at one pose, inf where MuJoCo's path is not
    finite; None where left out (a sidesite outside the object, a site inside it)."""
    g, r = wrap.geom, float(model.geom_size[wrap.geom, 0])
    if not judged_wrap(model, data, wrap) or r <= 0:
        return None
    cylinder = int(model.geom_type[g]) == CYLINDER
    a, b = (rates.local(model, data, g, x) for x in (wrap.start, wrap.end))
    reach = (lambda x: float(np.linalg.norm(x[:2]))) if cylinder else (lambda x: float(np.linalg.norm(x)))  # noqa: E731
    if min(reach(a), reach(b)) < r:
        return None
    scale = TOLERANCE * (float(np.linalg.norm(b - a)) + r)
    points = None if wrap.tangents is None else [rates.local(model, data, g, t) for t in wrap.tangents]
    length = taken(a, b, points, r, cylinder)
    if not np.isfinite(length):
        return np.inf, scale
    return length - shortest(a, b, r, cylinder, rates.through(model, data, wrap)), scale


@dataclass
class Worst:
    over: float = 0.0
    apart: float = 0.0
    where: str = "-"
    pose: str = "-"
    judged: int = 0
    left_out: int = 0

    def judge(self, model: mujoco.MjModel, data: mujoco.MjData, tendons: list[int], pose: str) -> tuple:
        """Each judged wrap of these tendons at one pose; returns which run straight (the path's branch)."""
        straight = []
        for t in tendons:
            for w in rates.wraps(model, data, t):
                straight.append(w.tangents is None)
                found = path_apart(model, data, w)
                if found is None:
                    self.left_out += 1
                    continue
                self.judged += 1
                over = abs(found[0]) / found[1]
                if over > self.over or not np.isfinite(over):
                    self.over, self.apart, self.pose = over, found[0], pose
                    self.where = f"{model.tendon(t).name or t!s} at {model.geom(w.geom).name or w.geom!s}"
        return tuple(straight)


# -- the poses -----------------------------------------------------------------------------------------------------

def wrapping_tendons(model: mujoco.MjModel, states: list[mujoco.MjData]) -> list[int]:
    """The spatial tendons with a judged wrap (no sidesite, or one inside its object) at some state of the runs."""
    return [t for t in range(model.ntendon)
            if any(judged_wrap(model, s, w) for s in states for w in rates.wraps(model, s, t))]


def moving_joints(model: mujoco.MjModel, tendon: int) -> set[int]:
    """The joints that move some site or wrap object (or sidesite) of this tendon's path: of each object's body and
    its ancestors."""
    bodies = set()
    for i in range(int(model.tendon_adr[tendon]), int(model.tendon_adr[tendon] + model.tendon_num[tendon])):
        kind, obj = int(model.wrap_type[i]), int(model.wrap_objid[i])
        if kind == int(rates.WRAP.mjWRAP_SITE):
            bodies.add(int(model.site_bodyid[obj]))
        elif kind in (int(rates.WRAP.mjWRAP_SPHERE), int(rates.WRAP.mjWRAP_CYLINDER)):
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


def forwarded(model: mujoco.MjModel, probe: mujoco.MjData, qpos: np.ndarray) -> mujoco.MjData:
    """The probe at `qpos` with its kinematics and tendons (what a tendon's path needs, no dynamics)."""
    probe.qpos[:] = qpos
    mujoco.mj_kinematics(model, probe)
    mujoco.mj_comPos(model, probe)
    mujoco.mj_tendon(model, probe)
    return probe


def line(model: mujoco.MjModel, q0: np.ndarray, q1: np.ndarray):
    """The poses from q0 to q1 as a function of the share s of the way (mj_differentiatePos once, mj_integratePos
    for each s)."""
    dq = np.zeros(model.nv)
    mujoco.mj_differentiatePos(model, dq, 1.0, q0, q1)

    def at(s: float) -> np.ndarray:
        q = np.array(q0, dtype=float)
        mujoco.mj_integratePos(model, q, dq, s)
        return q
    return at


def run_path(model: mujoco.MjModel, states: list[mujoco.MjData]) -> tuple[list[np.ndarray], list[str]]:
    """The runs' path: the poses on the lines joining each two successive states, about POSES in all."""
    per_gap = max(8, POSES // max(len(states) - 1, 1))
    poses, labels = [], []
    for s0, s1 in zip(states, states[1:]):
        way = line(model, s0.qpos, s1.qpos)
        poses += [way(k / per_gap) for k in range(per_gap)]
        labels += [f"t = {s0.time + k / per_gap * (s1.time - s0.time):.4f} s" for k in range(per_gap)]
    return poses + [np.array(states[-1].qpos)], labels + [f"t = {states[-1].time:.4f} s"]


def joint_sweep(model: mujoco.MjModel, start: mujoco.MjData, j: int, count: int) -> tuple[list[np.ndarray], list[str]]:
    """A hinge or slide joint alone swept through its range from the start (an unlimited hinge a whole turn, an
    unlimited slide the model's extent each way), `count` poses."""
    adr = int(model.jnt_qposadr[j])
    if model.jnt_limited[j]:
        low, high = (float(x) for x in model.jnt_range[j])
    elif int(model.jnt_type[j]) == HINGE:
        low, high = -np.pi, np.pi
    else:
        low, high = -float(model.stat.extent), float(model.stat.extent)
    poses, labels = [], []
    for value in np.linspace(low, high, count):
        q = np.array(start.qpos, dtype=float)
        q[adr] = value
        poses.append(q)
        labels.append(f"{model.joint(j).name or j!s} = {value:.10f}")
    return poses, labels


def refined(model: mujoco.MjModel, probe: mujoco.MjData, q0: np.ndarray, q1: np.ndarray, tendons: list[int],
            branch0: tuple, worst: Worst, label: str) -> None:
    """Between two poses whose paths differ in branch: REFINE poses evenly, then the turning point bisected to
    round-off and approached from each side at distances halving from the gap down to 2^-36 of it (within round-off of
    the turning point, where the segment touches the object to the last bits, the path is either branch: not judged)."""
    way = line(model, q0, q1)
    for k in range(1, REFINE):
        worst.judge(model, forwarded(model, probe, way(k / REFINE)), tendons, f"between {label}")
    low, high = 0.0, 1.0
    for _ in range(HALVINGS):  # located, not judged: at the turning point itself, to round-off, the path is both
        mid = 0.5 * (low + high)
        data = forwarded(model, probe, way(mid))
        same = tuple(w.tangents is None for t in tendons for w in rates.wraps(model, data, t)) == branch0
        low, high = (mid, high) if same else (low, mid)
    for k in range(1, APPROACH + 1):
        for s in (low - 2.0 ** -k, high + 2.0 ** -k):
            if 0.0 < s < 1.0:
                worst.judge(model, forwarded(model, probe, way(s)), tendons,
                            f"between {label}, at {s:.15f} of the way")


@pytest.mark.law("model-tendon-wraps-are-shortest", source=SOURCE)
def test_tendon_wraps_take_the_shortest_path(law, pack_model, twofold_states, model_case) -> None:
    """Along the runs' path sampled finely, each joint's sweep and where a wrap sets in, each spatial tendon's path
    over a sphere or cylinder with no sidesite, or with one inside it, is the shortest the wrap allows, to
    wrap_inside's tolerance."""
    model = pack_model.model
    for state in twofold_states:
        rates.finite_state(state, "tendon wrapping")
    tendons = wrapping_tendons(model, twofold_states)
    if not tendons:
        pytest.skip(f"{model_case}: no spatial tendon wrapping a sphere or cylinder without a sidesite or with one "
                    "inside it")
    worst, probe = Worst(), mujoco.MjData(model)
    probe.mocap_pos[:], probe.mocap_quat[:] = twofold_states[0].mocap_pos, twofold_states[0].mocap_quat
    moved = {t: moving_joints(model, t) for t in tendons}
    joints = sorted(j for j in set().union(*moved.values()) if int(model.jnt_type[j]) in (HINGE, SLIDE))
    count = int(min(400, max(40, SWEEP // max(len(joints), 1))))
    paths = [(run_path(model, twofold_states), tendons)]
    paths += [(joint_sweep(model, twofold_states[0], j, count), [t for t in tendons if j in moved[t]]) for j in joints]
    for (poses, labels), those in paths:
        branches = [worst.judge(model, forwarded(model, probe, q), those, labels[k]) for k, q in enumerate(poses)]
        for k in range(1, len(poses)):
            if branches[k] != branches[k - 1]:  # the path goes straight on one side, wraps on the other
                refined(model, probe, poses[k - 1], poses[k], those, branches[k - 1], worst,
                        f"{labels[k - 1]} and {labels[k]}")
    if not worst.judged:
        pytest.skip(f"{model_case}: every wrap left out ({worst.left_out}: a site inside its object, or a sidesite "
                    "outside it)")
    law.check("path_apart_over_tolerance", worst.over, le=1.0, drift_abs=1.0,
              why=f"largest |the path's length over a wrap object - the shortest path its rules allow (outside it "
                  f"with no sidesite, meeting it with its sidesite inside)| over wrap_inside's tolerance (1e-6 of the "
                  f"sites' distance plus the radius), over {worst.judged} wraps x poses (the runs' path sampled "
                  f"finely, each joint moving a path swept through its range, and where a wrap sets in; "
                  f"{worst.left_out} left out: a site inside the object, or a sidesite outside it); worst "
                  f"{worst.where!r} at {worst.pose}, {worst.apart * 1e3:+.4g} mm; failing, MuJoCo "
                  f"{mujoco.__version__} routes this tendon on a longer (or shorter, or not finite) path than the "
                  "geometry's shortest, so its length, moment arms and spring force jump there: an engine defect "
                  "where the sites lie outside the object (name it in a MuJoCo issue, or change MuJoCo version)")
