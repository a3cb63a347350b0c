"""Laws of how deep contacts sink: at the end of the settled run no resting contact sinks past its allowance,
and every pair that can collide is stiff enough to carry a body resting on it. Sources: MuJoCo's documentation
("Computation": soft contacts, solver parameters: solref, solimp).

Measured:
`pytest --physlaw-model=MODEL.xml -k "contact" -s`; see docs/checking-a-model.md ("The laws, and what a finding means")."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import resolution, roundoff, runs
from pytest_physlaw.pack.contacts import (
    SINK,
    contact_bodies,
    contact_depths,
    depths_or_skip,
    extent_contacts,
    geom_name,
    start_overlaps_by_body,
    thinner_extent,
)
from pytest_physlaw.pack.ground import has_gravity


SOURCE = "statics (Newton's first law); MuJoCo documentation, Computation: soft contacts, mj_contactForce"


@pytest.mark.law("model-contact-depth", source=SOURCE)
def test_resting_contacts_sink_less_than_the_geoms(law, pack_model, settled, settled_nudged, timestep_convergence,
                                                   model_case) -> None:
    """At the end of the settled run no contact sinks deeper than the compliance it was given (its solimp
    width, over which MuJoCo's impedance rises: a rubber foot's design) or half the thinner geom's
    smallest half-extent (half its radius, for a ball or capsule), whichever is more: deeper, the geom's
    middle nears the other surface, where the contact normal and the geom's side flip. Contacts too soft for the load they
    carry (a solref time constant far above the timestep's scale) sink that deep under the robot's weight.
    Its premises: a resolved timestep and a start without overlap. Where the timestep is unresolved
    (model-timestep-converged fails, on its own measure over the halvings, shared: one verdict, not a second
    reading of the depth at dt/2 that one MuJoCo version sinks less than another), or where the
    deepest contact is a pair, or has a body, that already overlapped at the start (model-start-penetration), a failure
    here follows from that law's finding and is reported as its consequence, not as a second one."""
    model = pack_model.model
    depth, allowed, where = depths_or_skip(model, settled.final, f"{model_case}: at the end of the run")
    ratio = depth / allowed
    deepest = int(np.argmax(ratio))
    _name_a_failed_premise(law, model, settled, timestep_convergence, where[deepest],
                           contact_bodies(model, settled.final, extent_contacts(model, settled.final)[0][deepest]))
    nudged_depth, nudged_allowed, _ = contact_depths(model, settled_nudged.final)
    nudged = (float(np.max(nudged_depth / nudged_allowed)), 1000 * float(np.max(nudged_depth))) if nudged_depth.size \
        else (math.nan, math.nan)
    law.check("depth_over_allowed", ratio, le=1.0, drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, float(np.max(ratio)), nudged[0]),
              why=f"penetration over the larger of the contact's solimp width and half the thinner geom's "
                  f"smallest half-extent, deepest {where[deepest]}; if it fails, "
                  + _stiffen_measured(model, settled.final, deepest, float(depth[deepest]), float(allowed[deepest])))
    law.check("depth_mm", 1000 * float(np.max(depth)), ge=0, unit="mm", drift_abs=1e-6,
              drift=roundoff.drift(pack_model.config, 1000 * float(np.max(depth)), nudged[1]),
              why="deepest contact at rest, recorded for the gate (solref, solimp, mass and gravity move it)")


def _name_a_failed_premise(law, model: mujoco.MjModel, settled: runs.Run, convergence: resolution.Convergence, deepest: str,
                           bodies: set[int]) -> None:
    """`law.follows` the premise of a resting contact's depth that the model fails, if any (see the law): the
    pair, or a body of it, overlapped at the start; or the timestep is unresolved (model-timestep-converged's
    verdict, from the same `Convergence`)."""
    pairs, overlapping = start_overlaps_by_body(model, settled.first)
    if deepest in pairs:
        law.follows("model-start-penetration", f"{deepest} already overlapped at the start, deeper than a resting "
                    "contact may sink; separate them at the start and this contact rests as deep as its load makes it")
        return
    wedged = sorted(bodies & set(overlapping))
    if wedged:
        body = wedged[0]
        law.follows("model-start-penetration", f"{deepest}: body {model.body(body).name or body!r} started inside "
                    f"another ({overlapping[body]}), and the push that separates them can wedge it where it rests; "
                    "start it apart and this contact rests as deep as its load makes it")
        return
    if not convergence.resolved:
        law.follows("model-timestep-converged", f"halving the timestep moves the run by {convergence.share:.3g} of its "
                    f"motion (model-timestep-converged's measure): a resting depth at an unresolved step is not the "
                    f"contact's; {convergence.advice()}, then judge the contact's stiffness")


