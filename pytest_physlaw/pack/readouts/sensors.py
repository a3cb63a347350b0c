"""Each sensor reads the quantity of mjData it names. Source: MuJoCo's XML reference (sensor/*: what each kind
measures, in which frame) and "Computation" (sensors). A sensor that reads a stale stage, another object's or
frame's quantity, or writes into another sensor's slot breaks this.

The second computation, per kind, from MuJoCo's own state and calls:
jointpos, jointvel, ballquat, ballangvel: qpos, qvel at the joint's addresses; tendonpos/vel: ten_length,
ten_velocity; actuatorpos/vel/frc: actuator_length, actuator_velocity, actuator_force; jointactuatorfrc:
qfrc_actuator at the joint's dof; framepos, framequat, framexaxis/yaxis/zaxis: the object's frame (xpos/xmat of a
body, its inertial frame, geom, site, camera), in the reference object's frame where it has one; framelinvel,
frameangvel (no reference object), velocimeter, gyro: the bodies' Jacobians at the point (`mj_jac`) times qvel, in
the site's frame for the last two; accelerometer, framelinacc, frameangacc: the point's Jacobians, J qacc +
Jdot qvel (`mj_jac`, `mj_jacDot`), less gravity for the linear ones (a body fixed to the world reads -gravity; before a
whole `mj_jacDot`, 3.3.1, MuJoCo's `mj_objectAcceleration`); force, torque: the body's interaction wrench `cfrc_int` after `mj_rnePostConstraint`, moved
to the site and turned into its frame; subtreecom, subtreelinvel: the subtree's bodies' mass-weighted centres of
mass and `mj_jacSubtreeCom` times qvel; clock: time; touch: at least the normal forces (`mj_contactForce`) of the
contacts of its body whose point lies inside the site's zone, at most those of every contact of its body (MuJoCo adds a
contact whose normal ray meets the zone); subtreeangmom: the subtree's bodies' R I R^T w + m (x - c) x v about its
own centre of mass, each body's velocity through its `mj_jacBodyCom`; magnetometer: `opt.magnetic` in the site's
frame; insidesite (MuJoCo 3.3 on): the object's frame origin against the site's shape and size, in the site's frame;
tendonactuatorfrc: the forces of the actuators on that tendon, summed; e_kinetic: qvel^T M qvel / 2 through
`mj_mulM`; jointlimitpos/vel (hinge, slide) and tendonlimitpos/vel: the first side of the range (lower, then upper)
within its margin, from qpos (ten_length) and the range: distance less margin and the distance's rate, 0 where no
side is within its margin.

A sensor's `cutoff` is applied as MuJoCo applies it (real values clamped to +-cutoff, positive ones to cutoff);
`noise` is not applied by MuJoCo's engine (the reference: it is for the user's own noise model), so it needs no
undoing. Left out, named in the check's message: other kinds (range finders and geometry distances, which MuJoCo
computes with the very calls a second computation would make, `mj_ray` and `mj_geomDistance`: the geometry itself
judges them, `twofold.geometry_sensors`; camera projections,
contact and tactile sensors, potential energy, limit forces, user and plugin sensors), velocities relative to a
reference object, a ball joint's limit, a massless body inside a site (MuJoCo 3.8.1 on tests a flex's parent at its
subtree's mass, not at its inertial frame), and delayed or sampled sensors (`sensor_delay`, `sensor_interval`,
MuJoCo 3.4 on). Bound: round-off of the quantity's scale (the size of the terms it is made of).

Measured:
`pytest --physlaw-model=MODEL.xml -k readout -s`; see docs/second-computations.md ("Readouts").
"""

from __future__ import annotations

from typing import Callable

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = "MuJoCo XML reference (sensor/*) and Computation (sensors); mj_jac, mj_jacDot, mj_contactForce"
ROUND_OFF = 1e-10  # of the quantity's scale: its few sums and rotations round off at 1e-15 of it
DRIVE = ("sensor_error",)  # the measures, per state (for scripts over many models)
S, OBJ = mujoco.mjtSensor, mujoco.mjtObj
Reading = tuple[np.ndarray, float]  # (what the sensor should read, the scale of the terms it is made of)


