"""A geometry sensor reads the geometry: a rangefinder reads how far its ray runs to the first surface it meets, and a
distance sensor's segment (fromto, and the normal along it) runs from a point on its first geom's surface to a point
on its second's, as long as their distance. MuJoCo computes both with one call each (`mj_ray`, `mj_geomDistance`),
so the second computation is the geometry itself (`twofold.surfaces`: the ray against each geom's sizes,
heightfield samples and mesh triangles; a point's distance to each geom's surface). A release whose ray meets a
heightfield's wall at the wrong height, or whose distance segment runs from the wrong geom, moves no body: nothing
but the geometry shows it. Source: MuJoCo's XML reference (sensor/rangefinder: the distance along the site's z axis
to the nearest geom surface, the site's own body and invisible geoms excluded, -1 where none; sensor/distance,
normal, fromto: the smallest signed distance between the geoms, the segment between their nearest points, from the
first to the second); `mj_ray` and `mj_geomDistance` in the API reference.

Bounds, from the second computation's own error: a rangefinder's reading lies between the first hits of its ray on
every geom it sees grown and shrunk by 1e-9 of the model's extent (round-off of a few products of its lengths); a
distance segment's ends lie on their geoms within 100 x MuJoCo's convex-solver tolerance (`opt.ccd_tolerance`: the
segment's ends are that solver's answer, 2 x its tolerance off on an ellipsoid at worst, measured) plus that
round-off, its length is |distance| to that round-off, and the sensor reads the segment `mj_geomDistance` gives for
its pair. Only separated pairs are held to their surfaces: an overlap's ends come from the penetration solver (EPA)
or a pair's own collider, which place them near the surfaces only (a capsule in a box: 0.17 of its size off). An
overlap's depth is held instead to the shapes' overlap along its own segment (their support functions: moved that
far along it, the geoms part), within 5 % of the depth plus the tolerance, where MuJoCo measures the pair exactly:
its convex solver (3.3 on, native CCD; 6e-5 m at most on cylinders and meshes, measured), and the analytic sphere,
capsule-capsule and box-box colliders; not libccd's MPR (before 3.3, or native CCD off: up to 85 % off on deep
overlaps), not an ellipsoid (EPA's polytope of its curved surface: 1.1 mm off at 1 cm deep, 4.8 mm at 37 cm), and
not the capsule-box collider, which gives each end's depth.
States: `twofold_states`. Left out, naming why: camera rangefinders (a depth image), a rangefinder that does not
report its distance, a ray that starts in or on a geom or meets an SDF geom, a distance sensor on a heightfield, an
SDF or a mesh without a convex hull, delayed or sampled sensors, and releases without `mj_geomDistance`.

Measured figures and commands: docs/second-computations.md ("Geometry sensors").
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.readouts.sensors import apply_cutoff, named_sensors, timed
from pytest_physlaw.pack.twofold import contact_overlap, surfaces

SOURCE = ("MuJoCo XML reference (sensor/rangefinder, distance, normal, fromto); API reference (mj_ray, "
          "mj_geomDistance); the geoms' own shapes")
ROUND_OFF = 1e-9  # of the model's extent: a few products of its lengths
CCD = 100.0  # of opt.ccd_tolerance: a segment end's distance off its surface that the convex solver may leave
S, OBJ = mujoco.mjtSensor, mujoco.mjtObj
DISTANCE_KINDS = tuple(int(getattr(S, k)) for k in ("mjSENS_GEOMDIST", "mjSENS_GEOMNORMAL", "mjSENS_GEOMFROMTO")
                       if hasattr(S, k))


def _scale(model: mujoco.MjModel) -> float:
    return max(float(model.stat.extent), 1e-300)


# -- rangefinders -------------------------------------------------------------------------------------------------

def rangefinders(model: mujoco.MjModel) -> tuple[list[int], dict[int, str]]:
    """(the rangefinders judged, {sensor: why another is left out})."""
    kept, why = [], {}
    for s in np.flatnonzero(np.asarray(model.sensor_type) == int(S.mjSENS_RANGEFINDER)).tolist():
        if int(model.sensor_objtype[s]) != int(OBJ.mjOBJ_SITE):
            why[s] = "a camera's depth image"
        elif not mujoco_versions.rangefinder_reads_distance(model, s):
            why[s] = "reports no distance"
        elif timed(model, s):
            why[s] = "delayed or sampled"
        else:
            kept.append(s)
    return kept, why


def seen(model: mujoco.MjModel, body: int) -> np.ndarray:
    """The geoms a ray from a site on `body` sees (`mj_ray`'s exclusions): not the body's own, not invisible (an
    alpha of 0 on the geom without a material, or on its material)."""
    alpha = np.asarray(model.geom_rgba)[:, 3].copy()
    mat = np.asarray(model.geom_matid)
    alpha[mat >= 0] = np.asarray(model.mat_rgba)[mat[mat >= 0], 3]
    return np.flatnonzero((np.asarray(model.geom_bodyid) != body) & (alpha != 0))


def ray_bracket(model: mujoco.MjModel, data: mujoco.MjData, geoms: np.ndarray, origin: np.ndarray,
                direction: np.ndarray, margin: float) -> tuple[float, float] | str:
    """(the ray's first hit on the geoms grown by `margin`, on them shrunk by it; inf where none), or why the ray
    cannot be judged: it starts in or on a geom, or an SDF geom lies across it."""
    centre = np.asarray(data.geom_xpos)[geoms] - origin
    along = centre @ direction
    across = np.linalg.norm(centre - along[:, None] * direction, axis=1)
    reach = np.asarray(model.geom_rbound)[geoms] + margin
    planes = np.asarray(model.geom_type)[geoms] == surfaces.PLANE  # rbound 0: an infinite plane
    near = planes | ((across <= reach) & (along >= -reach))
    outer, inner = surfaces.NONE, surfaces.NONE
    for g in geoms[near].tolist():
        shape = surfaces.shape(model, data, g)
        if shape is None:
            return f"an SDF geom ({model.geom(g).name or g}) across its ray"
        grown = surfaces.first_hit(shape, origin, direction, margin)
        if grown == 0.0:
            return f"its ray starts in or on geom {model.geom(g).name or g}"
        outer, inner = min(outer, grown), min(inner, surfaces.first_hit(shape, origin, direction, -margin))
    return outer, inner


def reading_error(reading: float, outer: float, inner: float, cut=lambda t: t) -> float:
    """How far a rangefinder's reading lies outside what the geometry allows (metres): the first hit between `outer`
    and `inner`, -1 where there is none, each as the sensor's cutoff reports it (`cut`)."""
    miss = cut(-1.0)
    if outer == surfaces.NONE:
        return abs(reading - miss)
    if inner == surfaces.NONE and reading == miss:
        return 0.0  # a grazing ray: the grown geometry meets it, the shrunk does not
    low, high = cut(outer), (cut(inner) if inner != surfaces.NONE else np.inf)
    return max(low - reading, reading - high, 0.0)


def rangefinder_errors(model: mujoco.MjModel, state: mujoco.MjData, sensors: list[int]) -> tuple[dict, dict]:
    """({sensor: (its reading's error over the margin, the reading, the geometry's first hit)}, {sensor: why it is
    not judged at this state})."""
    margin = ROUND_OFF * _scale(model)
    errors, skipped = {}, {}
    for s in sensors:
        site = int(model.sensor_objid[s])
        origin = np.array(state.site_xpos[site])
        direction = np.array(state.site_xmat[site]).reshape(3, 3)[:, 2]
        found = ray_bracket(model, state, seen(model, int(model.site_bodyid[site])), origin, direction, margin)
        if isinstance(found, str):
            skipped[s] = found
            continue
        reading = float(state.sensordata[int(model.sensor_adr[s])])
        cut = lambda t: float(apply_cutoff(model, s, np.array([t]))[0])  # noqa: E731
        error = reading_error(reading, *found, cut) if np.isfinite(reading) else np.inf
        errors[s] = (error / margin, reading, found[0])
    return errors, skipped


@pytest.mark.law("model-rangefinders-read-the-first-surface", source=SOURCE)
def test_rangefinders_read_the_first_surface(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each site rangefinder reads the distance along its ray to the first surface of a geom it
    sees (-1 where there is none), computed again from the geoms' shapes, to 1e-9 of the model's extent."""
    model = pack_model.model
    sensors, why = rangefinders(model)
    _skip_unless(model, model_case, sensors, why, "no site rangefinder reporting its distance")
    worst, judged, skipped = (0.0, -1, 0.0, 0.0, 0.0), 0, {}
    for state in twofold_states:
        errors, left = rangefinder_errors(model, state, sensors)
        skipped.update(left)
        judged += len(errors)
        for s, (ratio, reading, hit) in errors.items():
            if ratio >= worst[0]:
                worst = (ratio, s, float(state.time), reading, hit)
    if not judged:
        pytest.skip(f"{model_case}: no state where a rangefinder's ray can be judged ({named_sensors(model, skipped)})")
    ratio, s, t, reading, hit = worst
    hit_text = "no surface" if hit == surfaces.NONE else f"a surface at {hit:.6g}"
    left = f"; left out: {named_sensors(model, {**why, **skipped})}" if why or skipped else ""
    law.check("rangefinder_error_over_margin", ratio, le=1.0, drift_abs=1.0,
              why=f"largest |reading - the ray's first hit on the geoms' own shapes| over 1e-9 of the model's "
                  f"extent, over {judged} rays x states; worst {_sensor_name(model, s)!r} at t = {t:.3f} s (reads "
                  f"{reading:.6g}, its ray meets {hit_text}){left}; "
                  f"failing, MuJoCo {mujoco.__version__}'s ray meets another surface than the geometry has (or "
                  "misses one): an engine defect in mj_ray for that geom's kind; name it in a MuJoCo issue, or "
                  "change MuJoCo version")


# -- distance sensors ---------------------------------------------------------------------------------------------

def _geoms(model: mujoco.MjModel, objtype: int, obj: int) -> list[int]:
    if objtype == int(OBJ.mjOBJ_BODY):
        adr = int(model.body_geomadr[obj])
        return list(range(adr, adr + int(model.body_geomnum[obj])))
    return [obj]


def distance_sensors(model: mujoco.MjModel) -> tuple[list[int], dict[int, str]]:
    """(the distance, normal and fromto sensors judged, {sensor: why another is left out})."""
    kept, why = [], {}
    if not hasattr(mujoco, "mj_geomDistance"):
        return [], {s: "no mj_geomDistance on this release" for s in range(model.nsensor)
                    if int(model.sensor_type[s]) in DISTANCE_KINDS}
    for s in range(model.nsensor):
        if int(model.sensor_type[s]) not in DISTANCE_KINDS:
            continue
        geoms = (_geoms(model, int(model.sensor_objtype[s]), int(model.sensor_objid[s]))
                 + _geoms(model, int(model.sensor_reftype[s]), int(model.sensor_refid[s])))
        kinds = np.asarray(model.geom_type)[geoms]
        meshes = [int(model.geom_dataid[g]) for g in geoms if int(model.geom_type[g]) == surfaces.MESH]
        if np.any(kinds == surfaces.HFIELD) or np.any(kinds == int(mujoco.mjtGeom.mjGEOM_SDF)):
            why[s] = "a heightfield or SDF geom"
        elif any(int(model.mesh_graphadr[m]) < 0 for m in meshes):
            why[s] = "a mesh without a convex hull"
        elif timed(model, s):
            why[s] = "delayed or sampled"
        else:
            kept.append(s)
    return kept, why


def nearest(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> tuple[float, np.ndarray, int, int, float]:
    """(distance, fromto, geom1, geom2, beyond) of the sensor's nearest pair as `mj_geomDistance` gives it, the pairs
    taken in the sensor's order, its cutoff as the largest distance (geoms -1 where none is nearer); `beyond`, how far
    past that cutoff, given as its distmax, `mj_geomDistance` answered for any pair (0: never; 3.3.0 to 3.3.4 gave
    the convex solver's "no hit", 1e10 or 1.8e308)."""
    cutoff = float(model.sensor_cutoff[s])
    best, beyond = (cutoff, np.zeros(6), -1, -1), 0.0
    for g1 in _geoms(model, int(model.sensor_objtype[s]), int(model.sensor_objid[s])):
        for g2 in _geoms(model, int(model.sensor_reftype[s]), int(model.sensor_refid[s])):
            dist, fromto = mujoco_versions.geom_fromto(model, data, g1, g2, cutoff)
            beyond = max(beyond, dist - cutoff if np.isfinite(dist) else np.inf)
            if dist < best[0]:
                best = (dist, fromto, g1, g2)
    return (*best, beyond)


def expected_reading(kind: int, dist: float, fromto: np.ndarray) -> np.ndarray:
    """What a distance (dist), normal (the segment's direction, 0 where it has none) or fromto sensor reads."""
    if kind == int(S.mjSENS_GEOMDIST):
        return np.array([dist])
    if kind == int(S.mjSENS_GEOMNORMAL):
        normal = fromto[3:] - fromto[:3]
        length = float(np.linalg.norm(normal))
        return normal / length if length > 0 else normal
    return fromto


DEPTH_SHARE = contact_overlap.SHARE  # of the depth: EPA's own error, a margin over what it leaves (6e-5 m)


def depth_judged(model: mujoco.MjModel, g1: int, g2: int) -> bool:
    """Whether MuJoCo measures this pair's overlap exactly enough to hold its depth to the shapes' overlap
    (`contact_overlap.why_not`, one answer a pair: its convex solver from 3.3, the analytic pairs; not libccd's MPR,
    an ellipsoid, or the capsule-box collider)."""
    return contact_overlap.why_not(model, g1, g2, several=False) is None


def segment_error(model: mujoco.MjModel, data: mujoco.MjData, dist: float, fromto: np.ndarray, g1: int,
                  g2: int) -> tuple[float, str]:
    """(how far the segment's geometry is off, over its bound; which part): its length off |dist|; where the geoms
    are apart, its ends off their geoms' surfaces; where they overlap (and MuJoCo measures the pair exactly), the
    depth off the shapes' overlap along the segment."""
    off_round = ROUND_OFF * _scale(model)
    tolerance = CCD * mujoco_versions.ccd_tolerance(model) + off_round
    segment = fromto[3:] - fromto[:3]
    span = float(np.linalg.norm(segment))
    parts = [(abs(span - abs(dist)) / off_round, "its length against |distance|")]
    first, second = surfaces.shape(model, data, g1), surfaces.shape(model, data, g2)
    if dist > 0:
        for shape, point, which in ((first, fromto[:3], "its start off geom1's surface"),
                                    (second, fromto[3:], "its end off geom2's surface")):
            low, high = surfaces.gap(shape, point)
            parts.append((max(low, -high, 0.0) / tolerance, which))  # at least this far off the surface
    elif dist < 0 and span > off_round and depth_judged(model, g1, g2):
        depth = surfaces.overlap(first, second, segment / span)
        if depth is not None:
            parts.append((abs(depth - abs(dist)) / (DEPTH_SHARE * abs(dist) + tolerance),
                          "its depth against the shapes' overlap along it"))
    return max(parts, key=lambda x: x[0])


def distance_errors(model: mujoco.MjModel, state: mujoco.MjData, sensors: list[int]) -> dict[int, tuple[float, str]]:
    """{sensor: (its error over its bound, which part)}: the reading against `mj_geomDistance`'s for its pair, and
    that segment against the geoms."""
    out = {}
    for s in sensors:
        dist, fromto, g1, g2, beyond = nearest(model, state, s)
        adr, dim, kind = int(model.sensor_adr[s]), int(model.sensor_dim[s]), int(model.sensor_type[s])
        got = np.asarray(state.sensordata[adr: adr + dim], float)
        want = expected_reading(kind, dist, fromto)
        read = float(np.max(np.abs(got - want))) / (ROUND_OFF * max(_scale(model), 1.0))
        found = (read if np.all(np.isfinite(got)) else np.inf, "the reading against mj_geomDistance's")
        capped = (beyond / (ROUND_OFF * max(_scale(model), 1.0)), "mj_geomDistance past the cutoff it was given as "
                                                                   "distmax (a pair beyond it must read distmax)")
        found = max(found, capped, key=lambda x: x[0])
        if g1 >= 0:
            geometry = segment_error(model, state, dist, fromto, g1, g2)
            found = max(found, geometry, key=lambda x: x[0])
        out[s] = found
    return out


@pytest.mark.law("model-distance-sensors-span-their-geoms", source=SOURCE)
def test_distance_sensors_span_their_geoms(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each distance, normal and fromto sensor reads its geoms' nearest pair, whose segment is as
    long as their distance and, where they are apart, runs from the first geom's surface to the second's, by the
    geoms' own shapes."""
    model = pack_model.model
    sensors, why = distance_sensors(model)
    _skip_unless(model, model_case, sensors, why, "no distance, normal or fromto sensor")
    worst, judged = (0.0, -1, "", 0.0), 0
    for state in twofold_states:
        for s, (ratio, part) in distance_errors(model, state, sensors).items():
            judged += 1
            if ratio >= worst[0]:
                worst = (ratio, s, part, float(state.time))
    ratio, s, part, t = worst
    left = f"; left out: {named_sensors(model, why)}" if why else ""
    legacy = ("" if mujoco_versions.convex_solver_distances(model) else
              "; this model's convex pairs are measured by libccd's MPR or a pair's own collider with the cutoff as "
              "its margin (native CCD off, or a release before 3.3), whose distances and points are approximate")
    law.check("distance_sensor_error_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"largest error of a distance sensor over its bound (the reading against mj_geomDistance's, the "
                  f"segment's ends against the geoms' surfaces, its length against the distance, an overlap's depth "
                  f"against the shapes' overlap along the segment), over {judged} "
                  f"sensors x states; worst {_sensor_name(model, s)!r} ({part}) at t = {t:.3f} s{left}{legacy}; failing, "
                  f"MuJoCo {mujoco.__version__}'s distance runs between other points than the geoms' nearest (a "
                  "segment from the wrong geom: a flipped normal), or answers past the distmax it was given (3.3.0 "
                  "to 3.3.4: the convex solver's 'no hit', 1e10 or 1.8e308, where a pair lies beyond it): an engine "
                  "defect in mj_geomDistance for that pair; name it in a MuJoCo issue, or change MuJoCo version")


# -- shared -------------------------------------------------------------------------------------------------------

def _skip_unless(model: mujoco.MjModel, case: str, sensors: list[int], why: dict[int, str], none: str) -> None:
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_SENSOR:
        pytest.skip(f"{case}: sensors disabled (<flag sensor=\"disable\">)")
    if not sensors:
        pytest.skip(f"{case}: {none}" + (f" (left out: {named_sensors(model, why)})" if why else ""))


def _sensor_name(model: mujoco.MjModel, s: int) -> str:
    return (model.sensor(s).name or str(s)) if s >= 0 else "-"
