"""A soft solid's elasticity is the material it names: a 3D flex (`dim="3"`) with Young's modulus E and Poisson's ratio
nu, its vertices placed on a uniform dilation x = c + s (X - c) of their rest positions, pushes back with the forces a
Saint Venant-Kirchhoff solid of those constants has: their virtual work along the dilation, sum_i f_i . (X_i - c), is
-dU/ds = -V0 (9 lambda + 6 mu) e s, with e = (s^2 - 1) / 2 the Green strain, V0 the rest volume of its tetrahedra and
lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)) (the Lame constants). Source: MuJoCo's documentation
(Modeling: deformable objects; XML reference flexcomp/elasticity: young, poisson, "Saint Venant-Kirchhoff"); the SVK
strain energy psi = mu tr(E^2) + lambda/2 tr(E)^2.

The first computation is MuJoCo's passive force on the vertices (`qfrc_passive` at rest, read through each vertex's
three slides' world axes), the second the material law from the constants the file writes (`MjSpec`: the flex's
`young` and `poisson`). A uniform dilation strains every tetrahedron alike, so the law is exact for MuJoCo's linear
elements: 1 to 1e-13 measured. MuJoCo 3.2.4 to 3.17.0 used twice the first Lame parameter (fixed in 4.0.0): a foam
cube with nu = 0.3 read 1.692, MuJoCo's own floppy.xml 1.5 (round 8's mujoco-7ba52b53, not blind).

An interpolated flex (`dof="trilinear"`, "quadratic") carries its shape on nodes: they are dilated, and the trilinear
map carries the dilation to every point, so its elasticity is judged the same way against a linear solid's 9 K e V
(K = lambda + 2 mu / 3, V its tetrahedra's rest volume) at a strain of 1e-6, where the linear and the SVK laws agree to
1.5e-6. MuJoCo before 3.16.0 assembled an interpolated flex's stiffness with mu where linear elasticity has 2 mu (round
11's mujoco-52824daf: 0.5 at nu = 0; not blind).

Judged: a 3D flex whose every carrier (vertex, or node) is a body on three slides that nothing else pulls (no edge
stiffness, tendon or gravity compensation). Left out, named: 2D and 1D flexes (membranes' and cables' constants), a
hollow 3D flex (`elastic2d`: its surface's shell), a flex with a carrier held by the world (an interpolated flex's
empty cell: round 10's jelly), releases without MjSpec's flexes. Bound: 1e-6 of the expected work (1e-4 for an
interpolated flex).

Measured: `pytest-physlaw check MODEL.xml -k flex_elasticity`; see docs/second-computations.md.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import pytest

from pytest_physlaw.pack import flex_carriers

SOURCE = ("MuJoCo documentation, Modeling (deformable objects) and XML reference (flexcomp/elasticity: young, poisson); "
          "the Saint Venant-Kirchhoff strain energy")
STRETCH = 1.001  # the dilation s
STRETCH_NODES = 1 + 1e-6  # an interpolated flex's: its linear law and the SVK solid's agree to 1.5e-6 there
SHARE = 1e-6
SHARE_NODES = 1e-4  # the two laws' 1.5e-6 and the small strain's round-off (2e-10), with room


def why_not(model: mujoco.MjModel, flex: int, young: float) -> str | None:
    """Why a flex's elasticity is not judged, or None."""
    if int(model.flex_dim[flex]) != 3:
        return f"dimension {int(model.flex_dim[flex])}"
    if young <= 0:
        return "no elasticity (young 0)"
    if float(np.asarray(model.flex_edgestiffness)[flex]) != 0:
        return "edge stiffness besides its elasticity"
    return flex_carriers.unfree(model, flex_carriers.carriers(model, flex))


