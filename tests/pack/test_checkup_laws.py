"""The model pack's check-up laws can fail: one small MJCF model for each, built to break that law's
physics; and what a user controls (accepted findings, keyframe, horizon, controls) does what docs/checking-a-model.md says."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

ARM = """<mujoco>{option}
  <worldbody>
    <body name="arm" pos="0 0 1"><joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="{mass}"/></body>
  </worldbody>
  <actuator><motor joint="shoulder" gear="{gear}" ctrlrange="-1 1" ctrllimited="true"/></actuator>{keys}
</mujoco>"""

BREAKING = {  # law id -> (model, what breaks it)
    # a 1 kg arm held level needs 2.45 N m; a 1 N m motor cannot give it
    "model-actuator-authority": ARM.format(option="", mass=1, gear=1, keys=""),
    # a 1 cm pendulum (omega 31 rad/s) stepped at 50 ms: neither energy nor trajectory is resolved
    "model-timestep-converged": """<mujoco><option timestep="0.05"/><worldbody>
        <body pos="0 0 1"><joint type="hinge" axis="0 1 0"/><geom type="sphere" pos="0.01 0 0" size="0.005" mass="0.1"/>
        </body></worldbody></mujoco>""",
    # wind does work on a sail: a passive force whose gain does not shrink with the timestep
    "model-passive-energy": """<mujoco><option wind="20 0 0" density="1.2"/><worldbody>
        <body pos="0 0 1"><joint type="slide" axis="1 0 0"/><geom type="box" size="0.01 0.5 0.5" mass="0.1"/>
        </body></worldbody></mujoco>""",
    # a rotor a velocity servo spins to 300 rad/s inside a tumbling base, stepped at 10 ms: the integrator
    # does not resolve its gyroscopic coupling, and the momentum it should keep runs away
    "model-free-flight-momentum": """<mujoco><option timestep="0.01"/><worldbody>
        <body pos="0 0 1"><freejoint/><geom type="box" size="0.2 0.1 0.05" mass="2"/>
        <body pos="0.1 0 0" euler="30 40 0"><joint name="spin" type="hinge" axis="0 0 1"/>
        <geom type="cylinder" size="0.1 0.01" mass="1"/></body></body></worldbody>
        <actuator><velocity joint="spin" kv="10"/></actuator>
        <keyframe><key qpos="0 0 1 1 0 0 0 0" ctrl="300"/></keyframe></mujoco>""",
    # half its weight hangs on a spring tendon: the contacts carry the other half
    "model-contact-carries-weight": """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/><site name="anchor" pos="0 0 2"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/><site name="hook" pos="0 0 0.1"/></body>
        </worldbody><tendon><spatial stiffness="2.7" damping="5" springlength="0"><site site="anchor"/>
        <site site="hook"/></spatial></tendon></mujoco>""",
    # a 20 cm box whose geoms were given a 3 cm margin (gap 0): its contact pushes from 3 cm off, and it rests
    # 3 cm above the floor, three times the tenth of its half-extent that still looks like touching
    "model-rest-touching": """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.2"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" margin="0.03"/>
        </body></worldbody></mujoco>""",
    # a contact ten times softer than the ball should be (solref 0.5 s, default solimp) sinks past half its radius
    "model-contact-depth": """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="sphere" size="0.05" mass="1" solref="0.5 1"/>
        </body></worldbody></mujoco>""",
    # a gear of 1e12 on a 10 g arm under seeded controls: MuJoCo resets a bad qacc and warns
    "model-no-warnings": ARM.format(option="", mass=0.01, gear="1e12", keys=""),
    # a 1 kg arm whose inertia was written in kg mm^2 and read as kg m^2: its mass would lie 1000 m out
    "model-inertia-physical": """<mujoco><worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/>
        <inertial pos="0.25 0 0" mass="1" diaginertia="2e4 2e4 1e2"/></body></worldbody></mujoco>""",
    # a 20 mm aluminium cube whose 21.6 g were written as 21.6 kg: 2.7 million kg/m^3
    "model-link-density": """<mujoco><worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <geom type="box" size="0.01 0.01 0.01"/>
        <inertial pos="0 0 0" mass="21.6" diaginertia="1.44e-3 1.44e-3 1.44e-3"/></body></worldbody></mujoco>""",
    # a box whose keyframe puts it 8 cm into the floor (its half-extent is 10 cm)
    "model-start-penetration": """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody>
        <keyframe><key qpos="0 0 0.02 1 0 0 0"/></keyframe></mujoco>""",
    # a floor that nothing can touch: the robot's collision bits were cleared
    "model-ground-collides": """<mujoco><default><geom contype="0" conaffinity="0"/></default><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.2"><freejoint/><geom type="sphere" size="0.05" mass="1"/>
        <body><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.1" size="0.01"/></body>
        </body></worldbody></mujoco>""",
    # a model whose collision bits were all cleared: its ball falls through the floor
    "model-can-collide": """<mujoco><default><geom contype="0" conaffinity="0"/></default><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.2"><freejoint/><geom type="sphere" size="0.05" mass="1"/>
        </body></worldbody></mujoco>""",
    # a negative joint damping: an engine in the joint
    "model-passive-dissipates": """<mujoco><worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0" damping="-0.5"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></worldbody></mujoco>""",
    # the same ball, falling through the floor over the run
    "model-base-above-ground": """<mujoco><worldbody><geom type="plane" size="2 2 0.1" contype="2" conaffinity="2"/>
        <body pos="0 0 0.2"><freejoint/><geom type="sphere" size="0.05" mass="1"/></body></worldbody></mujoco>""",
    # a 1 kN m/rad servo on a 1 cm, 10 g pendulum stepped at 10 ms: omega dt = 32, far past 2
    "model-timestep-stable": """<mujoco><option timestep="0.01"/><worldbody><body pos="0 0 1">
        <joint name="j" type="hinge" axis="0 1 0"/><geom type="sphere" pos="0.01 0 0" size="0.005" mass="0.01"/>
        </body></worldbody><actuator><position joint="j" kp="1000"/></actuator></mujoco>""",
    # a 5 kg table on four splayed legs whose servos (kp 1 N m/rad) cannot carry it: it folds to the floor
    # (with kp 1000 it stands: 0.213 m -> 0.202 m)
    "model-stands": """<mujoco><default><joint type="hinge" axis="0 1 0"/><position kp="1"/></default><worldbody>
        <geom type="plane" size="2 2 0.1" friction="0.1"/><body pos="0 0 0.22"><freejoint/><geom type="box" size="0.2 0.2 0.02" mass="5"/>
        <body pos="0.2 0.2 0"><joint name="a"/><geom type="capsule" fromto="0 0 0 0.2 0 -0.2" size="0.01"/></body>
        <body pos="-0.2 0.2 0"><joint name="b" axis="0 -1 0"/><geom type="capsule" fromto="0 0 0 -0.2 0 -0.2" size="0.01"/></body>
        <body pos="0.2 -0.2 0"><joint name="c"/><geom type="capsule" fromto="0 0 0 0.2 0 -0.2" size="0.01"/></body>
        <body pos="-0.2 -0.2 0"><joint name="d" axis="0 -1 0"/><geom type="capsule" fromto="0 0 0 -0.2 0 -0.2" size="0.01"/></body>
        </body></worldbody><actuator><position joint="a"/><position joint="b"/><position joint="c"/><position joint="d"/>
        </actuator></mujoco>""",
    # a 4 cm cube and a floor whose contacts have a 0.2 s time constant (ten times MuJoCo's default): a body
    # resting on one such contact sinks 19.6 mm, past half the cube's 20 mm half-extent (0.02 s: 0.37 mm)
    "model-contact-stiffness": """<mujoco><default><geom solref="0.2 1"/></default><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.02"><freejoint/><geom type="box" size="0.02 0.02 0.02" mass="0.1"/>
        </body></worldbody></mujoco>""",
    # a 1 kg, 0.5 m arm held level by a servo of kp 1 N m/rad: it sags 2.45 rad, past its limit 1 rad below
    # (with kp 100: 0.0245 rad)
    "model-servo-sag": """<mujoco><worldbody><body name="arm" pos="0 0 1">
        <joint name="shoulder" type="hinge" axis="0 -1 0" range="-1 1" limited="true"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/></body></worldbody>
        <actuator><position joint="shoulder" kp="1" ctrlrange="-1 1" ctrllimited="true"/></actuator></mujoco>""",
    # refsafe turned off, and MuJoCo's default contact (0.02 s) under a 20 ms step: the contact rings
    "model-timeconst-resolved": """<mujoco><option timestep="0.02"><flag refsafe="disable"/></option><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/>
        </body></worldbody></mujoco>""",
    # an elbow whose range stops short of 0 (as an arm's folded joint), started at qpos0 = 0: 0.07 rad outside
    "model-start-in-range": """<mujoco><compiler angle="radian"/><worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0" limited="true"
        range="-3.07 -0.07"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></worldbody></mujoco>""",
    # PGS with one iteration on a stack of boxes stops at its cap every step
    "model-solver-cap-share": """<mujoco><option solver="PGS" iterations="1"/><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
        <body pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""",
}


