"""advise on a route, planned with a stand-in route (MuJoCo C solving with PGS, with a contact capacity that drops
what does not fit, as MJWarp's): the capacities come from the counts the route reports, a reference that overflows
is rerun with more, the iteration cap is raised where a smaller one changes the physics, and the ini keys printed
are the route's."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.advise import distance, route
from pytest_physlaw.pack.routes.common import RouteRun

SLOPE = """<mujoco><option timestep="0.002"/><worldbody>
<geom type="plane" size="1 1 0.1" euler="0 -20 0" friction="0.5"/>
<body pos="0 0 0.0266" euler="0 -20 0"><freejoint/><geom type="box" size="0.025 0.025 0.025" mass="0.1" friction="0.5"/>
</body></worldbody></mujoco>"""

DEFAULT_CONTACTS = 1  # the stand-in's own capacity: less than the box's 4 corners


def pgs_route(model: mujoco.MjModel, worlds: list, setup) -> RouteRun:
    """A route that solves with PGS whatever it is asked, and has room for `nconmax` contacts a world: a step with
    more sets its overflow count (MJWarp's NARROWPHASE bit; the stand-in keeps them, the planner reads the bit)."""
    m = model
    m.opt.solver = mujoco.mjtSolver.mjSOL_PGS
    capacity = setup.nconmax if setup.nconmax is not None else DEFAULT_CONTACTS
    steps = worlds[0].ctrl.shape[0]
    n = len(worlds)
    xipos = np.zeros((n, steps + 1, m.nbody, 3))
    niter, capped = np.zeros((n, steps), int), np.zeros((n, steps), bool)
    overflow, cmax, rmax = 0, 0, 0
    for w, world in enumerate(worlds):
        d = mujoco.MjData(m)
        d.qpos[:], d.qvel[:] = world.qpos, world.qvel
        mujoco.mj_forward(m, d)
        xipos[w, 0] = d.xipos
        for i in range(steps):
            mujoco.mj_step(m, d)
            overflow += int(d.ncon > capacity)
            cmax, rmax = max(cmax, int(d.ncon)), max(rmax, int(d.nefc))
            niter[w, i] = int(d.solver_niter[0])
            capped[w, i] = niter[w, i] >= m.opt.iterations
            xipos[w, i + 1] = d.xipos
    zeros = np.zeros((n, m.nv))
    return RouteRun("fake", "cpu", {}, "float32", float(m.opt.timestep), int(m.opt.iterations), xipos[..., :0],
                    xipos[..., :0], xipos, xipos[..., :1].repeat(4, -1), zeros, np.zeros((n, m.nu)), niter, capped,
                    {"NARROWPHASE": overflow}, cmax, rmax, {"contacts": capacity, "rows": None}, 0.0, 0.0)


def _slope() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(SLOPE)


def _plan(monkeypatch=None, **kw) -> route.RouteAdvice:
    tolerance = distance.Tolerance(dict(distance.DEFAULT_BOUNDS))
    return route.advise_route(_slope(), "warp", tolerance, seconds=0.5, runner=pgs_route, **kw)


def test_route_capacities_come_from_the_counts_and_the_cap_from_bisection() -> None:
    advice = _plan()
    # the stand-in's own capacity (1 contact) overflowed at the reference: rerun with it doubled until it fit
    assert any("overflowed" in n for n in advice.notes), advice.notes
    assert advice.reference_clean and advice.reference.contacts_max == 4
    assert advice.nconmax == 6 and advice.njmax >= advice.reference.rows_max  # the peak times 1.5
    # PGS on the slope: a cap of 2 lets the box slide (the lesson); the planned cap is larger and holds
    assert advice.iterations > 2 and any(lim.startswith("no iteration cap below") for lim in advice.limits)
    final = [t for t in advice.trials if (t.iterations, t.ls_iterations) == (advice.iterations, advice.ls_iterations)
             and t.nconmax == advice.nconmax]
    assert final and final[0].within
    below = [t for t in advice.trials if t.iterations < advice.iterations and t.nconmax == advice.nconmax]
    assert below and not any(t.within for t in below)
    assert len(advice.trials) < len(route.planner.CAPS) + len(route.LS_CAPS)  # planned, not a grid
    ini = advice.ini()
    assert ini["physlaw_route_iterations"] == f"warp={advice.iterations}"
    assert ini["physlaw_route_nconmax"] == "warp=6"
    text = "\n".join(advice.lines())
    assert "physlaw_route_njmax = warp=" in text and "measured on the route" in text


def test_a_capacity_below_the_peak_is_outside_the_tolerance(monkeypatch: pytest.MonkeyPatch) -> None:
    # fault: a margin below 1 plans a capacity under what the run needs; every run with it overflows, and the plan
    # says the setting it chose is outside the tolerance rather than passing it
    monkeypatch.setattr(route, "CAPACITY_MARGIN", 0.5)
    advice = _plan()
    assert advice.nconmax == 2
    assert any("outside the tolerance" in n and "overflow" in n for n in advice.notes), advice.notes


def test_a_cap_that_changes_the_physics_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # fault: the stand-in ignores the cap asked and solves with 2 PGS iterations: no planned cap holds
    def capped_at_two(model, worlds, setup):
        model.opt.iterations = 2
        return pgs_route(model, worlds, setup)

    tolerance = distance.Tolerance(dict(distance.DEFAULT_BOUNDS))
    advice = route.advise_route(_slope(), "warp", tolerance, seconds=0.5, runner=capped_at_two)
    assert any("outside the tolerance" in n for n in advice.notes), advice.notes


def test_the_command_prints_the_route_keys_it_measured_not_cs(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import json

    from pytest_physlaw import cli

    planned = route.advise_route
    monkeypatch.setattr(route, "advise_route", lambda *a, **kw: planned(*a, **{**kw, "runner": pgs_route}))
    path = tmp_path / "slope.xml"
    path.write_text(SLOPE)
    out, written = io.StringIO(), tmp_path / "advice.json"
    args = ["advise", str(path), "--driven", "0.25", "--settled", "0.5", "--keep", "timestep", "--keep", "integrator",
            "--route", "warp", "--route-seconds", "0.5", "--json", str(written)]
    assert cli.main(args, out) == 0
    text = out.getvalue()
    assert "measured on MuJoCo C, not on the route" not in text and "physlaw_route_nconmax = warp=6" in text
    entry = json.loads(written.read_text())["models"][0]
    assert entry["route"]["ini"]["physlaw_route_nconmax"] == "warp=6"
    assert entry["recommended"]["route_ini"] == entry["route"]["ini"]
    assert cli.main([*args[:-2], "--route-seconds", "0"], io.StringIO()) == 2
