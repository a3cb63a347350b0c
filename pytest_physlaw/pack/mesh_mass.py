"""A mesh geom whose mass comes from its geometry weighs its density times the volume the mesh encloses, with the
inertia of that uniform solid. Source: MuJoCo's XML reference (compiler/inertiafromgeom; asset/mesh/inertia: legacy,
the default, and exact compute the solid, legacy over-counting a non-convex mesh) and the divergence theorem (a
closed surface's volume and second moments are sums over its triangles' tetrahedra).

The second computation: the volume, centre and inertia of the solid, summed over the triangles of the compiled mesh
(`mesh_vert`, `mesh_face`), against MuJoCo's own compile of that mesh alone: a probe model, one free body holding
one geom of the mesh (the compiled vertices and faces, handed over as MuJoCo's binary .msh) at density 1000, whose
`body_mass` and `body_inertia` are the compiler's answer. Judged: each mesh a geom uses whose surface is closed and
consistently oriented (every edge shared by two faces running it opposite ways), once: in MuJoCo's default legacy
mode where the mesh is star-shaped about its surface's and its volume's centre (each face's pyramid volume about
both >= 0: there legacy's positive pyramids are the signed ones, and legacy's volume is the enclosed one; a closed
mesh turned inward too, whose pyramids legacy turns positive), else in exact mode (outward meshes). Open,
non-manifold and inconsistently oriented meshes (real CAD exports often are) enclose no volume and are not judged,
nor is a mesh of more than `MAX_FACES` faces. Shell and convex-hull inertia are not judged.

Bound: the compiled vertices are float32, and older releases process meshes in float32 (3.0.1: a wedge's probe
1.9e-8 off, 3.14.0: 2e-16), so the two computations may differ by moving each vertex by a float32 rounding (eps32 =
1.2e-7 of the mesh's radius R): the volume by the surface's area A times that, the principal moments by 3 A eps32
R^3 (the r^2 weighting and the centre's shift); the law allows 10 times each, at density 1000. The principal moments
also carry MuJoCo's own Jacobi tolerance (its eigen-solver stops at off-diagonal products of 1e-12 m^5 per unit
density, absolute): 2e-12 density more, which only a mesh a few millimetres across notices.

Measured: `pytest-physlaw check MODEL.xml -k mesh_mass`; figures in docs/second-computations.md.
"""

from __future__ import annotations

import hashlib

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions

SOURCE = ("MuJoCo XML reference (compiler/inertiafromgeom, asset/mesh/inertia); the divergence theorem over the "
          "compiled mesh's triangles")
DENSITY = 1000.0  # kg/m^3, the probes' density
EPS32 = float(np.finfo(np.float32).eps)
C = 10.0  # the bound over one float32 rounding of every vertex
# MuJoCo's principal axes come from a Jacobi iteration (mjuu_eig3, src/user/user_util.cc) that stops once the
# off-diagonal products of the inertia per unit density fall below 1e-12 m^5 (kEigEPS, absolute): a principal moment
# it reports may be that far (twice, Gershgorin) from the true one. A 1.4 mm sesamoid bone of dm_control's dog
# (4e-15 m^5) is not rotated at all by 3.0.1 to 3.13: its moments are the diagonal of its input frame, 1 % off.
EIG_TOLERANCE = 1e-12  # m^5
# larger meshes are not probed: probes compile about 3e5 faces a second here (dm_control's dog, 161 closed meshes of
# 308k faces: 1.1 s, and 0.6 s to sort their edges and sum their tetrahedra)
MAX_FACES = 200_000
_PROBES: dict[tuple[str, str], tuple[float, np.ndarray] | str] = {}  # (mode, mesh digest) -> (mass, moments) | error