def _run(pytester: pytest.Pytester, *models: str, extra: tuple[str, ...] = ()) -> tuple[pytest.RunResult, dict]:
    args = [f"--physlaw-model={m}" for m in models]
    result = pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider", "-rsx", *extra)
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    return result, {r["nodeid"]: r for r in report["laws"]}


def _law(laws: dict, model: str, law_id: str) -> dict:
    (record,) = [r for n, r in laws.items() if n.startswith(f"{model}::") and r["law"] == law_id]
    return record


def _follows(laws: dict, model: str, law_id: str, premise: str) -> dict:
    """The record of `law_id` on `model`, asserted to be listed as the consequence of `premise`, which failed."""
    assert _law(laws, model, premise)["outcome"] == "failed"
    record = _law(laws, model, law_id)
    assert record["outcome"] == "xfailed" and record["follows"] == premise, record
    return record


@pytest.mark.parametrize("law_id", BREAKING)
def test_each_checkup_law_fails_on_a_model_that_breaks_it(pytester: pytest.Pytester, law_id: str) -> None:
    pytester.path.joinpath("broken.xml").write_text(BREAKING[law_id])
    result, laws = _run(pytester, "broken.xml")
    record = _law(laws, "broken.xml", law_id)
    assert record["outcome"] == "failed", (record, result.stdout.str())
    assert any(not c["passed"] for c in record["checks"])


