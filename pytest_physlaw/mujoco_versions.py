"""What each MuJoCo release from 3.0.0 on lacks that the model pack and the proxies read, and how it is had there.

One module holds every version shim, so a law reads one name whatever MuJoCo the user is pinned to. Each shim
asks the bindings for the feature itself (the field it reads, the call's own signature), not for a version number
nor a neighbouring attribute, so a build of another version with the feature takes the fast path: a call whose
arguments changed is told apart by the parameter names its binding declares (`parameters`), or, where the
binding does not say, by trying the newer call once (a TypeError: the older) and remembering the answer.
What no release before some version can give at all is
named by `missing(feature)`: the law that needs it skips with that sentence.

| shim | the new way | before it |
| --- | --- | --- |
| `full_mass` | `mj_fullM(m, d, dst)` (3.10; `qM` stays until 3.11) | `mj_fullM(m, dst, d.qM)` |
| `actuator_moments` | sparse `actuator_moment` + `mju_sparse2dense` (3.3) | a dense nu x nv `actuator_moment` |
| `solve_half` | `mj_solveM2(m, d, x, y, sqrtInvD)` (3.2.7) | `mj_solveM2(m, d, x, y)` |
| `make_mass` | `mj_makeM` (3.3: tendon armature) | `mj_crb` (no tendon armature then) |
| `tree_dofs`, `tree_bodies` | `MjModel.tree_dofadr/tree_dofnum/tree_bodynum` (3.4) | from `dof_treeid`, `body_treeid` |
| `gravcomp_force` | `mjData.qfrc_gravcomp` (3.1.5?) | passive force with and without the bodies' gravcomp |
| `fluid_force` | `mjData.qfrc_fluid` (3.1?) | passive force less the same state's in vacuum |
| `contact_geoms` | `MjContact.geom1/geom2` (3.0 to 4.0) | 3.0's `geom` pair is bound but left zero |
| `energy` | `mjData.energy` (3.1 on; 3.0.x binds it with a zero stride) | kinetic as 1/2 qvel . M qvel (`mj_mulM`) |
| `islands_on`, `islands_toggled` | islands on unless `mjDSBL_ISLAND` (3.14 has it) | off unless `mjENBL_ISLAND` (3.0) |
| `contact_flexes`, `contact_flex_parts` | the contact array's views `data.contact.flex/elem/vert` (every release) | 3.0's single `data.contact[i].flex` reads wrong |
| `mesh_inertia_attributes` | `<mesh inertia="legacy|exact">` (3.2.5) | the default (legacy), `<compiler exactmeshinertia="true">` |
| `centred_sensor_sign` | `mjd_transitionFD`'s centred sensor derivatives as they are (4.0.0) | their sign flipped (3.0 to 3.17, measured): read from a probe, +1 or -1 |
| `actuator_fields`, `actuator_spaces`, `actuator_references` | every `actuator_*` array the release has (actearly 3.0.1; delay, history, damping, armature, control and output addresses 3.14), `nactuator` | `nu` actuators, each with one control and one output at its own index |
| `geom_distance` | `mj_geomDistance` (3.1.6) | `mj_collision` on a probe model of the two geoms (primitives) |
| `multiccd` | on unless `mjDSBL_MULTICCD` (3.8: on by default) | off unless `mjENBL_MULTICCD` |
| `half_turns_sound` | `mju_mat2Rot` finds an exact half turn from the identity (4.0.0; a probe) | it returns the identity (3.3 to 3.17): interpolated flexes' half turns set aside |
| `legacy_multiccd` | multiccd's single-shot pipeline: points of the clipped faces (3.12, by release: no attribute tells) | the pair's contacts and those of the pair turned by +-1e-3 rad |
| `ccd_tolerance` | `opt.ccd_tolerance` (3.2: MuJoCo's own convex solver) | `opt.mpr_tolerance` (libccd's MPR) |
| `spec_from_file`, `spec_compiler` | `MjSpec.from_file(path)`, a static method, and its settings in `spec.compiler` (3.3) | 3.2: `MjSpec().from_file(path)` on an instance, the compiler's settings on the spec itself; no MjSpec before 3.2 |
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np

DSBL, ENBL = mujoco.mjtDisableBit, mujoco.mjtEnableBit


def version() -> tuple[int, ...]:
    """The running MuJoCo's version as numbers: "3.2.4" -> (3, 2, 4)."""
    return tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in mujoco.__version__.split(".")[:3])


def parameters(function: Any) -> tuple[str, ...] | None:
    """The parameter names a binding declares in the first line of its docstring (pybind11 writes
    `mj_fullM(m: MjModel, d: MjData, dst: ...) -> None`), or None where it declares none (an overload set)."""
    first = (getattr(function, "__doc__", None) or "").lstrip().split("\n", 1)[0]
    found = re.match(r"\w+\((.*)\)\s*(->.*)?$", first)
    if not found or "*args" in found.group(1):
        return None
    # a name is a word right after the opening or a top-level comma, then a colon; commas inside [] are skipped
    names, depth, token = [], 0, ""
    for char in found.group(1) + ",":
        depth += 1 if char in "[(" else -1 if char in "])" else 0
        if char == "," and depth == 0:
            names.append(token.split(":", 1)[0].strip())
            token = ""
        else:
            token += char
    return tuple(n for n in names if n.isidentifier()) or None


_NEWER: dict[Any, bool] = {}  # binding -> whether it takes the newer arguments (found once per binding)