def stiffen(model: mujoco.MjModel, solref: np.ndarray, solimp: np.ndarray, load: float, allowed: float) -> str:
    """The change that makes a contact of (solref, solimp), pressed by `load` (m/s^2: gravity, for a body resting on
    one contact; see `equivalent_load`), sink no deeper than `allowed`, in the model's terms and computed by
    `resting_sink`: the longest solref time constant (or the least direct stiffness) that does, and, where that is
    under twice the timestep and MuJoCo's refsafe is on (it steps a shorter one as 2 dt), the timestep that lets
    MuJoCo use it."""
    dt = float(model.opt.timestep)
    refsafe = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE
    solref, solimp = np.asarray(solref, dtype=float), np.asarray(solimp, dtype=float)
    sink = lambda ref, floor=0.0: resting_sink(np.asarray(ref, dtype=float), solimp, load, floor)  # noqa: E731
    if solref[0] <= 0:  # direct: (-stiffness, -damping), no refsafe
        if sink(solref) <= allowed:
            return "the contact's stiffness carries the load within the allowance: no change"
        stiffness = _least(lambda k: sink([-k, solref[1]]) <= allowed, -solref[0], 1e12, grow=True)
        return (f'set that contact\'s solref stiffness to {stiffness:.3g} or more (solref="{-stiffness:.3g} '
                f'{solref[1]:g}", now {-solref[0]:g}; its geoms\' own, or a <pair>) or accept the finding')
    tc = float(solref[0])
    if sink(solref, 2 * dt if refsafe else 0.0) <= allowed:
        return "the contact's solref carries the load within the allowance: no change"
    if sink(solref) <= allowed:  # the written one holds: refsafe's 2 dt is what sinks it
        return (f"its solref time constant {tc:g} s is under twice the timestep: MuJoCo steps it as 2 x {dt:g} = "
                f"{2 * dt:g} s (refsafe), so a shorter solref changes nothing: lower <option timestep> to "
                f'<option timestep="{resolution.floor_2(tc / 2)}"/> or below (now {dt:g}), or accept the finding')
    tau = _least(lambda x: sink([x, solref[1]]) > allowed, 1e-7, tc, grow=False)
    step = (f' and <option timestep="{resolution.floor_2(tau / 2)}"/> (now {dt:g}): MuJoCo\'s refsafe steps a time '
            f"constant under 2 x the timestep as 2 x {dt:g} = {2 * dt:g} s") if refsafe and tau < 2 * dt else ""
    return (f'set that contact\'s solref time constant to {resolution.floor_2(tau)} s or shorter (solref="'
            f'{resolution.floor_2(tau)} {solref[1]:g}", now {tc:g}: its geoms\' own, mixed, or a <pair>\'s){step}, '
            "or accept the finding")


def _least(holds, low: float, high: float, grow: bool) -> float:
    """Bisection in log space: with `grow`, the least x in [low, high] (high doubled as needed) where `holds(x)`;
    else the largest x in [low, high] where `holds(x)` is false (the boundary, from below)."""
    if grow:
        while not holds(high) and high < 1e30:
            high *= 10
        if holds(low):
            return low
    for _ in range(60):
        mid = math.sqrt(low * high)
        if holds(mid):
            high = mid
        else:
            low = mid
    return high if grow else low


def equivalent_load(solref: np.ndarray, solimp: np.ndarray, depth: float, floor: float) -> float:
    """The load (m/s^2) under which a body resting on one contact of (solref, solimp) sinks `depth` (`resting_sink`
    inverted): what a measured resting depth says presses the contact, whatever shares it."""
    solref, solimp = np.asarray(solref, dtype=float), np.asarray(solimp, dtype=float)
    return _least(lambda g: resting_sink(solref, solimp, g, floor) >= depth, 1e-9, 1e3, grow=True)


@pytest.mark.law("model-contact-stiffness", source=SOURCE + "; MuJoCo documentation, Computation: solver "
                  "parameters (solref, solimp: k = d(r) / (dmax^2 tau^2 zeta^2), R = (1 - d) / d A)")
