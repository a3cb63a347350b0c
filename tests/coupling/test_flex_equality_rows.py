"""`forward_position` runs the stages `mj_makeConstraint` reads for a flex: the flex edges' lengths and Jacobians
(`mj_flex`). Without them a cloth's edge equality rows came back all zero on MuJoCo 3.14 (the held mobility the
proxy laws read was the free one) and `mj_makeConstraint` raised "ne mis-allocation" on 3.0.1 (measured with
regressions/releases.py: 62 laws of the pack errored on its cloth)."""

from __future__ import annotations

import mujoco
import numpy as np

import coupling

CLOTH = """<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
  <flexcomp name="cloth" type="grid" count="4 4 1" spacing="0.05 0.05 0.05" pos="0 0 0.3" radius="0.004" dim="2"
            mass="0.05"><edge equality="true"/><contact selfcollide="none"/></flexcomp></worldbody></mujoco>"""


def test_a_cloths_edge_rows_are_its_edges_jacobians() -> None:
    model = mujoco.MjModel.from_xml_string(CLOTH)
    data = mujoco.MjData(model)
    coupling.forward_position(model, data)
    rows, _ = coupling.equality_rows(model, data)
    full = mujoco.MjData(model)
    mujoco.mj_forward(model, full)
    expected, _ = coupling.equality_rows(model, full)
    assert rows.shape[0] == model.nflexedge > 0
    assert np.all(np.abs(rows).sum(axis=1) > 0) and np.allclose(rows, expected)
