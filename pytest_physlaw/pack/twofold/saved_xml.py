"""The model MuJoCo saves is the model: the MJCF that MuJoCo's writer makes of a model (`MjSpec.to_xml`, what
`mj_saveLastXML` writes) compiles to the same bodies, joints, geoms, actuators and constraints with the same
parameters, and at every state the same kinematics, mass matrix and forces, as the file it was read from. Users
edit models in MjSpec and save them, viewers save what they loaded, pipelines hand saved models on; a release whose
writer drops, doubles or misplaces an attribute (a frame written twice, a class's value written as the element's)
hands on another robot while the original runs right. Source: MuJoCo's documentation (API: mj_saveLastXML; MjSpec:
to_xml, "saving a model"; changelog 3.1.6 and 3.2.0: frames written more than once, frame names overwritten on
save, fixed), and its own WriteReadCompare test (test/xml/xml_native_writer_test.cc).

The two computations: the model compiled from its file (the pack's model), and the text MuJoCo's writer makes of the
file's MjSpec (mesh and texture folders made absolute, so that the text compiles anywhere) compiled from a string
(`recompile.compiled`: in a child process before MuJoCo 3.14). Compared: the model's sizes (equal), its integer
attributes (geom types, contact bits, condim, joint types: equal), its physical parameters (`PARAMETERS`, the options'
timestep, gravity, wind, density and viscosity), and at the reference pose and at each state of `twofold_states`
(three above 200 dofs) one `mj_forward` of each: body and geom poses, site and tendon lengths, the mass matrix
(`mj_fullM`) and the bias, passive and actuator forces.

The bound is the writer's own error: it writes 6 significant digits (`FullFloatPrecision` in MuJoCo's
xml_numeric_format.h sets 17 for tests only), 5e-7 of each number, which a compiled quantity carries at most a few
fold (an inertia goes with a size's fifth power: 6.6e-6 measured on MuJoCo's humanoid); so 1e-4 of each quantity's
scale (its largest value, with a floor: the model's extent for positions, its weight times its extent for forces).
The bodies' masses and principal moments are a quantity of their own (`masses_apart_over_text`), set as the file's
before the rest is judged: a compiler attribute the writer drops (settotalmass to 3.15.0, inertiagrouprange to
3.14.0) is then one finding, and on those releases a known defect (`mujoco_versions.KNOWN_DEFECTS`: xfailed naming it,
its value gated), as the saved-edits law treats the same loss.
A flex's elastic forces are left out of the passive forces compared: its rest shape written in 6 digits moves them
by more (a stiff banner's 7 x the bound on MuJoCo 3.12.0, round 10's mujoco-55b43414 twin); its vertices' places are
compared.

Measured figures and commands: docs/second-computations.md ("The saved model").
"""

from __future__ import annotations

import os

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import recompile
from pytest_physlaw.pack.twofold import mjcf_text, states

SOURCE = ("MuJoCo documentation, API (mj_saveLastXML), MjSpec (to_xml); changelog 3.1.6 and 3.2.0 (XML writer "
          "fixes); test/xml/xml_native_writer_test.cc (WriteReadCompare)")
TEXT = 1e-4  # of each quantity's scale: 6 significant digits written (5e-7), carried a few fold by the compile
SIZES = ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "neq", "nsensor", "nsensordata",
         "nmocap", "nmesh", "nhfield", "nflex", "nkey", "npair", "nexclude")
INTEGERS = ("body_parentid", "jnt_type", "jnt_bodyid", "jnt_limited", "geom_type", "geom_bodyid", "geom_contype",
            "geom_conaffinity", "geom_condim", "geom_priority", "actuator_trntype", "actuator_dyntype",
            "actuator_gaintype", "actuator_biastype", "actuator_trnid", "tendon_limited", "eq_type", "eq_obj1id",
            "eq_obj2id", "sensor_type", "sensor_objid")
PARAMETERS = ("body_mass", "body_gravcomp", "geom_friction", "geom_solref", "geom_solimp",
              "geom_solmix", "geom_margin", "geom_gap", "jnt_range", "jnt_stiffness", "jnt_solref", "jnt_solimp",
              "jnt_margin", "qpos_spring", "dof_damping", "dof_armature", "dof_frictionloss", "actuator_gainprm",
              "actuator_biasprm", "actuator_dynprm", "actuator_gear", "actuator_ctrlrange", "actuator_forcerange",
              "actuator_actrange", "tendon_stiffness", "tendon_damping", "tendon_range", "tendon_frictionloss",
              "eq_data", "eq_solref", "eq_solimp", "qpos0", "key_qpos", "geom_surfacevel")
