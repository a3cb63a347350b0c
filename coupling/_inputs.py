"""Checks of the arguments the coupling API takes; each error names the argument at fault."""

from __future__ import annotations

import math
import numbers
import os

import mujoco
import numpy as np


def positive_number(name: str, value: object) -> float:
    """`value` as a float, or a ValueError naming `name` if it is not a finite positive real."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= 0.0:
        raise ValueError(f"{name} must be a positive real number (finite), got {value!r}")
    return number


EQUALITY_MODES = (False, True, "soft")


def equality_mode(value: object) -> bool | str:
    """`equality` as False (free W), True (equalities held rigid, W_c) or "soft" (held as MuJoCo holds
    them, through their impedance `efc_R`: W_s); anything else is a ValueError naming `equality`."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value == "soft":
        return "soft"
    raise ValueError(
        f"equality must be False (free), True (equalities held rigid) or 'soft' (held through MuJoCo's "
        f"impedance efc_R), got {value!r}"
    )


def force_vector(force: object) -> np.ndarray:
    """`force` as a float array of shape (3,), or a ValueError naming `force`."""
    try:
        vector = np.asarray(force, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"force must be 3 real numbers (N, world frame), got {force!r}") from error
    if vector.shape != (3,):
        raise ValueError(f"force must have shape (3,) (N, world frame), got shape {vector.shape}")
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"force must be finite, got {vector.tolist()}")
    return vector


def mj_model(model: object, name: str = "model") -> mujoco.MjModel:
    """`model` if it is a compiled `mujoco.MjModel`, else a ValueError naming `name` and what was passed."""
    if isinstance(model, mujoco.MjModel):
        return model
    hint = ""
    if isinstance(model, mujoco.MjData):
        hint = " (an MjData; pass its model, data.model)"
    elif isinstance(model, mujoco.MjSpec):
        hint = " (an MjSpec; compile it first, spec.compile())"
    elif isinstance(model, (str, bytes, os.PathLike)):
        hint = " (a path or XML; load it first, mujoco.MjModel.from_xml_path(...))"
    raise ValueError(f"{name} must be a mujoco.MjModel, got {type(model).__name__}{hint}")


# What W = J M^-1 J^T (and its equality-constrained form) depends on: two models that agree on all
# of these give the same mobility, so data of one is as good as data of the other (a copy.copy of
# the model, say). Sizes come first, so that the arrays compared have the same shapes.
_SIZES = ("nq", "nv", "nbody", "njnt", "neq", "ntendon", "nwrap", "nmocap", "nflex")
_FINGERPRINT = (
    "body_parentid", "body_mass", "body_inertia", "body_pos", "body_quat", "body_ipos", "body_iquat",
    "jnt_type", "jnt_bodyid", "jnt_pos", "jnt_axis", "dof_armature", "qpos0",
    "eq_type", "eq_obj1id", "eq_obj2id", "eq_data", "tendon_armature", "wrap_objid",
)


def _model_difference(owner: mujoco.MjModel, model: mujoco.MjModel) -> str | None:
    """The first size or array (of those W depends on) where two models differ, or None if none does."""
    for size in _SIZES:
        if getattr(owner, size, 0) != getattr(model, size, 0):
            return f"{size} {getattr(owner, size)} vs {getattr(model, size)}"
    for field in _FINGERPRINT:
        mine, theirs = getattr(owner, field, None), getattr(model, field, None)
        if mine is not None and theirs is not None and not np.array_equal(mine, theirs):
            return field
    return None


def matching_data(model: mujoco.MjModel, data: object, name: str = "data") -> mujoco.MjData:
    """`data` if it is an MjData of `model`, else a ValueError naming `name`.

    MuJoCo's MjData knows its model (`data.model`, in 3.14 and 4.0): data of `model` itself passes
    at once. Data of another model passes only if that model agrees with `model` on every size and
    array the mobility depends on (`_FINGERPRINT`: the body tree, inertias, joints, armature,
    equalities, tendons): a copy of the model, not a different robot with the same sizes.
    """
    model = mj_model(model)
    if not isinstance(data, mujoco.MjData):
        raise ValueError(f"{name} must be a mujoco.MjData, got {type(data).__name__}")
    owner = getattr(data, "model", None)
    if owner is model:
        return data
    if owner is not None:
        difference = _model_difference(owner, model)
        if difference is not None:
            raise ValueError(f"{name} does not belong to this model (its model differs: {difference})")
        return data
    if data.qpos.shape != (model.nq,) or data.qvel.shape != (model.nv,) or data.xpos.shape != (model.nbody, 3):
        raise ValueError(
            f"{name} does not belong to this model (nq {data.qpos.size} vs {model.nq}, "
            f"nv {data.qvel.size} vs {model.nv}, nbody {data.xpos.shape[0]} vs {model.nbody})"
        )
    return data


def moving_body(model: mujoco.MjModel, body: object, name: str = "body") -> int:
    """The id of `body` (an id or a name) if it is a body that can move, else a ValueError naming `name`.

    The world body, unknown names, ids out of range and bodies with no degrees of freedom in their
    kinematic chain (static and mocap bodies; MuJoCo's own test `body_dofnum[body_weldid] == 0`)
    are refused.
    """
    model = mj_model(model)
    if isinstance(body, str):
        body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
        if body_id < 0:
            raise ValueError(f"{name}: no body named {body!r} in the model")
        label = f"{body!r} (id {body_id})"
    elif isinstance(body, (int, np.integer)) and not isinstance(body, (bool, np.bool_)):
        body_id = int(body)
        if not 0 <= body_id < model.nbody:
            raise ValueError(f"{name}: body id {body_id} is out of range 0..{model.nbody - 1}")
        label = f"id {body_id}"
    else:
        raise ValueError(f"{name} must be a body id (int) or name (str), got {body!r}")
    if body_id == 0:
        raise ValueError(f"{name}: the world body has no mobility")
    if model.body_dofnum[model.body_weldid[body_id]] == 0:
        raise ValueError(f"{name}: body {label} has no degrees of freedom (a static or mocap body)")
    return body_id
