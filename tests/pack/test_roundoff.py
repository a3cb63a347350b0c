"""The pack's figures drift against a baseline by what round-off moves them on the model itself
(`pytest_physlaw/pack/roundoff.py`): measured by a second settled run from a nudged start."""

from __future__ import annotations

import json

import pytest

TUMBLER = """<mujoco><worldbody><geom type="plane" size="3 3 0.1"/>
  <body pos="0 0 0.6"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="1"/>
    <body pos="0.1 0 0"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.015" mass="0.3"/>
      <body pos="0.2 0 0"><joint type="hinge" axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0.15 0 0" size="0.015" mass="0.2"/>
  </body></body></body></worldbody>
  <keyframe><key qpos="0 0 0.6 0.9 0.3 0.2 0.1 0 0" qvel="1 0 0 3 -2 5 8 -6"/></keyframe></mujoco>"""
END_STATE = {"sag_max_mm", "com_shift_mm", "end_speed", "drift_mm", "depth_mm", "warm_minus_cold"}


def _drifts(pytester: pytest.Pytester) -> dict[str, float]:
    pytester.path.joinpath("tumbler.xml").write_text(TUMBLER)
    result = pytester.runpytest_inprocess("--physlaw-model=tumbler.xml", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    return {c["quantity"]: c["drift"] for law in report["laws"] for c in law["checks"]}


def test_a_model_that_comes_to_rest_keeps_the_default_drift(pytester: pytest.Pytester) -> None:
    """A box with two flailing links, thrown, lands and rests: a 1e-12 nudge moves nothing by 1e-3 of itself."""
    drifts = _drifts(pytester)
    assert {q: drifts[q] for q in END_STATE} == {q: 0.01 for q in END_STATE}


def test_figures_that_the_nudge_moves_get_ten_times_that_drift(pytester: pytest.Pytester) -> None:
    """With the nudge made a thousandth of each position (a stand-in for a chaotic model), the end-state
    figures move by percents and each gets ten times its own move as its drift; figures the start does not
    reach (the total mass, nv) keep the default."""
    pytester.makeconftest("from pytest_physlaw.pack import roundoff\nroundoff.NUDGE = 1e-3\n")
    drifts = _drifts(pytester)
    moved = {q: drifts[q] for q in END_STATE}
    assert all(d > 0.01 for d in moved.values()), moved
    assert drifts["total_mass"] == drifts["nv"] == 0.01
