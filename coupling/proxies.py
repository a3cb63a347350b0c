"""Proxies of a MuJoCo body for a solver coupled to it: one scalar mass, or a turned 3 x 3 inverse mass.

A proxy answers a force at the body's centre of mass with an acceleration, `answer(force, data) =
inv_mass(data) @ force` (world frame, SI units), so that another solver (cloth, liquid, sand) can
move the body between exchanges.

- `ScalarProxy`: inv_mass = I / m with m = `scalar_mass(W)` = 3 / trace(W_tt), the isotropic fit.
  Along the only axis a slider moves on it answers 1/3 of what the body does.
- `TensorProxy`: inv_mass = R W_body R^T, W_body = R0^T W_tt R0 being W's translational block at the
  build pose turned into the body frame (R0, R: body orientation `xmat` at the build pose and now).
  Each eigenvalue of W_body is floored at lambda_max / kappa so the destination can invert it
  (kappa = math.inf: no floor, W itself). With `pose="current"` W is rebuilt from `data` at every
  call (`mobility` at the state in `data`, world frame, the same floor) instead of turned from qpos0.

Exact cases, both bit for bit:
- When the W_tt a tensor proxy would use is isotropic (to 1e-12 of its trace, e.g. a free body,
  W_tt = I / m, or a body on three orthogonal slides), the tensor proxy IS the scalar proxy of the
  same pose: it returns that proxy's own arrays.
- A body whose W_tt cannot change with the pose (a tree of slides only; a lone free body) keeps its
  qpos0 W under `pose="current"` too, so its proxies of both poses agree.

`mass` is the scalar 3 / trace(W_tt) at qpos0 for both kinds: the figure every gate, clock and seed
that wants one number reads (see `coupling.exchange` for the axis mass that sizes the exchange).

Environment (read by `proxy()` only, so that side processes configured the same way agree):
`COUPLING_PROXY_TENSOR` = "1" builds tensor proxies, "0" or unset scalar ones;
`COUPLING_PROXY_TENSOR_KAPPA` = the floor's kappa (a number >= 1 or "inf"; unset: 100).
An explicit argument wins over the variable. Any other value is a ValueError naming the variable.

`equality=True` builds either proxy from W_c, the mobility with the model's active equality
constraints held rigid (`coupling.spatial_mobility`), at qpos0 and, with `pose="current"`, at
every call; `equality="soft"` from W_s, the constraints held through MuJoCo's impedance `efc_R`:
the answer MuJoCo itself gives a held body. The default, False, is W as before, bit for bit: a linkage closed by equalities (a
gripper's fingers) is then treated as free (docs/known_gaps/proxy-ignores-equality.md).
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass

import mujoco
import numpy as np

from pytest_physlaw import mujoco_versions

from ._inputs import equality_mode, force_vector, matching_data, mj_model, moving_body
from .masses import scalar_mass, translation_block
from .spatial_mobility import forward_position, mobility

TENSOR_ENV = "COUPLING_PROXY_TENSOR"
KAPPA_ENV = "COUPLING_PROXY_TENSOR_KAPPA"
DEFAULT_KAPPA = 100.0
POSES = ("qpos0", "current")
ISOTROPY_TOLERANCE = 1e-12  # of trace / 3; a free body's W_tt misses I / m by ~1e-18 relative


def check_kappa(kappa: object, name: str = "kappa") -> float:
    """`kappa` as a float >= 1 (math.inf allowed: no floor), else a ValueError naming `name`."""
    if isinstance(kappa, (bool, np.bool_)) or not isinstance(kappa, numbers.Real) or math.isnan(kappa):
        raise ValueError(f"{name} must be a real number >= 1 or math.inf, got {kappa!r}")
    if kappa <= 0:
        raise ValueError(f"{name} must be positive (a ratio of eigenvalues, >= 1), got {kappa!r}")
    if kappa < 1:
        raise ValueError(f"{name} must be >= 1: a floor at lambda_max / {kappa!r} lies above lambda_max")
    return float(kappa)


def tensor_from_env() -> bool:
    """The `COUPLING_PROXY_TENSOR` switch: True for "1", False for "0", empty or unset."""
    value = os.environ.get(TENSOR_ENV, "").strip()
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    raise ValueError(f"{TENSOR_ENV} must be '0' or '1' (or unset), got {value!r}")


def kappa_from_env() -> float:
    """The `COUPLING_PROXY_TENSOR_KAPPA` floor (default 100 when unset or empty)."""
    value = os.environ.get(KAPPA_ENV, "").strip()
    if value == "":
        return DEFAULT_KAPPA
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{KAPPA_ENV} must be a number >= 1 or 'inf', got {value!r}") from None
    return check_kappa(number, KAPPA_ENV)


def is_isotropic(inv_mass: np.ndarray) -> bool:
    """Whether a 3 x 3 inverse mass is a multiple of I to `ISOTROPY_TOLERANCE` of its trace / 3."""
    level = np.trace(inv_mass) / 3.0
    return bool(np.max(np.abs(inv_mass - level * np.eye(3))) <= ISOTROPY_TOLERANCE * abs(level))


def floor_eigenvalues(inv_mass: np.ndarray, kappa: float) -> np.ndarray:
    """`inv_mass` (symmetric 3 x 3) with each eigenvalue raised to at least lambda_max / kappa."""
    if math.isinf(kappa):
        return inv_mass.copy()
    values, vectors = np.linalg.eigh(inv_mass)
    floored = np.maximum(values, values[-1] / kappa)
    result = (vectors * floored) @ vectors.T
    return 0.5 * (result + result.T)


def pose_invariant(model: mujoco.MjModel, body: int) -> bool:
    """Whether W_tt of `body` is the same at every pose of its kinematic tree.

    True when every dof of the body's tree is a slide (J and M then never change), or when the
    tree is the body alone on a free joint (W_tt = I / m). Slides in the body's own chain are not
    enough: a hinged descendant (a pole on a cart) changes the body's M^-1 with its angle. Nor is either
    where a tendon with armature reaches the tree: its armature adds a J_t^T J_t to M (`mj_makeM`), and a
    tendon's direction is the world's or another tree's, not the body's (a puck tethered to a reel: m I + a u u^T,
    u from the reel to the puck, which does not turn with the puck).
    """
    if _tendon_armature_reaches(model, body):
        return False
    tree = model.body_treeid[body]
    dofs = mujoco_versions.tree_dofs(model, tree)
    kinds = model.jnt_type[model.dof_jntid[dofs]]
    if np.all(kinds == mujoco.mjtJoint.mjJNT_SLIDE):
        return True
    return bool(mujoco_versions.tree_bodies(model, tree) == 1 and np.all(kinds == mujoco.mjtJoint.mjJNT_FREE))


def _tendon_armature_reaches(model: mujoco.MjModel, body: int) -> bool:
    """Whether a tendon with armature (`tendon_armature`, MuJoCo 3.3 on) has a moment on the body's tree's dofs at
    qpos0 or wraps a site, geom or joint of that tree (its moment may vanish at qpos0 and not elsewhere)."""
    armature = np.asarray(getattr(model, "tendon_armature", np.zeros(model.ntendon)))
    if not np.any(armature > 0):
        return False
    tree = int(model.body_treeid[body])
    owners = {int(mujoco.mjtWrap.mjWRAP_JOINT): lambda i: model.jnt_bodyid[i],
              int(mujoco.mjtWrap.mjWRAP_SITE): lambda i: model.site_bodyid[i],
              int(mujoco.mjtWrap.mjWRAP_SPHERE): lambda i: model.geom_bodyid[i],
              int(mujoco.mjtWrap.mjWRAP_CYLINDER): lambda i: model.geom_bodyid[i]}
    for t in np.flatnonzero(armature > 0).tolist():
        start, count = int(model.tendon_adr[t]), int(model.tendon_num[t])
        for w in range(start, start + count):
            owner = owners.get(int(model.wrap_type[w]))
            if owner is not None and int(model.body_treeid[int(owner(int(model.wrap_objid[w])))]) == tree:
                return True
    return False


def _check_pose(pose: object) -> str:
    if pose not in POSES:
        raise ValueError(f"pose must be one of {POSES}, got {pose!r}")
    return str(pose)


def _body_rotation(data: mujoco.MjData, body: int) -> np.ndarray:
    rotation = data.xmat[body].reshape(3, 3)
    if abs(np.linalg.det(rotation) - 1.0) > 1e-6:
        raise ValueError("data: the body's xmat is not a rotation; call mujoco.mj_forward(model, data) first")
    return rotation.copy()


@dataclass(frozen=True)
class _Build:
    """What a proxy reads once, at qpos0."""

    model: mujoco.MjModel
    body: int
    pose: str
    mobility0: np.ndarray
    rotation0: np.ndarray
    invariant: bool
    equality: bool | str


def _build(model: mujoco.MjModel, body: int | str, pose: object, equality: object) -> _Build:
    model = mj_model(model)
    body_id = moving_body(model, body)
    pose = _check_pose(pose)
    equality = equality_mode(equality)
    data0 = mujoco.MjData(model)
    forward_position(model, data0)
    # Equality rows may tie the body to any tree and change with any pose: no invariance is assumed.
    invariant = pose_invariant(model, body_id) and not (equality and model.neq)
    return _Build(
        model, body_id, pose, mobility(model, data0, body_id, equality=equality), _body_rotation(data0, body_id),
        invariant, equality,
    )


class ScalarProxy:
    """A body's proxy with one mass m = 3 / trace(W_tt) at qpos0: inv_mass = I / m."""

    tensor = False

    def __init__(
        self, model: mujoco.MjModel, body: int | str, *, pose: str = "qpos0", equality: bool | str = False
    ) -> None:
        self._init(_build(model, body, pose, equality))

    @classmethod
    def _of(cls, build: _Build) -> ScalarProxy:
        proxy = cls.__new__(cls)
        proxy._init(build)
        return proxy

    def _init(self, build: _Build) -> None:
        self._build = build
        self._mass = scalar_mass(build.mobility0)

    @property
    def body(self) -> int:
        """The body's id."""
        return self._build.body

    @property
    def name(self) -> str:
        """The body's name in the model."""
        return self._build.model.body(self._build.body).name

    @property
    def pose(self) -> str:
        """Where W comes from: "qpos0" (built there once) or "current" (rebuilt from the data given)."""
        return self._build.pose

    @property
    def equality(self) -> bool | str:
        """How W takes the model's active equality constraints: False (free W), True (held rigid, W_c),
        "soft" (held through MuJoCo's impedance, W_s: MuJoCo's own answer)."""
        return self._build.equality

    @property
    def mass(self) -> float:
        """3 / trace(W_tt) at qpos0, in kg (1 / `body_invweight0` on MuJoCo's general path)."""
        return self._mass

    @property
    def mobility0(self) -> np.ndarray:
        """The 6 x 6 W at qpos0 this proxy was built from (a copy)."""
        return self._build.mobility0.copy()

    def inv_mass(self, data: mujoco.MjData) -> np.ndarray:
        """I / m (3 x 3, world frame, 1/kg); m from qpos0, or from `data`'s state with pose="current"."""
        build = self._build
        data = matching_data(build.model, data)
        if build.pose == "qpos0" or build.invariant:
            return np.eye(3) * (1.0 / self._mass)
        return np.eye(3) * (1.0 / scalar_mass(mobility(build.model, data, build.body, equality=build.equality)))

    def answer(self, force: np.ndarray, data: mujoco.MjData) -> np.ndarray:
        """The proxy's acceleration (m/s^2, world frame) under `force` (N, world frame) at its centre of mass."""
        force = force_vector(force)
        return self.inv_mass(data) @ force

    def __repr__(self) -> str:
        held = f", equality={self.equality!r}" if self.equality else ""
        return f"ScalarProxy(body={self.name!r}, mass={self._mass:.6g} kg, pose={self.pose!r}{held})"


