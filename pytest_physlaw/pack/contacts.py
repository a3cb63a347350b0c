"""What a model's contacts measure, for the laws that judge them (no law here): how deep each contact between
geoms with an extent sinks against what a resting contact may (the larger of its solimp width and half the
thinner geom's smallest half-extent), and which pairs and bodies overlap so at the start. Shared by the start
state's, the contact depth's and the timestep's laws (`start_state`, `contact_depth`, `stepping`), which import
it and not each other."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions


SINK = 0.5  # of the thinner geom's smallest half-extent (its radius, for a ball): deeper, it is about to pass through


def extent_contacts(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(indices, the thinner geom's smallest half-extent) of `data`'s contacts between geoms of which one has an
    extent (not two planes or heightfields, not a flex's): the contacts the resting laws measure."""
    n = data.ncon
    a, b = (np.asarray(data.contact.geom1[:n], dtype=int), np.asarray(data.contact.geom2[:n], dtype=int))
    geoms = (a >= 0) & (b >= 0)  # a contact with a flex has no geom on that side (-1): not a geom pair
    thinner = np.where(geoms, thinner_extent(model, np.maximum(a, 0), np.maximum(b, 0)), np.inf)
    keep = np.flatnonzero(np.isfinite(thinner))
    return keep, thinner[keep]


def contact_depths(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(penetration, what it may reach, which geoms) of each contact between geoms that have a thickness (not
    planes or heightfields): the larger of the contact's own solimp width (MuJoCo's mix of its geoms') and SINK
    times the thinner geom's smallest half-extent (from MuJoCo's `geom_aabb`)."""
    keep, thinner = extent_contacts(model, data)
    n = data.ncon
    a, b = (np.asarray(data.contact.geom1[:n], dtype=int)[keep], np.asarray(data.contact.geom2[:n], dtype=int)[keep])
    depth = np.maximum(-np.asarray(data.contact.dist[:n])[keep], 0.0)
    allowed = np.maximum(np.asarray(data.contact.solimp[:n])[keep, 2], SINK * thinner)
    where = [f"{geom_name(model, g1)} / {geom_name(model, g2)}" for g1, g2 in zip(a, b)]
    return depth, allowed, where


def thinner_extent(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smaller of geoms a's and b's smallest half-extents (MuJoCo's `geom_aabb`), pair by pair; inf where
    neither has an extent (planes, heightfields)."""
    thick = np.where(model.geom_rbound > 0, np.min(model.geom_aabb[:, 3:], axis=1), np.inf)
    return np.minimum(thick[a], thick[b])


def depths_or_skip(model: mujoco.MjModel, data: mujoco.MjData, when: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`contact_depths` of `data`, or a skip saying `when` there is none to measure."""
    if data.ncon == 0:
        pytest.skip(f"{when}: no contact")
    depth, allowed, where = contact_depths(model, data)
    if not depth.size:
        pytest.skip(f"{when}: the contacts involve only planes and heightfields (no extent)")
    return depth, allowed, where


def geom_name(model: mujoco.MjModel, geom: int) -> str:
    body = model.body(int(model.geom_bodyid[geom])).name or f"body {model.geom_bodyid[geom]}"
    return f"{body}:{model.geom(geom).name or geom}"


def side_bodies(model: mujoco.MjModel, data: mujoco.MjData, contact: int) -> tuple[set[int], set[int]]:
    """The bodies of each side of `data`'s contact `contact`: a geom's body; for a flex's side (geom -1) the body
    of its vertex, or the bodies of its element's vertices (a flexcomp's vertices are bodies of their own), or,
    where the contact names neither, every vertex body of the flex."""
    flexes, elems, verts = (part[contact] for part in mujoco_versions.contact_flex_parts(data))
    geoms = mujoco_versions.contact_geoms(data.contact)[contact]
    return tuple(_side(model, int(g), int(f), int(e), int(v)) for g, f, e, v in zip(geoms, flexes, elems, verts))


def _side(model: mujoco.MjModel, geom: int, flex: int, elem: int, vert: int) -> set[int]:
    if geom >= 0 or flex < 0:
        return {int(model.geom_bodyid[geom])} if geom >= 0 else set()
    first, count = int(model.flex_vertadr[flex]), int(model.flex_vertnum[flex])
    if vert >= 0:
        local = [vert]
    elif elem >= 0:
        size = int(model.flex_dim[flex]) + 1
        start = int(model.flex_elemdataadr[flex]) + elem * size
        local = [int(v) for v in model.flex_elem[start:start + size]]
    else:
        local = list(range(count))
    return {int(model.flex_vertbodyid[first + v]) for v in local}


def contact_bodies(model: mujoco.MjModel, data: mujoco.MjData, contact: int) -> set[int]:
    """The moving bodies (not the world) of `data`'s contact `contact`."""
    geoms = (int(data.contact.geom1[contact]), int(data.contact.geom2[contact]))
    return {int(model.geom_bodyid[g]) for g in geoms} - {0}


def start_overlaps(model: mujoco.MjModel, first: mujoco.MjData) -> list[tuple[str, float]]:
    """(which geoms, how deep, m) of each pair that overlaps at the start deeper than a resting contact may sink
    (what model-start-penetration fails on), the farthest past its allowance first."""
    depth, allowed, where = contact_depths(model, first)
    over = np.flatnonzero(depth > allowed)
    return [(where[i], float(depth[i])) for i in over[np.argsort(-(depth / allowed)[over], kind="stable")]]


def start_overlap(model: mujoco.MjModel, first: mujoco.MjData) -> str:
    """The worst of `start_overlaps`, named with its depth; "" where none overlaps."""
    overlaps = start_overlaps(model, first)
    return f"{overlaps[0][0]} overlap {1000 * overlaps[0][1]:.3g} mm" if overlaps else ""


def start_overlaps_by_body(model: mujoco.MjModel, first: mujoco.MjData) -> tuple[set[str], dict[int, str]]:
    """(the pairs, and body -> a pair it is in, of each moving body) that overlap at the start deeper than a resting
    contact may sink (model-start-penetration's pairs), from one measure of the start's contacts."""
    keep, _ = extent_contacts(model, first)
    depth, allowed, where = contact_depths(model, first)
    over = np.flatnonzero(depth > allowed)
    found: dict[int, str] = {}
    for i in over:
        for body in contact_bodies(model, first, int(keep[i])):
            found.setdefault(body, where[i])
    return {where[i] for i in over}, found
