"""Where a ray first meets a geom, and how far a point lies from a geom's surface, from the geom's own shape data
in plain geometry: a sphere's, capsule's, ellipsoid's, cylinder's and box's sizes, a plane's rendered rectangle
(rays) or half-space (distances), a heightfield's samples (the solid under its surface: two triangles a cell, the
diagonal from a cell's first corner to its opposite one, walls down to the base), a mesh's triangles (rays) and its
convex hull (distances, as MuJoCo's collision sees a mesh). The second computation of what MuJoCo's `mj_ray` and
`mj_geomDistance` report; a measure, no law: `twofold.geometry_sensors` judges with it. Source: MuJoCo's XML
reference (geom/type and size, hfield, mesh), `mj_ray`'s documentation (planes are seen from their front face,
inside their rendered rectangle) and src/engine/engine_ray.c (the heightfield's triangulation and walls).

Each ray answer is taken twice, with the shape grown and shrunk by a margin (sizes +- margin; a heightfield's
footprint, base and heights; a mesh's triangles by the margin in their own plane): a shape's true first hit lies
between the two, so a reading outside them is off by more than the margin, wherever round-off or a grazing ray
puts the exact hit. Left out (None): SDF geoms, whose surface is a plugin's, and a mesh without a convex hull
(distances only).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from weakref import WeakKeyDictionary

import mujoco
import numpy as np

GEOM = mujoco.mjtGeom
PLANE, HFIELD, SPHERE, CAPSULE = (int(GEOM.mjGEOM_PLANE), int(GEOM.mjGEOM_HFIELD), int(GEOM.mjGEOM_SPHERE),
                                  int(GEOM.mjGEOM_CAPSULE))
ELLIPSOID, CYLINDER, BOX, MESH = (int(GEOM.mjGEOM_ELLIPSOID), int(GEOM.mjGEOM_CYLINDER), int(GEOM.mjGEOM_BOX),
                                  int(GEOM.mjGEOM_MESH))
NONE = np.inf  # no hit
TINY = 1e-300
SLIVER = 1e-9  # of a mesh's extent: a hull face whose plane leaves a vertex further out is dropped
NOT_A_HULL = 1e-3  # of the extent: a face leaving a vertex this far out makes the stored graph no convex hull


@dataclass(frozen=True, eq=False)
class Shape:
    """A geom's shape at one state: its frame and what its kind needs (heights: a heightfield's samples in length
    units, rows along y; a mesh's model and id, from which its triangles, their vertices and its convex hull are read
    when a computation first asks for them: a ray wants the triangles, a support the vertices, a distance the hull)."""

    geom: int
    kind: int
    pos: np.ndarray
    mat: np.ndarray
    size: np.ndarray
    heights: np.ndarray | None = None
    hsize: np.ndarray | None = None
    model: mujoco.MjModel | None = None
    mesh: int = -1
    points: np.ndarray | None = None  # a convex polytope's corners in the geom's frame (a heightfield's prism)

    def local(self, point: np.ndarray) -> np.ndarray:
        return self.mat.T @ (np.asarray(point, float) - self.pos)

    @cached_property
    def triangles(self) -> np.ndarray:
        """A mesh's triangles, (m, 3, 3) in the geom's frame."""
        return _triangles(self.model, self.mesh)

    @cached_property
    def vertices(self) -> np.ndarray:
        """The vertices a mesh's triangles use (or a prism's corners), in the geom's frame."""
        if self.points is not None:
            return self.points
        return np.unique(self.triangles.reshape(-1, 3), axis=0)

    @cached_property
    def hull(self) -> tuple[np.ndarray, np.ndarray] | None:
        """A mesh's convex hull: outward unit normals and offsets, n.x <= offset inside; None without one."""
        return _hull(self.model, self.mesh)


