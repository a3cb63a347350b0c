"""`pytest-physlaw advise`: the planner stops at a measured reference, raises a cap that changes the physics,
shrinks a step that does, names bad input, writes its JSON, and exits as documented."""

from __future__ import annotations

import io
import json
from pathlib import Path

import mujoco
import pytest

from pytest_physlaw import cli
from pytest_physlaw.advise import distance, planner, report
from pytest_physlaw.advise.advice import advise
from pytest_physlaw.advise.observe import Horizon
from pytest_physlaw.advise.setting import Setting

SHORT = Horizon(driven=0.25, settled=0.5)

PENDULUM = """<mujoco><option timestep="{dt}" integrator="{integrator}"/><worldbody>
<body pos="0 0 1"><joint name="a" type="hinge" axis="0 1 0" damping="0.01"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
<body pos="0.3 0 0"><joint name="b" type="hinge" axis="0 1 0" damping="0.01"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></body></worldbody>
<actuator><motor joint="a" ctrlrange="-2 2"/></actuator></mujoco>"""

SLOPE = """<mujoco><option solver="{solver}" iterations="{iterations}"/><worldbody>
<geom type="plane" size="1 1 0.1" euler="0 -20 0" friction="0.5"/>
<body pos="0 0 0.0266" euler="0 -20 0"><freejoint/><geom type="box" size="0.025 0.025 0.025" mass="0.1" friction="0.5"/>
</body></worldbody></mujoco>"""


def _write(tmp_path: Path, name: str, xml: str) -> Path:
    path = tmp_path / name
    path.write_text(xml)
    return path


def test_the_planner_stops_where_halving_moves_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, "pendulum.xml", PENDULUM.format(dt=0.002, integrator="RK4"))
    advice = advise(path, horizon=SHORT)
    plan = advice.plan
    assert plan.reference_reached
    settled = {q: b * planner.SETTLED_SHARE for q, b in advice.tolerance.bounds.items()}
    assert all(plan.reference_move[q] <= settled[q] for q in settled)
    # reached within the first halvings: the halving ladder was not walked to its end
    assert plan.reference.setting.timestep >= 0.002 / 2 ** 2
    assert plan.reference.setting.solver == "Newton" and plan.reference.setting.tolerance == planner.REFERENCE_TOLERANCE


def test_a_reference_not_reached_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planner, "MAX_HALVINGS", 1)
    path = _write(tmp_path, "pendulum.xml", PENDULUM.format(dt=0.02, integrator="Euler"))
    tight = distance.Tolerance({**distance.DEFAULT_BOUNDS, "trajectory_mm": 1e-6})
    advice = advise(path, tolerance=tight, horizon=SHORT)
    assert not advice.plan.reference_reached
    assert "NOT reached" in report.text(advice)


def test_a_cap_of_two_that_lets_a_box_slide_is_raised(tmp_path: Path) -> None:
    path = _write(tmp_path, "slope.xml", SLOPE.format(solver="PGS", iterations=2))
    advice = advise(path, horizon=SHORT, keep=frozenset({"timestep", "integrator"}))
    assert not advice.own_within
    assert advice.plan.own.errors["creep_mm"] > advice.tolerance.bounds["creep_mm"]
    rec = advice.recommended.setting
    assert rec.solver != "PGS" or rec.iterations > 5
    pgs = advice.plan.smallest_caps.get("PGS")
    assert pgs is None or pgs.setting.iterations > 2
    assert any(limit.what.startswith("PGS") for limit in advice.plan.limits)
    assert distance.within(advice.recommended.errors, advice.tolerance)


def test_a_step_too_large_for_the_motion_gets_a_smaller_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "pendulum.xml", PENDULUM.format(dt=0.04, integrator="Euler"))
    advice = advise(path, horizon=SHORT)
    assert not advice.own_within
    assert advice.recommended.setting.timestep < 0.04
    assert distance.within(advice.recommended.errors, advice.tolerance)


