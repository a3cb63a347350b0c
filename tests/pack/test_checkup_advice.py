"""The check-up's advice is computed: a message that advises a change states the value the measurement
supports (the timestep from the convergence order measured over the halvings), or no change; and three
premises seen on models no one here wrote: gravity compensation through the actuators in the passive run,
every keyframe judged for overlaps, and 'follows' decided on the timestep law's own measure."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest


def _run(pytester: pytest.Pytester, *models: str, extra: tuple[str, ...] = ()) -> tuple[pytest.RunResult, dict]:
    args = [f"--physlaw-model={m}" for m in models]
    result = pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider", "-rsx", *extra)
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    return result, {r["nodeid"]: r for r in report["laws"]}


def _law(laws: dict, model: str, law_id: str) -> dict:
    (record,) = [r for n, r in laws.items() if n.startswith(f"{model}::") and r["law"] == law_id]
    return record


SPRING_ARM = """<mujoco><option timestep="{dt}" gravity="0 0 0"/><worldbody><body pos="0 0 1">
    <joint type="hinge" axis="0 1 0" stiffness="200" springref="1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></worldbody></mujoco>"""


def test_the_timestep_advice_is_the_step_that_resolves_the_motion(pytester: pytest.Pytester) -> None:
    """A spring-held link (omega 45 rad/s) stepped at 10 ms: halving the step moves it by 0.28 of its motion. The
    message states the timestep the measured order (2.4, over dt/2 and dt/4) gives for half the bound, 0.0049 s; at
    that step the law passes (0.04; aimed at the bound itself, 6.5 ms, it read 0.106)."""
    pytester.path.joinpath("coarse.xml").write_text(SPRING_ARM.format(dt=0.01))
    _, laws = _run(pytester, "coarse.xml", extra=("-k", "resolves_the"))
    coarse = _law(laws, "coarse.xml", "model-timestep-converged")
    assert coarse["outcome"] == "failed"
    why = coarse["checks"][0]["why"]
    found = re.search(r'<option timestep="([0-9.e-]+)"/>', why)
    assert found and "order" in why, why
    advised = float(found.group(1))
    assert 0.004 < advised < 0.01
    pytester.path.joinpath("advised.xml").write_text(SPRING_ARM.format(dt=advised))
    _, laws = _run(pytester, "advised.xml", extra=("-k", "resolves_the"))
    assert _law(laws, "advised.xml", "model-timestep-converged")["outcome"] == "passed"


def test_the_timestep_advice_says_when_the_measure_supports_no_step() -> None:
    """Where no halving shrinks the shift (chaos, contact events) the message says so, with no timestep; where the
    step resolves the motion, no change; where dt/2 is measured to resolve it and no order is measurable, dt/2."""
    from pytest_physlaw.pack.resolution import Convergence

    chaos = Convergence(dt=0.01, moved=1.0, still=1e-6, shifts=(0.3, 0.31, 0.3))
    assert chaos.needed() is None and "supports no timestep" in chaos.advice() and "<option" not in chaos.advice()
    assert "no change" in Convergence(0.01, 1.0, 1e-6, (0.05,)).advice()
    uneven = Convergence(0.01, 1.0, 1e-6, (0.5, 0.001, 0.0009))  # dt diverged; dt/2 within bound
    assert uneven.needed() == pytest.approx(0.005) and '<option timestep="0.005"/>' in uneven.advice()
    first_order = Convergence(0.01, 1.0, 1e-6, (0.4, 0.2))  # p = 1: half the bound, 0.05, at dt/8
    assert first_order.order() == pytest.approx((1.0, 1)) and first_order.needed() == pytest.approx(0.00125)


GRAVCOMP_ARM = """<mujoco><option timestep="0.002"/><worldbody>
  <body name="upper" pos="0 0 1" gravcomp="1"><joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"
      actuatorgravcomp="{act}"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    <body name="fore" pos="0.3 0 0" gravcomp="1"><joint name="elbow" type="hinge" axis="0 1 0" damping="0.1"
        actuatorgravcomp="{act}"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.025" mass="0.6"/></body>
  </body>{base}</worldbody>
  <actuator><position joint="shoulder" kp="50" kv="5"/><position joint="elbow" kp="30" kv="3"/></actuator></mujoco>"""


