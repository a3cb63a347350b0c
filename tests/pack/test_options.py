"""`pack.options.changed`: a model's options set for one block and every one restored after it, an error included."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import options

BALL = """<mujoco><option tolerance="1e-6" gravity="0 0 -3"/><worldbody><body><freejoint/><geom size="0.1"/></body>
    </worldbody></mujoco>"""


def test_options_are_set_in_the_block_and_restored_after() -> None:
    model = mujoco.MjModel.from_xml_string(BALL)
    with options.changed(model, {"tolerance": 1e-12, "gravity": np.array([0.0, 0.0, 0.0])}) as m:
        assert m is model and model.opt.tolerance == 1e-12 and not np.any(model.opt.gravity)
    assert model.opt.tolerance == 1e-6 and np.allclose(model.opt.gravity, [0, 0, -3])


def test_options_are_restored_when_the_block_raises() -> None:
    model = mujoco.MjModel.from_xml_string(BALL)
    with pytest.raises(RuntimeError), options.changed(model, options.cold(model, {"solver": 0})):
        assert model.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)
        raise RuntimeError("a law failed mid-solve")
    assert model.opt.disableflags == 0 and model.opt.solver == int(mujoco.mjtSolver.mjSOL_NEWTON)


def test_an_unknown_option_is_named() -> None:
    model = mujoco.MjModel.from_xml_string(BALL)
    with pytest.raises(AttributeError, match="no field tolerence"), options.changed(model, {"tolerence": 1.0}):
        pass
    assert model.opt.tolerance == 1e-6


def test_a_forward_pass_in_the_block_is_the_copy_s() -> None:
    """Changing the options on the model computes what a copy with those options computes."""
    model = mujoco.MjModel.from_xml_string(BALL)
    other = mujoco.MjModel.from_xml_string(BALL)
    other.opt.gravity[:] = [0, 0, -7]
    a, b = mujoco.MjData(model), mujoco.MjData(other)
    with options.changed(model, {"gravity": np.array([0.0, 0.0, -7.0])}):
        mujoco.mj_forward(model, a)
    mujoco.mj_forward(other, b)
    assert np.array_equal(a.qacc, b.qacc)