def shape(model: mujoco.MjModel, data: mujoco.MjData, geom: int) -> Shape | None:
    """The geom's shape at `data`'s pose, or None for a kind measured nowhere here (an SDF geom)."""
    kind = int(model.geom_type[geom])
    pos, mat = np.array(data.geom_xpos[geom], float), np.array(data.geom_xmat[geom], float).reshape(3, 3)
    size = np.array(model.geom_size[geom], float)
    if kind == HFIELD:
        h = int(model.geom_dataid[geom])
        nrow, ncol, adr = int(model.hfield_nrow[h]), int(model.hfield_ncol[h]), int(model.hfield_adr[h])
        hsize = np.array(model.hfield_size[h], float)
        heights = np.asarray(model.hfield_data[adr: adr + nrow * ncol], float).reshape(nrow, ncol) * hsize[2]
        return Shape(geom, kind, pos, mat, size, heights=heights, hsize=hsize)
    if kind == MESH:
        return Shape(geom, kind, pos, mat, size, model=model, mesh=int(model.geom_dataid[geom]))
    if kind in (PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX):
        return Shape(geom, kind, pos, mat, size)
    return None


def _triangles(model: mujoco.MjModel, mesh: int) -> np.ndarray:
    vadr, vnum = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
    fadr, fnum = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
    verts = np.asarray(model.mesh_vert[vadr: vadr + vnum], float)
    return verts[np.asarray(model.mesh_face[fadr: fadr + fnum])]


_HULLS: WeakKeyDictionary = WeakKeyDictionary()  # model -> {mesh: planes}: each state's shapes ask again, gone with it


