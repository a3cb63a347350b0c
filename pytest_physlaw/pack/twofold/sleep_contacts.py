"""Sleep keeps contacts: a geom of a sleeping tree and a geom of a moving body (an awake tree, or a mocap body the run
drags) that overlap by more than the distance's own error have a contact, which wakes the sleeping tree. The second
computation is the pair's distance by `mj_geomDistance` (`mujoco_versions.geom_distance`), beside the contacts of
the model run as written, with sleep on. Source: MuJoCo's documentation (Computation: Sleeping: "Contacts between
sleeping islands and awake trees are allowed, and indeed are the main automatic trigger for waking ... the woken
island will behave exactly as if it was awake all along"; changelog 3.12.0: dragging a mocap body into sleeping
objects wakes them).

The rest of the pack measures a sleeping model awake (`pytest_physlaw.pack`); this law alone runs it as written:
the reaching run (`reaching.reaching`, mocap bodies swept through the nearest part) with sleep on, judged at every
step at which a tree is asleep. Which pairs collide is the filter's (`distance.admitted`) less its sleep rule; only
pairs whose bounding spheres overlap are measured. Bound: `distance.tolerance` (2 ccd_tolerance + 1e-9 of the
extent), as for `model-overlapping-pairs-collide`.

Measured figures and commands: docs/second-computations.md ("Sleep keeps contacts").
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import reaching
from pytest_physlaw.pack.twofold import distance

SOURCE = "MuJoCo documentation, Computation: Sleeping; changelog 3.12.0 (mocap bodies wake sleeping trees)"


class Watch:
    """Judges each step of a sleeping run: the deepest overlap without a contact between a sleeping geom and a moving
    one, over the bound, and where."""

    def __init__(self, model: mujoco.MjModel, awake: mujoco.MjModel) -> None:
        self.model, self.awake = model, awake
        self.bound = distance.tolerance(model)
        self.worst, self.where = 0.0, ""
        self.steps, self.pairs = 0, 0  # steps with a tree asleep; pair-states measured
        self.geom_body = np.asarray(model.geom_bodyid)
        self.dragged: np.ndarray | None = None  # the bodies the swept mocap bodies carry (set at the first step)

    def __call__(self, data: mujoco.MjData, sweep: reaching.Sweeps) -> None:
        asleep = mujoco_versions.sleeping_bodies(data)
        if not asleep.any():
            return
        self.steps += 1
        if self.dragged is None:
            roots = np.flatnonzero(np.isin(np.asarray(self.model.body_mocapid), sweep.mocap))
            self.dragged = np.array([any(reaching.under(self.model, b, r) for r in roots.tolist())
                                     for b in range(self.model.nbody)], dtype=bool)
        awake = np.asarray(data.body_awake) == int(mujoco.mjtSleepState.mjS_AWAKE)
        moving = (awake & (np.asarray(self.model.body_treeid) >= 0)) | self.dragged
        dozing, going = np.flatnonzero(asleep[self.geom_body]), np.flatnonzero(moving[self.geom_body])
        if not dozing.size or not going.size:
            return
        pos, radius = np.asarray(data.geom_xpos), np.asarray(self.model.geom_rbound)
        apart = np.linalg.norm(pos[dozing, None] - pos[None, going], axis=-1)
        a, b = np.nonzero(apart <= radius[dozing, None] + radius[None, going])
        g1, g2 = np.minimum(dozing[a], going[b]), np.maximum(dozing[a], going[b])
        pairs, _ = distance.admitted(self.awake, data, distance.Pairs(g1, g2))  # the filter less its sleep rule
        contacted = distance.deepest_contacts(data)
        for p, q in zip(pairs.geom1.tolist(), pairs.geom2.tolist()):
            self.pairs += 1
            if (p, q) in contacted:
                continue
            dist = mujoco_versions.geom_distance(self.model, data, p, q, 0.0)
            if dist is not None and -dist / self.bound > self.worst:
                self.worst = -dist / self.bound
                self.where = (f"{distance.pair_name(self.model, p, q)} overlap by {-dist:.4g} with no contact at "
                              f"t = {float(data.time):.3f} s")


@pytest.mark.law("model-sleep-keeps-contacts", source=SOURCE)
def test_sleep_keeps_contacts(law, pack_model: Any, settings: Any, horizon: int, model_case: str) -> None:
    """A sleeping tree keeps its contacts with what moves into it (an awake tree, a dragged mocap body): no such pair
    overlaps by more than the distance's own error without a contact, at any step of the reaching run of the model as
    written, sleep on."""
    if not pack_model.sleeps:
        pytest.skip(f"{model_case}: the model does not let its trees sleep (<flag sleep=\"enable\"/>)")
    awake = pack_model.model
    if distance.contacts_off(awake):
        pytest.skip(f"{model_case}: contacts are off (<flag contact=\"disable\"> or constraint)")
    model = mujoco_versions.asleep(awake)
    watch = Watch(model, awake)
    run = reaching.reaching(model, horizon, settings.keyframe, watch)
    swept = "; mocap " + ", ".join(f"{m} swept through {b}" for m, b in run.swept.items()) if run.swept else ""
    if not watch.pairs:
        pytest.skip(f"{model_case}: no moving body came near a sleeping one in the reaching run ({watch.steps} steps "
                    f"with a tree asleep{swept})")
    law.check("overlap_with_a_sleeping_tree_over_tolerance", watch.worst, le=1.0, drift_abs=1.0,
              why=f"the deepest overlap of a sleeping tree's geom and a moving body's that has no contact, over the "
                  f"distance's own error ({watch.bound:.3g}), over {watch.pairs} pair-states in {watch.steps} steps "
                  f"with a tree asleep{swept}: {watch.where or 'every such overlap has a contact'}; failing, an engine "
                  f"defect of MuJoCo {mujoco.__version__}'s sleep (not the model's): the collision skipped a moving "
                  "body's pair with a sleeping tree as if both were at rest, so nothing wakes the tree and the body "
                  "passes through it (3.4.0 to 3.11.0: a mocap body was taken for the world); report it, or change "
                  "MuJoCo version, or disable sleep")