def test_an_accepted_finding_runs_is_reported_with_its_reason_and_is_gated(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("weak.xml").write_text(BREAKING["model-actuator-authority"])
    pytester.makeini("[pytest]\nphyslaw_model_accept =\n    weak.xml model-actuator-authority: the demo arm's motor is weak on purpose\n")
    result, laws = _run(pytester, "weak.xml", extra=("--law-save-baseline=base.json",))
    assert result.ret == 0, result.stdout.str()
    record = _law(laws, "weak.xml", "model-actuator-authority")
    assert record["outcome"] == "xfailed" and record["checks"][0]["value"] > 1
    result.stdout.fnmatch_lines(["*XFAIL*accepted finding*weak on purpose*"])
    pytester.path.joinpath("weak.xml").write_text(BREAKING["model-actuator-authority"].replace('mass="1"', 'mass="1.2"'))
    result, _ = _run(pytester, "weak.xml", extra=("--law-baseline=base.json",))
    assert result.ret == 1  # the accepted law is still gated: its load moved by 20 %
    result.stdout.fnmatch_lines(["*load_over_authority*moved more than its drift*"])


def test_an_accepted_finding_must_name_a_pack_law_and_give_a_reason(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("weak.xml").write_text(BREAKING["model-actuator-authority"])
    pytester.makeini("[pytest]\nphyslaw_model_accept =\n    weak.xml model-no-such-law: because\n")
    result = pytester.runpytest_inprocess("--physlaw-model=weak.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*physlaw_model_accept*model-no-such-law*the pack has no law*"])
    pytester.makeini("[pytest]\nphyslaw_model_accept =\n    weak.xml model-actuator-authority\n")
    result = pytester.runpytest_inprocess("--physlaw-model=weak.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*physlaw_model_accept*MODEL_PATH LAW_ID: reason*"])


def test_the_horizon_respects_the_timestep(pytester: pytest.Pytester) -> None:
    """A model stepping at 1e-4 s runs physlaw_model_steps (1000) steps by default, not 10,000."""
    pytester.path.joinpath("fine.xml").write_text(ARM.format(option='<option timestep="1e-4"/>', mass=1, gear=100, keys=""))
    _, laws = _run(pytester, "fine.xml")
    assert "of 1000 steps" in _law(laws, "fine.xml", "model-figures")["checks"][-1]["why"]
    pytester.makeini("[pytest]\nphyslaw_model_steps = 50\n")
    _, laws = _run(pytester, "fine.xml")
    assert "of 50 steps" in _law(laws, "fine.xml", "model-figures")["checks"][-1]["why"]


