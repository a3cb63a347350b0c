"""A model's options changed for one computation and restored after it, without a copy of the model.

A second computation is often the same model with one option turned (the Jacobian's storage, islands, a tighter
tolerance, no warm start): copying the model for it copies its meshes and their bounding volumes too (dm_control's
dog, 308k mesh faces: 0.06 s and its size again in memory a copy, about 40 copies a check). The options live in
`model.opt` (`MjOption`), which MuJoCo reads at each call, so setting them on the model itself for the length of
one block, and putting every one back after it, computes the same thing for nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import mujoco
import numpy as np

Options = Mapping[str, Any]  # MjOption field -> value


def _kept(value: Any) -> Any:
    """A value of an option that stays what it was when the option is changed (arrays are views of the model)."""
    return np.array(value) if isinstance(value, np.ndarray) else value


@contextmanager
def changed(model: mujoco.MjModel, options: Options) -> Iterator[mujoco.MjModel]:
    """`model` with `options` set on its `opt` for the block; each is restored after it, an exception included."""
    unknown = [name for name in options if not hasattr(model.opt, name)]
    if unknown:
        raise AttributeError(f"MjOption has no field {', '.join(unknown)} (MuJoCo {mujoco.__version__})")
    saved = {name: _kept(getattr(model.opt, name)) for name in options}
    try:
        for name, value in options.items():
            setattr(model.opt, name, value)
        yield model
    finally:
        for name, value in saved.items():
            setattr(model.opt, name, value)


def without_noslip(model: mujoco.MjModel) -> dict[str, Any]:
    """The options that turn the noslip pass off (none where the model has none)."""
    return {"noslip_iterations": 0} if model.opt.noslip_iterations else {}


def cold(model: mujoco.MjModel, options: Options | None = None) -> dict[str, Any]:
    """`options` (or none) with the warm start off: `disableflags` as the options or the model have it, plus
    mjDSBL_WARMSTART."""
    options = dict(options or {})
    flags = int(options.get("disableflags", model.opt.disableflags))
    return {**options, "disableflags": flags | int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)}