def call_by_signature(function: Any, newer: Callable[[tuple[str, ...]], bool], new_call: Callable[[Any], None],
                      old_call: Callable[[Any], None]) -> None:
    """Call `function` the way its binding takes it: `new_call(function)` where the declared parameters satisfy
    `newer`, else `old_call(function)`; where the binding declares none, the newer call is tried once and a
    TypeError (pybind's "incompatible function arguments") selects the older for good."""
    known = _NEWER.get(function)
    if known is None:
        declared = parameters(function)
        if declared is not None:
            known = _NEWER[function] = newer(declared)
    if known is not None:
        (new_call if known else old_call)(function)
        return
    try:
        new_call(function)
        _NEWER[function] = True
        return
    except TypeError as newer_refused:
        refused = newer_refused
    try:
        old_call(function)
    except (TypeError, AttributeError) as older_refused:  # AttributeError: the older call's field is gone too
        raise TypeError(f"{getattr(function, '__name__', function)} of MuJoCo {mujoco.__version__} takes neither "
                        f"the newer arguments ({refused}) nor the older ({older_refused})") from older_refused
    _NEWER[function] = False


def full_mass(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The dense nv x nv mass matrix of `data`'s last `mj_forward` (armature in), MuJoCo's `mj_fullM`: since 3.10
    `mj_fullM(m, d, dst)`, before `mj_fullM(m, dst, M)` of the sparse `qM` (which 3.10 still has: the call's
    signature tells them apart, not the field)."""
    mass = np.zeros((model.nv, model.nv))
    call_by_signature(mujoco.mj_fullM, lambda names: len(names) > 1 and names[1] == "d",
                      lambda f: f(model, data, mass), lambda f: f(model, mass, data.qM))
    return mass


def actuator_moments(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(nu, nv) each actuator's moment arm on each dof at `data`'s last forward pass, dense."""
    if np.ndim(data.actuator_moment) == 2:  # before 3.3 actuator_moment is dense (nu x nv), its sparse index unused
        return np.array(data.actuator_moment).reshape(model.nu, model.nv).copy()
    return sparse_to_dense(model.nu, model.nv, data.actuator_moment, data.moment_rownnz, data.moment_rowadr,
                           data.moment_colind)


def has_jacobian_dot() -> bool:
    """Whether this MuJoCo has `mj_jacDot` (the time derivative of a point's Jacobian; 3.2.3 on)."""
    return hasattr(mujoco, "mj_jacDot")


def sound_jacobian_dot() -> bool:
    """Whether this MuJoCo's `mj_jacDot` is whole (3.3.1 on: 3.2.3 to 3.3.0 left out the reference point's own motion,
    as `twofold.jacobian_rates` measures), so that a second computation may be built on it."""
    return has_jacobian_dot() and version() >= (3, 3, 1)


# Defects of released API functions beside the step, named and fixed upstream: a law that finds one on a release in
# its range ends xfailed naming it (law.follows), not failed, so that a model's check on that release reports it once,
# as known, and the model's own findings stand out. Each: (law, quantity, first bad, last bad, fixed, the function's
# defect, the corpus case). The step's own defects are never listed: they change the model's physics.
KNOWN_DEFECTS = (
    ("model-jacobian-dot-is-its-rate", "jacobian_dot_apart_over_error", "3.2.3", "3.3.0", "3.3.1",
     "mj_jacDot left out the reference point's own motion", "mujoco-3.3.1-jacdot"),
    ("model-mass-matrix-inverts", "square_root_over_round_off", "3.0.0", "3.2.6", "3.2.7",
     "mj_mulM2 scaled the factor's diagonal alone", "mujoco-ec322641"),
    ("model-sleep-changes-no-readout", "rne_buffer_apart_over_bound", "3.4.0", "3.17.0", "4.0.0",
     "mj_rne wrote a caller's buffer on the awake dofs only, a sleeping tree's entries left as they were",
     "mujoco-4.0.0-sleep-rne-buffer"),
    ("model-rays-are-scale-free", "ray_length_gap", "3.0.0", "3.17.0", "4.0.0",
     "mj_ray returned an SDF geom's distance in metres, not in units of its direction vector", "mujoco-b6192732"),
    ("model-attached-keeps-its-keyframes", "keyframes_apart_over_copy", "3.2.0", "3.15.0", "3.16.0",
     "MjSpec.attach padded a keyframe at its end, so joints attached between others took the numbers of the joints "
     "after them (3.2.0 dropped the keyframes)", "mujoco-3.16.0-attach-keyframe"),
    ("model-saved-keeps-its-edits", "free_pose_apart_over_text", "3.0.0", "3.15.0", "3.16.0",
     "mj_saveLastXML wrote a free joint's body at its compiled pose, losing an edit of its reference pose (qpos0)",
     "mujoco-3.16.0-savexml-freejoint-qpos0"),
    ("model-saved-keeps-its-edits", "masses_apart_over_text:settotalmass", "3.0.0", "3.15.0", "3.16.0",
     "mj_saveLastXML left out the compiler's settotalmass, so the saved file's masses are unscaled",
     "mujoco-3.16.0-toxml-settotalmass"),
    ("model-saved-keeps-its-edits", "masses_apart_over_text:inertiagrouprange", "3.0.0", "3.14.0", "3.15.0",
     "mj_saveLastXML left out the compiler's inertiagrouprange, so the saved file's masses count every geom",
     "mujoco-3.15.0-savexml-inertiagrouprange"),
    ("model-saved-xml-is-the-model", "masses_apart_over_text:settotalmass", "3.0.0", "3.15.0", "3.16.0",
     "MjSpec.to_xml left out the compiler's settotalmass, so the saved file's masses are unscaled",
     "mujoco-3.16.0-toxml-settotalmass"),
    ("model-saved-xml-is-the-model", "masses_apart_over_text:inertiagrouprange", "3.0.0", "3.14.0", "3.15.0",
     "MjSpec.to_xml left out the compiler's inertiagrouprange, so the saved file's masses count every geom",
     "mujoco-3.15.0-savexml-inertiagrouprange"),
    ("model-saved-keeps-its-edits", "tendon_springs_apart_over_text", "3.0.0", "3.16.0", "3.17.0",
     "mj_copyBack left a tendon spring's edited rest length out of the saved file",
     "mujoco-3.17.0-copyback-tendon-springlength"),
    ("model-attached-into-a-scene-is-the-model", "sizes_and_kinds_apart:neq", "3.3.0", "3.17.0", "4.0.0",
     "MjSpec.attach dropped an equality constraint to the child's world body", "mujoco-4.0.0-attach-world-connect"),
    ("model-attached-into-a-scene-is-the-model", "sizes_and_kinds_apart:nflex", "3.3.0", "3.17.0", "4.0.0",
     "MjSpec.attach dropped the child's flexcomps", "mujoco-4.0.0-attach-flexcomp"),
    ("model-resized-geoms-are-compiled-alike", "bounds_apart_over_round_off", "3.0.0", "3.15.0", "3.16.0",
     "mj_setConst kept a resized geom's bounding radius and box at the compiled size", "mujoco-d823f921"),
)


def known_defect(law_id: str, quantity: str) -> tuple[str, str] | None:
    """(premise, why) for `law.follows` where this release is in the range of a known, fixed defect of an API
    function beside the step that `law_id`'s `quantity` measures (KNOWN_DEFECTS), else None."""
    numbers = lambda text: tuple(int(p) for p in text.split("."))  # noqa: E731
    for law, measured, first, last, fixed, what, case in KNOWN_DEFECTS:
        if law == law_id and measured == quantity and numbers(first) <= version() < numbers(fixed):
            return (f"a known defect of MuJoCo {mujoco.__version__}: {what} ({first} to {last}, fixed in {fixed}; "
                    f"corpus case {case})",
                    "a function beside the step, which the step does not call: the model's physics is not touched")
    return None


def sparse_to_dense(rows: int, cols: int, values: np.ndarray, rownnz: np.ndarray, rowadr: np.ndarray,
                    colind: np.ndarray) -> np.ndarray:
    """A MuJoCo compressed-row matrix as a dense (rows, cols) array (`mju_sparse2dense`, 3.3 on)."""
    dense = np.zeros((rows, cols))
    if rows == 0:
        return dense
    if hasattr(mujoco, "mju_sparse2dense"):
        mujoco.mju_sparse2dense(dense, np.ravel(values), rownnz[:rows], rowadr[:rows], np.ravel(colind))
        return dense
    for r in range(rows):
        span = slice(int(rowadr[r]), int(rowadr[r]) + int(rownnz[r]))
        dense[r, np.ravel(colind)[span]] = np.ravel(values)[span]
    return dense


def tendon_jacobian(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(ntendon, nv) the tendons' Jacobian `ten_J` at `data`'s last forward pass, dense. 3.14 stores it in compressed
    rows indexed by the model (`mjModel.ten_J_rownnz`); earlier releases index it in the data and store it dense
    unless the model's Jacobians are sparse (`mj_isSparse`)."""
    if hasattr(model, "ten_J_rownnz"):
        return sparse_to_dense(model.ntendon, model.nv, data.ten_J, model.ten_J_rownnz, model.ten_J_rowadr,
                               model.ten_J_colind)
    if hasattr(data, "ten_J_rownnz") and mujoco.mj_isSparse(model):
        return sparse_to_dense(model.ntendon, model.nv, data.ten_J, data.ten_J_rownnz, data.ten_J_rowadr,
                               data.ten_J_colind)
    return np.array(data.ten_J).reshape(model.ntendon, model.nv).copy()


def velocity_derivative(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(nv, nv) `qDeriv`, d(qfrc_smooth)/d(qvel) as the implicit integrators left it, dense: its sparse index is the
    model's (`mjModel.D_rownnz`) where the model has it, else the data's."""
    return sparse_to_dense(model.nv, model.nv, data.qDeriv, *_derivative_index(model, data))


def velocity_derivative_pattern(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(nv, nv) bool: the entries `qDeriv`'s sparse index holds (the rest MuJoCo does not store, hence treats as 0)."""
    index = _derivative_index(model, data)
    ones = np.ones(int(np.sum(np.asarray(index[0])[:model.nv])))
    return sparse_to_dense(model.nv, model.nv, ones, *index) != 0


def _derivative_index(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """qDeriv's sparse index (rownnz, rowadr, colind): the model's where it has one, else the data's."""
    owner = model if hasattr(model, "D_rownnz") else data
    return owner.D_rownnz, owner.D_rowadr, owner.D_colind


def constraint_jacobian(model: mujoco.MjModel, data: mujoco.MjData, rows: int | None = None) -> np.ndarray:
    """The constraint rows' Jacobian `efc_J` as a dense (nefc, nv) array, whether MuJoCo stored it sparse or dense;
    its first `rows` rows only where given (the equality rows come first: `data.ne`)."""
    rows = data.nefc if rows is None else min(int(rows), data.nefc)
    if mujoco.mj_isSparse(model):
        return sparse_to_dense(rows, model.nv, data.efc_J, data.efc_J_rownnz, data.efc_J_rowadr,
                               data.efc_J_colind)
    return np.asarray(data.efc_J[: rows * model.nv]).reshape(rows, model.nv)


def solve_half(model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray, rows: np.ndarray,
               sqrt_inv_d: np.ndarray) -> None:
    """`out` = D^-1/2 L^-T `rows`, MuJoCo's half solve `mj_solveM2` (its D^-1/2 argument came in 3.2.7 with
    `qLDiagSqrtInv` removed; before, MuJoCo took the square roots itself)."""
    call_by_signature(mujoco.mj_solveM2, lambda names: len(names) >= 5,
                      lambda f: f(model, data, out, rows, sqrt_inv_d), lambda f: f(model, data, out, rows))


def make_mass(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Compose `data`'s mass matrix from its kinematics (`mj_makeM`; before 3.3 `mj_crb`, which added armature)."""
    (mujoco.mj_makeM if hasattr(mujoco, "mj_makeM") else mujoco.mj_crb)(model, data)


def tree_dofs(model: mujoco.MjModel, tree: int) -> slice:
    """The dofs of kinematic tree `tree` (a tree's dofs are contiguous)."""
    if hasattr(model, "tree_dofadr"):
        start = int(model.tree_dofadr[tree])
        return slice(start, start + int(model.tree_dofnum[tree]))
    found = np.flatnonzero(np.asarray(model.dof_treeid) == tree)
    return slice(int(found[0]), int(found[-1]) + 1) if found.size else slice(0, 0)


def tree_dof_ranges(model: mujoco.MjModel, trees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first dof, dof count) of each tree in `trees`."""
    spans = [tree_dofs(model, int(t)) for t in trees]
    return np.array([s.start for s in spans], dtype=int), np.array([s.stop - s.start for s in spans], dtype=int)


def tree_bodies(model: mujoco.MjModel, tree: int) -> int:
    """How many bodies kinematic tree `tree` has."""
    if hasattr(model, "tree_bodynum"):
        return int(model.tree_bodynum[tree])
    return int(np.count_nonzero(np.asarray(model.body_treeid) == tree))


def gravcomp_force(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The generalised force MuJoCo's gravity compensation applies at `data` (forwarded), whether it reaches
    the dofs as a passive force or through actuators (`jnt_actgravcomp`): `qfrc_gravcomp`, or, where the
    bindings lack it, the passive force less the same state's passive force with every `body_gravcomp` zeroed."""
    if hasattr(data, "qfrc_gravcomp"):
        return np.array(data.qfrc_gravcomp)
    without = copy.copy(model)
    without.body_gravcomp[:] = 0
    scratch = copy.copy(data)
    mujoco.mj_forward(without, scratch)
    return np.array(data.qfrc_passive) - np.array(scratch.qfrc_passive)


def actuator_gravcomp_dofs(model: mujoco.MjModel) -> np.ndarray:
    """(nv,) bool: the dofs whose gravity compensation MuJoCo adds through the actuators (their joint's
    `actuatorgravcomp`, `jnt_actgravcomp`, MuJoCo 3.2 on), so that it is dropped with actuation off
    (mjDSBL_ACTUATION zeroes `qfrc_actuator`) or where the model has no actuator; none before 3.2, where every
    compensation is a passive force."""
    flags = getattr(model, "jnt_actgravcomp", None)
    if flags is None or model.nv == 0:
        return np.zeros(model.nv, dtype=bool)
    return np.asarray(flags, dtype=bool)[np.asarray(model.dof_jntid, dtype=int)]


def fluid_force(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The generalised force of the medium (drag, lift, added mass) at `data` (forwarded): `qfrc_fluid`, or, where
    the bindings lack it, the passive force less the same state's passive force in vacuum."""
    if hasattr(data, "qfrc_fluid"):
        return np.array(data.qfrc_fluid)
    vacuum = copy.copy(model)
    vacuum.opt.density, vacuum.opt.viscosity = 0.0, 0.0
    scratch = copy.copy(data)
    mujoco.mj_forward(vacuum, scratch)
    return np.array(data.qfrc_passive) - np.array(scratch.qfrc_passive)


def energy(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, float]:
    """(potential, kinetic) energy MuJoCo computed for `data` (`mjData.energy`, the energy flag on: after `mj_step`,
    of the state the step started from). The 3.0.x bindings expose `energy` with a zero stride, both entries
    reading the potential: there both are taken at `data`'s own state, forwarded on a copy, the kinetic energy
    as MuJoCo's 1/2 qvel . M qvel (`mj_mulM`)."""
    if np.asarray(data.energy).strides[0] != 0:
        return float(data.energy[0]), float(data.energy[1])
    scratch = copy.copy(data)
    mujoco.mj_forward(model, scratch)
    return float(scratch.energy[0]), kinetic_energy(model, scratch)


def kinetic_energy(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """1/2 qvel . M qvel at `data`'s last forward pass, MuJoCo's own product with its mass matrix (`mj_mulM`)."""
    momentum = np.zeros(model.nv)
    mujoco.mj_mulM(model, data, momentum, data.qvel)
    return 0.5 * float(np.dot(data.qvel, momentum))


def contact_flexes(data: mujoco.MjData) -> np.ndarray:
    """(ncon, 2) the flex of each side of each contact (-1: a geom's side), read through the contact array's view
    (`data.contact.flex`): MuJoCo 3.0's single `MjContact` (`data.contact[i]`) reads some fields wrong (its
    `flex` the first entry twice, -1 -1 for a cloth's contact with a sphere), the array's view right on every
    release that has flexes."""
    flex = getattr(data.contact, "flex", None)
    if flex is None:  # no flexes in this release: every side is a geom's
        return np.full((data.ncon, 2), -1, dtype=int)
    return np.array(flex[: data.ncon], dtype=int).reshape(data.ncon, 2)


def contact_flex_parts(data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flex, element, vertex) of each side of each contact, (ncon, 2) each, -1 where the side has none (a geom's
    side; a flex's side names its element or its vertex, the other -1), read through the contact array's views
    as `contact_flexes` reads the flex."""
    none = np.full((data.ncon, 2), -1, dtype=int)
    views = [getattr(data.contact, name, None) for name in ("elem", "vert")]
    parts = [none if v is None else np.array(v[: data.ncon], dtype=int).reshape(data.ncon, 2) for v in views]
    return contact_flexes(data), parts[0], parts[1]


def sleeping(model: mujoco.MjModel) -> bool:
    """Whether the model lets trees sleep (`<flag sleep="enable"/>`, 3.4 on)."""
    bit = getattr(ENBL, "mjENBL_SLEEP", None)
    return bit is not None and bool(model.opt.enableflags & int(bit))


def equality_objtype(model: mujoco.MjModel, eq: int) -> int:
    """What equality `eq`'s objects are (`eq_objtype`: bodies, or sites for a connect or weld, 3.2.3 on); before,
    a connect's and a weld's objects were always bodies."""
    kinds = getattr(model, "eq_objtype", None)
    return int(kinds[eq]) if kinds is not None else int(mujoco.mjtObj.mjOBJ_BODY)


def barrier_contacts(model: mujoco.MjModel) -> bool:
    """Whether the model's contacts are incremental potential contacts (`<flag ipc="enable"/>`, 3.14 on,
    with the discrete integrator): a barrier's minimum, not the soft-constraint problem of the lesson's solvers."""
    bit = getattr(ENBL, "mjENBL_IPC", None)
    return bit is not None and bool(model.opt.enableflags & int(bit))


def awake(model: mujoco.MjModel) -> mujoco.MjModel:
    """A copy of `model` whose trees never sleep (the same physics, every body stepped)."""
    m = copy.copy(model)
    bit = getattr(ENBL, "mjENBL_SLEEP", None)
    if bit is not None:
        m.opt.enableflags &= ~int(bit)
    return m


def asleep(model: mujoco.MjModel) -> mujoco.MjModel:
    """A copy of `model` whose trees may sleep (`<flag sleep="enable"/>`): the model as written, of its awake copy."""
    m = copy.copy(model)
    m.opt.enableflags |= int(ENBL.mjENBL_SLEEP)
    return m


def sleeping_bodies(data: mujoco.MjData) -> np.ndarray:
    """Whether each body is asleep (`body_awake` is mjS_ASLEEP; 3.4 on); all False on releases without sleep."""
    state = getattr(data, "body_awake", None)
    if state is None:
        return np.zeros(len(data.xpos), dtype=bool)
    return np.asarray(state) == int(mujoco.mjtSleepState.mjS_ASLEEP)


def contact_geoms(contacts: object) -> np.ndarray:
    """(n, 2) the geom ids of `contacts` (one `MjContact`, or `MjData.contact`): `geom1`, `geom2`, which every release
    from 3.0 to 4.0 fills (3.0's bindings expose a `geom` pair of floats left zero); `geom` where they are gone."""
    if hasattr(contacts, "geom1"):
        return np.stack([np.atleast_1d(contacts.geom1), np.atleast_1d(contacts.geom2)], axis=-1).astype(int)
    return np.atleast_2d(np.asarray(contacts.geom)).astype(int)


def islands_on(model: mujoco.MjModel) -> bool:
    """Whether MuJoCo splits the constraint solve into islands for `model`: on unless `mjDSBL_ISLAND` is set (the
    releases with that flag), off unless `mjENBL_ISLAND` is set (3.0's, where islands were an experimental option)."""
    off = getattr(DSBL, "mjDSBL_ISLAND", None)
    if off is not None:
        return not model.opt.disableflags & int(off)
    on = getattr(ENBL, "mjENBL_ISLAND", None)
    return on is not None and bool(model.opt.enableflags & int(on))


def islands_toggled(model: mujoco.MjModel) -> dict[str, int] | None:
    """The option that splits `model`'s constraint solve into islands the other way (`disableflags` or
    `enableflags`, for `pack.options.changed`); None where MuJoCo has no flag for it."""
    off, on = getattr(DSBL, "mjDSBL_ISLAND", None), getattr(ENBL, "mjENBL_ISLAND", None)
    if off is not None:
        return {"disableflags": int(model.opt.disableflags) ^ int(off)}
    if on is not None:
        return {"enableflags": int(model.opt.enableflags) ^ int(on)}
    return None


# A closed tetrahedron: the smallest mesh whose volume every mode can compute, to ask the parser what it accepts.
_TETRA = 'vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"'
_MESH_INERTIA_SPELLINGS = {  # solid mode -> (compiler attributes, mesh attributes), newest spelling first
    "legacy": [("", 'inertia="legacy"'), ("", "")],
    "exact": [("", 'inertia="exact"'), ('exactmeshinertia="true"', "")],
}
_MESH_INERTIA: dict[str, tuple[str, str] | None] = {}


def mesh_inertia_kind(mode: str):
    """MjSpec's mesh inertia member for `mode` ("convex", "legacy", ...), or None where this release's MjSpec sets
    none: `mjtMeshInertia.mjMESH_INERTIA_CONVEX` from 3.3, `mjINERTIA_CONVEX` in 3.2.5 to 3.2.7 (no
    mjtMeshInertia before); read from the enum's own members, not a version number."""
    kinds = getattr(mujoco, "mjtMeshInertia", None)
    for name in (f"mjMESH_INERTIA_{mode.upper()}", f"mjINERTIA_{mode.upper()}"):
        if kinds is not None and hasattr(kinds, name):
            return getattr(kinds, name)
    return None


def mesh_inertia_attributes(mode: str) -> tuple[str, str] | None:
    """The (compiler, mesh) attributes that make MuJoCo's compiler compute a mesh's volume and inertia in `mode`:
    "legacy" (the default of every release: each face's pyramid volume taken positive) or "exact" (signed, for a
    closed mesh); None where this release has no spelling for it. From 3.2.5 the mesh's `inertia` attribute; before,
    the default and the compiler's `exactmeshinertia` flag. Found by compiling a tetrahedron with each spelling once
    (the parser's answer, not a version number)."""
    if mode not in _MESH_INERTIA:
        _MESH_INERTIA[mode] = None
        for compiler, mesh in _MESH_INERTIA_SPELLINGS[mode]:
            xml = (f'<mujoco><compiler {compiler}/><asset><mesh name="t" {mesh} {_TETRA}/></asset><worldbody><body>'
                   '<freejoint/><geom type="mesh" mesh="t"/></body></worldbody></mujoco>')
            try:
                mujoco.MjModel.from_xml_string(xml)
            except ValueError:  # an attribute or keyword this release's schema does not know
                continue
            _MESH_INERTIA[mode] = (compiler, mesh)
            break
    return _MESH_INERTIA[mode]


def actuator_count(model: mujoco.MjModel) -> int:
    """How many actuators (objects) the model has: `nactuator` where the release counts them apart from the
    controls (`nu`), else `nu`."""
    return int(getattr(model, "nactuator", model.nu))


def multi_output_actuators(model: mujoco.MjModel) -> str | None:
    """Why the pack cannot read the model's actuators, or None. From MuJoCo 3.11 an actuator may take several
    controls and give several forces (an orientation servo: three of each): the per-actuator arrays (`nactuator`
    rows: types, gains, ranges of force and activation, transmission) part from the per-control ones (`nu`: ctrl,
    ctrlrange) and the per-output ones (`nout`: gear, actuator_force, length, moments). The pack reads the
    per-actuator arrays per control (`per_control`), which holds while each actuator's controls are its outputs
    (`actuator_ctrladr` = `actuator_outadr`, `actuator_ctrlnum` = `actuator_outnum`); not where they part."""
    if actuator_count(model) == int(model.nu) or not hasattr(model, "actuator_outadr"):
        return None
    if (np.array_equal(model.actuator_ctrladr, model.actuator_outadr)
            and np.array_equal(model.actuator_ctrlnum, model.actuator_outnum)):
        return None
    return (f"actuators whose controls are not their force outputs ({actuator_count(model)} actuators, "
            f"{int(model.nu)} controls, {int(getattr(model, 'nout', -1))} outputs); the pack reads each control "
            "with its own force output, not these")


def control_actuators(model: mujoco.MjModel) -> np.ndarray:
    """The actuator each control belongs to (nu entries, each control's force output the same index): one each
    before MuJoCo 3.11, `actuator_ctrlnum` controls each since (an orientation servo: three)."""
    num = getattr(model, "actuator_ctrlnum", None)
    if num is None:
        return np.arange(int(model.nu))
    return np.repeat(np.arange(actuator_count(model)), np.asarray(num, dtype=int))


def per_control(model: mujoco.MjModel, name: str) -> np.ndarray:
    """A per-actuator array (`actuator_gainprm`, `actuator_forcerange`, `actuator_trntype`, ...) read per control,
    each actuator's row once for each of its controls (a copy where they part, the model's array where not)."""
    values = np.asarray(getattr(model, name))
    owner = control_actuators(model)
    if owner.size == values.shape[0] and np.array_equal(owner, np.arange(owner.size)):
        return values
    return values[owner]


def control_name(model: mujoco.MjModel, control: int) -> str:
    """A control's name: its actuator's (or id), with the control's place among several (`servo[1]`)."""
    owner = control_actuators(model)
    a = int(owner[control])
    name = model.actuator(a).name or str(a)
    count = int(np.sum(owner == a))
    return f"{name}[{control - int(np.flatnonzero(owner == a)[0])}]" if count > 1 else name


def actuator_outputs(model: mujoco.MjModel, actuator: int) -> slice:
    """The force outputs (rows of actuator_force, actuator_length, gear) of one actuator: `actuator_outadr` and
    `actuator_outnum` where the release has them (3.11 on: a PID servo with velocity and feed-forward inputs has three
    controls and one output), else its controls' rows (one each)."""
    if hasattr(model, "actuator_outadr"):
        first = int(model.actuator_outadr[actuator])
        return slice(first, first + int(model.actuator_outnum[actuator]))
    owner = control_actuators(model)
    rows = np.flatnonzero(owner == actuator)
    return slice(int(rows[0]), int(rows[-1]) + 1) if rows.size else slice(0, 0)


def actuator_fields(model: mujoco.MjModel) -> list[str]:
    """The names of the model's per-actuator arrays, one row an actuator: every `actuator_*` array whose first
    dimension is the actuator count, and the names' addresses (`name_actuatoradr`), found by shape, whatever this
    release adds or drops (`actuator_actearly` 3.0.1, `actuator_plugin`, delay and history, damping and armature,
    control and output addresses)."""
    count, found = actuator_count(model), []
    for name in dir(model):
        if not (name.startswith("actuator_") or name == "name_actuatoradr"):
            continue
        value = getattr(model, name)
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == count:
            found.append(name)
    return found


def actuator_spaces(model: mujoco.MjModel) -> list[tuple[str | None, str | None, str, str | None, int]]:
    """The vectors the actuators own blocks of, as (address field, count field, mjData field, keyframe field, size):
    the activations (`actuator_actadr`/`actuator_actnum`, `act`, `key_act`, na), and the controls and force
    outputs where the release addresses them (`actuator_ctrladr`/`ctrlnum`, `actuator_outadr`/`outnum`); where it
    does not (None, None: actuator i's control is `ctrl[i]`), one each at the actuator's own index."""
    spaces: list[tuple[str | None, str | None, str, str | None, int]] = [
        ("actuator_actadr", "actuator_actnum", "act", "key_act", int(model.na))]
    if hasattr(model, "actuator_ctrladr"):
        spaces.append(("actuator_ctrladr", "actuator_ctrlnum", "ctrl", "key_ctrl", int(model.nu)))
    else:
        spaces.append((None, None, "ctrl", "key_ctrl", int(model.nu)))
    if hasattr(model, "actuator_outadr"):
        spaces.append(("actuator_outadr", "actuator_outnum", "actuator_force", None, int(model.nout)))
    return spaces


def actuator_references(model: mujoco.MjModel) -> list[tuple[str, np.ndarray]]:
    """The model's arrays that hold actuator ids, each with the mask of its entries that do: the sensors' object and
    reference ids where their type is an actuator (actuatorpos, actuatorvel, actuatorfrc), and the joints' and
    tendons' `jnt_actuatorid`/`tendon_actuatorid` (3.14: the actuator whose damping and armature they carry; -1
    none) where the release has them."""
    actuator = int(mujoco.mjtObj.mjOBJ_ACTUATOR)
    found = [("sensor_objid", np.asarray(model.sensor_objtype) == actuator),
             ("sensor_refid", np.asarray(model.sensor_reftype) == actuator)]
    for name in ("jnt_actuatorid", "tendon_actuatorid"):
        ids = getattr(model, name, None)
        if ids is not None:
            found.append((name, np.asarray(ids) >= 0))
    return found


# The geom types a probe model can copy from the compiled model alone (a mesh, a height field or an SDF needs its
# asset).
_GEOM = mujoco.mjtGeom
_PROBE_TYPES = {int(t) for t in (_GEOM.mjGEOM_PLANE, _GEOM.mjGEOM_SPHERE, _GEOM.mjGEOM_CAPSULE, _GEOM.mjGEOM_ELLIPSOID,
                                 _GEOM.mjGEOM_CYLINDER, _GEOM.mjGEOM_BOX)}
_PROBES: dict[tuple, tuple[mujoco.MjModel, mujoco.MjData]] = {}
_CCD_OPTIONS = ("ccd_tolerance", "ccd_iterations", "mpr_tolerance", "mpr_iterations")


def geom_distance(model: mujoco.MjModel, data: mujoco.MjData, geom1: int, geom2: int, distmax: float,
                  probe: bool = True) -> float | None:
    """The smallest signed distance between `geom1` and `geom2` at `data`'s positions (negative: they overlap by
    that much), `distmax` where they are farther apart: MuJoCo's `mj_geomDistance` (3.1.6 on), which runs MuJoCo's
    convex solver (`mjc_ccd`, GJK and EPA) for the pairs whose collider is `mjc_Convex` or `mjc_BoxBox` with native
    CCD on, and else the pair's collider with `distmax` as its margin (engine_support.c). Where the binding has no
    `mj_geomDistance` (3.1.5 and before), and `probe` is true, the pair's narrowphase alone: `mj_collision` on a probe
    model of just the two geoms (compiled once a pair of shapes), placed where `data` has them, the pair explicit
    with `distmax` as its margin; None for a mesh, a height field or an SDF, which the probe cannot copy from the
    compiled model, and None without `probe`."""
    if not (0 <= geom1 < model.ngeom and 0 <= geom2 < model.ngeom and np.isfinite(distmax)):
        raise ValueError(f"geom_distance: geoms {geom1} and {geom2} must lie in 0..{model.ngeom - 1} (MuJoCo's call "
                         f"reads past its arrays otherwise) and distmax ({distmax}) be a number")
    call = getattr(mujoco, "mj_geomDistance", None)
    if call is not None:
        return float(call(model, data, int(geom1), int(geom2), float(distmax), None))
    if not probe or int(model.geom_type[geom1]) not in _PROBE_TYPES or int(model.geom_type[geom2]) not in _PROBE_TYPES:
        return None
    return _probe_distance(model, data, int(geom1), int(geom2), float(distmax))


def geom_fromto(model: mujoco.MjModel, data: mujoco.MjData, geom1: int, geom2: int,
                distmax: float) -> tuple[float, np.ndarray] | None:
    """(`mj_geomDistance`'s distance, its segment from geom1's surface to geom2's), or None on a release without
    the call (3.1.5 and before): what a distance, normal or fromto sensor reads of one geom pair."""
    call = getattr(mujoco, "mj_geomDistance", None)
    if call is None:
        return None
    fromto = np.zeros(6)
    return float(call(model, data, int(geom1), int(geom2), float(distmax), fromto)), fromto


def rangefinder_reads_distance(model: mujoco.MjModel, sensor: int) -> bool:
    """Whether a rangefinder's first value is its ray's distance: always before its outputs could be chosen
    (`data="dist dir origin point normal depth"`, an mjRAYDATA bit each in sensor_intprm, 0 before), and where its
    outputs include `dist` since."""
    intprm = getattr(model, "sensor_intprm", None)
    spec = int(np.asarray(intprm)[sensor, 0]) if intprm is not None else 0
    return spec == 0 or bool(spec & 1)


def _probe_distance(model: mujoco.MjModel, data: mujoco.MjData, g1: int, g2: int, distmax: float) -> float:
    """`geom_distance` without `mj_geomDistance`: the probe's deepest contact, `distmax` where it has none."""
    shape = lambda g: (int(model.geom_type[g]), tuple(float(x) for x in model.geom_size[g]))  # noqa: E731
    key = (shape(g1), shape(g2), int(model.opt.enableflags), int(model.opt.disableflags),
           tuple(float(getattr(model.opt, o, 0.0)) for o in _CCD_OPTIONS))
    if key not in _PROBES:
        if len(_PROBES) > 4096:
            _PROBES.clear()
        # each geom in a mocap body of its own: mj_collision returns at once with fewer than two bodies
        geoms = "".join(f'<body mocap="true"><geom name="g{i}" type="{mujoco.mjtGeom(t).name[7:].lower()}" '
                        f'size="{" ".join(map(repr, size))}" contype="0" conaffinity="0"/></body>'
                        for i, (t, size) in enumerate(key[:2]))
        probe = mujoco.MjModel.from_xml_string(f'<mujoco><worldbody>{geoms}</worldbody>'
                                               '<contact><pair geom1="g0" geom2="g1"/></contact></mujoco>')
        for option in _CCD_OPTIONS:  # the model's own solver settings for the convex pairs
            if hasattr(probe.opt, option):
                setattr(probe.opt, option, getattr(model.opt, option))
        keep = int(DSBL.mjDSBL_CONTACT) | int(DSBL.mjDSBL_CONSTRAINT)  # the probe's contacts stay on
        probe.opt.disableflags = int(model.opt.disableflags) & ~keep
        probe.opt.enableflags = int(model.opt.enableflags)
        _PROBES[key] = (probe, mujoco.MjData(probe))
    probe, scratch = _PROBES[key]
    for i, g in enumerate((g1, g2)):  # each mocap body where `data` has its geom
        scratch.mocap_pos[i] = data.geom_xpos[g]
        mujoco.mju_mat2Quat(scratch.mocap_quat[i], data.geom_xmat[g])
    probe.pair_margin[0], probe.pair_gap[0] = distmax, 0.0
    mujoco.mj_kinematics(probe, scratch)
    mujoco.mj_collision(probe, scratch)
    return float(min([distmax, *np.asarray(scratch.contact.dist[: scratch.ncon], float)]))


def ccd_tolerance(model: mujoco.MjModel) -> float:
    """The tolerance MuJoCo's convex collision solver stops at (a distance, in the model's length unit):
    `opt.ccd_tolerance` where the release has it (MuJoCo's own GJK/EPA, and libccd's MPR from 3.2), `opt.mpr_tolerance`
    before."""
    return float(getattr(model.opt, "ccd_tolerance", None) or getattr(model.opt, "mpr_tolerance"))


def convex_solver_distances(model: mujoco.MjModel) -> bool:
    """Whether `mj_geomDistance` computes a convex pair's distance with MuJoCo's own convex solver (GJK and EPA,
    `mj_geomDistanceCCD`): where the release has `mjDSBL_NATIVECCD` (3.3 on) and the model leaves it unset, or has
    `mjENBL_NATIVECCD` (3.2's opt-in) and the model sets it; else libccd's MPR on the shapes inflated by the cutoff,
    whose depth and points are approximate."""
    off = getattr(DSBL, "mjDSBL_NATIVECCD", None)
    if off is not None:
        return not model.opt.disableflags & int(off)
    on = getattr(ENBL, "mjENBL_NATIVECCD", None)
    return on is not None and bool(model.opt.enableflags & int(on))


def multiccd(model: mujoco.MjModel) -> bool:
    """Whether the convex collider returns several contacts a pair (multiccd): on unless `mjDSBL_MULTICCD` where the
    release has that flag (on by default since 3.8), off unless `mjENBL_MULTICCD` before."""
    off = getattr(DSBL, "mjDSBL_MULTICCD", None)
    if off is not None:
        return not model.opt.disableflags & int(off)
    on = getattr(ENBL, "mjENBL_MULTICCD", None)
    return on is not None and bool(model.opt.enableflags & int(on))


@functools.lru_cache(maxsize=1)
def half_turns_sound() -> bool:
    """Whether `mju_mat2Rot`, which interpolated flexes take each element's rotation from, finds an exact half turn
    when started from the identity (a probe: 3.3 to 3.17 return the identity, fixed in 4.0.0, round 9's
    mujoco-a206daa4); True where the release has no such call (no interpolated flexes either)."""
    call = getattr(mujoco, "mju_mat2Rot", None)
    if call is None:
        return True
    quat = np.array([1.0, 0.0, 0.0, 0.0])
    call(quat, np.diag([1.0, -1.0, -1.0]).ravel())
    return abs(abs(float(quat[1])) - 1.0) < 1e-9


def legacy_multiccd(model: mujoco.MjModel) -> bool:
    """Whether the model's convex pairs get the legacy multiccd's contacts, the pair's own and those of the pair
    turned by +-1e-3 rad (Computation: Multiple contacts), before 3.12; from 3.12 (commit 17e6d44a) the single-shot
    pipeline reports points of the clipped faces instead. No attribute tells the two apart: the release does."""
    return multiccd(model) and version() < (3, 12)


def spec_from_file(path: str) -> Any:
    """An MjSpec of the MJCF file at `path`, or None where this release has no MjSpec (before 3.2). `from_file` is a
    static method from 3.3 and an instance's method (its first declared parameter `self`) on 3.2: told apart by the
    binding's declared parameters."""
    spec_type = getattr(mujoco, "MjSpec", None)
    if spec_type is None:
        return None
    declared = parameters(spec_type.from_file)
    if declared and declared[0] == "self":
        spec = spec_type()
        spec.from_file(path)
        return spec
    return spec_type.from_file(path)


def spec_compiler(spec: Any) -> Any:
    """What holds an MjSpec's compiler settings (`fusestatic`, `boundmass`, ...): `spec.compiler` from 3.3, the
    spec itself on 3.2."""
    return getattr(spec, "compiler", spec)


SIGN_PROBE = """<mujoco><worldbody><body><joint name="hinge"/><geom size=".1" pos=".2 0 0"/></body></worldbody>
  <actuator><motor name="motor" joint="hinge" gear="2"/></actuator><sensor><actuatorfrc actuator="motor"/></sensor>
</mujoco>"""


@functools.lru_cache(maxsize=None)
def centred_sensor_sign() -> float:
    """+1 where `mjd_transitionFD`'s centred sensor derivatives carry their own sign, -1 where the release reports
    them flipped (3.0 to 3.17, measured on round 7's fd case; fixed in 4.0.0): read from a probe, a motor's force
    sensor, whose derivative by its unlimited control is its gear (2)."""
    model = mujoco.MjModel.from_xml_string(SIGN_PROBE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    derivative = np.zeros((1, 1))
    mujoco.mjd_transitionFD(model, data, 1e-6, 1, None, None, None, derivative)
    return 1.0 if derivative[0, 0] > 0 else -1.0


SAMEFRAME_PROBE = '<mujoco><worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>'


@functools.lru_cache(maxsize=None)
def edits_keep_sameframe() -> bool:
    """Whether this release's `mj_setConst` keeps the compile's sameframe flags (3.0 to 3.10, measured on round 8's
    mujoco-14c0b0c9; fixed in 3.11.0), so that an offset compiled at its body's origin stays there after an edit: read
    from a probe, a geom compiled at its body's origin moved by an edit."""
    model = mujoco.MjModel.from_xml_string(SAMEFRAME_PROBE)
    data = mujoco.MjData(model)
    model.geom_pos[0] = [0.1, 0.0, 0.0]
    mujoco.mj_setConst(model, data)
    mujoco.mj_kinematics(model, data)
    return bool(np.allclose(data.geom_xpos[0], data.xpos[1]))