class TensorProxy:
    """A body's proxy with a 3 x 3 inverse mass: W_tt kept in the body frame, turned with the body, floored.

    `isotropic0` says whether W_tt at qpos0 is isotropic, in which case this proxy answers through
    its scalar twin (bit for bit the ScalarProxy of the same pose). `kappa` is the floor's ratio.
    """

    tensor = True

    def __init__(
        self,
        model: mujoco.MjModel,
        body: int | str,
        *,
        kappa: float = DEFAULT_KAPPA,
        pose: str = "qpos0",
        equality: bool | str = False,
    ) -> None:
        self._kappa = check_kappa(kappa)
        build = _build(model, body, pose, equality)
        self._build = build
        self._scalar = ScalarProxy._of(build)  # the path taken whenever W_tt is isotropic
        inv_mass0 = translation_block(build.mobility0)
        self._isotropic0 = is_isotropic(inv_mass0)
        rotation0 = build.rotation0
        self._inv_mass_body = rotation0.T @ floor_eigenvalues(inv_mass0, self._kappa) @ rotation0

    body = ScalarProxy.body
    name = ScalarProxy.name
    pose = ScalarProxy.pose
    equality = ScalarProxy.equality
    mobility0 = ScalarProxy.mobility0

    @property
    def kappa(self) -> float:
        """The floor's ratio: each eigenvalue is kept at lambda_max / kappa or more (math.inf: no floor)."""
        return self._kappa

    @property
    def isotropic0(self) -> bool:
        """Whether W_tt at qpos0 is isotropic (to 1e-12 of trace / 3): then the scalar path answers."""
        return self._isotropic0

    @property
    def mass(self) -> float:
        """3 / trace(W_tt) at qpos0, in kg: the scalar proxy's mass, for gates and clocks that want one number."""
        return self._scalar.mass

    @property
    def inv_mass_body(self) -> np.ndarray:
        """The floored W_tt of qpos0 in the body frame (3 x 3, 1/kg): the tensor this proxy turns."""
        return self._inv_mass_body.copy()

    def _turned(self) -> bool:
        return self._build.pose == "qpos0" or self._build.invariant

    def inv_mass(self, data: mujoco.MjData) -> np.ndarray:
        """The proxy's inverse mass (3 x 3, world frame, 1/kg) at the state in `data`."""
        build = self._build
        data = matching_data(build.model, data)
        if self._turned():
            if self._isotropic0:
                return self._scalar.inv_mass(data)
            rotation = _body_rotation(data, build.body)
            return rotation @ self._inv_mass_body @ rotation.T
        current = translation_block(mobility(build.model, data, build.body, equality=build.equality))
        if is_isotropic(current):
            return np.eye(3) * (1.0 / scalar_mass(current))  # the pose="current" ScalarProxy's own sum
        return floor_eigenvalues(current, self._kappa)

    def answer(self, force: np.ndarray, data: mujoco.MjData) -> np.ndarray:
        """The proxy's acceleration (m/s^2, world frame) under `force` (N, world frame) at its centre of mass."""
        force = force_vector(force)
        if self._turned() and self._isotropic0:
            return self._scalar.answer(force, data)
        return self.inv_mass(data) @ force

    def __repr__(self) -> str:
        held = f", equality={self.equality!r}" if self.equality else ""
        return (
            f"TensorProxy(body={self.name!r}, mass={self.mass:.6g} kg, kappa={self.kappa:g}, "
            f"pose={self.pose!r}{held})"
        )


