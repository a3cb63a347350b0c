"""Laws of the coupling proxies of the model's bodies: the tensor proxy answers a push as MuJoCo moves
the body, and the scalar proxy's error along the body's mobile axis is recorded. Sources: MuJoCo's
forward dynamics (`mj_forward`, `mj_jacBodyCom`, `mj_solveM2`); pytest-physlaw's docs/known_gaps pages
proxy-isotropic-mass.md (the scalar proxy) and proxy-ignores-equality.md (held bodies, W_s).

A body held by equality constraints (W_c differs from W) is compared as MuJoCo holds it: its proxies
are built from the soft mobility W_s (`equality="soft"`), the equalities held through their impedance
`efc_R`, and MuJoCo's answer is its converged one (Newton to 1e-14).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pytest_physlaw.pack import measure
from pytest_physlaw.pack.fixtures import SEED

SOURCE = "MuJoCo forward dynamics; docs/known_gaps/proxy-isotropic-mass.md, proxy-ignores-equality.md"
ROUND_OFF = 1e-9  # relative: 3 lambda_max / trace(W_tt) lies in [1, 3] but for a few ulps
ANSWER = 1e-6  # relative: W (or W_s) and MuJoCo solve one linear system; two accelerations differenced


def _body(pack_model: Any, bodies: measure.Bodies, body_case: tuple[int | None, str]) -> int:
    body, name = body_case
    if body is None:
        pytest.skip(f"{pack_model.rel}: {name} movable bodies not checked (the pack checks the first "
                    "MAX_BODIES = 30 of a model)")
    if body not in bodies.translating:
        pytest.skip(f"{pack_model.rel}: body {name!r}: its centre of mass cannot translate (W_tt = 0 at qpos0): "
                    "no answer along an axis to compare")
    return body


def _answers(pack_model: Any, bodies: measure.Bodies, body: int, qpos: np.ndarray) -> measure.BodyAnswers:
    try:
        return measure.answers(bodies, body, qpos)
    except ValueError as exc:  # the coupling API refuses what it cannot measure, naming why
        pytest.skip(f"{pack_model.rel}: body {pack_model.model.body(body).name!r}: {exc}")


@pytest.mark.law("model-tensor-proxy-answers", source=SOURCE)
def test_tensor_proxy_answers_like_the_body(law, pack_model, bodies, body_case) -> None:
    """The current-pose tensor proxy answers 1 N along the body's mobile axis as MuJoCo moves the body,
    to 1e-6, at qpos0 and at a seeded pose within the joint ranges: along that axis it is the body's
    mobility, which is MuJoCo's own answer. A held body: W_s against MuJoCo's converged answer."""
    body = _body(pack_model, bodies, body_case)
    model = pack_model.model
    for pose, qpos in (("qpos0", model.qpos0), ("seeded", measure.seeded_pose(model, SEED + body))):
        a = _answers(pack_model, bodies, body, qpos)
        held = ", held by its equality constraints (soft mobility W_s)" if a.held else ""
        law.check(f"answer_{pose}", a.tensor, near=a.body, rel=ANSWER, unit="1/kg",
                  why=f"J M^-1 J^T F is what mj_forward computes{held}: equal but for round-off")


@pytest.mark.law("model-scalar-over-axis", source=SOURCE)
def test_scalar_proxy_error_along_the_axis(law, pack_model, bodies, body_case) -> None:
    """Along the body's mobile axis the scalar proxy answers 1/r of what the body's mobility W does,
    r = scalar/axis mass = 3 lambda_max / trace(W_tt): between 1 (isotropic, a free body) and 3 (one
    axis); recorded so that the gate sees it move. Held bodies: W_s."""
    body = _body(pack_model, bodies, body_case)
    a = _answers(pack_model, bodies, body, pack_model.model.qpos0)
    law.check("scalar_over_axis", a.tensor / a.scalar, ge=1 - ROUND_OFF, le=3 * (1 + ROUND_OFF), drift_abs=1e-9,
              why="1: isotropic, 3: one free axis (the trace of a 3 x 3 PSD block is 1 to 3 times its largest eigenvalue)")
