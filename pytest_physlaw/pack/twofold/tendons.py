"""A tendon's length and its path, computed a second way. Along the state's own motion each tendon's length
(`ten_length`, wrapping included) changes as its Jacobian says, `ten_J qvel` (the moment arms actuators, limits,
springs and tendon equalities apply forces through); and a spatial tendon that wraps a sphere or cylinder never cuts
through it: its straight segments stay outside the wrap object's radius, where it wraps each leg is tangent to the
object at a tangent point on its surface, and where a sidesite outside the object is given it wraps on the
sidesite's side. Source: MuJoCo's documentation
(Computation: tendons, ten_J = d(ten_length)/dq; XML reference, tendon/spatial/geom: "If the minimum-length path
does not touch the geom it has no effect; otherwise the path wraps around the surface of the geom", the cylinder of
infinite length, "the wrap that is closer to the specified site is automatically selected", "if the side site is
inside the geom, the tendon is constrained to pass through the interior of the geom"); mju_wrap
(engine_util_misc.c): a sidesite inside when within the radius of the geom's centre, "closer" as the tangent points'
mean direction against the sidesite's, a wrap whose two straight segments cross not taken.

Bounds. The rate: |rate - ten_J qvel| <= 10 (the central difference's own error + 100 eps |J_row|_1), per unit of
the largest dof speed (`rates.along_motion`); a tendon whose path changes branch within the steps is left out, and a
wrap through the geom (sidesite inside, or the path meeting the geom at one point) adds the 1e-6 tolerance of
MuJoCo's Newton search for the path's point (wrap_inside), times the sum of the tendon's moment arms. The path: its
depth inside the object (a wrapped leg's line: a leg meeting the object at a kink dips inside), its tangent points'
distance off the surface, and how much closer the other wrap's mean direction is to the sidesite's (cosines), are
each at most 100 eps (|start| + |end| + |side| + radius) / radius (round-off of the 2D construction). Left out of
the path law: wraps through the geom (sidesite inside: by design), wraps whose start or end site lies within the
radius (MuJoCo wraps nothing there: the author's sites inside the obstacle), and cylinders whose sidesite is within
the radius of the axis but not of the centre (inside the geom's volume, the XML reference's "inside", while
mju_wrap's |s| < radius calls it outside).

MuJoCo 3.2.2 routed a sphere wrap through the sphere when the sidesite lay outside it but projected inside the
circle (commit 3e701b21, changelog 3.2.3). Measured (`pytest-physlaw check MODEL.xml -k "tendon_length or wraps"
-p no:xdist`, each release's venv): regressions/models/mujoco_3e701b21_tendon_sidesite_off_plane.xml on 3.2.2 bends
at one point of the pulley, its legs' lines 0.396 of the radius inside it (1.2e12 x round-off; straight through it,
0.287 deep, at another state) and wraps the side 1.8 in cosine farther from the
sidesite (wrong_side 0.9), on 3.2.3 0.0076 and 1.7e-4 of the bounds; the in-plane twin the same on both; the
length's rate passes on both (0.030, 0.0036). The zoo: 37 models' tendon lengths on 3.14.0 (33 on 4.0.1), worst
0.0998 (dm_control's ball_in_cup); wraps judged on arm26 (3.14.0: 0.011), none failed. More:
docs/second-computations.md ("Rates along the motion").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import rates
from pytest_physlaw.pack.twofold.states import LARGE, sampled

SOURCE = ("MuJoCo documentation, Computation (tendons: ten_J = d(ten_length)/dq) and XML reference "
          "(tendon/spatial/geom, sidesite); mju_wrap (engine_util_misc.c)")
C = 10.0  # the rate bound's factor over the measurement's own error
NEWTON = 1e-6  # wrap_inside's tolerance on its stationarity equation (engine_util_misc.c)
CYLINDER = mujoco.mjtGeom.mjGEOM_CYLINDER


# -- the length's rate -----------------------------------------------------------------------------------------

def length_mismatch(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, int] | None:
    """At one state: (|rate - ten_J qvel| over its bound, the same as a share of the larger, per tendon; NaN where
    left out), the number of tendons left out (a path changing branch); None where the state is at rest."""
    size = np.abs(np.asarray(data.ten_length, float)) + rates.operand_size(model, data)
    rate = rates.along_motion(model, data, rates.tendon_lengths, size)
    if rate is None:
        return None
    jac = mujoco_versions.tendon_jacobian(model, data)
    predicted = jac @ (np.asarray(data.qvel, float) / rate.speed)
    arm = np.sum(np.abs(jac), axis=1)
    inside = np.array([any(rates.through(model, data, w) or w.one_point for w in rates.wraps(model, data, t))
                       for t in range(model.ntendon)], dtype=bool)
    bound = C * (rate.error + rates.ULPS * rates.EPS * arm + np.where(inside, NEWTON * arm, 0.0))
    apart = np.abs(rate.measured - predicted)
    over = np.where(rate.defined, apart / bound, np.nan)
    share = np.where(rate.defined, apart / np.maximum(np.maximum(np.abs(rate.measured), np.abs(predicted)), 1e-300),
                     np.nan)
    return over, share, int(np.count_nonzero(~rate.defined))


@pytest.mark.law("model-tendon-length-rates", source=SOURCE)
def test_tendon_lengths_change_as_their_jacobian_says(law, pack_model, twofold_states, model_case) -> None:
    """At each moving state each tendon's length changes along qvel as ten_J qvel says (wrapping included), to 10 x
    the central difference's own error; a path changing branch within the steps is left out."""
    model = pack_model.model
    if not model.ntendon:
        pytest.skip(f"{model_case}: no tendon, so no length or ten_J to compare")
    worst, left_out, judged = (0.0, 0.0, -1, 0.0), 0, 0
    for state in (twofold_states if model.nv <= LARGE else sampled(twofold_states)):  # flex scenes: three
        found = length_mismatch(model, state)
        if found is None:
            continue
        over, share, undefined = found
        left_out += undefined
        judged += int(np.count_nonzero(~np.isnan(over)))
        if np.any(over > worst[0]):
            k = int(np.nanargmax(over))
            worst = (float(over[k]), float(share[k]), k, float(state.time))
    if not judged:
        pytest.skip(f"{model_case}: no state where a tendon's length has a rate (at rest, or every path changing "
                    "branch)")
    ratio, share, t_id, t = worst
    name = (model.tendon(t_id).name or str(t_id)) if t_id >= 0 else "-"
    law.check("rate_apart_over_error", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |d(ten_length)/dt - ten_J qvel| over 10 x the central difference's own error, over "
                  f"{judged} tendons x states ({left_out} left out: the path changing branch within the steps); worst "
                  f"{name!r} at t = {t:.3f} s, {share:.3g} of its rate off; failing, MuJoCo {mujoco.__version__} "
                  "applies this tendon's forces (actuators, springs, limits, equalities) through another moment arm "
                  "than its length's derivative: an engine defect (name it in a MuJoCo issue, or change MuJoCo version)")