def test_the_keyframe_is_chosen_by_name_and_a_wrong_one_is_a_collection_error(pytester: pytest.Pytester) -> None:
    keys = '<keyframe><key name="down" qpos="-1.5708"/><key name="level" qpos="0"/></keyframe>'
    pytester.path.joinpath("arm.xml").write_text(ARM.format(option="", mass=1, gear=1, keys=keys))
    _, laws = _run(pytester, "arm.xml")  # keyframe 0: hanging down, the motor holds it
    assert _law(laws, "arm.xml", "model-actuator-authority")["outcome"] == "passed"
    pytester.makeini("[pytest]\nphyslaw_model_keyframe = level\n")
    _, laws = _run(pytester, "arm.xml")
    assert _law(laws, "arm.xml", "model-actuator-authority")["outcome"] == "failed"
    pytester.makeini("[pytest]\nphyslaw_model_keyframe = sideways\n")
    result = pytester.runpytest_inprocess("--physlaw-model=arm.xml", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*arm.xml: ini physlaw_model_keyframe = 'sideways': the model has no such keyframe*"])


def test_controls_none_leaves_the_exercised_run_out(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("blowup.xml").write_text(BREAKING["model-no-warnings"])
    pytester.makeini("[pytest]\nphyslaw_model_controls = none\n")
    _, laws = _run(pytester, "blowup.xml")
    assert _law(laws, "blowup.xml", "model-no-warnings")["outcome"] == "passed"
    pytester.makeini("[pytest]\nphyslaw_model_controls = random\n")
    result = pytester.runpytest_inprocess("--physlaw-model=blowup.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*physlaw_model_controls = 'random': must be one of seeded, none*"])


def test_free_flight_leaves_out_a_tree_a_tendon_ties_to_the_world(pytester: pytest.Pytester) -> None:
    """A free ball on a spring tendon to a world site is a pendulum, not a body in free flight: the momentum
    law skips it, naming why, instead of finding the spring's force."""
    pytester.path.joinpath("tied.xml").write_text("""<mujoco><worldbody><site name="anchor" pos="0 0 2"/>
        <body pos="0.3 0 1"><freejoint/><geom type="sphere" size="0.05" mass="1"/><site name="hook"/></body>
        </worldbody><tendon><spatial stiffness="50" springlength="0"><site site="anchor"/><site site="hook"/>
        </spatial></tendon></mujoco>""")
    result, laws = _run(pytester, "tied.xml")
    assert _law(laws, "tied.xml", "model-free-flight-momentum")["outcome"] == "skipped"
    result.stdout.fnmatch_lines(["*tied by a tendon to the world or to another tree*"])


@pytest.mark.parametrize("solref, solimp", [("0.05 1", "0.9 0.95 0.001 0.5 2"), ("0.2 0.7", "0.8 0.99 0.01 0.3 3"),
                                            ("-1000 -10", "0.9 0.95 0.001 0.5 2")],
                         ids=["standard", "wide-solimp", "direct"])
def test_the_resting_sink_is_what_mujoco_settles_to(solref: str, solimp: str) -> None:
    """model-contact-stiffness's sink (MuJoCo's soft contact solved for rest) is where a free ball resting on one
    contact ends up in MuJoCo, whatever its mass."""
    import mujoco

    from pytest_physlaw.pack import contact_depth

    for mass in (0.1, 10.0):
        model = mujoco.MjModel.from_xml_string(f"""<mujoco><default><geom solref="{solref}" solimp="{solimp}"/></default>
            <worldbody><geom type="plane" size="2 2 0.1"/><body pos="0 0 0.05"><freejoint/>
            <geom type="sphere" size="0.05" mass="{mass}"/></body></worldbody></mujoco>""")
        data = mujoco.MjData(model)
        for _ in range(5000):
            mujoco.mj_step(model, data)
        (sink,), _, _ = contact_depth.rest_sinks(model)
        assert -data.contact[0].dist == pytest.approx(sink, rel=1e-6)


def test_a_resting_tree_is_judged_by_its_centre_of_mass_not_its_fastest_body() -> None:
    """model-contact-carries-weight's rest: two equal links sliding apart inside a box at rest on the floor move
    its bodies at 5 mm/s and the tree's centre of mass not at all (MuJoCo's `subtree_linvel`)."""
    import mujoco

    from pytest_physlaw.pack import settled_pose

    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/>
        <body><joint name="a" type="slide" axis="1 0 0"/><geom type="sphere" size="0.01" mass="0.2"/></body>
        <body><joint name="b" type="slide" axis="1 0 0"/><geom type="sphere" size="0.01" mass="0.2"/></body>
        </body></worldbody></mujoco>""")
    data = mujoco.MjData(model)
    data.qvel[6:] = (0.005, -0.005)
    mujoco.mj_forward(model, data)
    assert float(np.max(settled_pose._speeds(model, data))) == pytest.approx(0.005)
    assert settled_pose._tree_speeds(model, data, [1]) == {1: pytest.approx(0.0, abs=1e-12)}


def test_a_model_that_sleeps_is_weighed_awake(pytester: pytest.Pytester) -> None:
    """Sleeping bodies have no contacts: twelve resting dominoes with sleep on weighed 0 of their weight on
    MuJoCo 3.14.0 before the pack measured models awake; now they read as the same scene with sleep off."""
    import mujoco

    if not hasattr(mujoco.mjtEnableBit, "mjENBL_SLEEP"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no sleep")
    bodies = "".join(f'<body pos="{0.06 * i:.2f} 0 0.05"><freejoint/><geom type="box" size="0.005 0.02 0.05" '
                     f'mass="0.05"/></body>' for i in range(12))
    for name, flag in (("asleep.xml", '<flag sleep="enable"/>'), ("awake.xml", "")):
        pytester.path.joinpath(name).write_text(f'<mujoco><option sleep_tolerance="1e-3">{flag}</option><worldbody>'
                                                f'<geom type="plane" size="2 2 0.1"/>{bodies}</worldbody></mujoco>')
    _, laws = _run(pytester, "asleep.xml", "awake.xml", extra=("-k", "carry or warmstart"))
    for law_id in ("model-contact-carries-weight", "model-warmstart"):
        asleep, awake = _law(laws, "asleep.xml", law_id), _law(laws, "awake.xml", law_id)
        assert asleep["outcome"] == awake["outcome"] == "passed", (asleep, awake)
        assert [c["value"] for c in asleep["checks"]] == [c["value"] for c in awake["checks"]]


def test_a_keyframe_outside_a_range_is_found_and_qpos0_is_not_judged_when_a_keyframe_starts(pytester: pytest.Pytester) -> None:
    """With a keyframe the pack starts there: qpos0 outside a range is not judged, a keyframe outside one is, by name."""
    arm = """<mujoco><compiler angle="radian"/><worldbody><body pos="0 0 1"><joint name="elbow" type="hinge" axis="0 1 0" limited="true"
        range="-3.07 -0.07"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></worldbody>
        <keyframe><key name="folded" qpos="-1"/>{extra}</keyframe></mujoco>"""
    pytester.path.joinpath("inside.xml").write_text(arm.format(extra=""))
    pytester.path.joinpath("outside.xml").write_text(arm.format(extra='<key name="stretched" qpos="0.2"/>'))
    result, laws = _run(pytester, "inside.xml", "outside.xml", extra=("-k", "within_joint_ranges"))
    assert _law(laws, "inside.xml", "model-start-in-range")["outcome"] == "passed"
    record = _law(laws, "outside.xml", "model-start-in-range")
    assert record["outcome"] == "failed" and record["checks"][0]["value"] == pytest.approx(0.27 - 0.001)  # past the soft width
    result.stdout.fnmatch_lines(["*keyframe 'stretched': 'elbow' at 0.2, its range*"])


WELDED_BALL = """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
    <body name="c0" pos="0 0 1"><joint type="ball" damping="0.5"/><geom type="capsule" fromto="0 0 0 0 0 -0.1" size="0.01" mass="0.05"/>
     <body name="c1" pos="0 0 -0.1"><joint type="ball" damping="0.5"/><geom type="capsule" fromto="0 0 0 0 0 -0.1" size="0.01" mass="0.05"/>
      <body name="c2" pos="0 0 -0.1"><joint type="ball" damping="0.5"/><geom type="capsule" fromto="0 0 0 0 0 -0.1" size="0.01" mass="0.05"/>
      </body></body></body>
    <body name="ball" pos="0 0 {z}"><freejoint/><geom type="sphere" size="0.045" mass="0.5"/></body>
    </worldbody><equality><weld body1="ball" body2="c2"/></equality></mujoco>"""


def test_a_body_an_equality_holds_is_weighed_with_it_and_a_downstream_depth_follows_the_overlap(pytester: pytest.Pytester) -> None:
    """A ball welded to the end of a hanging cable: the weld carries its weight (model-contact-carries-weight read
    the contacts alone and failed before equalities were counted). Started 15 mm into the cable, the ball stays
    in it, held by the weld: one cause, the overlap, fails model-start-penetration, and the resting depth it
    leaves is reported as its consequence ("follows"); started 5 mm clear of the cable, both pass."""
    pytester.path.joinpath("overlap.xml").write_text(WELDED_BALL.format(z=0.66))
    pytester.path.joinpath("clear.xml").write_text(WELDED_BALL.format(z=0.64))
    result, laws = _run(pytester, "overlap.xml", "clear.xml", extra=("-k", "carr or sink_less or penetrating", "-rx"))
    for model in ("overlap.xml", "clear.xml"):
        carried = _law(laws, model, "model-contact-carries-weight")
        assert carried["outcome"] == "passed" and carried["checks"][0]["value"] == pytest.approx(1.0, abs=0.02)
    _follows(laws, "overlap.xml", "model-contact-depth", "model-start-penetration")
    for law_id in ("model-start-penetration", "model-contact-depth"):  # no contact at all: skipped
        assert _law(laws, "clear.xml", law_id)["outcome"] in ("passed", "skipped")
    result.stdout.fnmatch_lines(["*move them apart where qpos0 puts them (the model has no keyframe*",
                                 "*follows  model-contact-depth: depth_over_allowed (follows from model-start-penetration)*"])


def test_an_iteration_cap_is_a_finding_where_it_changes_the_motion_and_counts_once(pytester: pytest.Pytester) -> None:
    """A four-legged base on servos, Newton capped at 1 iteration: 91 % of the steps stop at the cap and raising
    it to 100 moves the run by a quarter of its motion: model-solver-cap-share fails; model-newton-iterations
    records the capped steps but leaves the cap to it (one cap, one finding). gymnasium's Ant capped at 2
    iterations (as GPU-tuned models ship) stops at the cap on a quarter of its steps and moves 0.15 % of its
    motion when it is raised: no finding (both laws failed before)."""
    legs = "".join(f'<body pos="{x} {y} 0"><joint name="h{i}" type="hinge" axis="0 1 0" range="-1 1" damping="1"/>'
                   f'<geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.02" mass="0.3"/></body>'
                   for i, (x, y) in enumerate(((0.12, 0.08), (-0.12, 0.08), (0.12, -0.08), (-0.12, -0.08))))
    servos = "".join(f'<position joint="h{i}" kp="50"/>' for i in range(4))
    pytester.path.joinpath("capped.xml").write_text(
        f'<mujoco><option iterations="1"/><worldbody><geom type="plane" size="2 2 0.1"/><body name="base" pos="0 0 0.3">'
        f'<freejoint/><geom type="box" size="0.15 0.08 0.04" mass="4"/>{legs}</body></worldbody>'
        f'<actuator>{servos}</actuator></mujoco>')
    _, laws = _run(pytester, "capped.xml", extra=("-k", "iteration_cap or newton_never"))
    cap = _law(laws, "capped.xml", "model-solver-cap-share")
    assert cap["outcome"] == "failed" and [c["quantity"] for c in cap["checks"] if not c["passed"]] == ["cap_motion_shift"]
    # the advice is the cap the raised run's solves took (one more than the most), not "raise it until..."
    (why,) = [c["why"] for c in cap["checks"] if c["quantity"] == "cap_motion_shift"]
    assert re.search(r'set <option iterations="\d+"/> or more \(the most a step\'s solve took', why), why
    assert _law(laws, "capped.xml", "model-newton-iterations")["outcome"] == "passed"
    gymnasium = pytest.importorskip("gymnasium")
    from pathlib import Path

    ant = (Path(gymnasium.__file__).parent / "envs/mujoco/assets/ant.xml").read_text()
    pytester.path.joinpath("ant.xml").write_text(ant.replace("<option ", '<option iterations="2" ', 1))
    _, laws = _run(pytester, "ant.xml", extra=("-k", "iteration_cap or newton_never"))
    cap = _law(laws, "ant.xml", "model-solver-cap-share")
    assert cap["outcome"] == "passed", cap
    share, shift = (next(c["value"] for c in cap["checks"] if c["quantity"] == q) for q in ("cap_share", "cap_motion_shift"))
    assert share > 0.05 and shift < 0.01
    assert _law(laws, "ant.xml", "model-newton-iterations")["outcome"] == "passed"


def test_a_model_with_barrier_contacts_is_judged_by_what_it_declares(pytester: pytest.Pytester) -> None:
    """Incremental potential contacts (`<flag ipc>`, discrete integrator; CG on 3.14, CG or Newton on 4) rule out PGS and minimize a
    barrier, not the lesson's problem: model-solvers-agree crashed on PGS and model-warmstart failed (+0.60
    iterations a step) on 4.0.1; now the solvers MuJoCo runs are compared and the warm-start law skips, naming it."""
    import mujoco

    if not hasattr(mujoco.mjtEnableBit, "mjENBL_IPC"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no incremental potential contact")
    pytester.path.joinpath("ipc.xml").write_text("""<mujoco><option integrator="discrete" solver="CG"><flag ipc="enable"/></option>
        <worldbody><geom type="plane" size="2 2 0.1"/><body pos="0 0 0.12"><freejoint/><geom type="box" size="0.1 0.1 0.1"
        mass="1"/></body><body pos="0.5 0 0.06"><freejoint/><geom type="sphere" size="0.05" mass="0.2"/></body></worldbody></mujoco>""")
    result, laws = _run(pytester, "ipc.xml", extra=("-k", "agree or warmstart"))
    agree = _law(laws, "ipc.xml", "model-solvers-agree")
    if agree["outcome"] == "skipped":  # 3.14: IPC solves with CG alone, no Newton reference
        result.stdout.fnmatch_lines(["*will not solve it with Newton, the converged reference*"])
    else:
        assert agree["outcome"] == "passed" and not any(c["quantity"].startswith("PGS") for c in agree["checks"])
    assert _law(laws, "ipc.xml", "model-warmstart")["outcome"] == "skipped"
    result.stdout.fnmatch_lines(["*incremental potential contacts*"])  # and on 3.14 (CG alone) agreement skips too


def test_a_contact_softened_by_a_coarse_timestep_names_the_timestep(pytester: pytest.Pytester) -> None:
    """A 2 mm ball dropped to rest under a 30 ms step: MuJoCo's refsafe steps its 20 ms contact as 60 ms, and it sinks 1.77
    times its allowance: the message says to lower the timestep (a shorter solref would change nothing). Set down
    beside a 1 cm pendulum the step does not resolve, the same depth follows from model-timestep-converged: at 15 ms it
    sinks 0.60 of its allowance."""
    ball = '<body pos="0 0 {z}"><freejoint/><geom type="sphere" size="0.002" mass="1"/></body>'
    pendulum = ('<body pos="1 0 1"><joint type="hinge" axis="0 1 0"/><geom type="sphere" pos="0.01 0 0" size="0.005" '
                'mass="0.1" contype="0" conaffinity="0"/></body>')
    for name, z, extra in (("ball.xml", 0.05, ""), ("beside.xml", 0.002, pendulum)):  # dropped 5 cm; set down
        pytester.path.joinpath(name).write_text(f'<mujoco><option timestep="0.03"/><worldbody><geom type="plane" size="2 2 0.1"/>'
                                                f'{ball.format(z=z)}{extra}</worldbody></mujoco>')
    result, laws = _run(pytester, "ball.xml", "beside.xml", extra=("-k", "sink_less or resolves_the"))
    alone = _law(laws, "ball.xml", "model-contact-depth")
    assert alone["outcome"] == "failed" and _law(laws, "ball.xml", "model-timestep-converged")["outcome"] == "passed"
    result.stdout.fnmatch_lines(["*under twice the timestep: MuJoCo steps it as 2 x 0.03 = 0.06 s (refsafe)*lower <option timestep>*"])
    beside = _law(laws, "beside.xml", "model-contact-depth")
    assert beside["outcome"] == "xfailed" and beside["follows"] == "model-timestep-converged"
    assert _law(laws, "beside.xml", "model-timestep-converged")["outcome"] == "failed"


def test_a_motion_that_starts_from_an_overlap_follows_from_it(pytester: pytest.Pytester) -> None:
    """A two-link arm hanging with its upper link 70 mm into a fixed box is kicked out in the first steps and
    swings: halving the step moves that swing by 0.21 of itself, a kick no timestep resolves. The timestep law's
    failure is model-start-penetration's consequence; with the box 30 cm lower the arm hangs still and passes."""
    arm = """<mujoco><option timestep="0.002"/><worldbody><geom type="box" size="0.1 0.1 0.1" pos="0 0 {z}"/>
      <body pos="0 0 0.75"><joint type="hinge" axis="0 1 0" damping="0.001"/><geom type="capsule" fromto="0 0 0 0 0 -0.2"
      size="0.02" mass="0.05"/><body pos="0 0 -0.2"><joint type="hinge" axis="0 1 0" damping="0.001"/><geom type="capsule"
      fromto="0 0 0 0.1 0 0" size="0.02" mass="0.05"/></body></body></worldbody></mujoco>"""
    pytester.path.joinpath("kicked.xml").write_text(arm.format(z=0.5))
    pytester.path.joinpath("apart.xml").write_text(arm.format(z=0.2))
    _, laws = _run(pytester, "kicked.xml", "apart.xml", extra=("-k", "resolves_the or penetrating"))
    kicked = _follows(laws, "kicked.xml", "model-timestep-converged", "model-start-penetration")
    assert kicked["checks"][0]["value"] > 0.1
    assert _law(laws, "apart.xml", "model-timestep-converged")["outcome"] == "passed"