def proxy(
    model: mujoco.MjModel,
    body: int | str,
    *,
    tensor: bool | None = None,
    kappa: float | None = None,
    pose: str = "qpos0",
    equality: bool | str = False,
) -> ScalarProxy | TensorProxy:
    """The proxy of `body`: a TensorProxy if `tensor` (None: `COUPLING_PROXY_TENSOR`), else a ScalarProxy.

    `kappa` (None: `COUPLING_PROXY_TENSOR_KAPPA`, default 100; math.inf: no floor) is the tensor's
    eigenvalue floor lambda_max / kappa; a scalar proxy checks it and has no use for it. `pose` is
    "qpos0" (W built once there) or "current" (W rebuilt from the data passed to `inv_mass`).
    `equality=True` builds it from W_c, the model's active equality constraints held rigid;
    `equality="soft"` from W_s, held through their impedance as MuJoCo holds them.
    """
    mj_model(model)
    if tensor is None:
        tensor = tensor_from_env()
    elif not isinstance(tensor, (bool, np.bool_)):
        raise ValueError(f"tensor must be True, False or None (read {TENSOR_ENV}), got {tensor!r}")
    pose = _check_pose(pose)
    if kappa is not None:
        kappa = check_kappa(kappa)
    equality = equality_mode(equality)
    if not tensor:
        return ScalarProxy(model, body, pose=pose, equality=equality)
    kappa = kappa_from_env() if kappa is None else kappa
    return TensorProxy(model, body, kappa=kappa, pose=pose, equality=equality)