def _frame(model: mujoco.MjModel, data: mujoco.MjData, objtype: int, obj: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(position, rotation matrix, body) of an object's frame: a body's (xbody) or its inertial frame, a geom's,
    a site's or a camera's."""
    kinds = {int(OBJ.mjOBJ_XBODY): (data.xpos, data.xmat, lambda i: i),
             int(OBJ.mjOBJ_BODY): (data.xipos, data.ximat, lambda i: i),
             int(OBJ.mjOBJ_GEOM): (data.geom_xpos, data.geom_xmat, lambda i: model.geom_bodyid[i]),
             int(OBJ.mjOBJ_SITE): (data.site_xpos, data.site_xmat, lambda i: model.site_bodyid[i]),
             int(OBJ.mjOBJ_CAMERA): (data.cam_xpos, data.cam_xmat, lambda i: model.cam_bodyid[i])}
    pos, mat, body = kinds[objtype]
    return np.array(pos[obj]), np.array(mat[obj]).reshape(3, 3), int(body(obj))


def _quat(mat: np.ndarray) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, mat.ravel())
    return q


def _point_velocity(model: mujoco.MjModel, data: mujoco.MjData, point: np.ndarray, body: int) -> tuple[Reading, Reading]:
    """((linear velocity of `point` on `body`, scale), (angular velocity, scale)), world frame: Jacobians times qvel."""
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jac(model, data, jacp, jacr, point, body)
    qvel = np.asarray(data.qvel)
    return (jacp @ qvel, float(np.max(np.abs(jacp) @ np.abs(qvel), initial=0.0))), \
        (jacr @ qvel, float(np.max(np.abs(jacr) @ np.abs(qvel), initial=0.0)))


def _point_acceleration(model: mujoco.MjModel, data: mujoco.MjData, point: np.ndarray, body: int, objtype: int,
                        obj: int) -> tuple[Reading, Reading]:
    """((linear acceleration of `point` on `body` less gravity, the proper acceleration an accelerometer reads, scale),
    (angular acceleration, scale)), world frame: the point's Jacobians, J qacc + Jdot qvel (`mj_jac`, `mj_jacDot`), a
    computation apart from the sensors' (`mj_rnePostConstraint`'s cacc); a body fixed to the world reads -gravity.
    Before a whole `mj_jacDot` (`mujoco_versions.sound_jacobian_dot`: 3.3.1), MuJoCo's own `mj_objectAcceleration`."""
    if not mujoco_versions.sound_jacobian_dot():
        acc = np.zeros(6)
        mujoco.mj_objectAcceleration(model, data, objtype, obj, acc, 0)
        return (acc[3:], _size(acc)), (acc[:3], _size(acc))
    jacp, jacr, dotp, dotr = (np.zeros((3, model.nv)) for _ in range(4))
    mujoco.mj_jac(model, data, jacp, jacr, point, body)
    mujoco.mj_jacDot(model, data, dotp, dotr, point, body)
    qacc, qvel, gravity = np.asarray(data.qacc), np.asarray(data.qvel), np.asarray(model.opt.gravity, dtype=float)
    if model.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_GRAVITY):
        gravity = np.zeros(3)
    size = float(np.max(np.abs(np.vstack([jacp, jacr])) @ np.abs(qacc) + np.abs(np.vstack([dotp, dotr])) @ np.abs(qvel),
                        initial=0.0)) + _size(gravity)
    return (jacp @ qacc + dotp @ qvel - gravity, size), (jacr @ qacc + dotr @ qvel, size)


def _size(x: np.ndarray) -> float:
    return float(np.max(np.abs(x), initial=0.0))