# -- the path: outside the wrap object, on the sidesite's side -------------------------------------------------

def plane(model: mujoco.MjModel, data: mujoco.MjData, wrap: rates.Wrap) -> np.ndarray:
    """(2, 3) the wrap's plane axes in the geom's frame, as mju_wrap takes them: a cylinder's x and y; a sphere's
    plane through its centre and the two sites (first axis towards the start)."""
    if model.geom_type[wrap.geom] == CYLINDER:
        return np.eye(3)[:2]
    p, q = (rates.local(model, data, wrap.geom, x) for x in (wrap.start, wrap.end))
    first = p / np.linalg.norm(p)
    normal = np.cross(p, q)
    if np.linalg.norm(normal) < 1e-12 * np.linalg.norm(p) * np.linalg.norm(q):  # sites in line with the centre
        normal = np.cross(first, np.eye(3)[int(np.argmin(np.abs(first)))])
    normal /= np.linalg.norm(normal)
    return np.stack([first, np.cross(normal, first)])


def segment_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The distance from the origin to the segment a-b."""
    d = b - a
    dd = float(d @ d)
    s = 0.0 if dd == 0.0 else min(max(-float(a @ d) / dd, 0.0), 1.0)
    return float(np.linalg.norm(a + s * d))


def line_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The distance from the origin to the line through a and b (a wrap's leg: tangent to the object, it is the
    radius)."""
    d = b - a
    dd = float(d @ d)
    return float(np.linalg.norm(a)) if dd == 0.0 else float(np.linalg.norm(a - float(a @ d) / dd * d))