def test_gravity_compensation_through_the_actuators_is_off_in_the_passive_run(pytester: pytest.Pytester) -> None:
    """An arm compensated through its actuators (actuatorgravcomp, MuJoCo 3.2 on) falls in the passive run, which
    turns actuation off and with it MuJoCo's compensation: its gain is nothing (the law read one equal to the peak
    kinetic energy, at every halving, before). Compensated as a passive force it floats and gains nothing either;
    on a floating base, compensated through the arm's actuators and passively through the free joint, the work of
    what is applied is counted; a wind on top of it is still found."""
    import mujoco

    if not hasattr(mujoco.MjModel.from_xml_string("<mujoco/>"), "jnt_actgravcomp"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no actuatorgravcomp (3.2 on)")
    mixed = GRAVCOMP_ARM.replace('<body name="upper" pos="0 0 1"', '<body name="base" pos="0 0 1"><freejoint/><geom '
                                 'type="box" size="0.1 0.1 0.05" mass="5"/><body name="upper" pos="0.1 0 0"', 1)
    mixed = mixed.replace("</body>{base}", "</body></body>")
    models = {"actuated.xml": GRAVCOMP_ARM.format(act="true", base=""),
              "passive.xml": GRAVCOMP_ARM.format(act="false", base=""),
              "floating.xml": mixed.format(act="true"),
              "windy.xml": GRAVCOMP_ARM.format(act="true", base="").replace(
                  '<option timestep="0.002"/>', '<option timestep="0.002" wind="0 0 40" density="1.2"/>').replace(
                  'size="0.025" mass="0.6"/>', 'size="0.025" mass="0.6"/><geom type="box" size="0.01 0.3 0.3" '
                  'pos="0.3 0 0" mass="0.01"/>')}
    for name, xml in models.items():
        pytester.path.joinpath(name).write_text(xml)
    _, laws = _run(pytester, *models, extra=("-k", "passive_motion"))
    for name in ("actuated.xml", "floating.xml"):
        assert _law(laws, name, "model-passive-energy")["outcome"] == "passed", (name, _law(laws, name, "model-passive-energy"))
    assert _law(laws, "passive.xml", "model-passive-energy")["outcome"] == "skipped"  # it floats: nothing moves
    assert _law(laws, "windy.xml", "model-passive-energy")["outcome"] == "failed"


LEG = """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
  <body name="torso" pos="0 0 0.47"><freejoint/><geom type="box" size="0.2 0.1 0.05" mass="5"/>
    <body name="thigh" pos="0.15 0 -0.05"><joint name="hip" type="hinge" axis="0 1 0" range="-170 170"/>
      <geom name="thigh" type="capsule" fromto="0 0 0 0 0 -0.12" size="0.03" mass="1"/>
      <body name="shin" pos="0 0 -0.2"><joint name="knee" type="hinge" axis="0 1 0" range="-170 170"/>
        <geom name="foot" type="capsule" fromto="0 0 -0.08 0 0 -0.2" size="0.02" mass="0.5"/></body></body>
    <body pos="-0.15 0 -0.05"><joint type="hinge" axis="0 1 0" range="-170 170"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.03" mass="1"/>
      <body pos="0 0 -0.2"><joint type="hinge" axis="0 1 0" range="-170 170"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" mass="0.5"/></body></body></body></worldbody>
  <contact><pair geom1="thigh" geom2="foot"/></contact>
  <keyframe><key name="stand" qpos="0 0 0.47 1 0 0 0 0 0 0 0"/>{folded}</keyframe></mujoco>"""


def test_every_keyframe_is_judged_for_overlaps_as_for_ranges(pytester: pytest.Pytester) -> None:
    """A leg whose second keyframe folds its foot 19 mm into its thigh (a contact pair), all its joints inside their
    ranges: model-start-penetration judged only the start (keyframe 'stand') and passed; it now names keyframe
    'folded'. Without that keyframe it passes."""
    pytester.path.joinpath("folded.xml").write_text(LEG.format(folded='<key name="folded" qpos="0 0 0.47 1 0 0 0 0 2.75 0 0"/>'))
    pytester.path.joinpath("standing.xml").write_text(LEG.format(folded=""))
    _, laws = _run(pytester, "folded.xml", "standing.xml", extra=("-k", "interpenetrating or joint_ranges"))
    folded = _law(laws, "folded.xml", "model-start-penetration")
    assert folded["outcome"] == "failed"
    (failed,) = [c for c in folded["checks"] if not c["passed"]]
    assert failed["quantity"] == "keyframe_depth_over_allowed" and "<key name='folded'>" in failed["why"], failed
    assert "thigh:thigh / shin:foot" in failed["why"]
    assert _law(laws, "folded.xml", "model-start-in-range")["outcome"] == "passed"
    assert _law(laws, "standing.xml", "model-start-penetration")["outcome"] == "passed"


BALL_BESIDE_PENDULUM = """<mujoco><option timestep="{dt}"/><worldbody><geom type="plane" size="2 2 0.1"/>
  <body pos="0 0 0.002"><freejoint/><geom type="sphere" size="0.002" mass="1"/></body>
  <body pos="1 0 1"><joint type="hinge" axis="0 1 0"/><geom type="sphere" pos="0.01 0 0" size="0.005" mass="0.1"
    contype="0" conaffinity="0"/></body></worldbody></mujoco>"""


def test_a_depth_follows_from_an_unresolved_timestep_on_the_timestep_laws_measure(pytester: pytest.Pytester) -> None:
    """A 2 mm ball resting beside a 1 cm pendulum that the step does not resolve, at 42 ms and at 46 ms: at half the
    step the ball sinks 0.89 and 1.04 of its allowance, and the old rule (depth at dt/2 within bounds) made the first
    a consequence and the second a finding: a verdict a few percent of sinking decides, which one MuJoCo version
    crosses and another does not. Decided on the timestep law's own verdict both follow from it."""
    for dt in ("0.042", "0.046"):
        pytester.path.joinpath(f"beside_{dt[2:]}.xml").write_text(BALL_BESIDE_PENDULUM.format(dt=dt))
    _, laws = _run(pytester, "beside_042.xml", "beside_046.xml", extra=("-k", "sink_less or resolves_the"))
    for name in ("beside_042.xml", "beside_046.xml"):
        assert _law(laws, name, "model-timestep-converged")["outcome"] == "failed"
        depth = _law(laws, name, "model-contact-depth")
        assert depth["outcome"] == "xfailed" and depth["follows"] == "model-timestep-converged", (name, depth)


SOFT = {  # law id -> a model too soft for it ({solref} the geom's)
    "model-contact-stiffness": """<mujoco><default><geom solref="{solref} 1"/></default><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.02"><freejoint/><geom type="box" size="0.02 0.02 0.02"
        mass="0.1"/></body></worldbody></mujoco>""",
    "model-contact-depth": """<mujoco><default><geom solref="{solref} 1"/></default><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.05"><freejoint/><geom type="sphere" size="0.05" mass="1"/>
        </body></worldbody></mujoco>""",
}


@pytest.mark.parametrize("law_id", SOFT)
def test_the_solref_advice_is_the_time_constant_that_carries_the_load(pytester: pytest.Pytester, law_id: str) -> None:
    """A contact too soft for its load (a 2 cm box on solref 0.2 s sinks 1.96 of its allowance; a 5 cm ball resting
    on 0.5 s, 1.2 of it at the end of the run): the message states the solref time constant that MuJoCo's resting
    sink (`resting_sink`) puts within the allowance (0.14 s; 0.22 s), and with it the law passes."""
    pytester.path.joinpath("soft.xml").write_text(SOFT[law_id].format(solref=0.2 if "stiffness" in law_id else 0.5))
    _, laws = _run(pytester, "soft.xml", extra=("-k", "stiff_enough or sink_less"))
    soft = _law(laws, "soft.xml", law_id)
    assert soft["outcome"] == "failed"
    found = re.search(r'solref="([0-9.e-]+) 1"', soft["checks"][0]["why"])
    assert found, soft["checks"][0]["why"]
    pytester.path.joinpath("advised.xml").write_text(SOFT[law_id].format(solref=found.group(1)))
    _, laws = _run(pytester, "advised.xml", extra=("-k", "stiff_enough or sink_less"))
    assert _law(laws, "advised.xml", law_id)["outcome"] == "passed"


STEPPED = {  # law id -> a model its timestep breaks ({dt}), as tests/pack/test_checkup_laws.py's BREAKING
    "model-timestep-stable": """<mujoco><option timestep="{dt}"/><worldbody><body pos="0 0 1">
        <joint name="j" type="hinge" axis="0 1 0"/><geom type="sphere" pos="0.01 0 0" size="0.005" mass="0.01"/>
        </body></worldbody><actuator><position joint="j" kp="1000"/></actuator></mujoco>""",
    "model-timeconst-resolved": """<mujoco><option timestep="{dt}"><flag refsafe="disable"/></option><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/>
        </body></worldbody></mujoco>""",
}


@pytest.mark.parametrize("law_id", STEPPED)
def test_the_timestep_advice_of_the_step_laws_is_a_step_that_holds(pytester: pytest.Pytester, law_id: str) -> None:
    """A servo (kp 1000 on 1 g at 1 cm) stepped at 10 ms rings up, and a 20 ms contact time constant at a 20 ms step
    with refsafe off: each message states the `<option timestep>` that holds (the linearized step map's stable step,
    by bisection; half the shortest time constant), and at it the law passes."""
    pytester.path.joinpath("coarse.xml").write_text(STEPPED[law_id].format(dt=0.01 if "stable" in law_id else 0.02))
    _, laws = _run(pytester, "coarse.xml", extra=("-k", "stiffest_mode or time_constants"))
    coarse = _law(laws, "coarse.xml", law_id)
    assert coarse["outcome"] == "failed"
    found = re.search(r'<option timestep="([0-9.e-]+)"/>', coarse["checks"][0]["why"])
    assert found, coarse["checks"][0]["why"]
    pytester.path.joinpath("advised.xml").write_text(STEPPED[law_id].format(dt=found.group(1)))
    _, laws = _run(pytester, "advised.xml", extra=("-k", "stiffest_mode or time_constants"))
    assert _law(laws, "advised.xml", law_id)["outcome"] == "passed"


def test_the_iterations_advice_is_the_cap_that_covers_the_solves() -> None:
    """A box dropped on a floor with its PGS cap at 2: with the cap raised to 100 each step's solve takes at most the
    cap `covering_cap` states; with the model's cap set to it no step of the run stops at it."""
    import copy

    import mujoco

    from pytest_physlaw.pack import runs
    from pytest_physlaw.pack.iterations import covering_cap

    model = mujoco.MjModel.from_xml_string("""<mujoco><option solver="PGS" iterations="2"/><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.2" euler="10 20 0"><freejoint/>
        <geom type="box" size="0.1 0.05 0.02" mass="1"/></body></worldbody></mujoco>""")
    capped = runs.settled(model, 300, cold=False)
    assert np.mean(capped.capped) > 0.05
    raised = copy.copy(model)
    raised.opt.iterations = 100
    advice = covering_cap(model, runs.settled(raised, 300, cold=False), 100)
    found = re.search(r'<option iterations="(\d+)"/>', advice)
    assert found, advice
    covered = copy.copy(model)
    covered.opt.iterations = int(found.group(1))
    assert not np.any(runs.settled(covered, 300, cold=False).capped)
    assert "no change" in covering_cap(raised, runs.settled(raised, 300, cold=False), 100)
