"""The rate of a position-dependent quantity along a state's own motion, measured a second way: MuJoCo computes a
quantity of the position (a constraint's residual, a tendon's length) and its Jacobian, whose product with qvel is
the quantity's rate; here the positions are moved by -+h along qvel (`mj_integratePos`: quaternions on their
manifold, as the integrator moves them), MuJoCo's own position passes recompute the quantity there, and a central
difference gives its rate. Source: MuJoCo's documentation (Computation: the constraint Jacobian is the residual's
derivative, efc_vel = J qvel; tendons: ten_J = d(ten_length)/dq); the central difference's error (below).

The error of the measurement is its own: a central difference of step h misses by h^2/6 |q'''| (truncation) and by
eps |q| / h (round-off). Two steps, H and H/2: the short step's rate is the measurement, and its truncation error is a
third of what the two rates differ by (each O(h^2)); round-off is ULPS eps S / (H/2) for a quantity computed from
values of size S. Rates are per unit of the state's largest dof speed (the positions move by at most h rad or m).

A rate is left out where it is not defined: the state does not move (qvel = 0), or a tendon's path changes branch
within -+H (a wrap taken or dropped, a wrap switching sides, a sidesite crossing into the wrap object): there the
quantity has a kink, and the difference is no derivative. `branches` names each tendon's branch at a position.

Measured figures and commands: docs/second-computations.md ("Rates along the motion").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import mujoco
import numpy as np

H = 1e-4  # the long step: the largest dof's displacement (rad or m) each way; the short step is H / 2
ULPS = 100  # round-offs of the operands a quantity (a sum of positions, a normalized difference) is uncertain by
EPS = float(np.finfo(float).eps)
WRAP = mujoco.mjtWrap


@dataclass
class Rate:
    """A quantity's rate along a state's motion, per unit of its largest dof speed, and the difference's own error;
    `defined` is False where the quantity changed branch within -+H (no derivative there)."""

    measured: np.ndarray
    error: np.ndarray
    defined: np.ndarray
    speed: float


def finite_state(data: mujoco.MjData, what: str) -> None:
    """Raise ValueError naming the state where its position or velocity is not finite (a diverged run): no rate is
    measured there, and the law must not read it as a finding or a pass."""
    for name in ("qpos", "qvel"):
        bad = np.flatnonzero(~np.isfinite(getattr(data, name)))
        if bad.size:
            raise ValueError(f"{what}: the state at t = {float(data.time):.4g} s has a non-finite {name} (entries "
                             f"{bad[:5].tolist()}): the run diverged before this state, and no rate is defined there")


def along_motion(model: mujoco.MjModel, data: mujoco.MjData,
                 quantity: Callable[[mujoco.MjModel, mujoco.MjData], tuple[np.ndarray, np.ndarray]],
                 size: np.ndarray) -> Rate | None:
    """The rate of `quantity` (values, branch labels: both arrays of one length, computed by MuJoCo's own passes on
    the data it is given) at `data`'s position along `data.qvel`, per unit of |qvel|_inf; None where the state does
    not move. `size`: the operands' magnitude per value (round-off's scale). An entry is undefined where its branch
    label differs at any of the four moved positions from the state's own; all are where the number of values
    changes."""
    finite_state(data, "rate along the motion")
    speed = float(np.max(np.abs(data.qvel), initial=0.0))
    if speed == 0.0:
        return None
    probe = copy.copy(data)
    direction = np.asarray(data.qvel, float) / speed
    _, branch = quantity(model, probe_at(model, probe, data.qpos, direction, 0.0))
    values, same = {}, np.ones(branch.shape, dtype=bool)
    for step in (H, -H, H / 2, -H / 2):
        values[step], moved = quantity(model, probe_at(model, probe, data.qpos, direction, step))
        if moved.shape != branch.shape:  # rows appear or go within the steps (an equality's rows): none defined
            nothing = np.zeros(branch.shape)
            return Rate(nothing, nothing, np.zeros(branch.shape, dtype=bool), speed)
        same &= moved == branch
    long = (values[H] - values[-H]) / (2 * H)
    short = (values[H / 2] - values[-H / 2]) / H
    if not (np.all(np.isfinite(long)) and np.all(np.isfinite(short))):
        raise ValueError(f"rate along the motion: the quantity is not finite near the state at t = "
                         f"{float(data.time):.4g} s")
    error = np.abs(long - short) / 3 + ULPS * EPS * np.asarray(size, float) / (H / 2)
    return Rate(short, error, same, speed)


def probe_at(model: mujoco.MjModel, probe: mujoco.MjData, qpos: np.ndarray, direction: np.ndarray,
             step: float) -> mujoco.MjData:
    """`probe` with its position `qpos` moved by `step` along `direction` (`mj_integratePos`, quaternions on their
    manifold); the position passes are the quantity's to call."""
    probe.qpos[:] = qpos
    if step:
        mujoco.mj_integratePos(model, probe.qpos, direction, step)
    return probe