def _hull(model: mujoco.MjModel, mesh: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The mesh's convex hull planes (`_hull_planes`), once per model and mesh."""
    known = _HULLS.setdefault(model, {})
    if mesh not in known:
        known[mesh] = _hull_planes(model, mesh)
    return known[mesh]


def mesh_hull(model: mujoco.MjModel, geom: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A mesh geom's convex hull planes (`_hull_planes`), None where its stored graph is none."""
    return _hull(model, int(model.geom_dataid[geom]))


def _hull_planes(model: mujoco.MjModel, mesh: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The outward planes of the mesh's convex hull, from MuJoCo's stored hull graph (mesh_graph: numvert, numface,
    vert_edgeadr, vert_globalid, edge_localid of numvert + 3 numface, face_globalid: src/user/user_mesh.cc), or None where the mesh has none."""
    adr = int(model.mesh_graphadr[mesh])
    if adr < 0:
        return None
    graph = np.asarray(model.mesh_graph)
    nvert, nface = int(graph[adr]), int(graph[adr + 1])
    start = adr + 2 + 3 * nvert + 3 * nface
    faces = graph[start: start + 3 * nface].reshape(nface, 3)
    vadr, vnum = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
    verts = np.asarray(model.mesh_vert[vadr: vadr + vnum], float)
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    normals = np.cross(b - a, c - a)
    norm = np.linalg.norm(normals, axis=1)
    keep = norm > 1e-12 * max(float(np.max(np.abs(verts), initial=0.0)), TINY) ** 2
    normals = normals[keep] / norm[keep, None]
    offsets = np.einsum("ij,ij->i", normals, a[keep])
    centre = verts.mean(axis=0)
    flip = normals @ centre > offsets  # the hull's winding made outward: its centre lies inside every plane
    normals[flip], offsets[flip] = -normals[flip], -offsets[flip]
    # each face must be a supporting plane of the hull's own vertices (vert_globalid). Float32 vertices leave sliver
    # faces' planes up to 1e-5 of the extent off (MuJoCo's makemesh test shapes): those planes are dropped, their
    # neighbours bound the same side. A face that leaves vertices far outside is no hull face (gymnasium-robotics'
    # Fetch: base_link's graph has faces with vertices 0.96 of the extent outside): such a graph is not measured.
    corners = verts[graph[adr + 2 + nvert: adr + 2 + 2 * nvert]]
    reach = max(float(np.max(np.abs(verts), initial=0.0)), TINY)
    block = max(1, 4_000_000 // max(len(corners), 1))  # faces a block: a bounded product on meshes of 1e5 faces
    outside = np.concatenate([np.max(normals[k: k + block] @ corners.T - offsets[k: k + block, None], axis=1)
                              for k in range(0, len(offsets), block)]) if len(offsets) else np.zeros(0)
    if float(np.max(outside, initial=0.0)) > NOT_A_HULL * reach:
        return None
    keep = outside <= SLIVER * reach
    return normals[keep], offsets[keep]


# -- rays ---------------------------------------------------------------------------------------------------------

def _slab(p: float, v: float, lo: float, hi: float) -> tuple[float, float]:
    if abs(v) < TINY:
        return (-np.inf, np.inf) if lo <= p <= hi else (np.inf, -np.inf)
    a, b = (lo - p) / v, (hi - p) / v
    return (a, b) if a <= b else (b, a)


def _box_span(p: np.ndarray, v: np.ndarray, half: np.ndarray) -> tuple[float, float]:
    enter, leave = -np.inf, np.inf
    for i in range(3):
        a, b = _slab(p[i], v[i], -half[i], half[i])
        enter, leave = max(enter, a), min(leave, b)
    return enter, leave


def _quadric_span(a: float, b: float, c: float) -> tuple[float, float]:
    """Where a t^2 + 2 b t + c <= 0 (a >= 0)."""
    if a < TINY:
        return (-np.inf, np.inf) if c <= 0 else (np.inf, -np.inf)
    disc = b * b - a * c
    if disc < 0:
        return np.inf, -np.inf
    root = np.sqrt(disc)
    return (-b - root) / a, (-b + root) / a


def _sphere_span(p: np.ndarray, v: np.ndarray, radius: float) -> tuple[float, float]:
    return _quadric_span(float(v @ v), float(p @ v), float(p @ p) - radius * radius)


def _cylinder_span(p: np.ndarray, v: np.ndarray, radius: float, half: float) -> tuple[float, float]:
    a, b = _quadric_span(float(v[:2] @ v[:2]), float(p[:2] @ v[:2]), float(p[:2] @ p[:2]) - radius * radius)
    c, d = _slab(p[2], v[2], -half, half)
    return max(a, c), min(b, d)


def _first(spans: list[tuple[float, float]]) -> float:
    """The ray's first point (t >= 0) in a union of convex pieces, each the span (enter, leave) of the line in it."""
    best = NONE
    for enter, leave in spans:
        if enter <= leave and leave >= 0:
            best = min(best, max(enter, 0.0))
    return best


def first_hit(s: Shape, origin: np.ndarray, direction: np.ndarray, margin: float) -> float:
    """The distance along the unit `direction` from `origin` to where the ray first meets the shape grown by
    `margin` (shrunk where negative); 0 where it starts inside, inf where it never meets it. A mesh is its triangles
    (a surface), a plane its front face inside its rectangle; every other shape is solid."""
    p, v = s.local(origin), s.mat.T @ np.asarray(direction, float)
    size, g = s.size, margin
    if s.kind == SPHERE:
        return _first([_sphere_span(p, v, size[0] + g)])
    if s.kind == CAPSULE:
        r, h = size[0] + g, size[1]
        up = np.array([0.0, 0.0, h])
        return _first([_cylinder_span(p, v, r, h), _sphere_span(p - up, v, r), _sphere_span(p + up, v, r)])
    if s.kind == ELLIPSOID:
        axes = size + g
        return _first([_sphere_span(p / axes, v / axes, 1.0)])
    if s.kind == CYLINDER:
        return _first([_cylinder_span(p, v, size[0] + g, size[1] + g)])
    if s.kind == BOX:
        return _first([_box_span(p, v, size + g)])
    if s.kind == PLANE:
        return _plane_hit(p, v, size, g)
    if s.kind == HFIELD:
        return _hfield_hit(s, p, v, g)
    if s.kind == MESH:
        return _mesh_hit(s.triangles, p, v, g)
    raise ValueError(f"geom {s.geom}: no ray of its kind {s.kind} is computed here")


def _plane_hit(p: np.ndarray, v: np.ndarray, size: np.ndarray, g: float) -> float:
    if v[2] >= 0:  # seen from its front face only
        return NONE
    t = (g - p[2]) / v[2]
    if t < 0:
        return NONE
    x, y = p[0] + t * v[0], p[1] + t * v[1]
    inside = all(size[i] <= 0 or abs(c) <= size[i] + g for i, c in enumerate((x, y)))
    return t if inside else NONE


def _hfield_height(s: Shape, u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Heights at grid coordinates (u along the columns, x; w along the rows, y), clamped to the field."""
    z = s.heights
    nrow, ncol = z.shape
    u, w = np.clip(u, 0.0, ncol - 1.0), np.clip(w, 0.0, nrow - 1.0)
    c = np.minimum(np.floor(u), ncol - 2).astype(int)
    r = np.minimum(np.floor(w), nrow - 2).astype(int)
    fu, fw = u - c, w - r
    z00, z10, z01, z11 = z[r, c], z[r, c + 1], z[r + 1, c], z[r + 1, c + 1]
    first = z00 + fu * (z10 - z00) + fw * (z11 - z10)  # triangle (c,r), (c+1,r), (c+1,r+1): fu >= fw
    second = z00 + fw * (z01 - z00) + fu * (z11 - z01)  # triangle (c,r), (c+1,r+1), (c,r+1)
    return np.where(fu >= fw, first, second)


def _hfield_hit(s: Shape, p: np.ndarray, v: np.ndarray, g: float) -> float:
    """First entry into the solid {|x| <= sx, |y| <= sy, -base <= z <= h(x, y)} grown by g: along the ray,
    h - z is linear between the points where the ray crosses a column, a row or a cell's diagonal, so the first
    point where it turns non-negative is found exactly on those pieces."""
    sx, sy, top, base = s.hsize
    nrow, ncol = s.heights.shape
    enter, leave = _box_span(p - np.array([0.0, 0.0, (top - base) / 2]), v,
                             np.array([sx + g, sy + g, (top + base) / 2 + g]))
    enter = max(enter, 0.0)
    if enter > leave:
        return NONE
    dx, dy = 2 * sx / (ncol - 1), 2 * sy / (nrow - 1)
    u0, du = (p[0] + sx) / dx, v[0] / dx
    w0, dw = (p[1] + sy) / dy, v[1] / dy
    cuts = [np.array([enter, leave])]
    for start, rate in ((u0, du), (w0, dw), (u0 - w0, du - dw)):  # columns, rows, diagonals
        if abs(rate) > TINY:
            a, b = sorted((start + enter * rate, start + leave * rate))
            k = np.arange(np.ceil(a), np.floor(b) + 1)
            cuts.append((k - start) / rate)
    t = np.unique(np.clip(np.concatenate(cuts), enter, leave))
    f = _hfield_height(s, u0 + t * du, w0 + t * dw) + g - (p[2] + t * v[2])
    above = np.flatnonzero(f >= 0)
    if not above.size:
        return NONE
    i = int(above[0])
    if i == 0:
        return float(t[0])
    return float(t[i - 1] + (t[i] - t[i - 1]) * (-f[i - 1]) / (f[i] - f[i - 1]))


def _mesh_hit(tri: np.ndarray, p: np.ndarray, v: np.ndarray, g: float) -> float:
    """Nearest crossing (t >= 0) of the ray with the mesh's triangles, each grown by g in its own plane (barycentric
    bounds loosened by g over the triangle's size; both faces, as MuJoCo's ray sees them)."""
    a, e1, e2 = tri[:, 0], tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    h = np.cross(v, e2)
    det = np.einsum("ij,ij->i", e1, h)
    ok = np.abs(det) > TINY
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = p - a
    bu = np.einsum("ij,ij->i", s, h) * inv
    q = np.cross(s, e1)
    bv = (q @ v) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    span = np.maximum(np.linalg.norm(e1, axis=1), np.linalg.norm(e2, axis=1))
    slack = g / np.maximum(span, TINY)
    hit = ok & (bu >= -slack) & (bv >= -slack) & (bu + bv <= 1 + slack) & (t >= 0)
    return float(np.min(t[hit])) if np.any(hit) else NONE


# -- points -------------------------------------------------------------------------------------------------------

def gap(s: Shape, point: np.ndarray) -> tuple[float, float]:
    """Bounds (low, high) on the point's signed distance to the shape's surface (negative inside), as the collision
    sees the shape: exact (low == high) for a sphere, capsule, cylinder, box and plane (its half-space); an
    ellipsoid's from its homothetic copies through the point; a mesh's convex hull's from its planes (exact inside;
    outside at least the largest plane distance, at most the nearest hull vertex)."""
    p = s.local(point)
    size = s.size
    if s.kind == SPHERE:
        d = float(np.linalg.norm(p) - size[0])
    elif s.kind == CAPSULE:
        axis = np.array([0.0, 0.0, np.clip(p[2], -size[1], size[1])])
        d = float(np.linalg.norm(p - axis) - size[0])
    elif s.kind == CYLINDER:
        d = _box_like(np.array([np.hypot(p[0], p[1]) - size[0], abs(p[2]) - size[1]]))
    elif s.kind == BOX:
        d = _box_like(np.abs(p) - size)
    elif s.kind == PLANE:
        d = float(p[2])
    elif s.kind == ELLIPSOID:
        k = float(np.linalg.norm(p / size))
        low, high = (k - 1) * float(np.min(size)), (k - 1) * float(np.max(size))
        return (low, high) if k >= 1 else (high, low)
    elif s.kind == MESH and s.hull is not None:
        normals, offsets = s.hull
        far = float(np.max(normals @ p - offsets))
        if far <= 0:
            return far, far
        verts = s.vertices
        return far, float(np.min(np.linalg.norm(verts - p, axis=1)))
    else:
        raise ValueError(f"geom {s.geom}: no distance to its kind {s.kind} is computed here")
    return d, d


def support(s: Shape, u: np.ndarray) -> float | None:
    """The shape's extent along the unit world direction u, max over its points of x.u (as the collision sees it: a
    mesh's vertices, whose hull it is); None for a plane (unbounded) and a heightfield."""
    found = supports(s, np.asarray(u, float)[None, :])
    return None if found is None else float(found[0])


def supports(s: Shape, directions: np.ndarray) -> np.ndarray | None:
    """`support` along each row of `directions` (k, 3) at once."""
    directions = np.asarray(directions, float)
    w = directions @ s.mat  # each direction in the geom's frame
    centre, size = directions @ s.pos, s.size
    if s.kind == SPHERE:
        return centre + size[0]
    if s.kind == CAPSULE:
        return centre + size[1] * np.abs(w[:, 2]) + size[0]
    if s.kind == ELLIPSOID:
        return centre + np.linalg.norm(size * w, axis=1)
    if s.kind == CYLINDER:
        return centre + size[1] * np.abs(w[:, 2]) + size[0] * np.hypot(w[:, 0], w[:, 1])
    if s.kind == BOX:
        return centre + np.abs(w) @ size
    if s.kind == MESH:
        return centre + np.max(w @ s.vertices.T, axis=1)
    return None


def support_point(s: Shape, u: np.ndarray) -> np.ndarray | None:
    """A point of the shape farthest along the unit world direction u (world frame); None for a plane and a
    heightfield. Ties (a box's face, a cylinder's cap) resolve to one of the tied points."""
    u = np.asarray(u, float)
    w = s.mat.T @ u
    size = s.size
    if s.kind == SPHERE:
        local = size[0] * w
    elif s.kind == CAPSULE:
        local = size[0] * w + np.array([0.0, 0.0, size[1] * np.sign(w[2])])
    elif s.kind == ELLIPSOID:
        scaled = size * size * w
        local = scaled / max(float(np.linalg.norm(size * w)), TINY)
    elif s.kind == CYLINDER:
        radial = np.hypot(w[0], w[1])
        rim = size[0] * w[:2] / radial if radial > TINY else np.zeros(2)
        local = np.array([rim[0], rim[1], size[1] * np.sign(w[2])])
    elif s.kind == BOX:
        local = size * np.sign(w)
    elif s.kind == MESH:
        local = s.vertices[int(np.argmax(s.vertices @ w))]
    else:
        return None
    return s.pos + s.mat @ local


def prisms(field: Shape, point: np.ndarray, margin: float) -> list[Shape]:
    """The convex prisms MuJoCo collides a heightfield as (src/engine/engine_collision_convex.c, mjc_ConvexHField:
    each cell's two triangles, split along the diagonal from its first corner to its opposite one, raised by the
    pair's margin, each over the field's base) in the cells around `point` (world) and their neighbours."""
    nrow, ncol = field.heights.shape
    half = field.hsize[:2]
    step = 2.0 * half / np.array([ncol - 1, nrow - 1])
    local = field.local(point)
    col, row = (int(np.floor((local[i] + half[i]) / step[i])) for i in range(2))

    def corner(c: int, r: int) -> list[float]:
        return [step[0] * c - half[0], step[1] * r - half[1], field.heights[r, c] + margin]

    found = []
    for r in range(max(0, row - 1), min(nrow - 1, row + 2)):
        for c in range(max(0, col - 1), min(ncol - 1, col + 2)):
            for top in ([corner(c, r + 1), corner(c, r), corner(c + 1, r + 1)],
                        [corner(c, r), corner(c + 1, r + 1), corner(c + 1, r)]):
                top = np.array(top)
                base = top.copy()
                base[:, 2] = -field.hsize[3]
                found.append(Shape(field.geom, MESH, field.pos, field.mat, field.size, points=np.vstack([top, base])))
    return found


def field_gap(field: Shape, point: np.ndarray) -> float:
    """A lower bound on how far the point (world) lies outside a heightfield's solid (negative inside: exact there):
    the least over the prisms around it (`prisms`, unraised) of the largest distance beyond a prism's five planes
    (its top triangle, its base, its three sides)."""
    best = np.inf
    for prism in prisms(field, point, 0.0):
        top, base = prism.points[:3], prism.points[3:]
        p = prism.local(point)
        normal = np.cross(top[1] - top[0], top[2] - top[0])
        normal = normal / np.linalg.norm(normal) * np.sign(normal[2])  # the top's upward normal
        far = max(float(normal @ (p - top[0])), float(base[0, 2] - p[2]))
        centre = top[:, :2].mean(axis=0)
        for k in range(3):
            a, b = top[k, :2], top[(k + 1) % 3, :2]
            side = np.array([b[1] - a[1], a[0] - b[0]])
            side = side / np.linalg.norm(side)
            side = side if side @ (centre - a) < 0 else -side  # outward in the plane
            far = max(far, float(side @ (p[:2] - a)))
        best = min(best, far)
    return best


def overlap(first: Shape, second: Shape, u: np.ndarray) -> float | None:
    """How far the two shapes' projections on the unit direction u overlap, where `first` would have to move
    along -u (or +u: the shorter) to clear `second` along that line: the penetration depth along u (negative:
    apart along u). A plane (a half-space) has an extent along its own normal only; None along another direction,
    and for a heightfield."""
    for plane, other in ((first, second), (second, first)):
        if plane.kind == PLANE and other.kind != PLANE:
            normal = plane.mat[:, 2]
            reach = support(other, -normal)
            if reach is None or abs(abs(float(normal @ u)) - 1.0) > 1e-9:
                return None
            return float(plane.pos @ normal) + reach  # how deep the other reaches below the plane's surface
    ends = [support(first, u), support(first, -u), support(second, u), support(second, -u)]
    if any(e is None for e in ends):
        return None
    first_hi, first_lo, second_hi, second_lo = ends[0], -ends[1], ends[2], -ends[3]
    return min(first_hi - second_lo, second_hi - first_lo)


def box_box_depth(first: Shape, second: Shape) -> float:
    """Two boxes' penetration depth by the separating-axis theorem: the least overlap of their projections over the
    fifteen axes that can separate them (each box's three face normals, the nine crosses of their edges)."""
    axes = [first.mat[:, i] for i in range(3)] + [second.mat[:, i] for i in range(3)]
    for i in range(3):
        for j in range(3):
            cross = np.cross(first.mat[:, i], second.mat[:, j])
            norm = float(np.linalg.norm(cross))
            if norm > 1e-9:  # parallel edges: their cross is no axis (a face normal covers it)
                axes.append(cross / norm)
    return min(overlap(first, second, u) for u in axes)


def _box_like(excess: np.ndarray) -> float:
    """Signed distance from how far the point lies beyond each pair of faces (a box's, or a cylinder's side and caps)."""
    outside = np.linalg.norm(np.maximum(excess, 0.0))
    return float(outside if outside > 0 else np.max(excess))
