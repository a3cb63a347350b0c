"""Checks of the arguments the coupling API takes; each error names the argument at fault."""

from __future__ import annotations

import math
import numbers

import mujoco
import numpy as np


def positive_number(name: str, value: object, *, allow_inf: bool = False) -> float:
    """`value` as a float, or a ValueError naming `name` if it is not a finite positive real."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive real number, got {value!r}")
    number = float(value)
    if math.isnan(number) or number <= 0.0 or (math.isinf(number) and not allow_inf):
        kind = "a positive real number" + (" or math.inf" if allow_inf else " (finite)")
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return number


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


def matching_data(model: mujoco.MjModel, data: object, name: str = "data") -> mujoco.MjData:
    """`data` if it is an MjData sized for `model`, else a ValueError naming `name`."""
    if not isinstance(data, mujoco.MjData):
        raise ValueError(f"{name} must be a mujoco.MjData, got {type(data).__name__}")
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
