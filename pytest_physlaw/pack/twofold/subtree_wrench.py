"""A force or torque sensor reads the wrench its body's parent applies to the body's subtree: what the subtree's
motion needs beyond every other force on it (Newton and Euler for the subtree, cut free at its body). The second
computation is MuJoCo's own dynamics of a modified model, in which the body is wrapped in a nearly massless body
with six added degrees of freedom (three slides and a ball) held at zero: at the same state and accelerations, the
generalised force those dofs need, M qacc + bias - (passive + actuator + applied) - J^T f (`mj_mulM`, `qfrc_smooth`;
the state's constraint forces through the modified model's Jacobians, contacts through `mj_jac` at each contact's
point), is the wrench the cut carries. It reads nothing MuJoCo's sensor reads (`cfrc_int`, `cfrc_ext`, filled by
`mj_rnePostConstraint`): a force booked on no body, on the wrong one or with the wrong arm breaks it. Source:
MuJoCo's XML reference (sensor/force, sensor/torque: the interaction force and torque between the site's body and
its parent, in the site's frame); Newton-Euler for a subtree; the principle of virtual work.

Bound: 1e-10 of the size of the terms summed (round-off of the sums, 1e-13 of them; the added body weighs nothing
once compiled: its mass and inertia are set to zero in the compiled model); the torque's also times the lever from
the cut to the site.
Left out, and named: subtrees that gravity compensation, fluid forces or an actuator on a site or body act on
(MuJoCo books those on no body's wrench, so its sensors leave them out on every release: by design, not judged here);
sensors whose body has a free joint (only the world's children may), bodies the file does not
write (an include, `<attach>`, `<replicate>` or `<composite>` makes them), models with flexes, contacts with geom
adhesion; a state whose constraint rows the modified model does not reproduce is counted, not judged. States:
`readout_states` (the start, the driven and the reaching runs'). Sensors with a cutoff read the clamped wrench.

Measured figures and commands: docs/second-computations.md ("A force sensor reads the wrench its subtree needs").
"""

from __future__ import annotations

import contextlib
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import mjcf_text

SOURCE = ("MuJoCo XML reference (sensor/force, sensor/torque); Newton-Euler for a subtree; the principle of virtual "
          "work")
CUT = "__physlaw_cut"
LIGHT = 1e-12  # the wrapper's mass and inertia at compile time, of the subtree's (then set to zero)
SHARE = 1e-10  # of the terms' size
MOST = 8  # sensor bodies judged a model
S = mujoco.mjtSensor
WRENCH_KINDS = (int(S.mjSENS_FORCE), int(S.mjSENS_TORQUE))
ZERO_JOINT = {"damping": "0", "stiffness": "0", "armature": "0", "frictionloss": "0", "limited": "false",
              "margin": "0", "ref": "0", "springref": "0", "springdamper": "0 0"}


@dataclass(frozen=True)
class Cut:
    """The model with `body` wrapped in CUT's six dofs: the compiled model, the wrapper's id, its slides' and
    ball's dof addresses (in that order), and each original body's and joint's id in it."""

    model: mujoco.MjModel
    wrapper: int
    dofs: np.ndarray
    ball: int
    bodies: np.ndarray
    joints: np.ndarray
    dof_map: np.ndarray