OPTIONS = ("timestep", "gravity", "wind", "density", "viscosity", "impratio", "tolerance")
POSITIONS = ("xpos", "xipos", "geom_xpos", "site_xpos", "ten_length", "actuator_length")
FORCES = ("qfrc_bias", "qfrc_passive", "qfrc_actuator")


_GEOM = mujoco.mjtGeom
# the size components each geom type reads (XML reference, geom/size); the rest are unused and the writer drops
# them (a sphere's second and third, a cylinder's third: pusher's and dog's); a mesh's, height field's and SDF's
# size is its asset's, a plane's is drawn only
USED_SIZES = {int(_GEOM.mjGEOM_SPHERE): 1, int(_GEOM.mjGEOM_CAPSULE): 2, int(_GEOM.mjGEOM_CYLINDER): 2,
              int(_GEOM.mjGEOM_ELLIPSOID): 3, int(_GEOM.mjGEOM_BOX): 3}


def used_sizes(model: mujoco.MjModel) -> np.ndarray:
    """`geom_size` with the components its geom's type does not read set to zero."""
    sizes = np.array(model.geom_size)
    for g, kind in enumerate(model.geom_type):
        sizes[g, USED_SIZES.get(int(kind), 0):] = 0.0
    return sizes


def saved(path: str) -> mujoco.MjModel:
    """The MJCF at `path` as MuJoCo's writer saves it (its MjSpec's `to_xml`), compiled from the saved text; its
    mesh, height field and texture folders made absolute first, so that the text compiles from a string."""
    spec = mujoco_versions.spec_from_file(path)
    if spec is None:
        raise ValueError(f"MuJoCo {mujoco.__version__} has no MjSpec (3.2 on): no writer to save the model with")
    folder = os.path.dirname(os.path.abspath(path))
    for name in ("meshdir", "texturedir"):  # MjSpec's own attributes on every release that has one
        written = getattr(spec, name, None) or ""
        if not os.path.isabs(written):
            setattr(spec, name, os.path.join(folder, written) + os.sep)
    spec.compile()  # the writer saves a compiled spec
    return mujoco.MjModel.from_xml_string(spec.to_xml())


def _scale(values: np.ndarray, floor: float = 0.0) -> float:
    return max(float(np.max(np.abs(values), initial=0.0)), floor, 1e-300)


def _apart(first: np.ndarray, second: np.ndarray, floor: float = 0.0) -> float:
    """|first - second| over TEXT of the larger's scale (floor below)."""
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if first.shape != second.shape:
        return float("inf")
    return float(np.max(np.abs(first - second), initial=0.0)) / (TEXT * max(_scale(first, floor), _scale(second)))


def sizes_apart(model: mujoco.MjModel, again: mujoco.MjModel) -> list[str]:
    """The sizes (`SIZES`) that differ between the two compiles, each as 'name ours against theirs'."""
    return [f"{n} {getattr(model, n)} against {getattr(again, n)}" for n in SIZES
            if getattr(model, n, 0) != getattr(again, n, 0)]


def compiled_apart(model: mujoco.MjModel, again: mujoco.MjModel) -> tuple[list[str], list[str], float, str]:
    """(sizes that differ, integer attributes that differ, the largest parameter's difference over its bound, which
    parameter): what the two compiles hold."""
    sizes = sizes_apart(model, again)
    if sizes:
        return sizes, [], 0.0, ""
    integers = [n for n in INTEGERS if hasattr(model, n) and not np.array_equal(getattr(model, n), getattr(again, n))]
    worst = (0.0, "")
    pairs = [(n, getattr(model, n), getattr(again, n)) for n in PARAMETERS if hasattr(model, n)]
    pairs += [(f"opt.{n}", getattr(model.opt, n), getattr(again.opt, n)) for n in OPTIONS]
    pairs.append(("geom_size (the components its type reads)", used_sizes(model), used_sizes(again)))
    for name, first, second in pairs:
        share = _apart(first, second)
        if share > worst[0]:
            worst = (share, name)
    return [], integers, *worst


