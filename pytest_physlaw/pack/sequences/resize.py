"""A geom resized in place is the geom compiled at that size: each primitive geom (sphere, capsule, cylinder,
ellipsoid, box) made a quarter larger in the compiled model, then `mj_setConst`, has the bounding radius, bounding box
and ellipsoid fluid coefficients (added mass and added inertia) that MuJoCo's compiler gives the same geom written at
that size. That is how domain randomization varies a robot's links and a scene's objects between episodes. Source:
MuJoCo's documentation (API: mj_setConst; changelog 3.16.0: mj_setConst computes the bounding volumes of geoms and the
added mass of geoms in the ellipsoid fluid model, so that changes to a geom's size are then safe; before, both kept
the compiled size's values, from 3.0.0).

The two computations: the model's geoms resized and `mj_setConst` (`resized`), and the same geoms written at their new
size in a model of their own (each on a free body, its fluid shape and coefficients as compiled) and compiled
(`compiled_alone`): the compiler's own computation of each geom's size-made constants. Compared: `geom_rbound`,
`geom_aabb` (3.1 on) and, for the geoms of the ellipsoid fluid model, `geom_fluid`. Meshes, height fields, SDFs and
planes are left out (their size is their asset's, or drawn only).

Bound: the same code on the same numbers, 1e-9 of each quantity's scale. Before 3.16.0 `mj_setConst` kept every
resized geom's bounding volumes, every model's defect there (`mujoco_versions.KNOWN_DEFECTS`, mujoco-d823f921);
the fluid coefficients, a model's own where it swims, are judged apart.

Measured figures and commands: docs/second-computations.md ("A resized geom is the geom compiled at that size").
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = ("MuJoCo documentation, API (mj_setConst); changelog 3.16.0 (mj_setConst computes geoms' bounding volumes "
          "and ellipsoid fluid added mass after a resize, fixed)")
GROW = 1.25
ROUND_OFF = 1e-9
_GEOM = mujoco.mjtGeom
SHAPES = {int(_GEOM.mjGEOM_SPHERE): "sphere", int(_GEOM.mjGEOM_CAPSULE): "capsule",
          int(_GEOM.mjGEOM_CYLINDER): "cylinder", int(_GEOM.mjGEOM_ELLIPSOID): "ellipsoid", int(_GEOM.mjGEOM_BOX): "box"}
WIDTH = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}
LAW = "model-resized-geoms-are-compiled-alike"


def primitives(model: mujoco.MjModel) -> np.ndarray:
    """The geoms whose size is their own (the module's shapes)."""
    return np.array([g for g in range(model.ngeom) if int(model.geom_type[g]) in SHAPES], dtype=int)


def resized(model: mujoco.MjModel, geoms: np.ndarray) -> mujoco.MjModel:
    """A copy of `model` with `geoms` GROW times larger, `mj_setConst` called."""
    out = copy.copy(model)
    out.geom_size[geoms] *= GROW
    mujoco.mj_setConst(out, mujoco.MjData(out))
    return out


def _geom_xml(model: mujoco.MjModel, g: int, size: np.ndarray) -> str:
    shape = SHAPES[int(model.geom_type[g])]
    fluid = np.asarray(model.geom_fluid[g])
    words = " ".join(repr(float(v)) for v in size[:WIDTH[shape]])  # shortest text that reads back exact
    ellipsoid = (f' fluidshape="ellipsoid" fluidcoef="{" ".join(repr(float(v)) for v in fluid[1:6])}"'
                 if fluid[0] > 0 else "")
    return (f'<body><freejoint/><geom type="{shape}" size="{words}" mass="1"{ellipsoid} '
            'contype="0" conaffinity="0"/></body>')


def compiled_alone(model: mujoco.MjModel, geoms: np.ndarray, sizes: np.ndarray) -> mujoco.MjModel:
    """`geoms` of `model` at `sizes`, each on a free body of its own, compiled by MuJoCo (density on where any geom
    is of the ellipsoid fluid model, so that its coefficients are computed)."""
    bodies = "".join(_geom_xml(model, int(g), sizes[k]) for k, g in enumerate(geoms))
    return mujoco.MjModel.from_xml_string(f'<mujoco><option density="1"/><worldbody>{bodies}</worldbody></mujoco>')


def apart(model: mujoco.MjModel) -> dict[str, tuple[float, str]]:
    """For "bounds" (geom_rbound, geom_aabb) and "fluid" (geom_fluid of the ellipsoid fluid model's geoms): the
    largest difference between the resized geoms after `mj_setConst` and the same geoms compiled at that size, over
    ROUND_OFF of its scale, and which geom."""
    geoms = primitives(model)
    found = {"bounds": (0.0, "none"), "fluid": (0.0, "none")}
    if not geoms.size:
        return found
    edited = resized(model, geoms)
    alone = compiled_alone(model, geoms, np.asarray(edited.geom_size)[geoms])
    rows = [("bounds", "geom_rbound", np.ones(geoms.size, dtype=bool))]
    if hasattr(model, "geom_aabb"):
        rows.append(("bounds", "geom_aabb", np.ones(geoms.size, dtype=bool)))
    rows.append(("fluid", "geom_fluid", np.asarray(model.geom_fluid)[geoms, 0] > 0))
    for kind, name, kept in rows:
        first = np.asarray(getattr(edited, name)).reshape(model.ngeom, -1)[geoms][kept]
        second = np.asarray(getattr(alone, name)).reshape(alone.ngeom, -1)[kept]
        if not first.size:
            continue
        gap = np.max(np.abs(first - second), axis=1) / (ROUND_OFF * np.maximum(np.max(np.abs(second), axis=1), 1e-300))
        k = int(np.argmax(gap))
        if gap[k] > found[kind][0]:
            g = int(geoms[kept][k])
            label = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
            found[kind] = (float(gap[k]), f"{name} of {label!r}")
    return found


@pytest.mark.law("model-resized-geoms-are-compiled-alike", source=SOURCE)
def test_resized_geoms_are_compiled_alike(law, pack_model, model_case) -> None:
    """Each primitive geom made a quarter larger in place, then `mj_setConst`, has the bounding radius and box and
    (in the ellipsoid fluid model) the added mass and inertia of the same geom compiled at that size, to 1e-9."""
    model = pack_model.model
    if not primitives(model).size:
        pytest.skip(f"{model_case}: no sphere, capsule, cylinder, ellipsoid or box geom to resize")
    found = apart(model)
    bounds, fluid = found["bounds"], found["fluid"]
    known = mujoco_versions.known_defect(LAW, "bounds_apart_over_round_off")
    if known and bounds[0] > 1.0 and fluid[0] <= 1.0:  # a fluid finding the defect does not explain still fails
        law.follows(*known)
    defect = (f"MuJoCo {mujoco.__version__}'s mj_setConst leaves a resized geom's {{}} at the compiled size: an "
              "engine defect (fixed in 3.16.0); randomize sizes through MjSpec and recompile, or change MuJoCo version")
    law.check("bounds_apart_over_round_off", bounds[0], le=1.0, drift_abs=1.0,
              why=f"the largest difference of a resized geom's bounding radius or box after mj_setConst from the same "
                  f"geom compiled at that size, over {ROUND_OFF:g} of its scale: {bounds[1]}; failing, "
                  + defect.format("bounding volumes (contacts are then missed or found late)"))
    law.check("fluid_apart_over_round_off", fluid[0], le=1.0, drift_abs=1.0,
              why=f"the largest difference of a resized geom's ellipsoid fluid coefficients (added mass and inertia) "
                  f"after mj_setConst from the same geom compiled at that size, over {ROUND_OFF:g} of its scale: "
                  f"{fluid[1]}; failing, " + defect.format("added mass (its fluid forces are another geom's)"))
