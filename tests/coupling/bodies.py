"""Small MuJoCo models for the coupling module's unit tests, and the dense reference they are held to.

The dense reference (`mj_fullM`, `np.linalg.solve`) lives here, in the tests only: the module itself
never forms M densely.
"""

from __future__ import annotations

import mujoco
import numpy as np

# One model holding each kind of body the module must handle, every tree at a different depth.
ZOO_XML = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="slider" pos="0 0 1">
      <joint type="slide" axis="0 0 1"/>
      <geom type="box" size=".05 .05 .05" mass="1.5"/>
    </body>
    <body name="hinged" pos="1 0 1">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="sphere" size=".01" pos=".05 0 0" mass="0.0012"/>
    </body>
    <body name="free" pos="2 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".1 .2 .05" pos=".01 .02 0" mass="1.5"/>
    </body>
    <body name="three_slides" pos="3 0 1">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/><joint type="slide" axis="0 0 1"/>
      <geom type="box" size=".05 .05 .05" mass="0.515"/>
    </body>
    <body name="cart" pos="4 0 1">
      <joint type="slide" axis="1 0 0"/>
      <geom type="box" size=".1 .05 .05" mass="1"/>
      <body name="pole">
        <joint name="pole_hinge" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 .5" size=".02" mass="0.2"/>
        <body name="pole_tip" pos="0 0 .5"><geom type="sphere" size=".03" mass="0.05"/></body>
      </body>
    </body>
    <body name="arm" pos="5 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass="0.4"/>
      <body name="forearm" pos=".3 0 0">
        <joint type="hinge" axis="0 0 1" armature="0.01"/>
        <geom type="capsule" fromto="0 0 0 .2 .05 0" size=".02" mass="0.3"/>
      </body>
    </body>
    <body name="post" pos="6 0 0"><geom type="box" size=".05 .05 .5"/></body>
    <body name="mocap" mocap="true" pos="7 0 0"><geom type="sphere" size=".05" contype="0" conaffinity="0"/></body>
  </worldbody>
</mujoco>
"""

MOVING = ("slider", "hinged", "free", "three_slides", "cart", "pole", "pole_tip", "arm", "forearm")


def zoo() -> mujoco.MjModel:
    """The model of every kind of body above."""
    return mujoco.MjModel.from_xml_string(ZOO_XML)


def random_chain(seed: int) -> mujoco.MjModel:
    """A chain of 1 to 4 links with random joints (free only at the root), masses, inertias and offsets."""
    rng = np.random.default_rng(seed)
    links = int(rng.integers(1, 5))

    def link(depth: int) -> str:
        if depth == links:
            return ""
        kinds = ["slide", "hinge", "ball"] + (["free"] if depth == 0 else [])
        kind = kinds[int(rng.integers(len(kinds)))]
        axis = " ".join(f"{v:.6f}" for v in rng.normal(size=3))
        joint = "<freejoint/>" if kind == "free" else f'<joint type="{kind}" axis="{axis}" pos="{_vec(rng, 0.05)}"/>'
        mass = rng.uniform(0.01, 2.0)
        inertia = " ".join(f"{v:.6f}" for v in rng.uniform(0.01, 0.02, size=3))  # any two sum past the third
        return (
            f'<body pos="{_vec(rng, 0.2)}" euler="{_vec(rng, 90)}">{joint}'
            f'<inertial pos="{_vec(rng, 0.1)}" mass="{mass:.6f}" diaginertia="{inertia}"/>'
            f"{link(depth + 1)}</body>"
        )

    return mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{link(0)}</worldbody></mujoco>")


def _vec(rng: np.random.Generator, scale: float) -> str:
    return " ".join(f"{v:.6f}" for v in rng.uniform(-scale, scale, size=3))


def random_pose(model: mujoco.MjModel, data: mujoco.MjData, seed: int) -> None:
    """Move every joint of `data` to a random position and run the position stages."""
    rng = np.random.default_rng(seed)
    velocity = rng.normal(size=model.nv)
    mujoco.mj_integratePos(model, data.qpos, velocity, 1.0)
    mujoco.mj_forward(model, data)


def dense_mobility(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> np.ndarray:
    """The reference W = J M^-1 J^T from the dense M (`mj_fullM`) and a dense solve."""
    mass_matrix = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass_matrix)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jacBodyCom(model, data, jacp, jacr, body)
    jacobian = np.vstack([jacp, jacr])
    return jacobian @ np.linalg.solve(mass_matrix, jacobian.T)


def com_answer(model: mujoco.MjModel, data: mujoco.MjData, body: int, wrench: np.ndarray) -> np.ndarray:
    """The change of the body's COM (linear, angular) acceleration when `wrench` acts at its COM, at rest.

    MuJoCo's own answer: `xfrc_applied` (force and torque at the body's centre of mass), `mj_forward`,
    then J (qacc_pushed - qacc_free); at zero velocity the J-dot term is zero. The data must hold no
    active constraint (no contact, no limit) for this to be the mobility's answer.
    """
    data.qvel[:] = 0.0
    data.xfrc_applied[:] = 0.0
    mujoco.mj_forward(model, data)
    free = data.qacc.copy()
    data.xfrc_applied[body] = wrench
    mujoco.mj_forward(model, data)
    pushed = data.qacc.copy()
    data.xfrc_applied[:] = 0.0
    mujoco.mj_forward(model, data)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jacBodyCom(model, data, jacp, jacr, body)
    return np.concatenate([jacp @ (pushed - free), jacr @ (pushed - free)])


def _dense_parts(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> tuple[np.ndarray, ...]:
    """(dense M, the body's 6 x nv COM Jacobian, MuJoCo's equality rows G of efc_J, their efc_R) after
    `mj_forward` (dense Jacobian models only)."""
    mass_matrix = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass_matrix)
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jacBodyCom(model, data, jacp, jacr, body)
    rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    return mass_matrix, np.vstack([jacp, jacr]), data.efc_J.reshape(data.nefc, model.nv)[rows], data.efc_R[rows]


def dense_constrained_mobility(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> np.ndarray:
    """The reference W_c = W - J M^-1 G^T (G M^-1 G^T)^+ G M^-1 J^T from dense M, dense solves and pinv."""
    mass_matrix, jacobian, G, _ = _dense_parts(model, data, body)
    inv_jt, inv_gt = np.linalg.solve(mass_matrix, jacobian.T), np.linalg.solve(mass_matrix, G.T)
    coupling_block = jacobian @ inv_gt
    return jacobian @ inv_jt - coupling_block @ np.linalg.pinv(G @ inv_gt, rcond=1e-9, hermitian=True) @ coupling_block.T


def dense_soft_mobility(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> np.ndarray:
    """The reference W_s = J (M + G^T R^-1 G)^-1 J^T from dense M and dense solves (the Woodbury form's
    other side): MuJoCo's acceleration under a force with only equality rows, R = `efc_R`."""
    mass_matrix, jacobian, G, R = _dense_parts(model, data, body)
    return jacobian @ np.linalg.solve(mass_matrix + G.T @ (G / R[:, None]), jacobian.T)
