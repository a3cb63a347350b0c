"""The scalar proxy is MuJoCo's `body_invweight0`, except where MuJoCo takes its "simple body" shortcut.
Source: MuJoCo's `mj_setConst` (src/engine/engine_setconst.c) and its documentation of
`mjModel.body_invweight0`.

Laws:
- General path: `body_invweight0[b, 0]` is trace(W_tt) / 3 of W = J M^-1 J^T at qpos0, so the
  scalar proxy's mass 3 / trace(W_tt) is 1 / `body_invweight0[b, 0]`.
- Shortcut: a body the compiler marks `body_simple == 2` (only slide joints, each on a coordinate
  axis and at the body origin; inertia frame = body frame; a child of the world or of a body welded
  to it; no children) gets 1 / `body_mass` without W. That is the body's own mass whatever its
  slides and their armature: 1.5 kg for the 1.5 kg cube on one slide, where W's isotropic fit is
  4.5 kg and, with 0.5 kg of armature, its axis mass is 2.0 kg.

Measured:
Both hold on MuJoCo 3.14.0 and 4.0.0.
"""

from __future__ import annotations

import mujoco
import pytest

import coupling
from fixtures.coupling import scenes as coupling_scenes

SOURCE = "MuJoCo engine_setconst.c (mj_setConst, body_invweight0); Known gap: a MuJoCo body's coupling proxy carries an isotropic mass, What"

GENERAL_PATH = {
    "slider, simple=false": (lambda: coupling_scenes.one_slide(simple=False), "slider"),
    "hinge tip": (coupling_scenes.hinge_tip, "tip"),
    "gripper pad": (coupling_scenes.two_pad_gripper, "pad_left"),
    "gripper carriage": (coupling_scenes.two_pad_gripper, "carriage"),
    "platen on hinge": (lambda: coupling_scenes.platen("hinge"), "platen"),
    "cart": (coupling_scenes.cart_pole, "cart"),
    "pole": (coupling_scenes.cart_pole, "pole"),
}

SIMPLE_PATH = {
    "slider": (lambda: coupling_scenes.one_slide(), "slider"),
    "slider with armature": (lambda: coupling_scenes.one_slide(armature=0.5), "slider"),
    "platen on a slider": (lambda: coupling_scenes.platen("slider"), "platen"),
    "platen on three slides": (lambda: coupling_scenes.platen("three_slides"), "platen"),
}


def _scene(build, name: str) -> tuple[mujoco.MjModel, int]:
    model = build()
    return model, model.body(name).id


@pytest.mark.law("scalar-proxy-is-invweight0", source=SOURCE)
@pytest.mark.parametrize("case", GENERAL_PATH)
def test_scalar_proxy_mass_is_body_invweight0_on_the_general_path(law, case: str) -> None:
    """For a body MuJoCo does not compile as simple, the scalar proxy's 3 / trace(W_tt) is 1 / body_invweight0."""
    model, body = _scene(*GENERAL_PATH[case])
    assert model.body_simple[body] != 2, f"{case}: MuJoCo compiled it as simple; the scene no longer tests this path"
    proxy_mass = coupling.proxy(model, body, tensor=False).mass
    invweight_mass = 1.0 / model.body_invweight0[body, 0]
    law.check("proxy_over_invweight_mass", proxy_mass / invweight_mass, near=1.0, rel=1e-12,
              why="the same J and M at qpos0 as mj_setConst; they differ only by rounding (measured <= 3e-16)")


@pytest.mark.law("simple-body-invweight0-is-body-mass", source=SOURCE)
@pytest.mark.parametrize("case", SIMPLE_PATH)
def test_simple_body_invweight0_is_its_own_mass(law, case: str) -> None:
    """For a body MuJoCo compiles as simple (slides only), 1 / body_invweight0 is body_mass, not W's fit."""
    model, body = _scene(*SIMPLE_PATH[case])
    assert model.body_simple[body] == 2, f"{case}: MuJoCo no longer compiles it as simple (body_simple 2)"
    invweight_mass = 1.0 / model.body_invweight0[body, 0]
    law.check("invweight_mass_over_body_mass", invweight_mass / model.body_mass[body], near=1.0, rel=1e-12,
              why="mj_setConst's shortcut stores 1/body_mass; the ratio is exact up to one division")
    # What the shortcut leaves out: the scalar proxy still takes the general path. A simple body's
    # slides are orthogonal, so its W_tt is diagonal with 1 / dof_M0 on each slide's axis.
    slides = range(model.body_dofadr[body], model.body_dofadr[body] + model.body_dofnum[body])
    fit = 3.0 / sum(1.0 / model.dof_M0[i] for i in slides)
    law.check("proxy_mass", coupling.proxy(model, body, tensor=False).mass, near=fit, rel=1e-12, unit="kg",
              why="3 / sum(1 / dof_M0) over orthogonal slides (MuJoCo's diagonal of M at qpos0): 4.5 kg "
                  "for 1.5 kg on one slide, 6.0 kg with 0.5 kg armature, the mass itself on three slides")
