"""A route's `set_const` is MuJoCo C's `mj_setConst`: the model given a new reference pose (each hinge, slide and free
joint's `qpos0`, as the saved-edits law moves it), a quarter more mass and rotational inertia on every body and a
quarter more armature, put on the route and its constants recomputed there, has C's constants of the same edit: each
body's subtree mass, the tendons' rest lengths, the connect and weld anchors, the inverse weights of dofs, bodies and
tendons, each actuator's acceleration per unit force and the damping a position servo's dampratio resolves to. That
is how users randomize masses and start poses across a batch of worlds on the GPU (Newton 1.7.0's SolverMuJoCo calls
its `set_const_fixed` and `set_const_0` when a model's masses or inertias change). Source: MuJoCo Warp's
documentation of `set_const` (the fields a user may change, the constants it recomputes); MuJoCo's API reference
(`mj_setConst`: "set constant fields of mjModel, corresponding to qpos0 configuration").

On Newton the edit is what a user makes in Newton's own model, every body's mass and inertia tensor a quarter larger,
announced by `notify_model_changed(BODY_INERTIAL_PROPERTIES)`, which syncs them into Newton's MuJoCo model and
recomputes its constants (on the CPU backend the route runs, `mj_setConst` on that model): what is judged is Newton's
coupling, its model of the file and the sync.

The second computation: MuJoCo C's `mj_setConst` on a copy of the file's model with the same edit, in float64. MJX
has no `set_const`: skipped, naming it.

Bound: the route's precision (`RouteSetup.eps`, float32 1e-6) times `reference.ENVELOPE` (10) times 10 of each
constant's scale (its own magnitude; an array of mixed quantities, the anchors and the servos' bias, its largest) for
sums and kinematics (subtree masses, rest lengths, anchors); for what goes through the mass
matrix's factor (the inverse weights, the actuators' acceleration and the servo's damping) plus `ENVELOPE` times the
precision's machine epsilon (float32: 1.19e-7) times the condition number of C's mass matrix at the edited reference
pose, the solve's own error.

Measured: `pytest-physlaw check MODEL.xml --physlaw-route=warp -k route_set_const`; see docs/routes.md ("set_const").
"""

from __future__ import annotations

import copy
from typing import Any

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.routes import adapter_offering, reference, route_law
from pytest_physlaw.pack.routes.common import RouteRefused, RouteUnsupported
from pytest_physlaw.pack.sequences import saved_edits

SOURCE = ("MuJoCo Warp documentation (set_const: the fields a user changes, the constants it recomputes); MuJoCo API "
          "reference (mj_setConst)")
SCALE = 1.25  # the masses, moments and armature x this: a randomization a user makes
SLACK = 10.0
EDITS = ("qpos0", "qpos_spring", "body_mass", "body_inertia", "dof_armature")  # what the user changes on the route
SUMS = ("body_subtreemass", "tendon_length0", "eq_data")  # sums and kinematics at the reference pose
SOLVES = ("dof_invweight0", "body_invweight0", "tendon_invweight0", "actuator_acc0", "actuator_biasprm")
# arrays of mixed quantities (anchors, quaternions and torque scales; gains and damping), judged on each array's
# scale; the rest are each entry's own magnitude (a weight of 0.33 where C's is 0 is not hidden by a body of 3836)
MIXED = ("eq_data", "actuator_biasprm")
FLOOR = 1e-6  # of an array's largest entry: the scale of an entry that is zero on C


def edited(model: mujoco.MjModel, fields: tuple[str, ...] = EDITS) -> mujoco.MjModel:
    """A copy of `model` with those of `fields` edited (the saved-edits law's new reference pose, springs' rest
    positions with it; the masses and moments, the armature x SCALE) and `mj_setConst` called: C's constants of the
    edit."""
    out = copy.copy(model)
    if "qpos0" in fields:
        posed = saved_edits.edited(model)  # its other edits (damping, gains...) are not taken: set_const reads none
        out.qpos0[:], out.qpos_spring[:] = posed.qpos0, posed.qpos_spring
    for name in ("body_mass", "body_inertia", "dof_armature"):
        if name in fields:
            getattr(out, name)[:] *= SCALE
    mujoco.mj_setConst(out, mujoco.MjData(out))
    return out


def condition(model: mujoco.MjModel) -> float:
    """The condition number of `model`'s mass matrix at its reference pose (`mj_fullM`)."""
    if not model.nv:
        return 1.0
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return float(np.linalg.cond(mujoco_versions.full_mass(model, data)))