def test_the_noslip_pass_is_not_counted_as_the_solvers_iterations(pytester: pytest.Pytester) -> None:
    """MuJoCo adds the noslip pass's iterations to solver_niter: a box and a ball pushed across the floor with
    noslip_iterations=20 read 21 Newton steps "at the cap" of 20 (model-newton-iterations failed; gymnasium-
    robotics' Adroit pen: 82 % of its steps, both cap laws). The main solve, counted apart: 1.7 a step, none capped."""
    pytester.path.joinpath("noslip.xml").write_text("""<mujoco><option iterations="20" noslip_iterations="20"/><worldbody>
        <geom type="plane" size="2 2 0.1"/><body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
        <body pos="0.5 0 0.05"><freejoint/><geom type="sphere" size="0.05" mass="0.2"/></body></worldbody>
        <keyframe><key qvel="1 0 0 0 0 0 0 1 0 0 0 0"/></keyframe></mujoco>""")
    _, laws = _run(pytester, "noslip.xml", extra=("-k", "iteration_cap or newton_never"))
    newton = _law(laws, "noslip.xml", "model-newton-iterations")
    assert newton["outcome"] == "passed"
    figures = {c["quantity"]: c["value"] for c in newton["checks"]}
    assert figures["capped_steps"] == 0 and figures["mean_iterations"] < 5
    assert _law(laws, "noslip.xml", "model-solver-cap-share")["checks"][0]["value"] == 0


