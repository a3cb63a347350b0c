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


SYMMETRY_TOLERANCE = 1e-9  # of max |W|: a computed mobility is symmetric to ~1e-16 of it
PSD_TOLERANCE = 1e-9  # of the largest |eigenvalue|: round-off leaves a PSD W's zero ones at ~-1e-16


def mobility_matrix(W: object, name: str = "W") -> np.ndarray:
    """`W` as a float array if it is a finite, symmetric, positive semi-definite 3 x 3 or 6 x 6 matrix.

    Anything else is a ValueError naming `name`: a mobility J M^-1 J^T is all of these, and the
    masses read off a W that is not (indefinite, negative, lopsided) would be numbers that mean
    nothing. Symmetry and the eigenvalues' sign are held to `SYMMETRY_TOLERANCE` and
    `PSD_TOLERANCE`, relative to W's own scale, so round-off of a computed mobility passes.
    """
    try:
        matrix = np.asarray(W, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a 6 x 6 or 3 x 3 mobility of real numbers, got {W!r}") from error
    if matrix.shape not in ((6, 6), (3, 3)):
        raise ValueError(f"{name} must be a 6 x 6 or 3 x 3 mobility, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} must be finite")
    scale = float(np.max(np.abs(matrix)))
    asymmetry = float(np.max(np.abs(matrix - matrix.T)))
    if asymmetry > SYMMETRY_TOLERANCE * scale:
        raise ValueError(f"{name} must be symmetric: W - W^T reaches {asymmetry:.3g} against max |W| {scale:.3g}")
    values = np.linalg.eigvalsh(0.5 * (matrix + matrix.T))
    if values[0] < -PSD_TOLERANCE * max(abs(values[0]), abs(values[-1])):
        raise ValueError(f"{name} must be positive semi-definite: its least eigenvalue is {values[0]:.3g}")
    return matrix


def translation_block(W: np.ndarray, name: str = "W") -> np.ndarray:
    """The 3 x 3 translational block of a 6 x 6 mobility (or a 3 x 3 one as it is), symmetrised.

    `W` is checked first (`mobility_matrix`): finite, symmetric and positive semi-definite, or a
    ValueError naming `name`.
    """
    block = mobility_matrix(W, name)
    if block.shape == (6, 6):
        block = block[:3, :3]
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
