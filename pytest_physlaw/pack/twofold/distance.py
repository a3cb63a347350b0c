"""The geom pairs MuJoCo's collision admits at a state, the contacts `mj_collision` found for them, and each pair's
signed distance computed a second way (`mujoco_versions.geom_distance`: `mj_geomDistance`, or on releases before
it the pair's narrowphase alone in a probe model). A measure, no law: `twofold.collision` judges with it.

Which pairs MuJoCo tests is read from its source (src/engine/engine_collision_driver.c: `mj_collision`,
`filterBodyPair`, `filterBitmask`, `filterCollisionPair`): an explicit `<pair>` always; any other two geoms where
one's contype meets the other's conaffinity, their bodies' weld roots (`body_weldid`) differ, not both weld roots
are dof-less (3.12 on: no force can act; before, a dof-less body was welded to the world, one weld), neither
weld root is the other's parent's unless `<flag filterparent="disable">`, and the two bodies are not an
`<exclude>`. Left out here: pairs with a body asleep (`<flag sleep>`, whose filter also depends on the other
body), and every pair while a contact filter callback (`mjcb_contactfilter`) decides instead.

Only pairs whose bounding spheres overlap (`geom_rbound`, a plane's half-space against the other's sphere) are
measured: a pair farther apart cannot overlap, and measuring every pair of a large scene at every state would
cost O(ngeom^2) distance calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions

GEOM = mujoco.mjtGeom
DSBL = mujoco.mjtDisableBit
PLANE, HFIELD = int(GEOM.mjGEOM_PLANE), int(GEOM.mjGEOM_HFIELD)
CHUNK = 256  # geoms a block of the pairwise sphere test: 256 x ngeom distances at a time
ROUND_OFF = 1e-9  # of the model's extent: one geometric computation's round-off, far above eps's


@dataclass(frozen=True)
class Pairs:
    """Candidate geom pairs at one state, geom1 < geom2 each (arrays of the same length)."""

    geom1: np.ndarray
    geom2: np.ndarray

    def __len__(self) -> int:
        return len(self.geom1)

    def where(self, keep: np.ndarray) -> Pairs:
        return Pairs(self.geom1[keep], self.geom2[keep])


def near(model: mujoco.MjModel, data: mujoco.MjData) -> Pairs:
    """The geom pairs whose bounding spheres overlap at `data` (a plane: the other's sphere reaches its half-space),
    MuJoCo's own bound of each geom (`geom_rbound`, of a mesh its vertices, of a height field its box)."""
    pos, radius = np.asarray(data.geom_xpos), np.asarray(model.geom_rbound)
    plane = np.asarray(model.geom_type) == PLANE
    solid = np.flatnonzero(~plane)
    found1, found2 = [], []
    for start in range(0, len(solid), CHUNK):
        block = solid[start:start + CHUNK]
        apart = np.sum((pos[block, None, :] - pos[None, solid, :]) ** 2, axis=-1)
        reach = (radius[block, None] + radius[None, solid]) ** 2
        i, j = np.nonzero((apart <= reach) & (block[:, None] < solid[None, :]))
        found1.append(block[i])
        found2.append(solid[j])
    for p in np.flatnonzero(plane):
        normal = np.asarray(data.geom_xmat[p]).reshape(3, 3)[:, 2]
        height = (pos[solid] - pos[p]) @ normal
        others = solid[height <= radius[solid]]
        found1.append(np.minimum(others, p))
        found2.append(np.maximum(others, p))
    if not found1:
        return Pairs(np.zeros(0, int), np.zeros(0, int))
    return Pairs(np.concatenate(found1).astype(int), np.concatenate(found2).astype(int))


def _keys(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    return np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)


def admitted(model: mujoco.MjModel, data: mujoco.MjData, pairs: Pairs) -> tuple[Pairs, int]:
    """(the pairs of `pairs` that MuJoCo's collision filter admits at `data`, how many were left out because a body
    is asleep). See the module's docstring for the rules and their source."""
    g1, g2 = pairs.geom1, pairs.geom2
    ngeom = model.ngeom
    explicit = np.isin(_keys(g1, g2, ngeom), _keys(np.asarray(model.pair_geom1), np.asarray(model.pair_geom2), ngeom))
    contype, conaffinity = np.asarray(model.geom_contype), np.asarray(model.geom_conaffinity)
    bits = ((contype[g1] & conaffinity[g2]) | (contype[g2] & conaffinity[g1])) != 0
    body = np.asarray(model.geom_bodyid)
    weld = np.asarray(model.body_weldid)
    w1, w2 = weld[body[g1]], weld[body[g2]]
    parent = weld[np.asarray(model.body_parentid)]
    dofless = np.asarray(model.body_dofnum) == 0
    default = bits & (w1 != w2) & ~(dofless[w1] & dofless[w2])
    if not model.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT):
        default &= ~((w1 != 0) & (w2 != 0) & ((w1 == parent[w2]) | (w2 == parent[w1])))
    if model.nexclude:
        signature = np.asarray(model.exclude_signature, dtype=np.int64)
        default &= ~np.isin(_keys(body[g1], body[g2], 1 << 16), _keys(signature >> 16, signature & 0xFFFF, 1 << 16))
    # the pairs of types MuJoCo has no collider for (mjCOLLISIONFUNC's empty entries: plane and height field alike)
    types = np.asarray(model.geom_type)
    collider = ~(np.isin(types[g1], (PLANE, HFIELD)) & np.isin(types[g2], (PLANE, HFIELD)))
    keep = (explicit | default) & collider
    asleep = 0
    if mujoco_versions.sleeping(model) and hasattr(data, "body_awake"):
        # asleep, not static (mjS_STATIC: the world's and static bodies', which stay in every pair)
        sleeping = np.asarray(data.body_awake) == int(mujoco.mjtSleepState.mjS_ASLEEP)
        dozing = keep & (sleeping[body[g1]] | sleeping[body[g2]])
        asleep, keep = int(np.count_nonzero(dozing)), keep & ~dozing
    return pairs.where(keep), asleep