class Solid:
    """The uniform solid of density 1 a closed, outward-oriented triangle surface encloses, by the divergence
    theorem: each face (a, b, c) with the origin spans a tetrahedron of signed volume a . (b x c) / 6, whose second
    moment about the origin is vol / 20 (a a^T + b b^T + c c^T + s s^T), s = a + b + c."""

    def __init__(self, vertices: np.ndarray, faces: np.ndarray) -> None:
        a, b, c = (vertices[faces[:, k]] for k in range(3))
        cross = np.cross(b - a, c - a)
        self.areas = 0.5 * np.linalg.norm(cross, axis=1)
        self.area = float(self.areas.sum())
        tet = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0
        self.volume = float(tet.sum())
        s = a + b + c
        self.centre = (tet[:, None] * s).sum(axis=0) / (4.0 * self.volume) if self.volume > 0 else np.zeros(3)
        second = np.einsum("i,ij,ik->jk", tet / 20.0, a, a) + np.einsum("i,ij,ik->jk", tet / 20.0, b, b) \
            + np.einsum("i,ij,ik->jk", tet / 20.0, c, c) + np.einsum("i,ij,ik->jk", tet / 20.0, s, s)
        second -= self.volume * np.outer(self.centre, self.centre)  # about the centre of mass
        self.moments = np.sort(np.linalg.eigvalsh(np.trace(second) * np.eye(3) - second))
        self.radius = float(np.max(np.linalg.norm(vertices - self.centre, axis=1)))
        # how far legacy's positive pyramids (about the surface's area centre, then about the centre of mass)
        # would over-count: 0 for a mesh star-shaped about both
        surface_centre = (self.areas[:, None] * s / 3.0).sum(axis=0) / max(self.area, 1e-300)
        self.legacy_excess = max(_negative_pyramids(a, b, c, cross, surface_centre),
                                 _negative_pyramids(a, b, c, cross, self.centre))


def _negative_pyramids(a: np.ndarray, b: np.ndarray, c: np.ndarray, cross: np.ndarray, apex: np.ndarray) -> float:
    """Twice the volume of the faces' pyramids about `apex` that come out negative (what taking each positive adds)."""
    signed = np.einsum("ij,ij->i", (a + b + c) / 3.0 - apex, cross) / 6.0
    return float(-2.0 * signed[signed < 0].sum())


def closed_and_consistent(faces: np.ndarray) -> bool:
    """Every directed edge of the faces appears once and its reverse once: a closed, consistently oriented surface
    (the sign of its volume then says which way it faces)."""
    tail = np.concatenate([faces[:, 0], faces[:, 1], faces[:, 2]]).astype(np.int64)
    head = np.concatenate([faces[:, 1], faces[:, 2], faces[:, 0]]).astype(np.int64)
    if np.any(tail == head):
        return False
    n = int(faces.max()) + 1
    directed, reverse = np.sort(tail * n + head), np.sort(head * n + tail)
    return bool(np.all(directed[1:] != directed[:-1]) and np.array_equal(directed, reverse))