def tangent_points(e: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """The two points where lines from `e` (2D, outside the circle) touch the circle of radius r about the origin:
    t . e = r^2, |t| = r."""
    ee = float(e @ e)
    along, across = r * r / ee * e, r * np.sqrt(ee - r * r) / ee * np.array([-e[1], e[0]])
    return along + across, along - across


def crossing(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    """Whether the 2D segments a-b and c-d cross."""
    cross = lambda u, v: u[0] * v[1] - u[1] * v[0]  # noqa: E731
    d1, d2 = cross(b - a, c - a), cross(b - a, d - a)
    d3, d4 = cross(d - c, a - c), cross(d - c, b - c)
    return d1 * d2 < 0 and d3 * d4 < 0


def mean_direction(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m = a + b
    n = float(np.linalg.norm(m))
    return m / n if n > 0 else m


def path_errors(model: mujoco.MjModel, data: mujoco.MjData, wrap: rates.Wrap) -> tuple[float, float, float] | None:
    """(how deep the path runs inside the wrap object, a wrapped leg's line inside it (a leg not tangent where it
    meets the object) or a tangent point off its surface, a share of the radius; how much closer to
    the sidesite's direction the wrap not taken is (0 where taken the sidesite's side, cosines over 2); round-off's
    share of the radius) at one wrap; None where left out (through the geom by design, a site inside the object,
    a cylinder's sidesite inside its volume but outside |s| < radius)."""
    g, r = wrap.geom, float(model.geom_size[wrap.geom, 0])
    cylinder = model.geom_type[g] == CYLINDER
    reach = (lambda x: float(np.linalg.norm(x[:2]))) if cylinder else (lambda x: float(np.linalg.norm(x)))  # noqa: E731
    start, end = (rates.local(model, data, g, x) for x in (wrap.start, wrap.end))
    side = rates.local(model, data, g, data.site_xpos[wrap.side]) if wrap.side >= 0 else None
    if rates.through(model, data, wrap) or min(reach(start), reach(end)) < r or r <= 0:
        return None
    if side is not None and cylinder and reach(side) < r:
        return None
    round_off = rates.ULPS * rates.EPS * (np.linalg.norm(start) + np.linalg.norm(end) + r +
                                          (0.0 if side is None else np.linalg.norm(side))) / r
    flat = (lambda x: x[:2]) if cylinder else (lambda x: x)  # noqa: E731
    if wrap.tangents is None:  # straight: the segment clears the object
        tangents = []
        depth = r - segment_distance(flat(start), flat(end))
    else:  # wrapped: each leg's line touches the object at its tangent point (a kink there dips its line inside)
        tangents = [rates.local(model, data, g, t) for t in wrap.tangents]
        depth = max(r - line_distance(flat(a), flat(b)) for a, b in ((start, tangents[0]), (tangents[1], end)))
    off_surface = max((abs(reach(t) - r) for t in tangents), default=0.0)
    cut = max(depth, off_surface, 0.0) / r
    if side is None:
        return cut, 0.0, round_off
    axes = plane(model, data, wrap)
    p, q, s = axes @ start, axes @ end, axes @ side
    s = s / max(float(np.linalg.norm(s)), 1e-300)
    candidates = []
    for a, b in ((0, 1), (1, 0)):  # the two ways round: the start's one tangent with the end's other
        t0, t1 = tangent_points(p, r)[a], tangent_points(q, r)[b]
        if not crossing(p, t0, q, t1):
            candidates.append(float(mean_direction(t0, t1) @ s))
    if not candidates:
        return cut, 0.0, round_off
    if wrap.tangents is None:  # straight: MuJoCo wraps unless the segment passes on the sidesite's side
        d = q - p
        closest = p + min(max(-float(p @ d) / max(float(d @ d), 1e-300), 0.0), 1.0) * d
        taken = float(closest @ s) / max(float(np.linalg.norm(closest)), 1e-300)
        return cut, max(-taken, 0.0) / 2, round_off
    taken = float(mean_direction(axes @ tangents[0], axes @ tangents[1]) @ s)
    return cut, max(max(candidates) - taken, 0.0) / 2, round_off


@pytest.mark.law("model-tendon-wraps-outside", source=SOURCE)
def test_tendon_wraps_stay_outside_on_the_sidesites_side(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each spatial tendon's stretch past a sphere or cylinder stays outside it (straight segments
    clear of its radius, tangent points on its surface) and, where a sidesite outside it is given, wraps on the
    sidesite's side, to the 2D construction's round-off."""
    model = pack_model.model
    spatial = [t for t in range(model.ntendon) if model.tendon_num[t] and
               model.wrap_type[model.tendon_adr[t]] != rates.WRAP.mjWRAP_JOINT and
               np.isin(model.wrap_type[model.tendon_adr[t]:model.tendon_adr[t] + model.tendon_num[t]],
                       [rates.WRAP.mjWRAP_SPHERE, rates.WRAP.mjWRAP_CYLINDER]).any()]
    if not spatial:
        pytest.skip(f"{model_case}: no spatial tendon wrapping a sphere or cylinder")
    cut, side, judged, left_out = (0.0, 0.0, "-", 0.0), (0.0, 0.0, "-", 0.0), 0, 0
    for state in twofold_states:
        rates.finite_state(state, "tendon wrapping")
        for t in spatial:
            for w in rates.wraps(model, state, t):
                found = path_errors(model, state, w)
                if found is None:
                    left_out += 1
                    continue
                judged += 1
                where = f"{model.tendon(t).name or t!s} at {model.geom(w.geom).name or w.geom!s}"
                if found[0] / found[2] > cut[0]:
                    cut = (found[0] / found[2], found[0], where, float(state.time))
                if found[1] / found[2] > side[0]:
                    side = (found[1] / found[2], found[1], where, float(state.time))
    if not judged:
        pytest.skip(f"{model_case}: every wrap left out ({left_out}: through the geom, or a site inside it)")
    defect = (f"failing, MuJoCo {mujoco.__version__} routes this tendon another way than its wrapping rules say: an "
              "engine defect where the geometry is sound (name it in a MuJoCo issue, or change MuJoCo version)")
    law.check("cut_through_over_round_off", cut[0], le=1.0, drift_abs=1.0,
              why=f"deepest a straight segment (or a wrapped leg's line) runs inside the wrap object, or a tangent "
                  f"point off its surface, over its round-off, over {judged} wraps x states ({left_out} left out: through the geom by its "
                  f"sidesite, or a site inside it); worst {cut[2]!r} at t = {cut[3]:.3f} s, {cut[1]:.3g} of the "
                  f"radius; {defect}")
    law.check("wrong_side_over_round_off", side[0], le=1.0, drift_abs=1.0,
              why=f"how much closer the wrap not taken is to the sidesite (mean direction of its tangent points, "
                  f"cosines over 2), over round-off; worst {side[2]!r} at t = {side[3]:.3f} s, {side[1]:.3g}; {defect}")
