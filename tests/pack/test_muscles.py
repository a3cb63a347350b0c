"""model-muscles-only-pull: passes on sound muscles and fails where MuJoCo's muscle curves push (the fault of MuJoCo
3.1.1, #1342, injected into `mju_muscleGain`) or a muscle's reported force does."""

from __future__ import annotations

import json

import mujoco
import pytest

# an elbow flexed by a muscle whose operating range reaches below lmin (0.5): its shortest lengths are where 3.1.1's
# gain curve turned positive
ELBOW = """<mujoco><worldbody><body name="upper"><geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
  <site name="origin" pos="0.04 0 -0.05"/><body name="forearm" pos="0 0 -0.3">
  <joint name="elbow" axis="0 1 0" range="-150 0" limited="true" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.025" mass="0.5"/><site name="insertion" pos="0.03 0 -0.05"/>
  </body></body></worldbody><tendon><spatial name="biceps"><site site="origin"/><site site="insertion"/></spatial></tendon>
  <actuator><muscle name="biceps" tendon="biceps" range="0.2 1.05" force="20"/></actuator></mujoco>"""


def _outcome(pytester: pytest.Pytester) -> dict:
    pytester.path.joinpath("elbow.xml").write_text(ELBOW)
    pytester.runpytest_inprocess("--physlaw-model=elbow.xml", "-p", "no:cacheprovider", "-k", "muscles_only_pull")
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == "model-muscles-only-pull"]
    return record


def test_a_sound_muscle_only_pulls(pytester: pytest.Pytester) -> None:
    assert _outcome(pytester)["outcome"] == "passed"


def test_a_gain_that_pushes_below_lmin_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = mujoco.mju_muscleGain

    def pushing(length, velocity, lengthrange, acc0, prm):  # 3.1.1: FL below lmin extrapolated, not zero
        lmin = prm[4]
        lo, hi, l0 = prm[0], prm[1], (lengthrange[1] - lengthrange[0]) / (prm[1] - prm[0])
        normalized = lo + (length - lengthrange[0]) / l0
        return real(length, velocity, lengthrange, acc0, prm) + (abs(prm[2]) * 5 if normalized < lmin else 0.0)

    monkeypatch.setattr(mujoco, "mju_muscleGain", pushing)
    record = _outcome(pytester)
    assert record["outcome"] == "failed"
    assert [c["quantity"] for c in record["checks"] if not c["passed"]] == ["curve_push_share"]


def test_a_reported_muscle_force_that_pushes_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = mujoco.mj_forward

    def flipped(m, d):  # the step reports the muscle's force with the wrong sign
        real(m, d)
        d.actuator_force[:] = abs(d.actuator_force) + 1.0

    monkeypatch.setattr(mujoco, "mj_forward", flipped)
    record = _outcome(pytester)
    assert record["outcome"] == "failed"
    assert "muscle_push_share" in [c["quantity"] for c in record["checks"] if not c["passed"]]
