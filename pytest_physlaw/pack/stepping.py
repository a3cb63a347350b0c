"""Laws of the model's stepping: MuJoCo raises no warning over the run, with the model's own controls or
seeded ones inside their ranges, and the timestep resolves the motion (the run at half the timestep
ends where this one does). Sources: MuJoCo's documentation ("Programming": `mjData.warning`, warning
types; "Computation": numerical integration); MuJoCo Menagerie's model test (random controls inside
ctrlrange, no warning); Richardson's convergence test (a first-order integrator's error is about the
change that halving its step makes).

Measured:
`pytest --physlaw-model=MODEL.xml -k "warning or timestep" -s`; see README ("Your own model").
"""

from __future__ import annotations

import numpy as np
import pytest

from pytest_physlaw.pack import runs
from pytest_physlaw.pack.fixtures import SEED

SOURCE = "MuJoCo documentation (mjData.warning; numerical integration); MuJoCo Menagerie's model test"
RESOLVED = 0.1  # of how far the bodies moved: halving the timestep may move them no more than this
STILL = 1e-6  # m: bodies that moved less than this over the run leave nothing to resolve


@pytest.mark.law("model-no-warnings", source=SOURCE)
def test_no_mujoco_warning(law, pack_model, settled, settings, horizon, model_case) -> None:
    """Over the settled run and a run with seeded controls inside each actuator's ctrlrange, MuJoCo raises
    no warning (no contact or constraint buffer full, no bad qacc reset, no inertia or timer warning)."""
    found = dict(settled.warnings)
    if settings.controls == "seeded" and pack_model.model.nu:
        for name, count in runs.exercised(pack_model.model, horizon, settings.keyframe, SEED).items():
            found[name] = found.get(name, 0) + count
    law.check("warnings", sum(found.values()), near=0, abs=0,
              why="MuJoCo's warnings over both runs: " + (", ".join(f"{n} x{c}" for n, c in sorted(found.items()))
                                                          or "none"))


@pytest.mark.law("model-timestep-converged", source=SOURCE)
def test_timestep_resolves_the_motion(law, pack_model, settled, settled_half_step, model_case) -> None:
    """Run again at half the model's timestep over the same simulated time, each body keeps to where this
    run has it, at every step of this run, within a tenth of how far the bodies moved (root mean square
    over the run): the timestep resolves the motion (Richardson: a first-order integrator's error is
    about the change that halving its step makes). An impact's timing shifts by half a step either way:
    the mean over the run, not the worst step, is what the motion's resolution is judged by."""
    coarse, fine = settled.xpos, settled_half_step.xpos[::2]
    moved = float(np.max(np.linalg.norm(coarse - coarse[:1], axis=2)))
    if moved < STILL:
        pytest.skip(f"{model_case}: no body moved more than {STILL * 1e6:g} um over the run: nothing to resolve")
    shift = float(np.max(np.sqrt(np.mean(np.sum((fine - coarse) ** 2, axis=2), axis=0))))
    law.check("half_step_shift", shift / moved, le=RESOLVED, drift_abs=1e-9,
              why=f"the largest RMS shift of a body when the timestep is halved ({shift * 1000:.3g} mm), over the "
                  f"farthest any body moved ({moved * 1000:.3g} mm); if it fails, lower <option timestep> or "
                  "accept the finding (ini physlaw_model_accept)")
