"""Laws of the model's stepping: MuJoCo raises no warning over the run, with the model's own controls or
seeded ones inside their ranges, and the timestep resolves the motion (the run at half the timestep
ends where this one does). Sources: MuJoCo's documentation ("Programming": `mjData.warning`, warning
types; "Computation": numerical integration); MuJoCo Menagerie's model test (random controls inside
ctrlrange, no warning); Richardson's convergence test (a first-order integrator's error is about the
change that halving its step makes).

Measured:
`pytest --physlaw-model=MODEL.xml -k "warning or timestep" -s`; see docs/checking-a-model.md ("The laws, and what a finding means").

No accuracy bound on the fastest mode (omega dt, or the step map's eigenvalues against exp(s dt)) is
checked, only stability, because none separates: on 58 sound models of 9 packages the linearized model's
fastest underdamped mode reaches |Im s| dt = 1.39 (MyoSuite's torso exosuit, Euler) and 0.90 (SO-101), while
a timestep raised tenfold that stays stable leaves Barkour vB at 0.58 and the Shadow hand at 0.40; Panda's and
xArm7's servos are overdamped (their slow pole K/C at s dt = 0.17 and 0.19 at ten times the step), and their
undamped sqrt(K/M) dt (3.7, 2.1) is below Tidybot's sound 8.2. A bound that caught those would fail sound
models; the stiffest rate x dt is recorded for the gate, which sees a timestep change move it.
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import measure
from pytest_physlaw.pack.contacts import start_overlap
from pytest_physlaw.pack.resolution import RESOLVED, STILL, floor_2, run_shift  # noqa: F401 (solver reads STILL, run_shift here)

SOURCE = "MuJoCo documentation (mjData.warning; numerical integration); MuJoCo Menagerie's model test"
GROWTH = 1e-6  # a linearized step may amplify a mode by this much over 1 and still be round-off


@pytest.mark.law("model-no-warnings", source=SOURCE)
def test_no_mujoco_warning(law, pack_model, settled, driven, settings, model_case) -> None:
    """Over the settled run and a run with seeded controls inside each actuator's ctrlrange, MuJoCo raises
    no warning (no contact or constraint buffer full, no bad qacc reset, no inertia or timer warning)."""
    found = dict(settled.warnings)
    if settings.controls == "seeded" and pack_model.model.nu:
        for name, count in driven.warnings.items():
            found[name] = found.get(name, 0) + count
    law.check("warnings", sum(found.values()), near=0, abs=0,
              why="MuJoCo's warnings over both runs: " + (", ".join(f"{n} x{c}" for n, c in sorted(found.items()))
                                                          or "none"))


@pytest.mark.law("model-timestep-converged", source=SOURCE)
def test_timestep_resolves_the_motion(law, pack_model, settled, timestep_convergence, model_case) -> None:
    """Run again at half the model's timestep over the same simulated time, each body keeps to where this
    run has it, at every step of this run, within a tenth of how far the bodies moved (root mean square
    over the run): the timestep resolves the motion (Richardson: a first-order integrator's error is
    about the change that halving its step makes). An impact's timing shifts by half a step either way:
    the mean over the run, not the worst step, is what the motion's resolution is judged by. Bodies that only
    settle into their contacts (moving less than the contacts' soft width) leave nothing to resolve. Its premise: a
    start without overlap (model-start-penetration); from an overlap, a failure here follows from it.
    Where it fails, the runs at dt/4 (and dt/8, where dt/4 does not shrink the shift) measure the order p at
    which the shift shrinks, and the message states the timestep at which it is within bound
    (`resolution.Convergence`), or that the motion does not converge with the step."""
    found = timestep_convergence
    if found.moved < found.still:
        pytest.skip(f"{model_case}: no body moved more than {found.still * 1e6:g} um over the run "
                    + ("(its resting contacts' soft width: it only settled into them)" if found.still > STILL else "")
                    + ": nothing to resolve")
    overlap = start_overlap(pack_model.model, settled.first)
    if overlap:
        law.follows("model-start-penetration", f"{overlap} at the start: the contact spring that pushes them apart "
                    "in the first steps is a kick no timestep resolves; start them apart and this law judges the "
                    "model's own motion")
    law.check("half_step_shift", found.share, le=RESOLVED, drift_abs=1e-9,
              why=f"the largest RMS shift of a body when the timestep is halved ({found.shifts[0] * 1000:.3g} mm), over "
                  f"the farthest any body moved ({found.moved * 1000:.3g} mm); {found.advice()}"
                  + ("" if found.resolved else "; or accept the finding (ini physlaw_model_accept)"))


@pytest.mark.law("model-timestep-stable", source=SOURCE + "; linear stability of the integrator (von Neumann)")
def test_timestep_is_stable_for_the_stiffest_mode(law, pack_model, linearized, model_case) -> None:
    """At the starting pose, one step of the model's integrator, applied to the model linearized there (its
    mass matrix with armature, and the stiffness and damping of its servos, springs and dampers, from
    MuJoCo's own forces), amplifies no mode: every eigenvalue of the step map lies inside the unit circle.
    A stiffer servo, lighter links (armature removed) or a longer timestep push the stiffest mode out,
    and the model then rings up between steps, whatever its physics. The stiffest mode's rate times the
    timestep is recorded for the gate (MuJoCo treats damping implicitly in its implicit integrators and
    joint damping in Euler, stiffness explicitly: explicit stiffness is stable to omega dt = 2)."""
    model = pack_model.model
    modes = linear_modes(model, linearized)
    if modes is None:
        pytest.skip(f"{model_case}: nothing stiff at the start pose (no servo, spring or damper acts on a joint)")
    growth, rate_dt = modes
    law.check("step_growth", growth, le=1 + GROWTH, drift_abs=1 + GROWTH,
              why=f"largest eigenvalue modulus of the linearized step ({_integrator(model)}, dt "
                  f"{model.opt.timestep:g} s); " + (f"above 1 a mode grows each step: {_stable_advice(model, linearized)}, "
                  "or add armature or damping, or soften the servo" if growth > 1 + GROWTH else "no change"))
    law.check("stiffest_rate_dt", rate_dt, ge=0, drift_abs=1e-9,
              why="the linearized model's fastest rate |s| times the timestep, recorded for the gate")


@pytest.mark.law("model-timeconst-resolved", source="MuJoCo documentation, Modeling: solver parameters (solref; "
                  "refsafe keeps a time constant at 2 timesteps at least)")
def test_constraint_time_constants_are_resolved(law, pack_model, model_case) -> None:
    """Every constraint's time constant (solref's first number, where positive) spans at least two timesteps,
    the fastest response a step resolves, or the model turns MuJoCo's refsafe off at its peril: with refsafe
    off a shorter one rings, and that fails. With refsafe on (MuJoCo's default) MuJoCo uses 2 dt instead, so
    the constraint is softer than written (leap hand's 0.1 ms contacts, Talos's 1 ms at a 1 ms step, a
    timestep raised tenfold under MuJoCo's default 0.02 s): recorded for the gate, which sees a timestep or a
    solref change move it."""
    model = pack_model.model
    families = {name: float(np.min(taus)) for name, taus in _time_constants(model).items() if taus.size}
    if not families:
        pytest.skip(f"{model_case}: no constraint with a time constant (solref)")
    floor = 2 * model.opt.timestep
    worst = min(families, key=families.get)
    ratios = np.array(list(families.values())) / floor
    where = (f"shortest {worst} ({families[worst]:g} s) over 2 x timestep ({floor:g} s), per kind of constraint")
    if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE:
        advice = ("no change" if families[worst] >= floor else
                  f'refsafe is off, so a shorter one rings: set <option timestep="{floor_2(families[worst] / 2)}"/> '
                  f"(now {model.opt.timestep:g}) or lengthen that solref to {floor:g} s or more")
        law.check("timeconst_over_2dt", ratios, ge=1.0, drift_abs=1e-9, why=f"{where}; {advice}")
    else:
        law.check("timeconst_over_2dt", ratios, ge=0, drift_abs=1e-9,
                  why=f"{where}; below 1 MuJoCo's refsafe uses 2 dt instead (softer than written), recorded for the gate")


def _time_constants(model: mujoco.MjModel) -> dict[str, np.ndarray]:
    """Positive solref time constants (a negative first number is a stiffness) of the constraints the model can
    make, by kind: contacts of geoms that can collide with another (contype/conaffinity) and explicit pairs (or
    the override), limits of limited joints and tendons, equalities, friction loss of dofs that have it."""
    can_collide = np.array([np.any(((model.geom_contype[g] & model.geom_conaffinity) |
                                    (model.geom_conaffinity[g] & model.geom_contype)) &
                                   (model.geom_bodyid != model.geom_bodyid[g])) for g in range(model.ngeom)], dtype=bool)
    kinds = {"contact (geom)": model.geom_solref[can_collide], "contact (pair)": model.pair_solref,
             "joint limit": model.jnt_solref[model.jnt_limited.astype(bool)], "equality": model.eq_solref,
             "tendon limit": model.tendon_solref_lim[model.tendon_limited.astype(bool)],
             "friction loss": model.dof_solref[model.dof_frictionloss > 0]}
    if model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_OVERRIDE:
        kinds = {"contact (override)": np.array([model.opt.o_solref]),
                 **{k: v for k, v in kinds.items() if not k.startswith("contact")}}
    return {name: np.asarray(arr).reshape(-1, 2)[:, 0][np.asarray(arr).reshape(-1, 2)[:, 0] > 0] for name, arr in kinds.items()}


def linear_modes(model: mujoco.MjModel, lin: measure.Linearized) -> tuple[float, float] | None:
    """(spectral radius of the linearized step map, max |s| dt of the continuous one), or None where no
    stiffness or damping acts (`measure.linearize`: servos, springs and dampers; gravity and contacts left
    out: gravity is slow; contacts are resolved by MuJoCo's solref)."""
    stiff, damp = lin.stiffness, lin.damping
    if not np.any(stiff) and not np.any(damp):
        return None
    stiff, damp = _psd(stiff), _psd(damp)
    h, n, mass = model.opt.timestep, model.nv, lin.mass
    continuous = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(mass, stiff), -np.linalg.solve(mass, damp)]])
    step = _step_map(model, mass, stiff, damp, continuous)
    rate = float(np.max(np.abs(np.linalg.eigvals(continuous))))
    return float(np.max(np.abs(np.linalg.eigvals(step)))), rate * h