def apart(c: mujoco.MjModel, route: dict[str, np.ndarray], eps: float, unit: float,
          cond: float) -> tuple[float, str, list[str]]:
    """(the largest difference of a constant between C's and the route's over its bound, which and where; the
    constants compared). `eps`: the route's precision; `unit`: its machine epsilon, which a solve carries `cond`
    fold."""
    worst, where, compared = 0.0, "none", []
    for name in (*SUMS, *SOLVES):
        if name not in route or not hasattr(c, name):
            continue
        first = np.asarray(getattr(c, name), dtype=float).reshape(-1)
        second = np.asarray(route[name], dtype=float).reshape(-1)
        if first.size != second.size:
            return float("inf"), f"{name}: {second.size} values against C's {first.size}", compared + [name]
        compared.append(name)
        if not first.size:
            continue
        largest = max(float(np.max(np.abs(first))), 1e-300)
        scale = np.full(first.shape, largest) if name in MIXED else np.maximum(np.abs(first), FLOOR * largest)
        bound = reference.ENVELOPE * scale * (SLACK * eps + (unit * cond if name in SOLVES else 0.0))
        shares = np.abs(first - second) / bound
        shares[~np.isfinite(second)] = np.inf
        i = int(np.argmax(shares))
        if shares[i] > worst:
            worst, where = float(shares[i]), f"{name}[{i}]: C {first[i]:.6g}, the route {second[i]:.6g}"
    return worst, where, compared


def _largest_change(model: mujoco.MjModel, c: mujoco.MjModel, name: str) -> float:
    """How far the edit moved C's constant `name` (so that a route keeping its constants is seen to be wrong)."""
    before, after = np.asarray(getattr(model, name), dtype=float), np.asarray(getattr(c, name), dtype=float)
    return float(np.max(np.abs(after - before), initial=0.0))


@route_law("model-route-set-const", source=SOURCE)
def test_route_set_const_is_c_set_const(law, pack_model: Any, route_case) -> None:
    """The model with a new reference pose and a quarter more mass, inertia and armature, put on the route and its
    constants recomputed by the route's `set_const`, has MuJoCo C's `mj_setConst` constants of the same edit, to 100
    times the route's precision of each constant's scale (and, through the mass matrix's factor, 10 machine epsilons
    times its condition number)."""
    module = adapter_offering(route_case, "set_const", "has no set_const (MJX recomputes no constant)")
    model = pack_model.model
    fields = tuple(getattr(module, "SET_CONST_EDITS", EDITS))  # what a user edits on that route
    c = edited(model, fields)
    extra = {"source": pack_model.path} if getattr(module, "NEEDS_SOURCE", False) else {}  # Newton imports the file
    try:
        route = module.set_const(model, c, fields, (*SUMS, *SOLVES), route_case.setup, **extra)
    except (RouteUnsupported, RouteRefused) as e:
        pytest.skip(f"{route_case.route}: {e}")
    except NotImplementedError as e:  # a feature the route's set_const leaves to later releases: named, not judged
        pytest.skip(f"{route_case.route} {module.versions()}: its set_const does not handle this model: {e}"[:400])
    # a constant of another size is of an element the route's model adds (Newton 1.8 adds an equality to every
    # model): left out and named, the rest compared
    other = {name: f"{name} ({np.size(route[name])} values against C's {np.size(getattr(c, name))})" for name in route
             if hasattr(c, name) and np.size(route[name]) != np.size(getattr(c, name))}
    route = {name: values for name, values in route.items() if name not in other}
    if not route:
        pytest.skip(f"{route_case.route} {module.versions()}: its model of the file has other sizes: "
                    f"{'; '.join(other.values())}")
    cond, unit = condition(c), float(np.finfo(route_case.setup.precision).eps)
    worst, where, compared = apart(c, route, route_case.setup.eps, unit, cond)
    moved = max((_largest_change(model, c, name) for name in compared), default=0.0)
    law.check("set_const_apart_over_precision", worst, le=1.0, drift_abs=1.0,
              why=f"the largest difference of a constant between the route's set_const and C's mj_setConst of the same "
                  f"edit, over {reference.ENVELOPE * SLACK:g} x the route's precision ({route_case.setup.eps:g}) of "
                  f"its scale (through the mass matrix's factor, plus {reference.ENVELOPE:g} x {unit:.3g} x its "
                  f"condition number {cond:.3g}); compared: "
                  f"{', '.join(compared) or 'none'} (the edit moved C's by up to {moved:.3g})"
                  + (f"; left out, of another size on the route: {'; '.join(other.values())}" if other else "")
                  + f"; worst: {where}; "
                  "failing, the route keeps or computes otherwise a constant of the edited model (MuJoCo Warp 3.14.0 "
                  "and 4.0.0 weigh a body that only slides, or turns about its centre of mass, by another rule than "
                  "C's; Newton 1.7.0 turns an isotropic body's inertial frame, so that C's rule for a body that only "
                  "slides no longer holds in Newton's model): the route's contacts and equality constraints then "
                  "soften otherwise than C's")
