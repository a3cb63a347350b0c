"""Masses read off a body's mobility W: the isotropic fit and the mass along the most mobile axis.

`scalar_mass(W) = 3 / trace(W_tt)` is the least-squares isotropic fit of the translational block
(argmin_a ||a I - W_tt||_F gives a = trace / 3), the figure MuJoCo's `body_invweight0` holds on its
general path. `axis_mass(W) = 1 / lambda_max(W_tt)` is the body's mass along the axis it moves on
most easily. For a body on one slider the two differ by 3, for two free axes by 1.5; they agree
exactly when W_tt is isotropic (a free body: W_tt = I / m).
"""

from __future__ import annotations

import math

import numpy as np


def translation_block(W: np.ndarray, name: str = "W") -> np.ndarray:
    """The 3 x 3 translational block of a 6 x 6 mobility (or a 3 x 3 one as it is), symmetrised."""
    block = np.asarray(W, dtype=float)
    if block.shape == (6, 6):
        block = block[:3, :3]
    elif block.shape != (3, 3):
        raise ValueError(f"{name} must be a 6 x 6 or 3 x 3 mobility, got shape {block.shape}")
    if not np.all(np.isfinite(block)):
        raise ValueError(f"{name} must be finite")
    return 0.5 * (block + block.T)


def _mass_from_inverse(inverse: float) -> float:
    # A centre of mass that cannot translate (e.g. on a hinge through it) has infinite mass.
    return math.inf if inverse <= 0.0 else 1.0 / inverse


def scalar_mass(W: np.ndarray) -> float:
    """3 / trace(W_tt): the isotropic least-squares mass of a mobility W (6 x 6 or 3 x 3), in kg."""
    return _mass_from_inverse(float(np.trace(translation_block(W))) / 3.0)


def axis_mass(W: np.ndarray) -> float:
    """1 / lambda_max(W_tt): the mass along the most mobile axis of W (6 x 6 or 3 x 3), in kg."""
    return _mass_from_inverse(float(np.linalg.eigvalsh(translation_block(W))[-1]))


def mobile_axis(W: np.ndarray) -> np.ndarray:
    """The unit direction (world frame, sign arbitrary) along which W_tt is largest: the axis `axis_mass` reads."""
    _, vectors = np.linalg.eigh(translation_block(W))
    return vectors[:, -1].copy()