def _forward(model: mujoco.MjModel, state: mujoco.MjData) -> dict[str, np.ndarray]:
    data = mujoco.MjData(model)
    for name in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat"):
        getattr(data, name)[:] = getattr(state, name)
    mujoco.mj_forward(model, data)
    out = {name: np.array(getattr(data, name)) for name in (*POSITIONS, *FORCES)}
    out["xmat"] = np.array(data.xmat)
    out["mass_matrix"] = mujoco_versions.full_mass(model, data)
    return out


def flex_dofs(model: mujoco.MjModel) -> np.ndarray:
    """The dofs of the bodies that carry flex vertices."""
    bodies = {int(b) for b in np.asarray(getattr(model, "flex_vertbodyid", []), dtype=int) if b > 0}
    dofs = [d for b in bodies for d in range(int(model.body_dofadr[b]), int(model.body_dofadr[b])
                                               + int(model.body_dofnum[b]))]
    return np.array(sorted(dofs), dtype=int)


def physics_apart(model: mujoco.MjModel, again: mujoco.MjModel, state: mujoco.MjData) -> tuple[float, str]:
    """(the largest difference of the two compiles' forward pass at `state` over its bound, which quantity)."""
    first, second = _forward(model, state), _forward(again, state)
    stiff = flex_dofs(model)  # a flex's rest shape in 6 digits: its elastic forces carry it many fold
    # a massless body's inertial frame is the compiler's convention, not physics (MuJoCo 4.0.1 puts it at the body's
    # compiled place: Meta-World's free object bodies, whose mass is in a child, after an edited reference pose)
    massless = np.flatnonzero(np.asarray(model.body_mass) == 0)
    for forward in (first, second):
        forward["qfrc_passive"][stiff] = 0.0
        forward["xipos"][massless] = 0.0
    extent = float(model.stat.extent)
    weight = float(np.sum(model.body_mass)) * float(np.linalg.norm(model.opt.gravity)) * extent
    floors = {**{n: extent for n in POSITIONS}, **{n: weight for n in FORCES}, "xmat": 1.0}
    worst = (0.0, "")
    for name in first:
        share = _apart(first[name], second[name], floors.get(name, 0.0))
        if share > worst[0]:
            worst = (share, name)
    return worst


def worst_physics(model: mujoco.MjModel, again: mujoco.MjModel, twofold_states: list) -> tuple[float, str, float]:
    """(the largest `physics_apart` at the reference pose and at each state of `twofold_states` (three above 200 dofs),
    which quantity, at what time)."""
    at = [(mujoco.MjData(model), 0.0)] + [(s, float(s.time)) for s in states.for_solves(model, twofold_states)]
    worst = (0.0, "", 0.0)
    for state, t in at:
        found, name = physics_apart(model, again, state)
        if found >= worst[0] and name:
            worst = (found, name, t)
    return worst


MASSES = ("body_mass", "body_inertia", "body_ipos", "body_iquat")


def masses_apart(changed: mujoco.MjModel, again: mujoco.MjModel) -> tuple[float, str, mujoco.MjModel]:
    """(the largest difference of a body's mass or principal moment in the saved copy over `TEXT` of its
    scale, which; the saved copy with its masses and inertial frames as edited: the other edits and the forward pass
    are judged apart from them, one cause one quantity)."""
    if changed.nbody != again.nbody:
        return float("inf"), f"nbody {changed.nbody} against {again.nbody}", again
    # a body's mass and principal moments (sorted: the compiler may name the principal axes in another order); where
    # its inertial frame lies and turns is judged by the forward pass (xipos, the mass matrix), since a saved body may
    # be written in another frame (a free body at its edited pose) with the same physics
    pairs = (("body_mass", changed.body_mass, again.body_mass),
             ("body_inertia", np.sort(changed.body_inertia, axis=1), np.sort(again.body_inertia, axis=1)))
    worst = (0.0, "none")
    for name, first, second in pairs:
        share = _apart(first, second)
        if share > worst[0]:
            worst = (share, name)
    rest = again
    if worst[0] > 1.0:  # the loss measured here, the rest judged without it
        # with what the compiler derives from them: the mass matrix's (the sameframe and simple flags, dof_M0), and the
        # flags of geoms and sites that lie at a body's inertial frame (sameframe 2: placed at xipos), which would
        # otherwise be placed at the copied frame (gymnasium-robotics' kitchen on 3.14.0: a light switch's visual
        # mesh 0.46 m off, the law's error, not the writer's)
        for name in (*MASSES, "body_sameframe", "body_simple", "dof_M0", "geom_sameframe", "site_sameframe"):
            if hasattr(rest, name):
                getattr(rest, name)[:] = getattr(changed, name)
    return (*worst, rest)


