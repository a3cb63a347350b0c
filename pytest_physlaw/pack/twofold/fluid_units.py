"""Fluid forces are the same physics in any units, and each body's own: the wrench MuJoCo's fluid model (the
inertia-box model, or the ellipsoid model of the body's fluid geoms) puts on a body is what the same body alone on a
free joint, at the same pose and velocity, receives; and written in units where it measures about a metre and a
kilogram (every length, mass, density, viscosity and wind rescaled by powers of two, so that every input is exact),
the same body receives the same wrench, rescaled. Both models are built of dimensionally consistent terms (drag,
viscous resistance, Magnus and Kutta lift, added mass), so a clamp of a dimensional quantity at a fixed small number
makes a body's fluid force depend on the units it is written in: MuJoCo before 3.14.0 clamped |v| times a size^8
quantity of the ellipsoid model at mjMINVAL, and centimetre bodies (a leaf, a playing card, a thin plate) lost up to
most of their Kutta lift, while every run stayed consistent with itself. Source: MuJoCo's documentation
(Computation, fluid forces: the inertia-box and ellipsoid models and their terms); dimensional analysis (a force
scales as mass x length / time^2).

The measurement: for each body MuJoCo applies fluid forces to (mass of at least mjMINVAL), two one-body models
compiled from its geoms' fluid coefficients and semi-axes, or its mass and inertia, with the model's density,
viscosity, wind and disable flags: as written, and in the body's natural units (length and mass scaled by the powers
of two nearest its size and mass). At each state of `twofold_states` (three above 200 dofs), each body alone is set
to the body's pose and velocity (`mj_objectVelocity`) and forwarded; its fluid wrench (`qfrc_fluid` of its free
joint) is compared
- in natural units: the as-written wrench rescaled against the natural-units one;
- summed through each body's Jacobian (`mj_jac` at its frame): against the model's own `qfrc_fluid`.

Bound: 1e-9 of the larger (each body's wrench in its natural units, at least 1e-6 of its unit force; the sum's
largest entry of sum |J^T w|): a power-of-two change of units is exact on every input, so the computations differ by
the round-off of the same sums (measured: at most 2.4e-14 on the zoo's 32 fluid models). Left out, naming why: a model
with no density or viscosity.

Measured figures and commands: docs/second-computations.md ("Fluid forces in any units").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold.states import for_solves

SOURCE = ("MuJoCo documentation, Computation (fluid forces: the inertia-box and ellipsoid models); dimensional "
          "analysis (force = mass x length / time^2), units changed by powers of two")
RTOL = 1e-9  # of the larger wrench: 4e4 x the round-off measured on the zoo's fluid models (2.4e-14)
FLOOR = 1e-6  # of the body's unit force (natural units: its mass x 1 m/s^2, about): a wrench below is no force
SPHERE, CAPSULE, CYLINDER = (int(mujoco.mjtGeom.mjGEOM_SPHERE), int(mujoco.mjtGeom.mjGEOM_CAPSULE),
                             int(mujoco.mjtGeom.mjGEOM_CYLINDER))


def has_fluid(model: mujoco.MjModel) -> bool:
    """Whether MuJoCo computes fluid forces for the model at all (a density or a viscosity)."""
    return bool(model.opt.density or model.opt.viscosity)


def fluid_geoms(model: mujoco.MjModel, body: int) -> list[int]:
    """The body's geoms of the ellipsoid model (fluidshape="ellipsoid"); none: the body takes the inertia-box
    model."""
    return [g for g in range(int(model.body_geomadr[body]), int(model.body_geomadr[body] + model.body_geomnum[body]))
            if float(model.geom_fluid[g, 0]) > 0]


def fluid_bodies(model: mujoco.MjModel) -> list[int]:
    """The bodies MuJoCo puts fluid forces on: not the world, mass at least mjMINVAL."""
    return [b for b in range(1, model.nbody) if float(model.body_mass[b]) >= mujoco.mjMINVAL]


def semi_axes(model: mujoco.MjModel, geom: int) -> np.ndarray:
    """A geom's three semi-axes as the ellipsoid fluid model reads them from its size."""
    s, kind = np.asarray(model.geom_size[geom], float), int(model.geom_type[geom])
    if kind == SPHERE:
        return np.full(3, s[0])
    if kind in (CAPSULE, CYLINDER):
        return np.array([s[0], s[0], s[1] + (s[0] if kind == CAPSULE else 0.0)])
    return s.copy()


