"""Laws of the model's masses and inertias against matter and against the model's own geometry: a link's
mass is no more compact than the densest matter allows and lies within its robot; where its geometry is
the body (its inertia spreads as its geoms do), the body is no denser than the densest material.
Sources: the densest element, osmium, 22,590 kg/m^3 (CRC Handbook of Chemistry and Physics); the
radius of gyration (trace(I) = 2 sum m r^2 about the centre of mass); MuJoCo's compiler, which derives a
body's mass and inertia from its geoms (`inertiafromgeom`), here at a density of 1 to give each body's
geometric volume and the inertia of that volume.

These catch the units an exporter gets wrong: an inertia in kg mm^2 read as kg m^2 puts the mass
1000 times farther out than the robot reaches; one read the other way packs it tighter than osmium;
a link in grams read as kg is 1000 times denser than the metal it is made of.

Measured:
`pytest --physlaw-model=MODEL.xml -k "inertia or density" -s`; see docs/checking-a-model.md ("The laws, and what a finding means").
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import recompile, runs

SOURCE = ("osmium's density, 22,590 kg/m^3 (CRC Handbook); the radius of gyration; MuJoCo's compiler "
          "(inertiafromgeom)")
DENSEST = 22590.0  # kg/m^3, osmium: no matter packs mass tighter
# A body whose geoms stand for it: the radius of gyration of its inertia within this factor of its geometry's
# at uniform density. A hollow shape and the solid one differ by sqrt(5/3) = 1.29 (a ball); 2 leaves room for
# geoms coarser than the part. Further off, the geoms are not the body (a placeholder sphere, a collision
# stub) and its volume says nothing of its density.
STANDS_FOR = 2.0
# A unit's mix-up (kg mm^2 against kg m^2) moves the radius of gyration 1000-fold; off by more than this, the
# message names the unit, nearer it names the body's own inertia (2 % past a bound is no unit error).
UNIT_FACTOR = 30.0


@pytest.mark.law("model-inertia-physical", source=SOURCE)
def test_inertia_is_matter_within_the_robot(law, pack_model, model_case) -> None:
    """Each jointed body's mass spreads no tighter than a ball of osmium of that mass (the radius of
    gyration of a uniform ball of radius R is sqrt(3/5) R) and no farther than the model reaches (the
    farthest point of its moving geoms from the body's centre of mass; the scene's, fixed to the world, left out): mass is matter inside the model. A body
    with no geom of its own (a phantom that carries a joint coupling, as MyoSuite's scapular phantoms) places no
    matter and is held to the first bound only. Small parts often carry an inertia above their own
    geometry's, as a stand-in for a rotor or for numerical damping: the model's reach, not the part's,
    is the bound, so only a unit's factor of a thousand breaks it."""
    model = pack_model.model
    bodies = _weighed_bodies(model)
    if not bodies.size:
        pytest.skip(f"{model_case}: no jointed body has mass")
    gyration = _gyration(model, bodies)
    densest = _densest_gyration(model.body_mass[bodies])
    reach = _reach(model, bodies)
    names = [model.body(b).name or f"body {b}" for b in bodies]
    tight, wide = gyration / densest, np.where(model.body_geomnum[bodies] > 0, gyration / reach, 0.0)
    tightest, widest = float(np.min(tight)), float(np.max(wide))
    if tightest < 1.0:
        _follows_its_density(law, pack_model, int(bodies[int(np.argmin(tight))]))
    law.check("gyration_over_densest", tight, ge=1.0, drift_abs=1e-9,
              why=f"radius of gyration over an osmium ball's of the same mass; tightest {_named(names, tight, min)}: "
                  f"below 1 the inertia is too small for the mass: {_cause(tightest, 'small')}")
    law.check("gyration_over_reach", wide, le=1.0, drift_abs=1e-9,
              why=f"radius of gyration over the farthest point of the model's moving geoms (0: a body without geoms); widest {_named(names, wide, max)}: "
                  f"above 1 the mass lies outside the robot: {_cause(widest, 'large')}")


def _cause(ratio: float, way: str) -> str:
    """The fix a gyration ratio supports: a unit's factor (kg mm^2 against kg m^2 moves the radius of gyration
    1000-fold) only where the ratio is that far off; nearer, the body's own inertia or mass."""
    if (ratio < 1 / UNIT_FACTOR) if way == "small" else (ratio > UNIT_FACTOR):
        unit = "m^2 read as kg mm^2" if way == "small" else "mm^2 read as kg m^2"
        return f"off by {ratio:.3g}, a unit's factor: an inertia in kg {unit}? (that body's <inertial>)"
    return (f"off by {ratio:.3g}, no unit's factor: check that body's <inertial> diaginertia or fullinertia and mass "
            "(or its geoms' mass, where the compiler derives them)")


@pytest.mark.law("model-link-density", source=SOURCE)
def test_links_are_no_denser_than_osmium(law, pack_model, model_case) -> None:
    """Each jointed body whose geoms stand for it (its inertia's radius of gyration within a factor 2 of its
    geometry's at uniform density) is no denser than osmium: its mass over its geoms' volume, as MuJoCo's
    compiler measures that volume. A link in grams read as kg is a thousand times its metal's density."""
    model = pack_model.model
    geometry = _geometry(pack_model, model_case)
    bodies = _weighed_bodies(model)
    volume = geometry.body_mass[bodies] if bodies.size else bodies
    solid = bodies[volume > 0] if bodies.size else bodies
    if not solid.size:
        pytest.skip(f"{model_case}: no jointed body with mass has geoms with a volume")
    volume = geometry.body_mass[solid]
    shape = _gyration(model, solid) / np.sqrt(geometry.body_inertia[solid].sum(axis=1) / (2 * volume))
    stands = solid[(shape >= 1 / STANDS_FOR) & (shape <= STANDS_FOR)]
    if not stands.size:
        pytest.skip(f"{model_case}: no body's inertia spreads as its geoms do (radius of gyration within "
                    f"{STANDS_FOR:g}x of its geometry's): their volume says nothing of their density")
    density = model.body_mass[stands] / geometry.body_mass[stands]
    names = [model.body(b).name or f"body {b}" for b in stands]
    law.check("density", density, le=DENSEST, unit="kg/m^3", drift_abs=1e-9 * DENSEST,
              why=f"mass over the volume of its geoms, bodies they stand for ({len(stands)} of {len(solid)}); "
                  f"densest {_named(names, density, max)}: above osmium's, the mass is wrong: "
                  f"{_mass_cause(float(np.max(density)) / DENSEST)}")


def _mass_cause(over: float) -> str:
    """The fix a density `over` osmium's supports: grams read as kg (a metal 120 to 1000 times osmium) only that
    far off; nearer, that body's mass."""
    if over > UNIT_FACTOR:
        return f"{over:.3g} times osmium, a unit's factor: a mass in grams read as kg? (that body's <inertial mass>)"
    return (f"{over:.3g} times osmium, no unit's factor: that body's <inertial mass> (or its geoms' mass or "
            "density) is too large for its size")


def _follows_its_density(law, pack_model, body: int) -> None:
    """Where the body packed tightest is also denser than osmium by its geoms' volume, its mass is the cause:
    the tight inertia is model-link-density's finding, once."""
    try:
        geometry = _geometry(pack_model, "")  # compiled once a model (cached on it), as model-link-density's
    except pytest.skip.Exception:  # no volume to measure on this release: the inertia's own finding stands
        return
    if geometry.body_mass[body] <= 0:
        return
    density = float(pack_model.model.body_mass[body] / geometry.body_mass[body])
    if density > DENSEST:
        name = pack_model.model.body(body).name or f"body {body}"
        law.follows("model-link-density", f"{name!r} is {density:.4g} kg/m^3 over its geoms' volume, denser than "
                    "osmium: its mass is too large for its size, and its inertia packs tight because of it")


# -- measurements ------------------------------------------------------------------------------------

def _weighed_bodies(model: mujoco.MjModel) -> np.ndarray:
    """Bodies with a joint of their own and a mass: the links whose inertia the dynamics reads as given
    (a body welded to its parent moves as part of it; its own share of the inertia is not a link's). A flex's
    nodes are left out: the flex's compiler gives each its share of the flex's mass as a point (MuJoCo's cable
    flex in `pulley.xml`: 0.998 of an osmium ball's radius of gyration)."""
    nodes = runs.flex_nodes(model)
    return np.array([b for b in range(1, model.nbody) if model.body_jntnum[b] and model.body_mass[b] > 0
                     and b not in nodes], dtype=int)


def _gyration(model: mujoco.MjModel, bodies: np.ndarray) -> np.ndarray:
    """Radius of gyration about the centre of mass: sqrt(trace(I) / 2m), the RMS distance of the mass."""
    return np.sqrt(model.body_inertia[bodies].sum(axis=1) / (2 * model.body_mass[bodies]))


def _densest_gyration(mass: np.ndarray) -> np.ndarray:
    """The radius of gyration of a uniform ball of osmium of each mass: sqrt(3/5) R, R = (3m / 4 pi rho)^(1/3)."""
    return math.sqrt(3 / 5) * (3 * mass / (4 * math.pi * DENSEST)) ** (1 / 3)


def _reach(model: mujoco.MjModel, bodies: np.ndarray) -> np.ndarray:
    """For each body, the farthest point of the model's moving geoms (their bounding spheres, `geom_rbound`; planes
    are points) from the body's centre of mass, at qpos0. The world's geoms and those welded to it are the scene,
    not the robot: dm_control's walker has its floor plane placed 248 m down the track, which let a torso's
    inertia a million times too large pass as lying within the model."""
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    moving = model.body_weldid[model.geom_bodyid] != 0
    if not np.any(moving):
        moving = np.ones(model.ngeom, dtype=bool)
    xpos, rbound = data.geom_xpos[moving], model.geom_rbound[moving]
    out = np.array([np.max(np.linalg.norm(xpos - data.xipos[b], axis=1) + rbound, initial=0.0) for b in bodies])
    return np.maximum(out, 1e-300)


def _geometry(pack_model, model_case: str) -> mujoco.MjModel:
    """The model compiled anew with every body's mass and inertia taken from its geoms at a density of 1
    (meshes by their convex hulls' volume): body_mass is then each body's geometric volume, m^3."""
    cached = getattr(pack_model, "_physlaw_geometry", None)
    if cached is None:
        try:
            cached = geometry_model(str(pack_model.path))
        except Exception as exc:  # MuJoCo's compiler says what it cannot measure
            cached = f"MuJoCo {mujoco.__version__} cannot compute the volume of its geoms: {exc}".replace("\n", " ")
        pack_model._physlaw_geometry = cached
    if isinstance(cached, str):
        pytest.skip(f"{model_case}: {cached}")
    return cached


def geometry_model(path: str) -> mujoco.MjModel:
    """The MJCF file at `path` compiled with `inertiafromgeom` on, every geom of density 1 (an explicit geom
    mass dropped) and no mass or inertia floor; meshes by their convex hull's volume or, where MuJoCo finds
    the mesh misoriented, by its legacy volume (the sum of its triangles' volumes, each taken positive).
    Compiled as `recompile.compiled` compiles (in a child process before MuJoCo 3.14)."""
    return recompile.compiled(_geometry_model, path)


def _geometry_model(path: str) -> mujoco.MjModel:
    kinds = (mujoco_versions.mesh_inertia_kind("convex"), mujoco_versions.mesh_inertia_kind("legacy"))
    if None in kinds:
        raise ValueError("this release's MjSpec sets no mesh inertia (no mjtMeshInertia: a mesh's volume cannot be "
                         "asked for by its convex hull)")
    last = None
    for kind in kinds:
        spec = mujoco_versions.spec_from_file(path)
        compiler = mujoco_versions.spec_compiler(spec)
        compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
        compiler.boundmass = compiler.boundinertia = 0.0
        for geom in spec.geoms:
            geom.density, geom.mass = 1.0, math.nan
            geom.typeinertia = mujoco.mjtGeomInertia.mjINERTIA_VOLUME
        for mesh in spec.meshes:
            mesh.inertia = kind
        try:
            return spec.compile()
        except ValueError as exc:
            last = exc
    raise last


def _named(names: list[str], values: np.ndarray, pick) -> str:
    i = int(np.argmin(values) if pick is min else np.argmax(values))
    return f"{names[i]!r} ({float(values[i]):.3g})"