def test_a_planar_walker_is_held_up_by_its_contacts_too(pytester: pytest.Pytester) -> None:
    """A planar robot (root slides along x and z, a hinge about y: gymnasium's Hopper, dm_control's walker) falls
    as a free one does: with its collision bits cleared it goes through the floor, and model-ground-collides and
    model-base-above-ground fail, as they do for a free base (they skipped it as "no floating base" before:
    6 of 13 robots with collisions cleared went unseen)."""
    walker = """<mujoco><worldbody><geom type="plane" size="5 5 0.1" contype="{bits}" conaffinity="{bits}"/>
        <body name="torso" pos="0 0 0.3"><joint name="rootx" type="slide" axis="1 0 0"/>
        <joint name="rootz" type="slide" axis="0 0 1"/><joint name="rooty" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.04" mass="2" contype="{bits}" conaffinity="{bits}"/>
        </body></worldbody></mujoco>"""
    pytester.path.joinpath("walker.xml").write_text(walker.format(bits=1))
    pytester.path.joinpath("ghost.xml").write_text(walker.format(bits=0))
    _, laws = _run(pytester, "walker.xml", "ghost.xml", extra=("-k", "touch_the_ground or above_the_ground or can_collide"))
    for law_id in ("model-ground-collides", "model-base-above-ground", "model-can-collide"):
        assert _law(laws, "walker.xml", law_id)["outcome"] == "passed", law_id
        assert _law(laws, "ghost.xml", law_id)["outcome"] == "failed", law_id