def natural_units(model: mujoco.MjModel, body: int) -> tuple[float, float]:
    """(L, M): the powers of two that bring the body's size (its largest fluid semi-axis, or its radius of
    gyration) and its mass to about 1."""
    geoms, mass = fluid_geoms(model, body), float(model.body_mass[body])
    size = (max(float(np.max(semi_axes(model, g))) for g in geoms) if geoms
            else math.sqrt(float(np.sum(model.body_inertia[body])) / mass))
    return _power_of_two(1.0 / size), _power_of_two(1.0 / mass)


def _power_of_two(x: float) -> float:
    return 2.0 ** round(math.log2(x)) if x > 0 and math.isfinite(x) else 1.0


def _numbers(values) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def alone_xml(model: mujoco.MjModel, body: int, length: float, mass: float) -> str:
    """MJCF of the body alone on a free joint, every length times `length` and mass times `mass`: its fluid geoms
    (as ellipsoids, cylinders, capsules or spheres of the same semi-axes), or its inertia; the model's density,
    viscosity and wind in the same units; no gravity, no contact."""
    opt, geoms = model.opt, fluid_geoms(model, body)
    if geoms:  # the ellipsoid model reads the geoms alone: any positive inertia compiles
        inertial = '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
    else:
        inertial = (f'<inertial pos="{_numbers(model.body_ipos[body] * length)}" '
                    f'quat="{_numbers(model.body_iquat[body])}" mass="{float(model.body_mass[body]) * mass!r}" '
                    f'diaginertia="{_numbers(model.body_inertia[body] * mass * length ** 2)}"/>')
    shapes = []
    for g in geoms:
        kind = int(model.geom_type[g])
        name, size = {SPHERE: ("sphere", 1), CAPSULE: ("capsule", 2), CYLINDER: ("cylinder", 2)}.get(
            kind, ("ellipsoid", 3))
        shapes.append(f'<geom type="{name}" size="{_numbers(model.geom_size[g][:size] * length)}" '
                      f'pos="{_numbers(model.geom_pos[g] * length)}" quat="{_numbers(model.geom_quat[g])}" '
                      f'contype="0" conaffinity="0" mass="0" fluidshape="ellipsoid" '
                      f'fluidcoef="{_numbers(model.geom_fluid[g, 1:6])}"/>')
    return (f'<mujoco><option density="{float(opt.density) * mass / length ** 3!r}" '
            f'viscosity="{float(opt.viscosity) * mass / length!r}" wind="{_numbers(np.asarray(opt.wind) * length)}" '
            f'gravity="0 0 0"/><worldbody><body><freejoint/>{inertial}{"".join(shapes)}</body></worldbody>'
            f'</mujoco>')


@dataclass(frozen=True)
class Alone:
    """One body of a model alone on a free joint, in units `length` and `mass` times the model's."""

    body: int
    length: float
    mass: float
    model: mujoco.MjModel
    data: mujoco.MjData

    @classmethod
    def of(cls, model: mujoco.MjModel, body: int, length: float = 1.0, mass: float = 1.0) -> "Alone":
        alone = mujoco.MjModel.from_xml_string(alone_xml(model, body, length, mass))
        alone.opt.disableflags = model.opt.disableflags  # what the model leaves out (3.x: passive forces)
        return cls(body, length, mass, alone, mujoco.MjData(alone))

    def wrench(self, model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
        """(force, torque about the body's frame), world axes, in the model's units, at the body's pose and velocity
        in `data`."""
        b, d = self.body, self.data
        rot = np.asarray(data.xmat[b], float).reshape(3, 3)
        velocity = np.zeros(6)  # [angular; linear] of the body's frame, its own axes
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_XBODY, b, velocity, 1)
        d.qpos[:3], d.qpos[3:7] = np.asarray(data.xpos[b]) * self.length, data.xquat[b]
        d.qvel[:3], d.qvel[3:] = rot @ velocity[3:] * self.length, velocity[:3]
        mujoco.mj_forward(self.model, d)
        fluid = mujoco_versions.fluid_force(self.model, d)  # the free joint: world-axis force, body-axis torque
        force, torque = fluid[:3], rot @ fluid[3:6]
        return np.concatenate([force, torque]) / self.unit()

    def unit(self) -> np.ndarray:
        """This model's unit of force (three entries) and of torque (three), in the model's units."""
        return np.repeat([self.mass * self.length, self.mass * self.length ** 2], 3)


@dataclass(frozen=True)
class Pair:
    """A body alone as written and in its natural units."""

    written: Alone
    natural: Alone