def _stable_advice(model: mujoco.MjModel, lin: measure.Linearized) -> str:
    """The timestep at which the linearized step map amplifies no mode (`linear_modes` at a shorter step, by
    bisection on the step: the growth falls with it), as the `<option timestep>` to paste."""
    def grows(h: float) -> bool:
        m = copy.copy(model)
        m.opt.timestep = h
        found = linear_modes(m, lin)
        return found is not None and found[0] > 1 + GROWTH
    low, high = 0.0, float(model.opt.timestep)
    if grows(high / 2**20):
        return "it grows at any timestep (not the step's doing): the measurement supports no timestep"
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if not grows(mid) else (low, mid)
    return f'set <option timestep="{floor_2(low)}"/> or shorter (now {model.opt.timestep:g})'


def _step_map(model: mujoco.MjModel, mass: np.ndarray, stiff: np.ndarray, damp: np.ndarray,
              continuous: np.ndarray) -> np.ndarray:
    """One step of MuJoCo's integrator on x' = F x: RK4 as its Taylor polynomial; Euler and the implicit
    integrators as semi-implicit Euler, v+ = v + h B (-K q - C v), q+ = q + h v+, B = (M + h C_implicit)^-1,
    C_implicit = joint damping (Euler) or all of C (implicit, implicitfast)."""
    h, n, kind = model.opt.timestep, model.nv, int(model.opt.integrator)
    if kind == int(mujoco.mjtIntegrator.mjINT_RK4):
        term, step = np.eye(2 * n), np.eye(2 * n)
        for k in range(1, 5):
            term = term @ (h * continuous) / k
            step = step + term
        return step
    implicit = np.diag(model.dof_damping) if kind == int(mujoco.mjtIntegrator.mjINT_EULER) else damp
    gain = np.linalg.inv(mass + h * implicit)
    dv_dq, dv_dv = -h * gain @ stiff, np.eye(n) - h * gain @ damp
    return np.block([[np.eye(n) + h * dv_dq, h * dv_dv], [dv_dq, dv_dv]])


def _psd(matrix: np.ndarray) -> np.ndarray:
    """The symmetric part with negative eigenvalues cut to 0: a negative stiffness or damping is a physical
    instability of its own (the energy laws find it), not the step's."""
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.maximum(values, 0)) @ vectors.T


def _integrator(model: mujoco.MjModel) -> str:
    return mujoco.mjtIntegrator(int(model.opt.integrator)).name.removeprefix("mjINT_")
