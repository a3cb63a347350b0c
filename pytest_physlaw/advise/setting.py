"""One choice of the settings a model author or policy trainer controls: solver, iteration cap, tolerance,
timestep, integrator and friction cone (MuJoCo's `<option>`), read from a model and applied to a copy.

A `Setting` is a value: `applied(model)` returns a copy of the compiled model with it set (`copy.copy` of an
MjModel copies its options), `option_line()` is the `<option .../>` line a user pastes, and `write_model`
saves the user's file with the setting in it (MjSpec) for `pytest-physlaw check` to judge by the pack's laws.
"""

from __future__ import annotations

import copy
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import mujoco

SOLVERS = {"PGS": mujoco.mjtSolver.mjSOL_PGS, "CG": mujoco.mjtSolver.mjSOL_CG, "Newton": mujoco.mjtSolver.mjSOL_NEWTON}
INTEGRATORS = {"Euler": mujoco.mjtIntegrator.mjINT_EULER, "RK4": mujoco.mjtIntegrator.mjINT_RK4,
               "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
               "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}
CONES = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}


def _name(table: dict[str, Any], value: int) -> str:
    return next(k for k, v in table.items() if int(v) == int(value))


@dataclass(frozen=True, order=True)
class Setting:
    """The `<option>` attributes advise sweeps; `timestep` in s."""

    solver: str
    iterations: int
    tolerance: float
    timestep: float
    integrator: str
    cone: str

    def __post_init__(self) -> None:
        for field, table in (("solver", SOLVERS), ("integrator", INTEGRATORS), ("cone", CONES)):
            if getattr(self, field) not in table:
                raise ValueError(f"setting {field}={getattr(self, field)!r}: must be one of {', '.join(table)}")
        if not (isinstance(self.iterations, int) and self.iterations >= 1):
            raise ValueError(f"setting iterations={self.iterations!r}: must be a whole number >= 1")
        if not self.timestep > 0:
            raise ValueError(f"setting timestep={self.timestep!r}: must be > 0 s")
        if not self.tolerance >= 0:
            raise ValueError(f"setting tolerance={self.tolerance!r}: must be >= 0")

    @classmethod
    def of(cls, model: mujoco.MjModel) -> Setting:
        """The model's own settings."""
        opt = model.opt
        return cls(_name(SOLVERS, opt.solver), int(opt.iterations), float(opt.tolerance), float(opt.timestep),
                   _name(INTEGRATORS, opt.integrator), _name(CONES, opt.cone))

    def but(self, **changes: Any) -> Setting:
        return replace(self, **changes)

    def applied(self, model: mujoco.MjModel) -> mujoco.MjModel:
        """A copy of `model` with this setting."""
        m = copy.copy(model)
        m.opt.solver = SOLVERS[self.solver]
        m.opt.iterations = self.iterations
        m.opt.tolerance = self.tolerance
        m.opt.timestep = self.timestep
        m.opt.integrator = INTEGRATORS[self.integrator]
        m.opt.cone = CONES[self.cone]
        return m

    def label(self) -> str:
        return (f"{self.solver} {self.iterations} it. tol {self.tolerance:g}, {self.timestep * 1000:g} ms "
                f"{self.integrator}, {self.cone}")

    def option_attributes(self) -> dict[str, str]:
        return {"timestep": f"{self.timestep:.6g}", "integrator": self.integrator, "solver": self.solver,
                "iterations": str(self.iterations), "tolerance": f"{self.tolerance:g}", "cone": self.cone}

    def option_line(self) -> str:
        """The `<option .../>` line to paste (its other attributes, gravity and the like, stay the model's)."""
        return "<option " + " ".join(f'{k}="{v}"' for k, v in self.option_attributes().items()) + "/>"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def write_model(source: Path, setting: Setting, folder: Path) -> Path:
    """The user's model file with `setting` in its `<option>`, written to `folder` (MjSpec: MuJoCo's own
    editor and writer); the asset folders made absolute so the copy compiles where it is written."""
    spec = mujoco.MjSpec.from_file(str(source))
    base = source.resolve().parent
    for attr in ("meshdir", "texturedir"):
        value = getattr(spec, attr, "") or ""
        if not os.path.isabs(value):
            setattr(spec, attr, str(base / value) + os.sep)
    opt = spec.option
    opt.solver, opt.iterations, opt.tolerance = SOLVERS[setting.solver], setting.iterations, setting.tolerance
    opt.timestep, opt.integrator, opt.cone = setting.timestep, INTEGRATORS[setting.integrator], CONES[setting.cone]
    spec.compile()
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / source.name
    out.write_text(spec.to_xml())
    return out