def contacts_off(model: mujoco.MjModel) -> bool:
    """Whether the model collides nothing (`<flag contact="disable">`, or constraints off)."""
    return bool(model.opt.disableflags & (int(DSBL.mjDSBL_CONTACT) | int(DSBL.mjDSBL_CONSTRAINT)))


def deepest_contacts(data: mujoco.MjData) -> dict[tuple[int, int], tuple[float, int]]:
    """{(geom1, geom2) with geom1 < geom2: (the smallest `dist` of the pair's contacts, that contact's index)} over
    `data`'s contact list (what `mj_collision` found); a flex's contacts are left out (their side is an element, not a
    geom)."""
    n = data.ncon
    if not n:
        return {}
    geoms = mujoco_versions.contact_geoms(data.contact)[:n]
    flexes = mujoco_versions.contact_flexes(data)
    dist = np.asarray(data.contact.dist[:n], float)
    found: dict[tuple[int, int], tuple[float, int]] = {}
    for i, ((a, b), (fa, fb), d) in enumerate(zip(geoms.tolist(), flexes.tolist(), dist.tolist())):
        if a < 0 or b < 0 or fa >= 0 or fb >= 0:
            continue
        key = (min(a, b), max(a, b))
        if key not in found or d < found[key][0]:
            found[key] = (d, i)
    return found


def tolerance(model: mujoco.MjModel) -> float:
    """How far two computations of one pair's signed distance may differ by their own errors: each convex solve
    (GJK/EPA, or libccd's MPR) stops within the model's CCD tolerance of the distance (`opt.ccd_tolerance`, an
    absolute length: EPA stops where its upper and lower bound on the depth are closer than it; GJK takes geoms
    closer than it for touching; src/engine/engine_collision_gjk.c), two of them 2x; an analytic collider's
    round-off is ROUND_OFF of the model's extent."""
    return 2.0 * mujoco_versions.ccd_tolerance(model) + ROUND_OFF * max(float(model.stat.extent), 1e-300)


def contact_full(data: mujoco.MjData) -> bool:
    """Whether MuJoCo dropped contacts for want of room (its CONTACTFULL warning, counted over the run so far)."""
    return int(data.warning[int(mujoco.mjtWarning.mjWARN_CONTACTFULL)].number) > 0


def pair_name(model: mujoco.MjModel, g1: int, g2: int) -> str:
    """'name1 (type) / name2 (type)' of a geom pair, a geom without a name by its id."""
    def one(g: int) -> str:
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
        return f"{name} ({GEOM(int(model.geom_type[g])).name[7:].lower()})"
    return f"{one(g1)} / {one(g2)}"


# the type pairs whose collider is MuJoCo's general convex one (`mjc_Convex`: GJK/EPA, or libccd's MPR), from the
# collision table mjCOLLISIONFUNC (src/engine/engine_collision_driver.c; the same from 3.1 to 4.0)
_CONVEX = {("sphere", "ellipsoid"), ("sphere", "mesh"), ("capsule", "ellipsoid"), ("capsule", "cylinder"),
           ("capsule", "mesh"), ("ellipsoid", "ellipsoid"), ("ellipsoid", "cylinder"), ("ellipsoid", "box"),
           ("ellipsoid", "mesh"), ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "mesh"), ("box", "mesh"),
           ("mesh", "mesh")}


def convex_solved(model: mujoco.MjModel, g1: int, g2: int) -> bool:
    """Whether MuJoCo collides the pair with its general convex collider (`mjc_Convex`), whose several contacts a
    pair (multiccd) are not each at the pair's depth."""
    return tuple(type_pair(model, g1, g2).split("-")) in _CONVEX


def type_pair(model: mujoco.MjModel, g1: int, g2: int) -> str:
    """'box-mesh': the pair's two geom types, in MuJoCo's type order."""
    a, b = sorted((int(model.geom_type[g1]), int(model.geom_type[g2])))
    return f"{GEOM(a).name[7:].lower()}-{GEOM(b).name[7:].lower()}"