def operand_size(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """The size of what a residual is computed from at `data`: the model's extent, the bodies' positions, the joint
    positions and the tendon lengths (a residual is their difference)."""
    parts = [float(model.stat.extent), float(np.max(np.abs(data.xpos), initial=0.0)),
             float(np.max(np.abs(data.qpos), initial=0.0)), float(np.max(np.abs(data.ten_length), initial=0.0))]
    return max(parts)


# -- a spatial tendon's path: which wraps it takes, and on which side ------------------------------------------

@dataclass
class Wrap:
    """One site-geom-site stretch of a spatial tendon's path at a state: the wrap geom, its sidesite (-1: none), the
    sites' positions, and the two tangent points where the path wraps (None where it runs straight)."""

    tendon: int
    geom: int
    side: int
    start: np.ndarray
    end: np.ndarray
    tangents: np.ndarray | None

    @property
    def one_point(self) -> bool:
        """Whether the path meets the geom at one point (mju_wrap's path through the geom, wrap_inside, returns its
        two tangent points equal)."""
        return self.tangents is not None and bool(np.array_equal(self.tangents[0], self.tangents[1]))


def wraps(model: mujoco.MjModel, data: mujoco.MjData, tendon: int) -> list[Wrap]:
    """The geom wraps of a spatial tendon's path as `mj_tendon` left it at `data` (wrap_xpos, wrap_obj), walked the
    way `mj_tendon` walks the model's wrap list (engine_core_smooth.c): a site, then where a sphere or cylinder
    follows, its two tangent points (wrap_obj the geom) when the path wraps, then the next site; a pulley's entry
    (wrap_obj -2) starts a branch."""
    adr, num = int(model.tendon_adr[tendon]), int(model.tendon_num[tendon])
    kind, objid, prm = model.wrap_type, model.wrap_objid, model.wrap_prm
    if num == 0 or kind[adr] == WRAP.mjWRAP_JOINT:
        return []
    obj, points = np.ravel(data.wrap_obj), np.asarray(data.wrap_xpos).reshape(-1, 3)
    k, j, found = int(np.ravel(data.ten_wrapadr)[tendon]), 0, []
    while j < num - 1:
        type0, type1 = int(kind[adr + j]), int(kind[adr + j + 1])
        if WRAP.mjWRAP_PULLEY in (type0, type1):
            k += type0 == WRAP.mjWRAP_PULLEY
            j += 1
            continue
        if type1 in (WRAP.mjWRAP_SPHERE, WRAP.mjWRAP_CYLINDER):
            geom, site1 = int(objid[adr + j + 1]), int(objid[adr + j + 2])
            wrapped = k + 1 < obj.size and int(obj[k + 1]) == geom
            found.append(Wrap(tendon, geom, int(round(prm[adr + j + 1])), data.site_xpos[int(objid[adr + j])].copy(),
                              data.site_xpos[site1].copy(), points[k + 1:k + 3].copy() if wrapped else None))
            k += 3 if wrapped else 1
            j += 2
        else:
            k += 1
            j += 1
        if j == num - 1 or kind[adr + j + 1] == WRAP.mjWRAP_PULLEY:
            k += 1
    return found


def local(model: mujoco.MjModel, data: mujoco.MjData, geom: int, point: np.ndarray) -> np.ndarray:
    """A point in the wrap geom's frame (its centre the origin)."""
    return np.asarray(data.geom_xmat[geom]).reshape(3, 3).T @ (np.asarray(point) - data.geom_xpos[geom])


def through(model: mujoco.MjModel, data: mujoco.MjData, wrap: Wrap) -> bool:
    """Whether MuJoCo routes this wrap through the geom: its sidesite lies within the radius of the geom's centre
    (XML reference, spatial/geom sidesite; mju_wrap from 3.2.3 tests |s| < radius in the geom's frame)."""
    if wrap.side < 0:
        return False
    side = local(model, data, wrap.geom, data.site_xpos[wrap.side])
    return bool(np.linalg.norm(side) < model.geom_size[wrap.geom, 0])


def winding(model: mujoco.MjModel, data: mujoco.MjData, wrap: Wrap) -> int:
    """Which way the path goes round the geom, relative to the turn from its start to its end site about the
    centre: +1 or -1, 0 where it runs straight (the two sides of a wrap have opposite signs)."""
    if wrap.tangents is None:
        return 0
    a, b = (local(model, data, wrap.geom, t) for t in wrap.tangents)
    p, q = local(model, data, wrap.geom, wrap.start), local(model, data, wrap.geom, wrap.end)
    if model.geom_type[wrap.geom] == mujoco.mjtGeom.mjGEOM_CYLINDER:
        turn = (a[0] * b[1] - a[1] * b[0]) * (p[0] * q[1] - p[1] * q[0])
    else:
        turn = float(np.dot(np.cross(a, b), np.cross(p, q)))
    return int(np.sign(turn))


def branches(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(ntendon,) a label of each tendon's path branch at `data` (after `mj_tendon`): which geoms it wraps, on which
    side, and through which (a sidesite inside the geom); two positions with the same label are on one smooth
    piece of the tendon's length. Fixed tendons are smooth everywhere (label 0)."""
    labels = np.zeros(model.ntendon, dtype=np.int64)
    for t in range(model.ntendon):
        labels[t] = hash(tuple((w.geom, winding(model, data, w), through(model, data, w), w.one_point)
                               for w in wraps(model, data, t)))
    return labels


def tendon_lengths(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(ten_length, branch labels) at `data`'s position: MuJoCo's kinematics and tendon passes."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_tendon(model, data)
    return np.array(data.ten_length, float), branches(model, data)