def test_a_setting_round_trips_through_the_model_it_writes(tmp_path: Path) -> None:
    from pytest_physlaw.advise.setting import write_model

    path = _write(tmp_path, "slope.xml", SLOPE.format(solver="PGS", iterations=2))
    want = Setting("CG", 7, 1e-6, 0.004, "implicitfast", "elliptic")
    written = write_model(path, want, tmp_path / "out")
    assert Setting.of(mujoco.MjModel.from_xml_path(str(written))) == want
    assert 'solver="CG"' in want.option_line() and 'iterations="7"' in want.option_line()


@pytest.mark.parametrize("args,names", [
    (["nowhere.xml"], "nowhere.xml: no such model file"),
    (["{bad}"], "cannot compile it"),
    (["{good}", "--tol", "creep=1"], "tolerance 'creep=1'"),
    (["{good}", "--tol", "creep_mm=-1"], "must be a finite number > 0"),
    (["{good}", "--driven", "0"], "--driven 0"),
    (["{good}", "--plot", "x.txt"], "--plot x.txt"),
])
def test_bad_input_exits_2_naming_the_thing_at_fault(tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str],
                                                     names: str) -> None:
    good = _write(tmp_path, "good.xml", PENDULUM.format(dt=0.01, integrator="Euler"))
    bad = _write(tmp_path, "bad.xml", "<mujoco><worldbody><geom type='nosuch'/></worldbody></mujoco>")
    argv = ["advise", *(a.format(good=good, bad=bad) for a in args)]
    assert cli.main(argv, io.StringIO()) == 2
    assert names in capsys.readouterr().err


def test_a_setting_out_of_range_is_named() -> None:
    with pytest.raises(ValueError, match="setting solver='SOR'"):
        Setting("SOR", 10, 1e-8, 0.002, "Euler", "pyramidal")
    with pytest.raises(ValueError, match="keep dt"):
        planner.Planner(mujoco.MjModel.from_xml_string(PENDULUM.format(dt=0.01, integrator="Euler")),
                        distance.Tolerance(dict(distance.DEFAULT_BOUNDS)), SHORT, keep=frozenset({"dt"}))


def test_the_json_and_the_exit_status(tmp_path: Path) -> None:
    slid = _write(tmp_path, "slope.xml", SLOPE.format(solver="PGS", iterations=2))
    out, written = io.StringIO(), tmp_path / "advice.json"
    common = ["--driven", "0.25", "--settled", "0.5", "--keep", "timestep", "--keep", "integrator"]
    assert cli.main(["advise", str(slid), *common, "--json", str(written)], out) == 0
    data = json.loads(written.read_text())
    assert data["schema_version"] == report.SCHEMA_VERSION
    entry = data["models"][0]
    for key in ("model", "mujoco", "tolerance", "own", "own_within", "reference", "recommended", "cannot", "front",
                "cone", "smallest_caps", "kept"):
        assert key in entry
    assert entry["own_within"] is False
    assert entry["recommended"]["option"].startswith("<option ") and entry["recommended"]["within"] is True
    assert set(entry["own"]["errors"]) == set(distance.DEFAULT_BOUNDS)
    assert entry["front"] and all("cost_ratio" in p for p in entry["front"])
    assert "CHANGES THE PHYSICS" in out.getvalue()
    assert cli.main(["advise", str(slid), *common, "--fail-own"], io.StringIO()) == 1