def test_the_scene_is_not_the_robots_reach() -> None:
    """dm_control's walker places its floor plane 248 m down the track: read as part of the model's reach, it let a
    torso inertia a million times too large (kg mm^2 read as kg m^2) pass model-inertia-physical. The reach is the
    moving geoms' (a plane is a point at its position)."""
    import mujoco

    from pytest_physlaw.pack import inertia

    arm = """<mujoco><worldbody><geom type="plane" pos="248 0 0" size="250 1 0.1"/><body pos="0 0 1">
        <joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/>
        <inertial pos="0.25 0 0" mass="1" diaginertia="{i} {i} 1e-4"/></body></worldbody></mujoco>"""
    for i, wide in ((2e-2, False), (2e4, True)):
        model = mujoco.MjModel.from_xml_string(arm.format(i=i))
        bodies = np.array([1])
        assert bool(inertia._gyration(model, bodies)[0] > inertia._reach(model, bodies)[0]) is wide


WEDGED = """<mujoco><worldbody><geom type="plane" size="2 2 0.1" solref="0.1 1"/>
    <body name="slab" pos="0 0 {slab}"><geom type="box" size="0.2 0.2 0.004" solref="0.004 1"/></body>
    <body name="ball" pos="0 0 0.05"><freejoint/><geom type="sphere" size="0.05" mass="0.1"/></body>
    </worldbody></mujoco>"""


def test_a_body_that_starts_inside_another_is_the_cause_of_how_deep_it_rests_elsewhere(pytester: pytest.Pytester) -> None:
    """A ball started 40 mm inside a stiff slab is pressed into a soft floor under it: the floor contact, not the
    pair that overlapped, is the deepest at rest, and its depth follows from the overlap (a Meta-World cylinder
    started inside its hole rested 3.65 times its allowance deep in the table). With the slab clear of the ball,
    the same floor holds the ball within its allowance: the depth was the overlap's."""
    pytester.path.joinpath("wedged.xml").write_text(WEDGED.format(slab=0.064))
    pytester.path.joinpath("clear.xml").write_text(WEDGED.format(slab=0.12))
    result, laws = _run(pytester, "wedged.xml", "clear.xml", extra=("-k", "sink_less or penetrating"))
    _follows(laws, "wedged.xml", "model-contact-depth", "model-start-penetration")
    result.stdout.fnmatch_lines(["*body 'ball' started inside another (ball:2 / slab:1)*"])
    assert _law(laws, "clear.xml", "model-contact-depth")["outcome"] == "passed"


SETTLING = """<mujoco><option timestep="0.01"/><worldbody>
    <geom type="plane" size="2 2 0.1" solimp="0.9 0.95 0.005" solref="0.005 1"/>
    <body name="box" pos="0 0 0.05"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.2" solimp="0.9 0.95 0.005" solref="0.005 1"/></body>
    </worldbody></mujoco>"""


def test_settling_into_a_soft_contact_is_no_motion_to_resolve(pytester: pytest.Pytester) -> None:
    """A box set on a floor sinks 0.98 mm into contacts 5 mm wide (solimp), to a depth refsafe ties to the
    timestep (solref 5 ms is stepped as 20 ms, at half the step as 10 ms): halving the step moves it 0.16 mm,
    0.16 of its motion, which failed model-timestep-converged. Settling within the contacts' soft width is not
    a motion the timestep resolves: skipped, naming it. The pendulum of BREAKING still fails."""
    pytester.path.joinpath("settling.xml").write_text(SETTLING)
    result, laws = _run(pytester, "settling.xml", extra=("-k", "resolves",))
    assert _law(laws, "settling.xml", "model-timestep-converged")["outcome"] == "skipped"
    result.stdout.fnmatch_lines(["*no body moved more than 5000 um over the run (its resting contacts' soft width*"])