def _frame_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading | None:
    kind, objtype, obj = int(model.sensor_type[s]), int(model.sensor_objtype[s]), int(model.sensor_objid[s])
    pos, mat, body = _frame(model, data, objtype, obj)
    ref = int(model.sensor_refid[s])
    if kind in (int(S.mjSENS_FRAMELINVEL), int(S.mjSENS_FRAMEANGVEL)):
        if ref >= 0:
            return None
        lin, ang = _point_velocity(model, data, pos, body)
        return lin if kind == int(S.mjSENS_FRAMELINVEL) else ang
    if kind in (int(S.mjSENS_FRAMELINACC), int(S.mjSENS_FRAMEANGACC)):
        (lin, size), (ang, _) = _point_acceleration(model, data, pos, body, objtype, obj)
        return (lin, size) if kind == int(S.mjSENS_FRAMELINACC) else (ang, size)
    size = _size(pos)
    if ref >= 0:
        ref_pos, ref_mat, _ = _frame(model, data, int(model.sensor_reftype[s]), ref)
        pos, mat, size = ref_mat.T @ (pos - ref_pos), ref_mat.T @ mat, size + _size(ref_pos)
    if kind == int(S.mjSENS_FRAMEPOS):
        return pos, size
    if kind == int(S.mjSENS_FRAMEQUAT):
        return _quat(mat), 1.0
    axis = {int(S.mjSENS_FRAMEXAXIS): 0, int(S.mjSENS_FRAMEYAXIS): 1, int(S.mjSENS_FRAMEZAXIS): 2}[kind]
    return mat[:, axis], 1.0


def _site_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading | None:
    kind, site = int(model.sensor_type[s]), int(model.sensor_objid[s])
    pos, mat, body = _frame(model, data, int(OBJ.mjOBJ_SITE), site)
    if kind in (int(S.mjSENS_VELOCIMETER), int(S.mjSENS_GYRO)):
        lin, ang = _point_velocity(model, data, pos, body)
        v, size = lin if kind == int(S.mjSENS_VELOCIMETER) else ang
        return mat.T @ v, size
    if kind == int(S.mjSENS_ACCELEROMETER):
        (lin, size), _ = _point_acceleration(model, data, pos, body, int(OBJ.mjOBJ_SITE), site)
        return mat.T @ lin, size
    # force, torque: the wrench the body's subtree receives from its parent (cfrc_int, at the root's centre of mass)
    wrench = np.asarray(data.cfrc_int[body])
    torque, force = wrench[:3], wrench[3:]
    if kind == int(S.mjSENS_FORCE):
        return mat.T @ force, _size(force)
    lever = pos - np.asarray(data.subtree_com[model.body_rootid[body]])
    return mat.T @ (torque - np.cross(lever, force)), _size(torque) + _size(lever) * _size(force)


def _subtree_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    kind, body = int(model.sensor_type[s]), int(model.sensor_objid[s])
    inside = [b for b in range(model.nbody) if _in_subtree(model, b, body)]
    mass = np.asarray(model.body_mass)[inside]
    if kind == int(S.mjSENS_SUBTREECOM):
        com = mass @ np.asarray(data.xipos)[inside] / max(float(np.sum(mass)), mujoco.mjMINVAL)
        return com, _size(np.asarray(data.xipos)[inside])
    jac = np.zeros((3, model.nv))
    mujoco.mj_jacSubtreeCom(model, data, jac, body)
    return jac @ data.qvel, float(np.max(np.abs(jac) @ np.abs(data.qvel), initial=0.0))


def _in_subtree(model: mujoco.MjModel, b: int, root: int) -> bool:
    while b > root:
        b = int(model.body_parentid[b])
    return b == root


