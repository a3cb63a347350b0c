"""The physics error of a setting: its distance from the reference on what a policy feels, quantity by quantity,
against the user's tolerance (a bound per quantity, defaults in `DEFAULT_BOUNDS`).

| quantity | what | default bound |
| --- | --- | --- |
| trajectory_mm | driven run: the largest distance between a body's centre of mass and the reference's, at any sample | 10 mm |
| pose_mm | settled run: the same at its end (the pose the model settles to) | 2 mm |
| creep_mm | settled run: the largest difference of a body's creep over the second half (Lesson 20.2's slope) | 1 mm |
| force_share | settled run: the largest difference of the normal contact force a body bears, as a share of the model's weight | 0.05 |
| capped_share | both runs: the share of steps the iteration cap stopped unconverged (the setting's own, not a distance) | 0.05 |

A diverged run is infinitely far. Every figure is `error / bound`-normalised by `worst` for ranking: a setting is
within the tolerance when each quantity is at most its bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pytest_physlaw.advise.observe import Observation

DEFAULT_BOUNDS = {"trajectory_mm": 10.0, "pose_mm": 2.0, "creep_mm": 1.0, "force_share": 0.05, "capped_share": 0.05}
UNITS = {"trajectory_mm": "mm", "pose_mm": "mm", "creep_mm": "mm", "force_share": "of weight", "capped_share": "of steps"}


@dataclass(frozen=True)
class Tolerance:
    bounds: dict[str, float]

    @classmethod
    def parse(cls, items: list[str] | None) -> Tolerance:
        """`QUANTITY=BOUND` items over the defaults; a bad one is a ValueError naming it."""
        bounds = dict(DEFAULT_BOUNDS)
        for item in items or []:
            name, eq, value = item.partition("=")
            name = name.strip()
            if not eq or name not in bounds:
                raise ValueError(f"tolerance {item!r}: write QUANTITY=BOUND, QUANTITY one of {', '.join(bounds)}")
            try:
                bound = float(value)
            except ValueError:
                bound = math.nan
            if not (math.isfinite(bound) and bound > 0):
                raise ValueError(f"tolerance {item!r}: the bound must be a finite number > 0")
            bounds[name] = bound
        return cls(bounds)


def distances(reference: Observation, other: Observation, weight: float) -> dict[str, float]:
    """Each quantity of `other` against `reference` (inf where either diverged or a figure is not finite)."""
    if reference.diverged or other.diverged:
        return {q: math.inf for q in DEFAULT_BOUNDS}
    out = {
        "trajectory_mm": 1000 * _largest(np.linalg.norm(other.samples - reference.samples, axis=-1)),
        "pose_mm": 1000 * _largest(np.linalg.norm(other.pose - reference.pose, axis=-1)),
        "creep_mm": 1000 * _largest(np.abs(other.creep - reference.creep)),
        "force_share": _largest(np.abs(other.force - reference.force)) / weight,
        "capped_share": other.capped_share,
    }
    return {k: (v if math.isfinite(v) else math.inf) for k, v in out.items()}


def _largest(values: np.ndarray) -> float:
    if values.size == 0:
        return 0.0
    if not np.all(np.isfinite(values)):
        return math.inf
    return float(np.max(values))


def worst(errors: dict[str, float], tolerance: Tolerance) -> tuple[float, str]:
    """(the largest error / bound, its quantity): at most 1 is within the tolerance."""
    ratios = {q: errors[q] / tolerance.bounds[q] for q in errors}
    name = max(ratios, key=lambda q: ratios[q])
    return ratios[name], name


def within(errors: dict[str, float], tolerance: Tolerance) -> bool:
    return worst(errors, tolerance)[0] <= 1.0


def exceeded(errors: dict[str, float], tolerance: Tolerance) -> list[str]:
    """The quantities beyond their bounds, each as 'name value > bound'."""
    return [f"{q} {errors[q]:.3g} > {tolerance.bounds[q]:g}" for q in errors if errors[q] > tolerance.bounds[q]]