@contextlib.contextmanager
def _in(folder: Path):
    """Relative includes, meshes and textures resolve from the model file's folder, as `from_xml_path` reads them."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def cut_text(path: Path, body: str, mass: float, inertia: float) -> str | None:
    """The model file's XML, its includes in place, with `body` wrapped in CUT (three slides along the parent frame's
    axes and a ball at its origin, zero springs, damping, armature and limits; mass and inertia as given), its
    keyframes, textures and skins removed (the dynamics reads none of them), or None where the file does not write
    the body once."""
    try:
        tree = ET.ElementTree(mjcf_text.root(path))  # its includes in place
    except mjcf_text.Unreadable:
        return None
    parents = {child: parent for parent in tree.iter() for child in parent}
    found = [e for e in tree.iter("body") if e.get("name") == body]
    if len(found) != 1 or found[0] not in parents:
        return None
    element, parent = found[0], parents[found[0]]
    wrapper = ET.Element("body", name=CUT)
    ET.SubElement(wrapper, "inertial", pos="0 0 0", mass=repr(mass), diaginertia=" ".join([repr(inertia)] * 3))
    for axis, name in (("1 0 0", "x"), ("0 1 0", "y"), ("0 0 1", "z")):
        ET.SubElement(wrapper, "joint", name=f"{CUT}_{name}", type="slide", axis=axis, **ZERO_JOINT)
    ball = {k: v for k, v in ZERO_JOINT.items() if k not in ("ref", "springref")}
    ET.SubElement(wrapper, "joint", name=f"{CUT}_ball", type="ball", **ball)
    index = list(parent).index(element)
    parent.remove(element)
    wrapper.append(element)
    parent.insert(index, wrapper)
    for keys in list(tree.iter("keyframe")):
        parents[keys].remove(keys)
    for visual in [e for e in tree.iter() if e.tag in ("texture", "skin")]:  # pictures: no physics, much memory
        parents[visual].remove(visual)
    for material in tree.iter("material"):
        material.attrib.pop("texture", None)
    return ET.tostring(tree.getroot(), encoding="unicode")


def unbooked(model: mujoco.MjModel, body: int) -> str | None:
    """What acts on the body's subtree that MuJoCo books on no body's wrench (cfrc_ext holds applied forces, contacts,
    connect and weld forces and, from 3.14, tendons'), so that its force sensors leave it out by design on every
    release (measured on 3.14.0 and 4.0.1: 1e7 to 1e9 x the bound), or None."""
    inside = _subtree(model, body)
    gravity = not model.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
    if gravity and np.any(np.asarray(model.body_gravcomp)[inside] != 0):
        return "gravity compensation in its subtree"
    if (model.opt.density > 0 or model.opt.viscosity > 0) and np.any(inside[np.asarray(model.geom_bodyid)]):
        return "fluid forces on its subtree"
    site, body_kind = int(mujoco.mjtTrn.mjTRN_SITE), int(mujoco.mjtTrn.mjTRN_BODY)
    crank = int(mujoco.mjtTrn.mjTRN_SLIDERCRANK)
    for a in range(model.nu):
        kind, target = int(model.actuator_trntype[a]), int(model.actuator_trnid[a, 0])
        held = (kind in (site, crank) and inside[int(model.site_bodyid[target])]) or (kind == body_kind
                                                                                       and inside[target])
        if held:
            return "an actuator on a site or body of its subtree (its force is booked on no body)"
    return None


def cut(model: mujoco.MjModel, path: Path, body: int) -> Cut | str:
    """The model cut free at `body` (its subtree's mass sets the wrapper's), or why not."""
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body)
    why = unbooked(model, body)
    if why:
        return why
    if not name:
        return "an unnamed body"
    if any(int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE) for j in _joints(model, body)):
        return "a body with a free joint (MuJoCo takes free joints at the top level only)"
    mass = float(model.body_subtreemass[body])
    text = cut_text(path, name, LIGHT * mass, LIGHT * mass * float(model.stat.extent) ** 2)
    if text is None:
        return "a body the file does not write (an <attach>, <replicate> or <composite> makes it)"
    with _in(path.parent):
        cut_model = mujoco.MjModel.from_xml_string(text)
    cut_model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # contacts come from the state itself
    names = [mujoco.mj_id2name(cut_model, mujoco.mjtObj.mjOBJ_JOINT, j) or "" for j in range(cut_model.njnt)]
    added = [j for j, n in enumerate(names) if n.startswith(CUT)]
    ball = added[-1]
    dofs = np.arange(int(cut_model.jnt_dofadr[added[0]]), int(cut_model.jnt_dofadr[ball]) + 3)
    wrapper = cut_model.body(CUT).id
    cut_model.body_mass[wrapper] = 0.0  # the compiler wants a moving body to weigh something; the dynamics does not
    cut_model.body_inertia[wrapper] = 0.0
    bodies = np.array([b + (b >= wrapper) for b in range(model.nbody)])  # the wrapper comes first in its place
    joints = np.array([j for j in range(cut_model.njnt) if j not in added])
    dof_map = np.concatenate([np.arange(_SIZES[int(model.jnt_type[j])][1]) + int(cut_model.jnt_dofadr[j2])
                              for j, j2 in enumerate(joints)]) if len(joints) else np.zeros(0, int)
    return Cut(cut_model, wrapper, dofs, ball, bodies, joints, dof_map)


def _joints(model: mujoco.MjModel, body: int) -> range:
    start = int(model.body_jntadr[body])
    return range(start, start + int(model.body_jntnum[body])) if start >= 0 else range(0)


def _subtree(model: mujoco.MjModel, body: int) -> np.ndarray:
    inside = np.zeros(model.nbody, bool)
    inside[body] = True
    for b in range(body + 1, model.nbody):  # bodies come in depth-first order: a descendant after its parent
        inside[b] = inside[int(model.body_parentid[b])]
    return inside


_SIZES = {int(mujoco.mjtJoint.mjJNT_FREE): (7, 6), int(mujoco.mjtJoint.mjJNT_BALL): (4, 3),
          int(mujoco.mjtJoint.mjJNT_SLIDE): (1, 1), int(mujoco.mjtJoint.mjJNT_HINGE): (1, 1)}


def place(model: mujoco.MjModel, state: mujoco.MjData, c: Cut, data: mujoco.MjData | None = None) -> mujoco.MjData:
    """The state, its accelerations and its inputs in the cut model (into `data`, one of the cut model's, where
    given), the added dofs at rest at zero; positions, velocities and the forces that depend on them computed
    (`mj_fwdPosition` to `mj_fwdAcceleration`)."""
    m2 = c.model
    data = mujoco.MjData(m2) if data is None else data
    data.time = state.time
    for j, j2 in enumerate(c.joints):
        nq, nv = _SIZES[int(model.jnt_type[j])]
        a, a2 = int(model.jnt_qposadr[j]), int(m2.jnt_qposadr[j2])
        v, v2 = int(model.jnt_dofadr[j]), int(m2.jnt_dofadr[j2])
        data.qpos[a2: a2 + nq] = state.qpos[a: a + nq]
        data.qvel[v2: v2 + nv] = state.qvel[v: v + nv]
        data.qacc[v2: v2 + nv] = state.qacc[v: v + nv]
        data.qfrc_applied[v2: v2 + nv] = state.qfrc_applied[v: v + nv]
    ball = int(m2.jnt_qposadr[c.ball])
    data.qpos[ball: ball + 4] = (1.0, 0.0, 0.0, 0.0)
    for name in ("ctrl", "act", "mocap_pos", "mocap_quat"):
        getattr(data, name)[:] = getattr(state, name)
    data.xfrc_applied[c.bodies] = state.xfrc_applied
    for stage in (mujoco.mj_fwdPosition, mujoco.mj_fwdVelocity, mujoco.mj_fwdActuation, mujoco.mj_fwdAcceleration):
        stage(m2, data)
    return data


def cut_wrench(model: mujoco.MjModel, state: mujoco.MjData, c: Cut, body: int,
               data: mujoco.MjData | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | str:
    """(force, torque about the cut's anchor, the anchor, the terms' size), world frame, of the wrench the cut
    carries at `state` (computed in `data`, one of the cut model's, where given); or why the state is not judged."""
    m2, data = c.model, place(model, state, c, data)
    contact = int(mujoco.mjtConstraint.mjCNSTR_CONTACT_FRICTIONLESS)
    rows = np.flatnonzero(np.asarray(state.efc_type[: state.nefc]) < contact)  # equality, friction, limit rows
    if data.nefc != len(rows) or not (np.array_equal(data.efc_type[: data.nefc], state.efc_type[rows])
                                      and np.array_equal(data.efc_id[: data.nefc], _cut_ids(c, state, rows))):
        return "the cut model's constraint rows differ from the state's"
    force = np.zeros(m2.nv)
    mujoco.mj_mulJacTVec(m2, data, force, np.array(state.efc_force[rows], float))
    size = np.abs(force)
    inside = _subtree(model, body)
    jacp, jacr = np.zeros((3, m2.nv)), np.zeros((3, m2.nv))
    geoms = mujoco_versions.contact_geoms(state.contact)[: state.ncon]
    for i, (g1, g2) in enumerate(geoms.tolist()):
        if int(state.contact.efc_address[i]) < 0:
            continue
        if g1 < 0 or g2 < 0:
            return "a contact with a flex"
        sides = [(-1.0, int(model.geom_bodyid[g1])), (1.0, int(model.geom_bodyid[g2]))]
        if not any(inside[b] for _, b in sides):
            continue
        local = np.zeros(6)
        mujoco.mj_contactForce(model, state, i, local)
        frame = np.asarray(state.contact.frame[i], float).reshape(3, 3)
        lin, ang = frame.T @ local[:3], frame.T @ local[3:]
        for sign, b in sides:
            mujoco.mj_jac(m2, data, jacp, jacr, np.asarray(state.contact.pos[i], float), int(c.bodies[b]))
            term = sign * (jacp.T @ lin + jacr.T @ ang)
            force += term
            size += np.abs(term)
    inertial = np.zeros(m2.nv)
    mujoco.mj_mulM(m2, data, inertial, data.qacc)
    need = (inertial - data.qfrc_smooth - force)[c.dofs]
    terms = (np.abs(inertial) + np.abs(data.qfrc_bias) + np.abs(data.qfrc_passive) + np.abs(data.qfrc_actuator)
             + np.abs(data.qfrc_applied) + size)[c.dofs]
    axes = np.asarray(data.xaxis[[c.ball - 3, c.ball - 2, c.ball - 1]], float)
    lin = axes.T @ need[:3]
    ang = np.asarray(data.xmat[c.wrapper], float).reshape(3, 3) @ need[3:]
    return lin, ang, np.asarray(data.xanchor[c.ball], float), float(np.max(terms))


def _cut_ids(c: Cut, state: mujoco.MjData, rows: np.ndarray) -> np.ndarray:
    """The rows' object ids in the cut model: a joint limit's joint and a dof friction's dof move past the added
    joints; equalities and tendons keep theirs."""
    kinds, ids = np.asarray(state.efc_type[rows]), np.array(state.efc_id[rows])
    joint, dof = kinds == int(mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT), kinds == int(
        mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)
    ids[joint] = c.joints[ids[joint]]
    ids[dof] = c.dof_map[ids[dof]]
    return ids


def expected_reading(model: mujoco.MjModel, state: mujoco.MjData, sensor: int, lin: np.ndarray, ang: np.ndarray,
                     anchor: np.ndarray) -> np.ndarray:
    """What a force or torque sensor at its site reads of the cut's wrench (in the site's frame; the torque about the
    site), clamped by its cutoff as MuJoCo clamps it."""
    site = int(model.sensor_objid[sensor])
    mat = np.asarray(state.site_xmat[site], float).reshape(3, 3)
    if int(model.sensor_type[sensor]) == int(S.mjSENS_FORCE):
        value = mat.T @ lin
    else:
        value = mat.T @ (ang + np.cross(anchor - np.asarray(state.site_xpos[site], float), lin))
    cutoff = float(model.sensor_cutoff[sensor])
    return np.clip(value, -cutoff, cutoff) if cutoff > 0 else value


def wrench_sensors(model: mujoco.MjModel) -> list[int]:
    """The force and torque sensors, by their site's body (the first MOST bodies)."""
    found = [s for s in range(model.nsensor) if int(model.sensor_type[s]) in WRENCH_KINDS]
    bodies = sorted({int(model.site_bodyid[int(model.sensor_objid[s])]) for s in found})[:MOST]
    return [s for s in found if int(model.site_bodyid[int(model.sensor_objid[s])]) in bodies]


def _why_not_model(model: mujoco.MjModel) -> str | None:
    if getattr(model, "nflex", 0):
        return "a model with flexes (their contacts and constraints act on vertices)"
    if float(np.max(getattr(model, "geom_adhesion", np.zeros(1)), initial=0.0)) > 0:
        return "geom adhesion (a passive force of the contacts)"
    return None


@pytest.mark.law("model-force-sensors-read-the-subtrees-wrench", source=SOURCE)
def test_force_sensors_read_the_subtrees_wrench(law, pack_model, readout_states, model_case) -> None:
    """At each state, each force and torque sensor reads the wrench its body's parent applies to the body's subtree,
    as the same model cut free at that body computes it with MuJoCo's own dynamics, to 1e-10 of the forces summed."""
    model = pack_model.model
    sensors = wrench_sensors(model)
    if not sensors:
        pytest.skip(f"{model_case}: no force or torque sensor")
    why = _why_not_model(model)
    if why:
        pytest.skip(f"{model_case}: {why}")
    worst, judged, left = None, 0, {}
    by_body: dict[int, list[int]] = {}
    for s in sensors:
        by_body.setdefault(int(model.site_bodyid[int(model.sensor_objid[s])]), []).append(s)
    for body, on_body in by_body.items():  # one cut model at a time, its data reused across the states
        c = cut(model, Path(pack_model.path), body)
        if isinstance(c, str):
            left[c] = left.get(c, 0) + len(on_body)
            continue
        data = mujoco.MjData(c.model)
        for state in readout_states:
            found = cut_wrench(model, state, c, body, data)
            if isinstance(found, str):
                left[found] = left.get(found, 0) + len(on_body)
                continue
            lin, ang, anchor, size = found
            for s in on_body:
                adr = int(model.sensor_adr[s])
                want = expected_reading(model, state, s, lin, ang, anchor)
                reading = np.asarray(state.sensordata[adr: adr + 3], float)
                lever = float(np.linalg.norm(anchor - np.asarray(state.site_xpos[int(model.sensor_objid[s])])))
                scale = size * (1.0 if int(model.sensor_type[s]) == int(S.mjSENS_FORCE) else 1.0 + lever)
                ratio = float(np.max(np.abs(reading - want))) / (SHARE * scale + 1e-300)
                judged += 1
                if worst is None or ratio > worst[0]:
                    worst = (ratio, s, reading, want, float(state.time))
        del c, data
    named = "; ".join(f"{k}: {v}" for k, v in sorted(left.items()))
    if worst is None:
        pytest.skip(f"{model_case}: no force or torque sensor judged ({named})")
    ratio, s, reading, want, t = worst
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SENSOR, s) or f"sensor {s}"
    law.check("reading_apart_over_bound", ratio, le=1.0, drift_abs=1.0,
              why=f"|the sensor's reading - the wrench its subtree needs, cut free| over 1e-10 of the forces summed, "
                  f"worst of {judged} sensor-states: {name} reads {np.round(reading, 6).tolist()} against "
                  f"{np.round(want, 6).tolist()} at t = {t:.3f} s" + (f"; left out: {named}" if named else "") +
                  f"; failing, MuJoCo {mujoco.__version__} books some force on the subtree with another size, body or "
                  "arm than its dynamics applies (a tendon's pull, a constraint's force): an engine defect, not the "
                  "model's; report it, or change MuJoCo version")