def mesh_surface(model: mujoco.MjModel, mesh: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of compiled mesh `mesh`: float64 copies of its float32 vertices, and its faces' indices."""
    va, vn = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
    fa, fn = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
    return np.array(model.mesh_vert[va:va + vn], dtype=float), np.array(model.mesh_face[fa:fa + fn], dtype=int)


def probe(vertices: np.ndarray, faces: np.ndarray, mode: str) -> tuple[float, np.ndarray] | str:
    """MuJoCo's compile of this mesh alone in `mode` ("legacy", "exact"): (the mass of one geom of it at density
    1000, its principal moments sorted), or the compiler's error. Cached per mesh and mode for the process."""
    attributes = mujoco_versions.mesh_inertia_attributes(mode)
    if attributes is None:
        return f"MuJoCo {mujoco.__version__} has no {mode} mesh inertia"
    digest = hashlib.sha1(np.ascontiguousarray(vertices, dtype=np.float32).tobytes()
                          + np.ascontiguousarray(faces, dtype=np.int32).tobytes()).hexdigest()
    key = (mode, digest)
    if key not in _PROBES:
        compiler, mesh = attributes
        # the compiled float32 vertices and the faces handed over exactly, as MuJoCo's binary .msh (every release
        # reads it; no text to format); inline text where a release would not
        blob = (np.array([len(vertices), 0, 0, len(faces)], dtype=np.int32).tobytes()
                + np.ascontiguousarray(vertices, dtype=np.float32).tobytes()
                + np.ascontiguousarray(faces, dtype=np.int32).tobytes())
        try:
            compiled = compile_probe(_probe_xml(compiler, f'{mesh} file="probe.msh"'), {"probe.msh": blob})
        except ValueError:
            vert = " ".join(map(repr, np.asarray(vertices, dtype=np.float32).astype(float).ravel().tolist()))
            face = " ".join(map(str, faces.ravel().tolist()))
            try:
                compiled = compile_probe(_probe_xml(compiler, f'{mesh} vertex="{vert}" face="{face}"'))
            except ValueError as exc:  # the compiler refuses the mesh in this mode: said, not judged
                _PROBES[key] = str(exc).strip().splitlines()[0]
                return _PROBES[key]
        _PROBES[key] = (float(compiled.body_mass[1]), np.sort(np.array(compiled.body_inertia[1], dtype=float)))
    return _PROBES[key]


def _probe_xml(compiler: str, mesh: str) -> str:
    return (f'<mujoco><compiler inertiafromgeom="true" {compiler}/><asset><mesh name="probe" {mesh}/></asset>'
            f'<worldbody><body><freejoint/><geom type="mesh" mesh="probe" density="{DENSITY:g}" contype="0" '
            'conaffinity="0"/></body></worldbody></mujoco>')


def compile_probe(xml: str, assets: dict[str, bytes] | None = None) -> mujoco.MjModel:
    """MuJoCo's compile of a probe model (one place, where a test injects a fault)."""
    return mujoco.MjModel.from_xml_string(xml, assets or {})


def mesh_errors(vertices: np.ndarray, faces: np.ndarray, solid: Solid, mode: str) -> tuple[float, float] | str:
    """(|mass - density V| over its bound, max |moment - density I| over its bound) of `mode`'s probe, or why the
    probe gave no answer."""
    answer = probe(vertices, faces, mode)
    if isinstance(answer, str):
        return answer
    mass, moments = answer
    mass_bound = C * EPS32 * DENSITY * solid.area * solid.radius
    inertia_bound = C * 3 * EPS32 * DENSITY * solid.area * solid.radius ** 3 + 2 * EIG_TOLERANCE * DENSITY
    mass_err = abs(mass - DENSITY * solid.volume) / mass_bound
    inertia_err = float(np.max(np.abs(moments - DENSITY * solid.moments))) / inertia_bound
    # a non-finite answer never passes
    return (mass_err if np.isfinite(mass_err) else np.inf, inertia_err if np.isfinite(inertia_err) else np.inf)


def judged_meshes(model: mujoco.MjModel) -> tuple[list[tuple[int, np.ndarray, np.ndarray, Solid]], list[str]]:
    """The meshes a geom uses that enclose a solid ((id, vertices, faces, solid)), and a line for each left out."""
    used = sorted({int(i) for i in model.geom_dataid[model.geom_type == mujoco.mjtGeom.mjGEOM_MESH] if i >= 0})
    judged, left = [], []
    for mesh in used:
        name = model.mesh(mesh).name or f"mesh {mesh}"
        vertices, faces = mesh_surface(model, mesh)
        if len(faces) > MAX_FACES:
            left.append(f"{name!r} ({len(faces)} faces, over {MAX_FACES})")
            continue
        if len(faces) < 4 or not closed_and_consistent(faces):
            left.append(f"{name!r} (open or inconsistently oriented: it encloses no volume)")
            continue
        solid = Solid(vertices, faces)
        if solid.volume < 0:  # closed but turned inward: legacy's positive pyramids still weigh it, where star-shaped
            solid = Solid(vertices, faces[:, ::-1])
            if solid_mode(solid) != "legacy":
                left.append(f"{name!r} (its faces point inward and it is not star-shaped: only exact mode would "
                            "weigh it, and exact refuses an inward mesh)")
                continue
        if not solid.volume > 0:
            left.append(f"{name!r} (no volume: {solid.volume:.3g} m^3)")
            continue
        judged.append((mesh, vertices, faces, solid))
    return judged, left


@pytest.mark.law("model-mesh-mass", source=SOURCE)
def test_mesh_mass_is_density_times_volume(law, pack_model, model_case) -> None:
    """Each closed mesh a geom uses weighs its density times the volume it encloses, with the inertia of that
    solid, as MuJoCo's compiler computes them (in its default legacy mode where the mesh is star-shaped about its
    centres, else in exact mode): a probe of the mesh alone at density 1000 against the divergence theorem over its
    triangles."""
    model = pack_model.model
    judged, left = judged_meshes(model)
    if not judged:
        pytest.skip(f"{model_case}: no closed, consistently oriented mesh is used by a geom"
                    + (f" (left out: {'; '.join(left[:5])}{' ...' if len(left) > 5 else ''})" if left else ""))
    worst = {"mass": (0.0, ""), "inertia": (0.0, "")}
    refused, probes = [], 0
    for mesh, vertices, faces, solid in judged:
        name = model.mesh(mesh).name or f"mesh {mesh}"
        mode = solid_mode(solid)
        errors = mesh_errors(vertices, faces, solid, mode)
        if isinstance(errors, str):
            refused.append(f"{name!r} in {mode} mode: {errors}")
            continue
        probes += 1
        for key, err in zip(("mass", "inertia"), errors):
            if err >= worst[key][0] or not worst[key][1]:
                worst[key] = (err, _said(name, mode, solid, vertices, faces, key))
    if not probes:
        pytest.skip(f"{model_case}: MuJoCo {mujoco.__version__} compiled none of its closed meshes alone: "
                    + "; ".join(refused[:3]))
    notes = f"{len(judged)} closed meshes, {probes} probes" + (f"; left out {len(left)}" if left else "") \
        + (f"; refused {'; '.join(refused[:2])}" if refused else "")
    defect = (f"failing, an engine defect of MuJoCo {mujoco.__version__} (not the model's): its compiler weighs the "
              "mesh other than its density times the solid it encloses")
    law.check("mass_apart_over_round_off", worst["mass"][0], le=1.0, drift_abs=1.0,
              why=f"|probe mass - density x enclosed volume| over 10 float32 roundings of the vertices (10 eps32 "
                  f"density area radius); worst {worst['mass'][1]} ({notes}); {defect}")
    law.check("inertia_apart_over_round_off", worst["inertia"][0], le=1.0, drift_abs=1.0,
              why=f"largest principal moment apart from the solid's (divergence theorem) over 30 eps32 density area "
                  f"radius^3 + 2e-12 m^5 density (MuJoCo's eigen-solver tolerance); worst {worst['inertia'][1]}; "
                  f"{defect}")


def solid_mode(solid: Solid) -> str:
    """The mode a closed mesh is judged in, once: MuJoCo's default, legacy, where its positive pyramids add less
    than a tenth of the round-off bound to the enclosed volume (a mesh star-shaped about its centres: every convex
    one); else exact, the mode that computes a non-convex mesh's enclosed volume."""
    return "legacy" if solid.legacy_excess <= 0.1 * C * EPS32 * solid.area * solid.radius else "exact"


def _said(name: str, mode: str, solid: Solid, vertices: np.ndarray, faces: np.ndarray, key: str) -> str:
    answer = probe(vertices, faces, mode)
    mass, moments = answer if not isinstance(answer, str) else (np.nan, np.full(3, np.nan))
    if key == "mass":
        return (f"{name!r} ({mode} mode): {mass:.6g} kg at {DENSITY:g} kg/m^3 against {DENSITY * solid.volume:.6g} "
                f"(volume {solid.volume:.6g} m^3, ratio {mass / (DENSITY * solid.volume):.6g})")
    return (f"{name!r} ({mode} mode): moments {np.array2string(moments, precision=6)} against the solid's "
            f"{np.array2string(DENSITY * solid.moments, precision=6)} kg m^2")