def test_the_pytest_option_fails_a_model_whose_settings_change_the_physics(pytester: pytest.Pytester) -> None:
    pytester.makefile(".xml", slope=SLOPE.format(solver="PGS", iterations=2),
                      pendulum=PENDULUM.format(dt=0.002, integrator="RK4"))
    result = pytester.runpytest_subprocess("--physlaw-model=slope.xml", "--physlaw-model=pendulum.xml",
                                           "--physlaw-models-only", "--physlaw-advise=advice.json", "-k", "advise",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*slope.xml*advise*", "*CHANGES THE PHYSICS*"])
    data = json.loads((pytester.path / "advice.json").read_text())
    assert sorted(Path(m["model"]).name for m in data["models"]) == ["pendulum.xml", "slope.xml"]


def test_an_unstable_setting_is_diverged_and_infinitely_far() -> None:
    """MuJoCo resets an unstable state to time 0 and steps on: advise stops there (no endless period)."""
    from pytest_physlaw.advise.observe import movable_bodies, observe

    xml = """<mujoco><option timestep="0.01" integrator="Euler"/><worldbody><body>
    <joint type="hinge" stiffness="1e7" springref="0.5"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"
    mass="1"/></body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    stable = Setting.of(model).but(timestep=1e-4)
    bodies = movable_bodies(model)
    reference, _ = observe(model, stable, SHORT, bodies)
    unstable, _ = observe(model, Setting.of(model), SHORT, bodies)
    assert reference.diverged == "" and "unstable" in unstable.diverged
    assert all(v == float("inf") for v in distance.distances(reference, unstable, 1.0).values())


def test_verify_moves_on_to_the_next_candidate_when_one_loses_a_law(tmp_path: Path) -> None:
    """The check-up on the reference's copy, then on each candidate's: a PGS-2 copy of the slope loses laws the
    converged copy passes (measured: 24 pass; PGS 2 loses test_solves_stop_below_the_iteration_cap and
    test_timestep_resolves_the_motion) and is passed over for the next candidate, which keeps them all."""
    from pytest_physlaw.advise.verify import verify

    path = _write(tmp_path, "slope.xml", SLOPE.format(solver="Newton", iterations=100))
    own = Setting.of(mujoco.MjModel.from_xml_path(str(path)))
    verdict, index = verify(path, own, [own.but(solver="PGS", iterations=2), own.but(iterations=50)])
    assert index == 1 and not verdict.lost and verdict.reference_passed
    assert len(verdict.tried) == 1 and "PGS 2 it." in verdict.tried[0] and "iteration_cap" in verdict.tried[0]


def test_the_reference_is_kept_per_model_bytes_and_tolerance(tmp_path: Path) -> None:
    slid = _write(tmp_path, "slope.xml", SLOPE.format(solver="PGS", iterations=2))
    cache = tmp_path / "cache"
    common = ["--driven", "0.25", "--settled", "0.5", "--keep", "timestep", "--keep", "integrator", "--cache", str(cache)]
    runs = []
    for extra in ([], [], ["--tol", "creep_mm=0.5"]):
        out, written = io.StringIO(), tmp_path / "advice.json"
        assert cli.main(["advise", str(slid), *common, *extra, "--json", str(written)], out) == 0
        runs.append(json.loads(written.read_text())["models"][0])
    cold, warm, other_tol = runs
    assert not any("from the cache" in n for n in cold["notes"])
    assert any("from the cache" in n for n in warm["notes"])  # the same bytes, MuJoCo and tolerance: kept
    assert warm["reference"]["setting"] == cold["reference"]["setting"]
    assert warm["own"]["errors"] == cold["own"]["errors"]  # measured against the same reference (the
    # recommendation itself is picked by timed cost, which the machine's load moves)
    assert not any("from the cache" in n for n in other_tol["notes"])  # another tolerance: measured again
    assert len(list(cache.glob("reference-*.pkl"))) == 2
    # another model (one byte of friction changed): measured again
    _write(tmp_path, "slope.xml", SLOPE.format(solver="PGS", iterations=2).replace('friction="0.5"/>\n<body',
                                                                                    'friction="0.6"/>\n<body'))
    out = io.StringIO()
    assert cli.main(["advise", str(slid), *common, "--json", str(tmp_path / "b.json")], out) == 0
    assert len(list(cache.glob("reference-*.pkl"))) == 3
