"""Laws of the ground: where gravity pulls a floating body something can collide, a floating base can touch
the ground and stays above it. Sources: statics; MuJoCo's documentation ("Computation": collision detection,
contype/conaffinity).

Measured:
`pytest --physlaw-model=MODEL.xml -k "collide or ground" -s`; see docs/checking-a-model.md ("The laws, and what a finding means")."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import roundoff, runs


SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"
GROUND_TYPES = (int(mujoco.mjtGeom.mjGEOM_PLANE), int(mujoco.mjtGeom.mjGEOM_HFIELD))


@pytest.mark.law("model-can-collide", source=SOURCE)
def test_something_can_collide(law, pack_model, model_case) -> None:
    """Where gravity pulls a floating body, something can touch something: some pair of geoms of different
    bodies may collide (their contype and conaffinity bits meet, or an explicit pair names them). A model in
    which no two geoms can ever touch lets every floating body fall through everything. A file whose geoms are all
    one body's (a part that a scene places, without a ground) has nothing else to touch: skipped."""
    model = pack_model.model
    if not runs.falling_roots(model) or not has_gravity(model):
        pytest.skip(f"{model_case}: " + ("no floating body" if has_gravity(model) else "no gravity") +
                    ": nothing falls if nothing collides")
    bodies = set(np.asarray(model.geom_bodyid).tolist())
    if len(bodies) < 2:
        pytest.skip(f"{model_case}: every geom is body {model.body(bodies.pop()).name!r}'s (no ground, no other body): "
                    "nothing else to collide with; a part that a scene places is checked in that scene")
    law.check("colliding_pairs", _colliding_pairs(model), ge=1,
              why="pairs of geoms (of different bodies) whose contype/conaffinity bits meet, and explicit <pair>s: 0 means "
                  "nothing can touch anything; give the collision geoms contype=1 conaffinity=1")


@pytest.mark.law("model-ground-collides", source=SOURCE)
def test_floating_bases_can_touch_the_ground(law, pack_model, model_case) -> None:
    """A floating base needs something to stand on: where the model has a ground (a plane or heightfield on
    the world), each floating tree has a geom that can collide with it (their contype and conaffinity bits
    meet, or an explicit pair names them). A robot whose collision bits were all cleared falls through its
    floor. (A fixed or sliding base may hang over a ground drawn only to be seen: not checked.)"""
    model = pack_model.model
    grounds, roots = _grounds(model), _standing_roots(model)
    if not grounds.size or not roots:
        pytest.skip(f"{model_case}: " + ("no floating base" if not roots else
                                         "no ground (no plane or heightfield on the world body)"))
    tree_of_geom = model.body_treeid[model.geom_bodyid]
    touching = np.array([sum(_can_collide(model, g, grounds) for g in np.flatnonzero(tree_of_geom == model.body_treeid[r]))
                         for r in roots])
    worst = int(np.argmin(touching))
    law.check("geoms_touching_ground", touching, ge=1,
              why=f"geoms of each floating tree that can collide with the ground, fewest {model.body(roots[worst]).name!r}: "
                  "0 means it cannot stand on the floor; set contype/conaffinity on its collision geoms")


@pytest.mark.law("model-base-above-ground", source=SOURCE)
def test_floating_bases_stay_above_the_ground(law, pack_model, settled, settled_nudged, model_case) -> None:
    """A floating base that starts above a ground plane is above it at the end of the settled run: solid
    bodies do not pass through the floor. A robot whose feet cannot collide, or whose contacts are far too
    soft for its weight, ends below it."""
    model, first, final = pack_model.model, settled.first, settled.final
    roots, planes = _standing_roots(model), ground_planes(model)
    if not roots or not planes.size:
        pytest.skip(f"{model_case}: " + ("no floating base" if not roots else "no ground plane on the world body"))
    heights = lambda data: np.array([[plane_height(data, p, data.subtree_com[r]) for p in planes] for r in roots])  # noqa: E731
    above = heights(first) > 0
    if not above.any():
        pytest.skip(f"{model_case}: no floating base starts above a ground plane")
    end, nudged = 1000 * heights(final)[above], 1000 * heights(settled_nudged.final)[above]
    law.check("lowest_height_mm", float(np.min(end)), gt=0, unit="mm", drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, float(np.min(end)), float(np.min(nudged))),
              why="height of a floating tree's centre of mass over the ground planes it started above, at the end; "
                  "below 0 it fell through the floor")


def _grounds(model: mujoco.MjModel, planes_only: bool = False) -> np.ndarray:
    """The world body's planes and heightfields (planes only, if asked)."""
    kinds = GROUND_TYPES[:1] if planes_only else GROUND_TYPES
    return np.array([g for g in range(model.ngeom) if model.geom_bodyid[g] == 0 and int(model.geom_type[g]) in kinds],
                    dtype=int)


def _standing_roots(model: mujoco.MjModel) -> list[int]:
    """Roots of trees gravity moves down (`runs.falling_roots`: a free joint, a planar walker's unlimited rootz)
    that are bodies to stand: a robot (a joint besides its free one) or an object
    that collides. A lone free body that collides with nothing is a marker (a goal, a target drawn for the
    eye) and is placed by its program, not by physics."""
    tree_of_geom = model.body_treeid[model.geom_bodyid]
    def standing(root: int) -> bool:
        tree = model.body_treeid[root]
        jointed = np.count_nonzero(model.body_treeid[model.jnt_bodyid] == tree) > 1
        geoms = tree_of_geom == tree
        return bool(jointed or np.any((model.geom_contype[geoms] | model.geom_conaffinity[geoms]) != 0))
    return [r for r in runs.falling_roots(model) if standing(r)]


def ground_planes(model: mujoco.MjModel) -> np.ndarray:
    """The world body's planes: the grounds a height is measured from."""
    return _grounds(model, planes_only=True)


def has_gravity(model: mujoco.MjModel) -> bool:
    return bool(np.any(model.opt.gravity)) and not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY


def _colliding_pairs(model: mujoco.MjModel) -> int:
    """Pairs of geoms on different bodies that MuJoCo's bit test lets collide, plus the explicit pairs."""
    contype, conaffinity = model.geom_contype, model.geom_conaffinity
    meet = ((contype[:, None] & conaffinity[None, :]) | (conaffinity[:, None] & contype[None, :])) != 0
    meet &= model.geom_bodyid[:, None] != model.geom_bodyid[None, :]
    return int(np.count_nonzero(np.triu(meet, 1))) + int(model.npair)


def _can_collide(model: mujoco.MjModel, geom: int, others: np.ndarray) -> bool:
    """Whether `geom` may collide with one of `others`: MuJoCo's bit test (contype of one meets conaffinity of
    the other), or an explicit contact pair."""
    bits = (model.geom_contype[geom] & model.geom_conaffinity[others]) | (model.geom_conaffinity[geom] & model.geom_contype[others])
    pairs = {(int(a), int(b)) for a, b in zip(model.pair_geom1, model.pair_geom2)}
    return bool(np.any(bits)) or any((geom, int(o)) in pairs or (int(o), geom) in pairs for o in others)


def plane_height(data: mujoco.MjData, plane: int, point: np.ndarray) -> float:
    """Signed distance of `point` from a plane geom along its normal (the geom's z axis)."""
    normal = data.geom_xmat[plane].reshape(3, 3)[:, 2]
    return float((point - data.geom_xpos[plane]) @ normal)
