"""model-jacobian-dot-is-its-rate (`pytest_physlaw.pack.twofold.jacobian_rates`): a chain of every joint kind passes;
`mj_jacDot` without the term of its point's own motion (MuJoCo 3.2.7's), or off by 1e-4 of itself, fails (the fault
injected for the run); a state at rest has nothing to judge, and a release without `mj_jacDot` is skipped, naming
it."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack.twofold import jacobian_rates
from tests.pack.law_record import law_record
from tests.pack.test_body_velocities import CHAIN

LAW = "model-jacobian-dot-is-its-rate"


@pytest.fixture
def chain(pytester: pytest.Pytester) -> str:
    pytester.path.joinpath("chain.xml").write_text(CHAIN)
    return "chain.xml"


def _point_held(real):
    """mj_jacDot as if its point did not move with the body: the translation rows lose -[v_p]x Jr, the term of the
    point's own velocity (MuJoCo 3.2.7 left it out)."""
    def reported(m, d, jacp, jacr, point, body):
        real(m, d, jacp, jacr, point, body)
        jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jac(m, d, jp, jr, point, body)
        v = jp @ d.qvel
        jacp += np.cross(v[:, None], jr, axis=0)
    return reported


def _scaled(real):
    """mj_jacDot 1e-4 of itself too large."""
    def reported(m, d, jacp, jacr, point, body):
        real(m, d, jacp, jacr, point, body)
        jacp *= 1 + 1e-4
        jacr *= 1 + 1e-4
    return reported


FIXED = (3, 3, 1)  # mj_jacDot (3.2.3 on) left out its point's own motion until 3.3.1 (changelog 3.3.1; measured)
SOUND = pytest.mark.skipif(mujoco_versions.version() < FIXED,
                           reason=f"MuJoCo {mujoco.__version__}'s mj_jacDot leaves out its point's motion (to 3.3.0)")


@pytest.mark.skipif(not mujoco_versions.has_jacobian_dot(), reason=f"MuJoCo {mujoco.__version__} has no mj_jacDot")
def test_a_chain_of_every_joint_kind_passes_where_mj_jacDot_is_sound(pytester: pytest.Pytester, chain: str) -> None:
    """From 3.3.1 the chain passes; on 3.2.3 to 3.3.0 the law sees the released defect (6.5e7 x on 3.2.3) and names
    it as that release's known defect (xfailed: mujoco_versions.KNOWN_DEFECTS)."""
    record = law_record(pytester, chain, "jacobian_dot", LAW)
    if mujoco_versions.version() < FIXED:
        assert record["outcome"] == "xfailed" and record["checks"][0]["value"] > 1e6, record
    else:
        assert record["outcome"] == "passed", record
        assert 0 < record["checks"][0]["value"] < 1, record


@SOUND
@pytest.mark.skipif(not mujoco_versions.has_jacobian_dot(), reason=f"MuJoCo {mujoco.__version__} has no mj_jacDot")
@pytest.mark.parametrize("fault", [_point_held, _scaled], ids=["point-held", "scaled"])
def test_a_derivative_other_than_the_jacobians_rate_fails(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                            chain: str, fault) -> None:
    monkeypatch.setattr(mujoco, "mj_jacDot", fault(mujoco.mj_jacDot))
    record = law_record(pytester, chain, "jacobian_dot", LAW)
    assert record["outcome"] == "failed", record
    assert record["checks"][0]["value"] > 1, record


@SOUND
@pytest.mark.skipif(not mujoco_versions.has_jacobian_dot(), reason=f"MuJoCo {mujoco.__version__} has no mj_jacDot")
def test_a_known_defects_release_ends_xfailed_naming_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                        chain: str) -> None:
    """On a release in the known defect's range (3.3.0 pretended, mj_jacDot made to hold its point), the law's
    failure ends xfailed naming the release's defect and the fix, its value kept; outside the range the same
    fault fails."""
    monkeypatch.setattr(mujoco, "mj_jacDot", _point_held(mujoco.mj_jacDot))
    monkeypatch.setattr(mujoco_versions, "version", lambda: (3, 3, 0))
    record = law_record(pytester, chain, "jacobian_dot", LAW)
    assert record["outcome"] == "xfailed" and record["checks"][0]["value"] > 1, record
    assert "fixed in 3.3.1; corpus case mujoco-3.3.1-jacdot" in json.dumps(record), record


def test_a_release_without_jacobian_dot_is_skipped_naming_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                             chain: str) -> None:
    monkeypatch.setattr(mujoco_versions, "has_jacobian_dot", lambda: False)
    result = pytester.runpytest_inprocess(f"--physlaw-model={chain}", "-p", "no:cacheprovider", "-k", "jacobian_dot",
                                          "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*has no mj_jacDot (added in 3.2.3)*"])


@SOUND
@pytest.mark.skipif(not mujoco_versions.has_jacobian_dot(), reason=f"MuJoCo {mujoco.__version__} has no mj_jacDot")
def test_a_state_at_rest_is_not_judged_and_a_moving_one_is() -> None:
    model = mujoco.MjModel.from_xml_string(CHAIN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    assert jacobian_rates.mismatch(model, data) is None
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    over, share, bodies = jacobian_rates.mismatch(model, data)
    assert over.shape == (model.nbody - 2, 2) and np.all(over < 1), over