def pairs(model: mujoco.MjModel) -> list[Pair]:
    """Each fluid body's pair of one-body models (a moving body's geoms have positive sizes, planes are static:
    every one compiles)."""
    return [Pair(Alone.of(model, b), Alone.of(model, b, *natural_units(model, b))) for b in fluid_bodies(model)]


def mismatch(model: mujoco.MjModel, data: mujoco.MjData, built: list[Pair]) -> tuple[float, int, float]:
    """At one state: (the largest wrench difference, natural units against as written, over its bound; which body;
    the model's qfrc_fluid against the sum of the bodies' wrenches through their Jacobians, over its bound)."""
    worst, at = 0.0, -1
    summed, size = np.zeros(model.nv), np.zeros(model.nv)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for pair in built:
        written = pair.written.wrench(model, data)
        unit = pair.natural.unit()  # both compared in the body's natural units, where its wrench is about 1
        first, second = written * unit, pair.natural.wrench(model, data) * unit
        larger = max(float(np.max(np.abs(first))), float(np.max(np.abs(second))), FLOOR)
        share = float(np.max(np.abs(first - second))) / (RTOL * larger)
        if share > worst:
            worst, at = share, pair.written.body
        mujoco.mj_jac(model, data, jacp, jacr, data.xpos[pair.written.body], pair.written.body)
        term = jacp.T @ written[:3] + jacr.T @ written[3:]
        summed += term
        size += np.abs(term)
    reported = mujoco_versions.fluid_force(model, data)
    scale = RTOL * max(float(np.max(size, initial=0.0)), float(np.max(np.abs(reported), initial=0.0)))
    gap = float(np.max(np.abs(reported - summed), initial=0.0))
    return worst, at, (gap / scale if scale > 0 else (math.inf if gap > 0 else 0.0))


@pytest.mark.law("model-fluid-force-in-any-units", source=SOURCE)
def test_fluid_forces_are_each_bodys_in_any_units(law, pack_model, twofold_states, model_case) -> None:
    """At each state, each body's fluid wrench is that of the body alone, and the same in units where the body
    measures about a metre and a kilogram, to 1e-9 of the larger; the model's qfrc_fluid is their sum through the
    bodies' Jacobians."""
    model = pack_model.model
    if not has_fluid(model):
        pytest.skip(f"{model_case}: no fluid (density and viscosity 0)")
    built = pairs(model)
    if not built:
        pytest.skip(f"{model_case}: no body takes fluid forces (none of mass mjMINVAL or more)")
    units, body, total, t_units, t_total = 0.0, -1, 0.0, 0.0, 0.0
    states = for_solves(model, twofold_states)
    for state in states:
        share, at, summed = mismatch(model, state, built)
        if share > units:
            units, body, t_units = share, at, float(state.time)
        if summed > total:
            total, t_total = summed, float(state.time)
    name = (model.body(body).name or str(body)) if body >= 0 else "-"
    unit_of = {p.written.body: (p.natural.length, p.natural.mass) for p in built}.get(body, (1.0, 1.0))
    law.check("fluid_units_apart_over_round_off", units, le=1.0, drift_abs=1.0,
              why=f"largest |a body's fluid wrench as written, rescaled - the same body's in units where it measures "
                  f"about a metre and a kilogram| over 1e-9 of the larger, {len(built)} bodies x {len(states)} "
                  f"states; worst {name!r} (units x{unit_of[0]:g} in length, x{unit_of[1]:g} in mass) at "
                  f"t = {t_units:.3f} s, {units * RTOL:.3g} of its wrench off; failing, MuJoCo "
                  f"{mujoco.__version__}'s fluid model depends on the units the model is written in: a dimensional quantity is clamped or cut off "
                  "(before 3.14.0 the ellipsoid model clamped |v| x a size^8 quantity at mjMINVAL, and centimetre "
                  "bodies lost most of their Kutta lift), so this body's drag and lift are off (an engine defect: "
                  "name it in a MuJoCo issue, or change MuJoCo version)")
    law.check("fluid_sum_apart_over_round_off", total, le=1.0, drift_abs=1.0,
              why=f"largest |qfrc_fluid - the sum of each body's fluid wrench alone, through its Jacobian| over 1e-9 "
                  f"of the larger sum of |terms|, worst at t = {t_total:.3f} s; failing, MuJoCo "
                  f"{mujoco.__version__} applies a body's fluid force otherwise than the body alone receives it (at "
                  "another point or velocity, or another body's): every body in fluid moves off (an engine defect: "
                  "name it in a MuJoCo issue, or change MuJoCo version)")