def dropped_compiler_attributes(path: str, law_id: str) -> list[tuple[str, str]]:
    """(premise, why) of each known defect of this release's writer that drops a compiler attribute the model's file
    sets (settotalmass to 3.15, inertiagrouprange to 3.14: `mujoco_versions.KNOWN_DEFECTS`), as `law_id` measures it
    (its quantity `masses_apart_over_text`)."""
    try:
        compilers = list(mjcf_text.root(path).iter("compiler"))
    except mjcf_text.Unreadable:
        return []
    used = set()
    for compiler in compilers:
        if float(compiler.get("settotalmass", "-1") or -1) > 0:
            used.add("settotalmass")
        if compiler.get("inertiagrouprange", "0 5").split() != ["0", "5"]:
            used.add("inertiagrouprange")
    found = [mujoco_versions.known_defect(law_id, f"masses_apart_over_text:{name}") for name in sorted(used)]
    return [f for f in found if f]


def _again(pack_model, model_case: str) -> mujoco.MjModel:
    """The model as MuJoCo saves it, compiled (awake, as the pack's model); skips naming why where this release has
    no writer to save it with or refuses its saved text. Not kept past the law: a robot's meshes twice over (the
    dog's 0.2 GB) would stay for the rest of its laws."""
    try:
        return mujoco_versions.awake(recompile.compiled(saved, str(pack_model.path)))
    except (ValueError, RuntimeError) as exc:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} cannot save it and compile the saved text: "
                    f"{exc}".replace("\n", " "))


LAW = "model-saved-xml-is-the-model"  # the law below (its marker spells it: the docs and catalogue read markers)


@pytest.mark.law("model-saved-xml-is-the-model", source=SOURCE)
def test_saved_xml_is_the_model(law, pack_model, twofold_states, model_case) -> None:
    """The MJCF MuJoCo's writer saves of the model compiles to the same sizes and attributes, the same parameters
    and, at the reference pose and every state the runs reach, the same kinematics, mass matrix and forces, to the
    writer's 6 significant digits (1e-4 of each quantity's scale)."""
    model, again = pack_model.model, _again(pack_model, model_case)
    defect = (f"an engine defect of MuJoCo {mujoco.__version__}'s XML writer (not the model's): the saved file is "
              "another model; until it is fixed, hand the original file on (not one MuJoCo saved), report it, or "
              "change MuJoCo version")
    sizes, integers = sizes_apart(model, again), []
    if not sizes:
        # one cause, one quantity: the masses measured, then set as the file's in the saved copy (this law's own),
        # so that a compiler attribute the writer drops (settotalmass, inertiagrouprange: known defects to 3.15 and
        # 3.14) is one finding, not three; the integer attributes are not among what it sets
        masses, mass_name, again = masses_apart(model, again)
        _, integers, share, which = compiled_apart(model, again)
    law.check("sizes_and_kinds_apart", len(sizes) + len(integers), le=0, drift_abs=0.5,
              why=f"the saved model's sizes and integer attributes that differ from the file's: "
                  f"{'; '.join(sizes + integers) or 'none'}; failing, {defect}")
    if sizes:
        return  # another model's arrays: nothing to compare element by element
    worst = worst_physics(model, again, twofold_states)
    dropped = dropped_compiler_attributes(str(pack_model.path), LAW) if masses > 1.0 else []
    if dropped and share <= 1.0 and worst[0] <= 1.0:  # another loss still fails
        law.follows("; ".join(d[0] for d in dropped), dropped[0][1])
    law.check("masses_apart_over_text", masses, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a body's mass or principal moment between the file and the saved file, "
                  f"over {TEXT:g} of its scale: {mass_name}; failing, {defect}")
    law.check("parameters_apart_over_text", share, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a compiled parameter between the file and the saved file, over "
                  f"{TEXT:g} of its scale (the writer's 6 significant digits): {which or 'none'}; failing, {defect}")
    law.check("physics_apart_over_text", worst[0], le=1.0, drift_abs=1.0,
              why=f"the largest difference of the forward pass between the file and the saved file, over {TEXT:g} "
                  f"of its scale, at the reference pose and each state: {worst[1] or 'none'} at t = {worst[2]:.3f} "
                  f"s; failing, {defect}")