def test_contacts_are_stiff_enough_to_carry_a_body(law, pack_model, model_case) -> None:
    """A body resting on one contact sinks, in MuJoCo's soft-contact model, the depth r where the contact's
    spring meets gravity: k(r) r = (1 - d(r)) / d(r) g, whatever the body's mass (the impedance d and the
    stiffness k from the contact's solref and solimp, the time constant raised to 2 dt by refsafe). For every
    pair of geoms that can collide, that sink stays inside what model-contact-depth allows a resting contact
    (the larger of the solimp width and half the thinner geom's smallest half-extent): deeper, a geom
    resting on that contact has its middle near the other surface. A contact softer than that (a solref time
    constant of 0.2 s sinks 20 mm) cannot carry even the body's own weight, whatever touches it.

    Measured (`pytest --physlaw-model=MODEL.xml -k stiff -s`): on 58 sound models of 9 packages at most 0.45 of
    the allowance (ANYmal C's shank on the floor: 13.5 of 30 mm; MuJoCo's default contact at a 2 ms step sinks
    0.37 mm); every geom's solref raised to 0.2 s on 14 robots: 0.39 (LEAP hand, whose pairs keep their own
    0.1 ms) and 1.12 to 19.6 on the others. A free sphere or box resting in MuJoCo sinks what this says (one
    contact) or a quarter of it (four corners share the load)."""
    model = pack_model.model
    if not has_gravity(model):
        pytest.skip(f"{model_case}: the model has no gravity: no weight for a contact to carry")
    pairs = collidable_pairs(model)
    sink, allowed, where = rest_sinks(model, pairs)
    if not sink.size:
        pytest.skip(f"{model_case}: no two geoms with an extent can collide (contype/conaffinity, pairs)")
    ratio = sink / allowed
    worst = int(np.argmax(ratio))
    law.check("rest_sink_over_allowed", float(ratio[worst]), le=1.0, drift_abs=1e-9,
              why=f"the sink of a body resting on one contact under gravity over what a resting contact may sink, "
                  f"worst pair {where[worst]} ({1000 * sink[worst]:.3g} mm of {1000 * allowed[worst]:.3g} mm); if it "
                  f"fails, {_stiffen_pair(model, pairs, worst, allowed[worst])}")


def _stiffen_pair(model: mujoco.MjModel, pairs: tuple[np.ndarray, ...], pair: int, allowed: float) -> str:
    """`stiffen` for the `pair`-th pair `rest_sinks` measures of `pairs` (`collidable_pairs`), under gravity."""
    a, b, solref, solimp = pairs
    keep = np.isfinite(thinner_extent(model, a, b))
    return stiffen(model, solref[keep][pair], solimp[keep][pair], float(np.linalg.norm(model.opt.gravity)), allowed)


def _stiffen_measured(model: mujoco.MjModel, data: mujoco.MjData, deepest: int, depth: float, allowed: float) -> str:
    """`stiffen` for the `deepest` of `contact_depths`'s contacts, pressed by the load its measured depth says, or by
    gravity where that is more: a contact still sinking at the end of the run (a 5 cm ball on a 0.5 s solref, at
    3.1 of its allowance after 1 s, 4.9 at rest) reads less than its load, and a body resting on it presses g."""
    contact = int(extent_contacts(model, data)[0][deepest])
    solref, solimp = np.array(data.contact.solref[contact]), np.array(data.contact.solimp[contact])
    refsafe = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE
    load = max(equivalent_load(solref, solimp, depth, 2 * float(model.opt.timestep) if refsafe else 0.0),
               float(np.linalg.norm(model.opt.gravity)))
    return stiffen(model, solref, solimp, load, allowed)


