"""What a model's runs covered: a law can only see the states a run reached.

`Coverage` watches a run step by step (`see`) and keeps, per model:

- each limited hinge and slide joint's share of its range visited (`jnt_range`), and which of its limits the run
  reached (where MuJoCo makes a limit constraint row: the distance to the limit below `jnt_margin`, 0 by default:
  at or past the limit);
- each limited tendon's share of its length range (`tendon_range`) and its limits reached (`tendon_margin`);
- each actuator's control at either end of its ctrlrange, its force at either end of its forcerange
  (`actuator_force` is clamped there, so saturation reads as equality), its activation at either end of its
  actrange;
- the geom pairs that touched (a contact at distance <= 0), those within one kinematic tree (self-contact)
  counted apart.

`summary()` gives the numbers as plain JSON (what `check`'s per-model summary prints and its JSON report keeps),
rounded so that a report of an unchanged run keeps its bytes.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions

HINGE_SLIDE = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
DIGITS = 3  # shares kept to 0.1 %: the report's bytes stay put across round-off


def limited_joints(model: mujoco.MjModel) -> np.ndarray:
    """Limited hinge and slide joints: the ones with a range a run can cover."""
    kinds = np.asarray(model.jnt_type)
    return np.flatnonzero(np.isin(kinds, HINGE_SLIDE) & (np.asarray(model.jnt_limited) != 0))


def limited_tendons(model: mujoco.MjModel) -> np.ndarray:
    return np.flatnonzero(np.asarray(model.tendon_limited) != 0) if model.ntendon else np.zeros(0, dtype=int)


def _ends(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """(n, 2): `value` at or beyond the low and the high end (to 1e-9 of the range's scale: a clamp is exact)."""
    tol = 1e-9 * np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0)
    out = np.empty((value.size, 2), dtype=bool)
    np.less_equal(value, low + tol, out=out[:, 0])
    np.greater_equal(value, high - tol, out=out[:, 1])
    return out