def _touch_zone(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> tuple[float, float, float]:
    """(normal forces of the site body's contacts inside the site's zone, of all its contacts, their scale)."""
    site = int(model.sensor_objid[s])
    body = int(model.site_bodyid[site])
    pos, mat, _ = _frame(model, data, int(OBJ.mjOBJ_SITE), site)
    inside = total = 0.0
    local = np.zeros(6)
    cons = data.contact  # the contacts' arrays: MuJoCo 3.0's bindings read one contact's pos wrong
    geoms, address = mujoco_versions.contact_geoms(cons), np.asarray(cons.efc_address)
    for c in range(data.ncon):
        bodies = [int(model.geom_bodyid[g]) if g >= 0 else -1 for g in geoms[c].tolist()]
        if int(address[c]) < 0 or body not in bodies:
            continue
        mujoco.mj_contactForce(model, data, c, local)
        if local[0] <= 0:
            continue
        total += local[0]
        point = mat.T @ (np.asarray(cons.pos[c]) - pos)
        ray = mat.T @ np.asarray(cons.frame[c][:3]) * (-1.0 if bodies[1] == body else 1.0)
        if _inside(model, site, point) and not _exits_on_an_edge(model, site, point, ray):
            inside += local[0]
    return inside, total, total


def _exits_on_an_edge(model: mujoco.MjModel, site: int, p: np.ndarray, ray: np.ndarray, share: float = 1e-9) -> bool:
    """Whether the contact's normal ray from `p` (site frame) leaves a box or cylinder zone within `share` of its size
    of an edge, where MuJoCo's ray test (`mju_rayGeom`, each face's rectangle or disc taken closed) can reject both
    faces by round-off and leave out a contact inside the zone: dm_control's ant, whose hip contacts lie on a box
    zone's axis with their normal ray along its diagonal, read 0 of 3.5e5 N."""
    size, kind = np.asarray(model.site_size[site]), int(model.site_type[site])
    G = mujoco.mjtGeom
    if kind == int(G.mjGEOM_BOX):
        along = np.abs(ray) > 1e-12
        if not np.any(along):
            return False
        exit_at = float(np.min((np.sign(ray[along]) * size[along] - p[along]) / ray[along]))
        q = np.abs(p + exit_at * ray)
        return int(np.sum(q >= size * (1 - share))) >= 2
    if kind == int(G.mjGEOM_CYLINDER):
        radial, height = np.hypot(*ray[:2]), abs(ray[2])
        exits = []
        if height > 1e-12:
            exits.append((np.sign(ray[2]) * size[1] - p[2]) / ray[2])
        if radial > 1e-12:  # |p_xy + t ray_xy| = r, the positive root
            a, b, c = radial ** 2, float(p[:2] @ ray[:2]), float(p[:2] @ p[:2]) - size[0] ** 2
            exits.append((-b + np.sqrt(max(b * b - a * c, 0.0))) / a)
        if not exits:
            return False
        q = p + min(exits) * ray
        return np.hypot(q[0], q[1]) >= size[0] * (1 - share) and abs(q[2]) >= size[1] * (1 - share)
    return False


def _inside(model: mujoco.MjModel, site: int, p: np.ndarray, shrink: float = 1 - 1e-9) -> bool:
    """Whether a point (site frame) is inside the site's volume scaled by `shrink` (by default a hair inside: round-off
    on its surface is out)."""
    size, kind = np.asarray(model.site_size[site]), int(model.site_type[site])
    G = mujoco.mjtGeom
    if kind == int(G.mjGEOM_SPHERE):
        return float(np.linalg.norm(p)) < size[0] * shrink
    if kind == int(G.mjGEOM_CAPSULE):
        return float(np.linalg.norm([p[0], p[1], max(abs(p[2]) - size[1], 0.0)])) < size[0] * shrink
    if kind == int(G.mjGEOM_ELLIPSOID):
        return float(np.sum((p / size) ** 2)) < shrink
    if kind == int(G.mjGEOM_CYLINDER):
        return float(np.hypot(p[0], p[1])) < size[0] * shrink and abs(p[2]) < size[1] * shrink
    if kind == int(G.mjGEOM_BOX):
        return bool(np.all(np.abs(p) < size * shrink))
    return False


def _inside_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading | None:
    """insidesite: 1 where the object's frame origin lies inside the reference site's volume, else 0 (the site's shape
    from its type and size, in its own frame); None on the surface to 1e-9 of its size, where either answer is
    round-off."""
    pos, _, _ = _frame(model, data, int(model.sensor_objtype[s]), int(model.sensor_objid[s]))
    site = int(model.sensor_refid[s])
    site_pos, site_mat, _ = _frame(model, data, int(OBJ.mjOBJ_SITE), site)
    local = site_mat.T @ (pos - site_pos)
    inner, outer = _inside(model, site, local, 1 - 1e-9), _inside(model, site, local, 1 + 1e-9)
    return None if inner != outer else (np.array([1.0 if inner else 0.0]), 1.0)


def _angmom_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    """subtreeangmom: the subtree's angular momentum about its own centre of mass, summed body by body from each
    body's velocity through its `mj_jacBodyCom` (R I R^T w + m (x - c) x v)."""
    root = int(model.sensor_objid[s])
    inside = [b for b in range(model.nbody) if _in_subtree(model, b, root)]
    mass, xipos = np.asarray(model.body_mass)[inside], np.asarray(data.xipos)[inside]
    com = mass @ xipos / max(float(np.sum(mass)), mujoco.mjMINVAL)
    qvel, total, scale = np.asarray(data.qvel), np.zeros(3), 0.0
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for k, b in enumerate(inside):
        mujoco.mj_jacBodyCom(model, data, jacp, jacr, b)
        rot = np.asarray(data.ximat[b]).reshape(3, 3)
        inertia = rot @ np.diag(model.body_inertia[b]) @ rot.T
        lever = xipos[k] - com
        total += inertia @ (jacr @ qvel) + mass[k] * np.cross(lever, jacp @ qvel)
        scale += _size(inertia) * float(np.max(np.abs(jacr) @ np.abs(qvel), initial=0.0)) \
            + mass[k] * _size(lever) * float(np.max(np.abs(jacp) @ np.abs(qvel), initial=0.0))
    return total, scale


def _tendon_actuator_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    """tendonactuatorfrc: the forces of the actuators whose transmission is that tendon, summed."""
    tendon = int(model.sensor_objid[s])
    trntype, trnid = (mujoco_versions.per_control(model, f) for f in ("actuator_trntype", "actuator_trnid"))
    on = [a for a in range(model.nu) if int(trntype[a]) == int(mujoco.mjtTrn.mjTRN_TENDON) and int(trnid[a, 0]) == tendon]
    force = np.asarray(data.actuator_force)[on]
    return np.array([float(np.sum(force))]), float(np.sum(np.abs(force)))


def _kinetic_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    """e_kinetic: qvel^T M qvel / 2, M multiplied by `mj_mulM`; its scale from `mj_fullM`'s entries' sizes."""
    qvel, product = np.asarray(data.qvel), np.zeros(model.nv)
    mujoco.mj_mulM(model, data, product, qvel)
    mass = np.abs(mujoco_versions.full_mass(model, data))
    return np.array([0.5 * float(qvel @ product)]), 0.5 * float(np.abs(qvel) @ mass @ np.abs(qvel))


def _magnetometer_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    """magnetometer: the model's magnetic field (`opt.magnetic`) in the site's frame."""
    _, mat, _ = _frame(model, data, int(OBJ.mjOBJ_SITE), int(model.sensor_objid[s]))
    field = np.asarray(model.opt.magnetic, dtype=float)
    return mat.T @ field, _size(field)


def _limit_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading | None:
    """jointlimitpos/vel (hinge and slide), tendonlimitpos/vel: the first of the limit's two sides (lower, then upper)
    within its margin, from qpos (ten_length) and the range: distance less margin, and the distance's rate (+-qvel,
    +-ten_velocity); 0 and 0 where neither side is within its margin or limits are disabled. None within 1e-9 of
    the scale of a side's margin, where the side's being in or out is round-off."""
    kind, obj = int(model.sensor_type[s]), int(model.sensor_objid[s])
    if kind in (_sensor("mjSENS_JOINTLIMITPOS"), _sensor("mjSENS_JOINTLIMITVEL")):
        value, rate = float(data.qpos[model.jnt_qposadr[obj]]), float(data.qvel[model.jnt_dofadr[obj]])
        (low, high), margin = model.jnt_range[obj], float(model.jnt_margin[obj])
    else:
        value, rate = float(data.ten_length[obj]), float(data.ten_velocity[obj])
        (low, high), margin = model.tendon_range[obj], float(model.tendon_margin[obj])
    position = kind in (_sensor("mjSENS_JOINTLIMITPOS"), _sensor("mjSENS_TENDONLIMITPOS"))
    scale = abs(value) + abs(float(low)) + abs(float(high)) + abs(margin)
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_LIMIT:
        return np.zeros(1), scale if position else abs(rate)
    for distance, along in ((value - float(low), rate), (float(high) - value, -rate)):
        if abs(distance - margin) <= 1e-9 * scale:
            return None
        if distance < margin:
            return (np.array([distance - margin]), scale) if position else (np.array([along]), abs(rate))
    return np.zeros(1), scale if position else abs(rate)


def _joint_reading(model: mujoco.MjModel, data: mujoco.MjData, s: int) -> Reading:
    kind, obj = int(model.sensor_type[s]), int(model.sensor_objid[s])
    qpos, qvel = int(model.jnt_qposadr[obj]), int(model.jnt_dofadr[obj])
    value = {int(S.mjSENS_JOINTPOS): lambda: data.qpos[qpos:qpos + 1],
             int(S.mjSENS_JOINTVEL): lambda: data.qvel[qvel:qvel + 1],
             int(S.mjSENS_BALLQUAT): lambda: data.qpos[qpos:qpos + 4] / np.linalg.norm(data.qpos[qpos:qpos + 4]),
             int(S.mjSENS_BALLANGVEL): lambda: data.qvel[qvel:qvel + 3],
             _sensor("mjSENS_JOINTACTFRC"): lambda: data.qfrc_actuator[qvel:qvel + 1]}[kind]()
    return np.array(value), _size(np.asarray(value))


def _sensor(name: str) -> int:
    return int(getattr(S, name)) if hasattr(S, name) else -1


def readers() -> dict[int, Callable[[mujoco.MjModel, mujoco.MjData, int], Reading | None]]:
    """The kinds this module recomputes, each with its second computation."""
    simple = lambda field: (lambda m, d, s: (np.array(getattr(d, field)[m.sensor_objid[s]: m.sensor_objid[s] + 1]),  # noqa: E731
                                            _size(np.array(getattr(d, field)[m.sensor_objid[s]: m.sensor_objid[s] + 1]))))
    outputs = lambda field: (lambda m, d, s: (  # noqa: E731 (an actuator's force outputs: several from MuJoCo 3.11)
        np.array(getattr(d, field)[mujoco_versions.actuator_outputs(m, int(m.sensor_objid[s]))]),
        _size(np.array(getattr(d, field)[mujoco_versions.actuator_outputs(m, int(m.sensor_objid[s]))]))))
    out = {int(S.mjSENS_TENDONPOS): simple("ten_length"), int(S.mjSENS_TENDONVEL): simple("ten_velocity"),
           int(S.mjSENS_ACTUATORPOS): outputs("actuator_length"), int(S.mjSENS_ACTUATORVEL): outputs("actuator_velocity"),
           int(S.mjSENS_ACTUATORFRC): outputs("actuator_force"),
           int(S.mjSENS_CLOCK): lambda m, d, s: (np.array([d.time]), abs(float(d.time)))}
    for name in ("JOINTPOS", "JOINTVEL", "BALLQUAT", "BALLANGVEL", "JOINTACTFRC"):
        if hasattr(S, f"mjSENS_{name}"):
            out[_sensor(f"mjSENS_{name}")] = _joint_reading
    for name in ("FRAMEPOS", "FRAMEQUAT", "FRAMEXAXIS", "FRAMEYAXIS", "FRAMEZAXIS", "FRAMELINVEL", "FRAMEANGVEL",
                 "FRAMELINACC", "FRAMEANGACC"):
        out[_sensor(f"mjSENS_{name}")] = _frame_reading
    for name in ("VELOCIMETER", "GYRO", "ACCELEROMETER", "FORCE", "TORQUE"):
        out[_sensor(f"mjSENS_{name}")] = _site_reading
    out[int(S.mjSENS_SUBTREECOM)] = _subtree_reading
    out[int(S.mjSENS_SUBTREELINVEL)] = _subtree_reading
    out[int(S.mjSENS_SUBTREEANGMOM)] = _angmom_reading
    out[int(S.mjSENS_MAGNETOMETER)] = _magnetometer_reading
    later = {"INSIDESITE": _inside_reading, "TENDONACTFRC": _tendon_actuator_reading, "E_KINETIC": _kinetic_reading,
             "JOINTLIMITPOS": _limit_reading, "JOINTLIMITVEL": _limit_reading, "TENDONLIMITPOS": _limit_reading,
             "TENDONLIMITVEL": _limit_reading}
    for name, reader in later.items():  # kinds some releases lack (insidesite, e_kinetic: MuJoCo 3.3 on)
        if hasattr(S, f"mjSENS_{name}"):
            out[_sensor(f"mjSENS_{name}")] = reader
    return out


def timed(model: mujoco.MjModel, s: int) -> bool:
    """Whether a sensor is delayed or sampled (`sensor_delay`, `sensor_interval`: period and phase, MuJoCo 3.4 on)."""
    return any(bool(np.any(np.asarray(getattr(model, f, np.zeros(model.nsensor)))[s] > 0))
               for f in ("sensor_delay", "sensor_interval"))


def checked(model: mujoco.MjModel) -> tuple[np.ndarray, dict[int, str]]:
    """(the sensors recomputed here, {left-out sensor: why})."""
    kinds, why = readers(), {}
    plugin = np.asarray(getattr(model, "sensor_plugin", -np.ones(model.nsensor)))
    for s in range(model.nsensor):
        kind = int(model.sensor_type[s])
        if plugin[s] >= 0 or (kind not in kinds and kind != int(S.mjSENS_TOUCH)):
            why[s] = mujoco.mjtSensor(kind).name.removeprefix("mjSENS_").lower()
        elif timed(model, s):
            why[s] = "delayed or sampled"
        elif kind in (int(S.mjSENS_FRAMELINVEL), int(S.mjSENS_FRAMEANGVEL)) and int(model.sensor_refid[s]) >= 0:
            why[s] = "velocity relative to a reference object"
        elif kind == _sensor("mjSENS_INSIDESITE") and int(model.sensor_objtype[s]) == int(OBJ.mjOBJ_BODY) \
                and float(model.body_mass[model.sensor_objid[s]]) == 0:
            # MuJoCo 3.8.1 on tests such a body (a flex's parent) at its subtree's mass, not its inertial frame
            why[s] = "inside a site: a massless body"
        elif kind in (_sensor("mjSENS_JOINTLIMITPOS"), _sensor("mjSENS_JOINTLIMITVEL")) \
                and int(model.jnt_type[model.sensor_objid[s]]) == int(mujoco.mjtJoint.mjJNT_BALL):
            why[s] = "a ball joint's limit"
    return np.array([s for s in range(model.nsensor) if s not in why], dtype=int), why


def apply_cutoff(model: mujoco.MjModel, s: int, value: np.ndarray) -> np.ndarray:
    """The sensor's cutoff as MuJoCo applies it: real values clamped to +-cutoff, positive ones to cutoff."""
    cutoff = float(model.sensor_cutoff[s])
    if cutoff <= 0:
        return value
    datatype = int(model.sensor_datatype[s])
    if datatype == int(mujoco.mjtDataType.mjDATATYPE_REAL):
        return np.clip(value, -cutoff, cutoff)
    if datatype == int(mujoco.mjtDataType.mjDATATYPE_POSITIVE):
        return np.minimum(value, cutoff)
    return value


def sensor_errors(model: mujoco.MjModel, state: mujoco.MjData) -> list[tuple[float, float, int]]:
    """(|sensordata - the quantity it reads| (beyond the touch zone's bounds), the quantity's scale, sensor) of each
    checked sensor at `state` (only its cacc, cfrc_int, cfrc_ext refilled, as its forward pass fills them)."""
    # cacc, cfrc_int: what acceleration and force sensors read, filled on the state itself (the same values for the
    # same state; a copy of an MjData on MuJoCo 3.0 zeroes its contacts, and mj_rnePostConstraint on one segfaulted)
    data = state
    mujoco.mj_rnePostConstraint(model, data)
    kinds, out = readers(), []
    for s in checked(model)[0].tolist():
        adr, dim, kind = int(model.sensor_adr[s]), int(model.sensor_dim[s]), int(model.sensor_type[s])
        got = np.asarray(state.sensordata[adr: adr + dim])
        if kind == int(S.mjSENS_TOUCH):
            low, high, size = _touch_zone(model, data, s)
            low, high = (float(apply_cutoff(model, s, np.array([x]))[0]) for x in (low, high))
            value = float(got[0])
            out.append((max(low - value, value - high, 0.0) if np.isfinite(value) else np.inf, size, s))
            continue
        reading = kinds[kind](model, data, s)
        if reading is None:  # on a boundary where either reading is round-off: not judged at this state
            continue
        want, size = reading
        want = apply_cutoff(model, s, np.asarray(want, dtype=float))
        error = np.abs(got - want)
        if kind == int(S.mjSENS_FRAMEQUAT) or kind == int(S.mjSENS_BALLQUAT):
            error = np.minimum(error, np.abs(got + want))  # q and -q are one rotation
        out.append((float(np.max(error)) if np.all(np.isfinite(got)) else np.inf, size, s))
    return out


def sensor_error(model: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, float, int]:
    """The worst sensor's share at `state` as (error, scale, sensor), for scripts."""
    found = sensor_errors(model, state)
    if not found:
        return 0.0, 0.0, -1
    return max(found, key=lambda x: x[0] / max(x[1], 1.0))


@pytest.mark.law("model-readout-sensors", source=SOURCE)
def test_sensors_read_what_they_name(law, pack_model, readout_states, model_case) -> None:
    """At the start and at each state of the driven run, each sensor whose kind is recomputed here reads the
    quantity of mjData it names (in the frame it names, with its cutoff), to round-off of that quantity's scale; a
    touch sensor reads between its zone's contacts' normal force and its body's."""
    model = pack_model.model
    sensors, why = checked(model)
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_SENSOR:
        pytest.skip(f"{model_case}: sensors disabled (<flag sensor=\"disable\">)")
    if not sensors.size:
        pytest.skip(f"{model_case}: no sensor of a kind recomputed here"
                    + (f" (left out: {named_sensors(model, why)})" if why else ""))
    worst: dict[int, tuple[float, float]] = {}
    for state in readout_states:
        for error, size, s in sensor_errors(model, state):
            e, sz = worst.get(s, (0.0, 0.0))
            worst[s] = (max(e, error), max(sz, size))
    # a sensor's scale: its own largest over the states, and at least 1 in its unit (a sensor reading 0 all along)
    shares = {s: e / max(sz, 1.0) for s, (e, sz) in worst.items()}
    s = max(shares, key=shares.get)
    name = model.sensor(s).name or str(s)
    kind = mujoco.mjtSensor(int(model.sensor_type[s])).name.removeprefix("mjSENS_").lower()
    left = f"; left out: {named_sensors(model, why)}" if why else ""
    law.check("sensor_error", shares[s], le=ROUND_OFF, drift_abs=ROUND_OFF,
              why=f"|sensordata - the quantity it names|, a share of that quantity's scale (at least 1), over "
                  f"{sensors.size} sensors; worst {name!r} ({kind}){left}; failing, MuJoCo {mujoco.__version__}'s "
                  "sensor reads another quantity, frame or stage than it names: an engine defect")


def named_sensors(model: mujoco.MjModel, why: dict[int, str]) -> str:
    """'name (why), ...' of the first four sensors left out, and how many more."""
    items = [f"{model.sensor(s).name or s} ({w})" for s, w in list(why.items())[:4]]
    return ", ".join(items) + (f" and {len(why) - 4} more" if len(why) > 4 else "")