def test_a_lone_body_has_nothing_to_collide_with(pytester: pytest.Pytester) -> None:
    """A part file (a ball with its own free joint, no ground, no other body: Myosuite's soccer ball) has no pair
    to collide, and no bits to set: model-can-collide skips naming it, instead of advising contype/conaffinity."""
    pytester.path.joinpath("ball.xml").write_text("""<mujoco><worldbody><body name="ball" pos="0 0 1"><freejoint/>
        <geom type="sphere" size="0.1" mass="0.4"/></body></worldbody></mujoco>""")
    result, laws = _run(pytester, "ball.xml", extra=("-k", "can_collide",))
    assert _law(laws, "ball.xml", "model-can-collide")["outcome"] == "skipped"
    result.stdout.fnmatch_lines(["*every geom is body 'ball''s (no ground, no other body): nothing else to collide with*"])


CLOTH = """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
    <flexcomp name="cloth" type="grid" count="4 4 1" spacing="0.05 0.05 0.05" pos="0 0 0.1" radius="0.005" dim="2"
              mass="0.1"><edge equality="true"/><contact selfcollide="none"/></flexcomp>
    </worldbody></mujoco>"""


def test_a_flex_is_judged_by_its_own_contacts_not_as_floating_bases(pytester: pytest.Pytester) -> None:
    """A cloth (a flex) falling on a floor: its nodes are bodies that slide freely along gravity, with no geom of
    their own and a point's inertia from the flex's compiler. They are not floating robots (model-ground-collides
    read 0 geoms touching the ground, MuJoCo's flex bunny ended its nodes 0.88 mm 'below' it), their inertia is
    not an author's (MuJoCo's cable flex read 0.998 of osmium's), and the contacts with a flex name no geom on its
    side (geom -1: model-contact-depth and model-rest-touching crashed). The cloth passes; nothing crashes."""
    pytester.path.joinpath("cloth.xml").write_text(CLOTH)
    result, laws = _run(pytester, "cloth.xml")
    outcomes = {r["law"]: r["outcome"] for n, r in laws.items() if n.startswith("cloth.xml::")}
    assert "failed" not in outcomes.values(), (outcomes, result.stdout.str()[-3000:])
    assert outcomes["model-ground-collides"] == "skipped" and outcomes["model-inertia-physical"] == "skipped"


TENDON_ARM = """<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
    <site name="origin" pos="0 0.05 0.35"/>
    <body name="upper" pos="0 0 0.37"><joint name="shoulder" type="hinge" axis="1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 0.25 0" size="0.02" mass="0.5"/><site name="insertion" pos="0 0.15 0.02"/>
      <body name="lower" pos="0 0.25 0"><joint name="elbow" type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.35" size="0.02" mass="0.3"/></body></body>
    </worldbody>
    <tendon><spatial name="biceps"><site site="origin"/><site site="insertion"/></spatial></tendon>
    <actuator><motor tendon="biceps" gear="1" ctrlrange="-20 0" ctrllimited="true"/></actuator></mujoco>"""


def test_a_tendons_pull_booked_on_bodies_is_not_a_constraint_wrench(pytester: pytest.Pytester) -> None:
    """MuJoCo 3.14 books the force a spatial tendon's actuator pulls its bodies with in `cfrc_ext` too: an arm
    pulled by a tendon, its forearm resting on the floor, maps its raw `cfrc_ext` to 1.349 N m at the shoulder
    against the contact's J^T f of 1.719, the tendon's -0.371 between them (Myosuite's hand read a 'mismatch' of
    5.2, an 'engine defect'). The law compares the part the contact and equality forces make: it passes."""
    pytester.path.joinpath("arm.xml").write_text(TENDON_ARM)
    result, laws = _run(pytester, "arm.xml", extra=("-k", "wrenches"))
    record = _law(laws, "arm.xml", "model-constraint-wrenches")
    assert record["outcome"] == "passed" and record["checks"][0]["value"] < 1e-8, result.stdout.str()[-2000:]


CLOTH_ON_A_TABLE = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="2 2 0.1"/>
    <geom name="table" type="box" size="0.2 0.2 0.1" pos="1 0 0.1"/>
    <flexcomp name="cloth" type="grid" count="5 5 1" spacing="0.05 0.05 0.05" pos="1 0 0.25" radius="0.01" dim="2"
              mass="0.5"><edge equality="true"/></flexcomp>
    <body name="robot" pos="0 0 0.1"><freejoint/><geom name="last" type="box" size="0.1 0.1 0.1" mass="2"/></body>
    </worldbody></mujoco>"""


def test_a_flex_contact_elsewhere_is_not_on_the_robot() -> None:
    """A flex's side of a contact has no geom (-1): read as `geom_bodyid[-1]`, the last geom's body, a cloth lying on
    a table counted as a contact on the robot whose geom is last (model-contact-carries-weight read the table's push
    on the cloth as the robot's load: a false finding the blind cases' soft ball showed). The contact forces on the
    robot carry its weight alone, the cloth's contacts are on the cloth's own vertex bodies."""
    import mujoco

    from pytest_physlaw import mujoco_versions
    from pytest_physlaw.pack import contacts, runs, settled_pose

    model = mujoco.MjModel.from_xml_string(CLOTH_ON_A_TABLE)
    robot = model.body("robot").id
    final = runs.settled(model, 500, cold=False).final
    flexes = mujoco_versions.contact_flexes(final)
    on_cloth = [i for i in range(final.ncon) if (flexes[i] >= 0).any()]
    assert on_cloth, "the cloth should rest on the table"
    assert all(robot not in set().union(*contacts.side_bodies(model, final, i)) for i in on_cloth)
    weight = 2 * float(np.linalg.norm(model.opt.gravity))
    assert settled_pose._contact_force_on(model, final, robot)[2] == pytest.approx(weight, rel=0.02)