class Coverage:
    """The running record of what a run reached (`see` after each step); `merge` joins two runs' records."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.joints = limited_joints(model)
        self.tendons = limited_tendons(model)
        self.qadr = np.asarray(model.jnt_qposadr)[self.joints]
        n, t, u = self.joints.size, self.tendons.size, model.nu
        self.q_seen = np.array([np.full(n, np.inf), np.full(n, -np.inf)])
        self.t_seen = np.array([np.full(t, np.inf), np.full(t, -np.inf)])
        self.joint_limits = np.zeros((n, 2), dtype=bool)
        self.tendon_limits = np.zeros((t, 2), dtype=bool)
        self.ctrl_ends = np.zeros((u, 2), dtype=bool)
        self.force_ends = np.zeros((u, 2), dtype=bool)
        self.act_ends = np.zeros((u, 2), dtype=bool)
        self.pairs: set[tuple[int, int]] = set()
        self._jrange = np.asarray(model.jnt_range, dtype=float)[self.joints].T.copy()
        self._jmargin = np.asarray(model.jnt_margin, dtype=float)[self.joints]
        self._trange = np.asarray(model.tendon_range, dtype=float)[self.tendons].T.copy() if t else np.zeros((2, 0))
        self._tmargin = np.asarray(model.tendon_margin, dtype=float)[self.tendons] if t else np.zeros(0)
        self._ctrl_limited = np.asarray(model.actuator_ctrllimited, dtype=bool)
        per = lambda name: mujoco_versions.per_control(model, name)  # noqa: E731 (an actuator's row per control)
        self._force_limited = np.asarray(per("actuator_forcelimited"), dtype=bool)
        self._act_limited = np.asarray(per("actuator_actlimited"), dtype=bool) & (per("actuator_actadr") >= 0)
        self._ctrl_range = np.where(self._ctrl_limited[:, None], model.actuator_ctrlrange, [[-1.0, 1.0]]).T.copy()
        self._force_range = np.asarray(per("actuator_forcerange"), dtype=float).T.copy()
        self._act_range = np.asarray(per("actuator_actrange"), dtype=float).T.copy()
        self._act_last = np.maximum(per("actuator_actadr") + per("actuator_actnum") - 1, 0)
        self._any_force, self._any_act = bool(np.any(self._force_limited)), bool(np.any(self._act_limited))

    def see(self, data: mujoco.MjData) -> int:
        """Record `data`'s state (after a step or a forward pass); the number of things reached for the first time
        (a limit, an end of a range, a geom pair)."""
        before = self._count()
        q = data.qpos[self.qadr]
        self.q_seen[0] = np.minimum(self.q_seen[0], q)
        self.q_seen[1] = np.maximum(self.q_seen[1], q)
        length = data.ten_length[self.tendons] if self.tendons.size else np.zeros(0)
        if self.tendons.size:
            self.t_seen[0] = np.minimum(self.t_seen[0], length)
            self.t_seen[1] = np.maximum(self.t_seen[1], length)
        self._limits(q, length)
        if self.model.nu:
            self.ctrl_ends |= _ends(data.ctrl, *self._ctrl_range)
            if self._any_force:
                self.force_ends |= _ends(data.actuator_force, *self._force_range) & self._force_limited[:, None]
            if self._any_act:
                self.act_ends |= _ends(data.act[self._act_last], *self._act_range) & self._act_limited[:, None]
        self._contacts(data)
        return self._count() - before

    def _limits(self, q: np.ndarray, length: np.ndarray) -> None:
        """Mark the limits reached: MuJoCo's own condition for a limit's constraint row (its distance to the limit
        below the limit's margin, `jnt_margin`, `tendon_margin`), read off the positions (the rows of `efc_type`
        are costlier to read each step than the few coordinates)."""
        self.joint_limits[:, 0] |= q - self._jrange[0] < self._jmargin
        self.joint_limits[:, 1] |= self._jrange[1] - q < self._jmargin
        if self.tendons.size:
            self.tendon_limits[:, 0] |= length - self._trange[0] < self._tmargin
            self.tendon_limits[:, 1] |= self._trange[1] - length < self._tmargin

    def _contacts(self, data: mujoco.MjData) -> None:
        n = int(data.ncon)
        if not n:
            return
        a = np.asarray(data.contact.geom1[:n], dtype=int)
        b = np.asarray(data.contact.geom2[:n], dtype=int)
        touch = (np.asarray(data.contact.dist[:n]) <= 0) & (a >= 0) & (b >= 0)  # a flex's contacts name no geom
        if np.any(touch):
            self.pairs.update(zip(np.minimum(a, b)[touch].tolist(), np.maximum(a, b)[touch].tolist()))

    def _count(self) -> int:
        return int(self.joint_limits.sum() + self.tendon_limits.sum() + self.ctrl_ends.sum() + self.force_ends.sum()
                   + self.act_ends.sum()) + len(self.pairs)

    def merge(self, other: Coverage) -> Coverage:
        """Both runs' records in one (a new record)."""
        out = Coverage(self.model)
        out.q_seen = np.array([np.minimum(self.q_seen[0], other.q_seen[0]), np.maximum(self.q_seen[1], other.q_seen[1])])
        out.t_seen = np.array([np.minimum(self.t_seen[0], other.t_seen[0]), np.maximum(self.t_seen[1], other.t_seen[1])])
        for name in ("joint_limits", "tendon_limits", "ctrl_ends", "force_ends", "act_ends"):
            setattr(out, name, getattr(self, name) | getattr(other, name))
        out.pairs = self.pairs | other.pairs
        return out

    def self_pair(self, pair: tuple[int, int]) -> bool:
        """Both geoms on one moving kinematic tree (`body_treeid`; the world's and mocap geoms have -1)."""
        trees = [int(self.model.body_treeid[self.model.geom_bodyid[g]]) for g in pair]
        return trees[0] == trees[1] and trees[0] >= 0

    def summary(self) -> dict[str, Any]:
        """The record as plain JSON: per joint, tendon and actuator by name, and the totals."""
        m = self.model
        joints = {_name(m, mujoco.mjtObj.mjOBJ_JOINT, j): _range_entry(m.jnt_range[j], self.q_seen[:, i],
                                                                      self.joint_limits[i])
                  for i, j in enumerate(self.joints.tolist())}
        tendons = {_name(m, mujoco.mjtObj.mjOBJ_TENDON, k): _range_entry(m.tendon_range[k], self.t_seen[:, i],
                                                                        self.tendon_limits[i])
                   for i, k in enumerate(self.tendons.tolist())}
        actuators = {}
        for a in range(m.nu):
            entry = {"ctrl_ends": _sides(self.ctrl_ends[a])}
            if self._force_limited[a]:
                entry["force_limits"] = _sides(self.force_ends[a])
            if self._act_limited[a]:
                entry["act_limits"] = _sides(self.act_ends[a])
            actuators[mujoco_versions.control_name(m, a)] = entry
        pairs = sorted(self.pairs)
        own = [p for p in pairs if self.self_pair(p)]
        shares = [e["share"] for e in joints.values()]
        return {
            "joints": joints,
            "tendons": tendons,
            "joint_range_share": round(float(np.mean(shares)), DIGITS) if shares else None,
            "joints_at_a_limit": sum(1 for e in joints.values() if e["limits"] != "none"),
            "joints_limited": len(joints),
            "tendon_range_share": (round(float(np.mean([e["share"] for e in tendons.values()])), DIGITS)
                                   if tendons else None),
            "actuators_at_both_ctrl_ends": int(np.sum(np.all(self.ctrl_ends, axis=1))),
            "actuators_force_saturated": int(np.sum(np.any(self.force_ends, axis=1))),
            "actuators_force_limited": int(np.sum(self._force_limited)),
            "actuators": actuators,
            "actuator_count": int(m.nu),
            "contact_pairs": [[_name(m, mujoco.mjtObj.mjOBJ_GEOM, a), _name(m, mujoco.mjtObj.mjOBJ_GEOM, b)]
                              for a, b in pairs],
            "self_contact_pairs": [[_name(m, mujoco.mjtObj.mjOBJ_GEOM, a), _name(m, mujoco.mjtObj.mjOBJ_GEOM, b)]
                                   for a, b in own],
        }


def _name(model: mujoco.MjModel, kind: mujoco.mjtObj, i: int) -> str:
    return mujoco.mj_id2name(model, kind, i) or f"{kind.name.removeprefix('mjOBJ_').lower()}{i}"


def _sides(ends: np.ndarray) -> str:
    low, high = bool(ends[0]), bool(ends[1])
    return "both" if low and high else "lower" if low else "upper" if high else "none"


def _range_entry(bounds: np.ndarray, seen: np.ndarray, limits: np.ndarray) -> dict[str, Any]:
    """A joint's or tendon's share of its range visited (0 where the run never saw it) and its limits reached."""
    low, high = float(bounds[0]), float(bounds[1])
    span = max(min(float(seen[1]), high) - max(float(seen[0]), low), 0.0) if np.isfinite(seen).all() else 0.0
    share = span / (high - low) if high > low else 0.0
    return {"share": round(share, DIGITS), "limits": _sides(limits)}