def rest_sinks(model: mujoco.MjModel, pairs: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(sink of a body resting on one contact under gravity, what a resting contact may sink, which geoms) for
    each pair of geoms that can collide (`pairs`, by default `collidable_pairs`) with at least one of them of
    some extent."""
    a, b, solref, solimp = pairs if pairs is not None else collidable_pairs(model)
    thinner = thinner_extent(model, a, b)
    keep = np.isfinite(thinner)
    if not keep.any():
        return np.zeros(0), np.zeros(0), []
    a, b, solref, solimp, thinner = a[keep], b[keep], solref[keep], solimp[keep], thinner[keep]
    gravity = float(np.linalg.norm(model.opt.gravity))
    floor = 0.0 if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE else 2 * model.opt.timestep
    params, inverse = np.unique(np.hstack([solref, solimp]), axis=0, return_inverse=True)
    sinks = np.array([resting_sink(row[:2], row[2:], gravity, floor) for row in params])
    sink = sinks[np.asarray(inverse).reshape(-1)]
    allowed = np.maximum(solimp[:, 2], SINK * thinner)
    return sink, allowed, _names(model, a, b, int(np.argmax(sink / allowed)))


def _names(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray, worst: int) -> list[str]:
    """Pair names, filled only at `worst` (the one a message names): thousands of pairs are not named."""
    names = [""] * a.size
    names[worst] = f"{geom_name(model, int(a[worst]))} / {geom_name(model, int(b[worst]))}"
    return names


def resting_sink(solref: np.ndarray, solimp: np.ndarray, gravity: float, floor: float) -> float:
    """Depth r at which a body resting on one contact is held: MuJoCo's reference acceleration -k d(r) r meets
    what its regularizer R = (1 - d) / d A leaves of gravity, k d(r) r = (1 - d(r)) / d(r) g (mass cancels:
    A = 1 / m for a body on one contact). Standard solref (tau, zeta): k = 1 / (dmax^2 tau^2 zeta^2), tau at
    least `floor` (refsafe); direct (-stiffness, -damping): k = stiffness / dmax^2. Bisection: the left side
    grows with r, the right falls."""
    d0, dmax, width, mid, power = _clamped_solimp(solimp)
    if solref[0] > 0:
        tau = max(float(solref[0]), floor)
        k = 1.0 / (dmax**2 * tau**2 * float(solref[1]) ** 2)
    else:
        k = -float(solref[0]) / dmax**2
    if k <= 0:
        return math.inf
    low, high = 0.0, 1.0
    while k * _impedance(high, d0, dmax, width, mid, power) * high < gravity * (1 - dmax) / dmax and high < 1e6:
        high *= 2
    for _ in range(100):
        r = (low + high) / 2
        d = _impedance(r, d0, dmax, width, mid, power)
        low, high = (low, r) if k * d * r > gravity * (1 - d) / d else (r, high)
    return (low + high) / 2


def _clamped_solimp(solimp: np.ndarray) -> tuple[float, float, float, float, float]:
    """solimp as MuJoCo uses it: d0, dmax in [1e-4, 0.9999], width >= 0, midpoint in (0, 1), power >= 1."""
    d0, dmax = (min(max(float(x), 1e-4), 0.9999) for x in solimp[:2])
    return d0, dmax, max(float(solimp[2]), 0.0), min(max(float(solimp[3]), 1e-4), 1 - 1e-4), max(float(solimp[4]), 1.0)


def _impedance(r: float, d0: float, dmax: float, width: float, mid: float, power: float) -> float:
    """MuJoCo's impedance d(r) at penetration r (documentation, Computation: solimp's sigmoid)."""
    x = r / width if width > 0 else 1.0
    if x >= 1:
        return dmax
    y = x**power / mid ** (power - 1) if x <= mid else 1 - (1 - x) ** power / (1 - mid) ** (power - 1)
    return d0 + y * (dmax - d0)


def collidable_pairs(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(geoms a, geoms b, solref, solimp) of the pairs MuJoCo may collide: explicit <pair>s with their own
    parameters, and pairs whose contype/conaffinity bits meet, on bodies of different welds, not parent and
    child (unless the filter is off or one is the world) and not excluded, with MuJoCo's mix of the two geoms'
    solref and solimp (the higher geom_priority's own; else weighted by solmix; a direct solref: the smaller of
    each). The override flag replaces them all with o_solref and o_solimp."""
    contype, conaffinity = model.geom_contype, model.geom_conaffinity
    meet = ((contype[:, None] & conaffinity[None, :]) | (conaffinity[:, None] & contype[None, :])) != 0
    weld = model.body_weldid[model.geom_bodyid]
    parent = model.body_weldid[model.body_parentid[weld]]
    meet &= weld[:, None] != weld[None, :]
    if not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT:
        kin = (weld[:, None] == parent[None, :]) | (parent[:, None] == weld[None, :])
        meet &= ~(kin & (weld[:, None] != 0) & (weld[None, :] != 0))
    body = model.geom_bodyid
    for signature in model.exclude_signature:
        b1, b2 = int(signature) >> 16, int(signature) & 0xFFFF
        meet &= ~(((body[:, None] == b1) & (body[None, :] == b2)) | ((body[:, None] == b2) & (body[None, :] == b1)))
    a, b = np.nonzero(np.triu(meet, 1))
    solref, solimp = _mixed(model, a, b)
    a, b = np.concatenate([model.pair_geom1, a]).astype(int), np.concatenate([model.pair_geom2, b]).astype(int)
    solref = np.vstack([model.pair_solref.reshape(-1, 2), solref])
    solimp = np.vstack([model.pair_solimp.reshape(-1, 5), solimp])
    if model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_OVERRIDE:
        solref, solimp = np.tile(model.opt.o_solref, (a.size, 1)), np.tile(model.opt.o_solimp, (a.size, 1))
    return a, b, solref, solimp


def _mixed(model: mujoco.MjModel, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's contact parameters of geom pairs (a, b): the higher priority's own, else mixed by solmix."""
    m1, m2 = model.geom_solmix[a], model.geom_solmix[b]
    total = m1 + m2
    mix = np.where(total < 1e-15, 0.5, m1 / np.where(total < 1e-15, 1.0, total))
    p1, p2 = model.geom_priority[a], model.geom_priority[b]
    mix = np.where(p1 > p2, 1.0, np.where(p2 > p1, 0.0, mix))
    r1, r2 = model.geom_solref[a], model.geom_solref[b]
    standard = (r1[:, 0] > 0) & (r2[:, 0] > 0)
    solref = np.where(standard[:, None], mix[:, None] * r1 + (1 - mix[:, None]) * r2, np.minimum(r1, r2))
    solimp = mix[:, None] * model.geom_solimp[a] + (1 - mix[:, None]) * model.geom_solimp[b]
    return solref, solimp