def rest_volume(model: mujoco.MjModel, flex: int) -> float:
    """The volume of the flex's tetrahedra at rest (its vertices at qpos0: an interpolated flex's from its nodes)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    first, count = int(model.flex_vertadr[flex]), int(model.flex_vertnum[flex])
    vertices = np.asarray(data.flexvert_xpos)[first:first + count]
    start = int(model.flex_elemdataadr[flex])
    elements = np.asarray(model.flex_elem[start:start + 4 * int(model.flex_elemnum[flex])], dtype=int).reshape(-1, 4)
    edges = vertices[elements[:, 1:]] - vertices[elements[:, :1]]
    return float(np.sum(np.abs(np.linalg.det(edges)))) / 6


def work_ratio(model: mujoco.MjModel, flex: int, young: float, poisson: float) -> float:
    """The carriers' passive forces' virtual work along a uniform dilation over the material's (module docstring):
    the SVK solid's for a flex on its vertices; a linear solid's, 9 K e V, at a strain of 1e-6 for an interpolated one
    (its nodes dilated: the trilinear map carries the dilation to every point)."""
    bodies = flex_carriers.carriers(model, flex)
    stretch = STRETCH_NODES if flex_carriers.interpolated(model, flex) else STRETCH
    rest, found = flex_carriers.passive_forces(
        model, bodies, lambda x: x.mean(axis=0) + stretch * (x - x.mean(axis=0)))
    work = float(np.sum(found * (rest - rest.mean(axis=0))))
    lam = young * poisson / ((1 + poisson) * (1 - 2 * poisson))
    mu = young / (2 * (1 + poisson))
    if flex_carriers.interpolated(model, flex):
        return work / (-rest_volume(model, flex) * (9 * lam + 6 * mu) * (stretch - 1))
    strain = (stretch ** 2 - 1) / 2
    return work / (-rest_volume(model, flex) * (9 * lam + 6 * mu) * strain * stretch)


@pytest.mark.law("model-flex-elasticity-is-its-material", source=SOURCE)
def test_flex_elasticity_is_its_material(law, pack_model: Any, model_case: str) -> None:
    """Each 3D flex, dilated uniformly by 0.1 % from rest, pushes back with the virtual work a Saint Venant-Kirchhoff
    solid of its young and poisson has, to 1e-6."""
    model = pack_model.model
    if not model.nflex:
        pytest.skip(f"{model_case}: the model has no flex")
    try:
        flexes = mujoco.MjSpec.from_file(str(pack_model.path)).flexes
    except (AttributeError, ValueError) as exc:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__}'s MjSpec gives no flex constants ({exc})")
    constants = {mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_FLEX, f.name) if f.name else k:
                 (f.young, f.poisson, int(getattr(f, "elastic2d", 0) or 0)) for k, f in enumerate(flexes)}
    judged, left_out = [], []
    for flex in range(model.nflex):
        young, poisson, shell = constants.get(flex, (0.0, 0.0, 0))
        why = why_not(model, flex, float(young))
        if shell and int(model.flex_dim[flex]) == 3:  # hollow: its surface's shell (MuJoCo's hollow_vs_solid.xml)
            why = "hollow (elastic2d: its elasticity is its surface's shell)"
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_FLEX, flex) or f"flex {flex}"
        if why:
            left_out.append(f"{name}: {why}")
        else:
            judged.append((name, work_ratio(model, flex, float(young), float(poisson))))
    if not judged:
        pytest.skip(f"{model_case}: no 3D flex to judge ({'; '.join(left_out)})")
    name, worst = max(judged, key=lambda item: abs(item[1] - 1))
    nodes = any(flex_carriers.interpolated(model, f) for f in range(model.nflex))
    law.check("work_over_material", [ratio for _, ratio in judged], near=1.0, abs=SHARE_NODES if nodes else SHARE,
              why=f"the passive forces' virtual work along a {100 * (STRETCH - 1):g} % uniform dilation over a Saint "
                  f"Venant-Kirchhoff solid's of the flex's young and poisson (an interpolated flex's nodes dilated "
                  f"by 1e-6, against a linear solid's 9 K e V); worst {name}: {worst:.6g}"
                  + (f"; left out: {'; '.join(left_out)}" if left_out else "") +
                  f"; failing, MuJoCo {mujoco.__version__}'s flex is stiffer or softer than its material (3.2.4 to "
                  "3.17.0 used twice the first Lame parameter: 1.692 at nu = 0.3; an interpolated flex's shear "
                  "modulus was halved to 3.15.0: 0.5 at nu = 0): an engine defect; change MuJoCo version, or set "
                  "young and poisson for the stiffness you measured")
