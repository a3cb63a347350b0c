"""A pytest plugin that changes the physics of every model the suite compiles, to show that the
baseline gate sees a changed physics (and which law sees it first).

    PHYSLAW_FAULT=gravity=0.95 python -m pytest -p tests.physics_faults -m law \
        --law-baseline laws/baseline.json -o cache_dir=$(mktemp -d)

Faults, one factor each: gravity (opt.gravity), timestep (opt.timestep), friction (every friction
coefficient of geoms and contact pairs), mass (every body's mass and inertia; MuJoCo's derived
constants recomputed with mj_setConst), solref (the time constant of every contact solref: geoms,
pairs and opt.o_solref), damping (every dof's damping), armature (every dof's armature; constants
recomputed), gains (every actuator's gain, and the matching position feedback -kp of an affine bias);
one amount: margin (every geom's margin raised by this many metres, its gap kept: contacts push from that
far off, and resting bodies float).
Every MjModel that `MjModel.from_xml_string`, `from_xml_path` or
`MjSpec.compile` returns is changed. Give a fresh cache_dir: settled states are cached by their XML,
which a fault does not change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

ENV = "PHYSLAW_FAULT"


def faults() -> dict[str, Callable[[Any, float], None]]:
    import mujoco

    def mass(model: Any, by: float) -> None:
        model.body_mass[:] *= by
        model.body_inertia[:] *= by
        mujoco.mj_setConst(model, mujoco.MjData(model))

    def solref(model: Any, by: float) -> None:
        for array in (model.geom_solref, model.pair_solref):
            positive = array[:, 0] > 0  # a negative first entry is a stiffness, not a time constant
            array[positive, 0] *= by
        if model.opt.o_solref[0] > 0:
            model.opt.o_solref[0] *= by

    def armature(model: Any, by: float) -> None:
        model.dof_armature[:] *= by
        mujoco.mj_setConst(model, mujoco.MjData(model))

    def gains(model: Any, by: float) -> None:
        model.actuator_gainprm[:, 0] *= by
        model.actuator_biasprm[:, 1] *= by  # a position servo's -kp: its gain and feedback move together

    return {
        "gravity": lambda m, by: m.opt.gravity.__imul__(by),
        "timestep": lambda m, by: setattr(m.opt, "timestep", m.opt.timestep * by),
        "friction": lambda m, by: (m.geom_friction.__imul__(by), m.pair_friction.__imul__(by)),
        "mass": mass,
        "solref": solref,
        "damping": lambda m, by: m.dof_damping.__imul__(by),
        "armature": armature,
        "gains": gains,
        "margin": lambda m, by: m.geom_margin.__iadd__(by),  # metres added, not a factor: most margins are 0
    }


def parse(text: str) -> tuple[str, float]:
    name, _, factor = text.partition("=")
    known = faults()
    if name not in known:
        raise pytest.UsageError(f"{ENV}={text!r}: the fault must be one of {', '.join(known)}, as name=factor")
    try:
        return name, float(factor)
    except ValueError:
        raise pytest.UsageError(f"{ENV}={text!r}: {factor!r} is not a number") from None


def pytest_configure(config: pytest.Config) -> None:
    text = os.environ.get(ENV, "").strip()
    if not text:
        raise pytest.UsageError(f"-p tests.physics_faults needs {ENV}=name=factor (e.g. gravity=0.95)")
    name, by = parse(text)
    apply = faults()[name]
    import mujoco

    def changed(make: Callable[..., Any]) -> Callable[..., Any]:
        def build(*args: Any, **kwargs: Any) -> Any:
            model = make(*args, **kwargs)
            apply(model, by)
            return model
        return build

    mujoco.MjModel.from_xml_string = staticmethod(changed(mujoco.MjModel.from_xml_string))
    mujoco.MjModel.from_xml_path = staticmethod(changed(mujoco.MjModel.from_xml_path))
    mujoco.MjSpec.compile = changed(mujoco.MjSpec.compile)
    config.stash[_FAULT] = f"{name} x{by:g}"


_FAULT = pytest.StashKey[str]()


def pytest_report_header(config: pytest.Config) -> str:
    return f"physics fault injected into every compiled model: {config.stash.get(_FAULT, '?')}"
