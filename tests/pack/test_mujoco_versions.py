"""The version shims (`pytest_physlaw/mujoco_versions.py`): each way an older MuJoCo is met gives what the
pinned release's own function gives, and the geoms' volume model compiled in a child process (the way before
3.14) is the one compiled in this process."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from pytest_physlaw import mujoco_versions
from pytest_physlaw.pack import inertia

ARM = """<mujoco><worldbody><body pos="0 0 1"><joint name="a" type="hinge" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
  <body pos="0.3 0 0" gravcomp="0.5"><joint name="b" type="hinge" axis="0 0 1"/><geom type="box" size="0.05 0.02 0.02" mass="0.5"/>
  </body></body><body pos="1 0 1"><freejoint/><geom type="sphere" size="0.05" mass="0.2"/></body></worldbody>
  <tendon><fixed name="t"><joint joint="a" coef="1"/><joint joint="b" coef="-0.5"/></fixed></tendon>
  <actuator><motor joint="a"/><motor tendon="t" gear="2"/></actuator></mujoco>"""


@pytest.fixture
def arm() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(ARM)
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    data = mujoco.MjData(model)
    data.qpos[:2], data.qvel[:] = [0.4, -0.3], np.linspace(-1, 1, model.nv)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_dense_mass_matrix_is_mujocos(arm) -> None:
    model, data = arm
    solved = np.zeros(model.nv)
    mujoco.mj_solveM(model, data, solved.reshape(1, -1), np.ones((1, model.nv)))
    assert np.allclose(mujoco_versions.full_mass(model, data) @ solved, 1.0)


def test_moment_arms_dense_from_sparse_or_dense(arm, monkeypatch: pytest.MonkeyPatch) -> None:
    model, data = arm
    moments = mujoco_versions.actuator_moments(model, data)
    assert moments.shape == (model.nu, model.nv) and moments[0, 0] == 1.0 and moments[1, 1] == -1.0
    monkeypatch.delattr(mujoco, "mju_sparse2dense")  # the numpy fallback, as on MuJoCo 3.0-3.2
    assert np.array_equal(mujoco_versions.actuator_moments(model, data), moments)


def test_tree_dofs_without_tree_fields_are_the_models(arm) -> None:
    model, _ = arm

    class Before34:  # MjModel without tree_dofadr, tree_dofnum, tree_bodynum
        dof_treeid, body_treeid = model.dof_treeid, model.body_treeid

    for tree in range(model.ntree):
        assert mujoco_versions.tree_dofs(Before34, tree) == mujoco_versions.tree_dofs(model, tree)
        assert mujoco_versions.tree_bodies(Before34, tree) == int(model.tree_bodynum[tree])


def test_gravcomp_and_fluid_forces_without_their_fields(arm) -> None:
    model, data = arm
    model.opt.density = 1.2
    mujoco.mj_forward(model, data)

    class Older:  # an MjData without qfrc_gravcomp and qfrc_fluid: the same state otherwise
        def __init__(self, d: mujoco.MjData) -> None:
            self.d = d

        def __getattr__(self, name: str):
            if name in ("qfrc_gravcomp", "qfrc_fluid"):
                raise AttributeError(name)
            return getattr(self.d, name)

        def __copy__(self) -> mujoco.MjData:
            import copy
            return copy.copy(self.d)

    assert np.allclose(mujoco_versions.gravcomp_force(model, Older(data)), data.qfrc_gravcomp, atol=1e-12)
    assert np.allclose(mujoco_versions.fluid_force(model, Older(data)), data.qfrc_fluid, atol=1e-12)
    assert np.any(data.qfrc_gravcomp) and np.any(data.qfrc_fluid)


def test_kinetic_energy_from_the_mass_matrix_is_mujocos(arm) -> None:
    model, data = arm
    assert mujoco_versions.kinetic_energy(model, data) == pytest.approx(data.energy[1], rel=1e-12)
    assert mujoco_versions.energy(model, data) == (data.energy[0], data.energy[1])


def test_the_volume_model_compiled_in_a_child_is_the_one_compiled_here(tmp_path, monkeypatch) -> None:
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    here = inertia.geometry_model(str(path))
    monkeypatch.setattr(mujoco_versions, "version", lambda: (3, 8, 1))  # the child-process way (before 3.14)
    child = inertia.geometry_model(str(path))
    assert np.array_equal(child.body_mass, here.body_mass) and np.array_equal(child.body_inertia, here.body_inertia)
    path.write_text("<mujoco><worldbody><body><geom type='mesh' mesh='absent'/></body></worldbody></mujoco>")
    with pytest.raises(ValueError):
        inertia.geometry_model(str(path))


def test_a_run_keeps_its_starts_contacts() -> None:
    """MuJoCo 3.0's copy of an MjData keeps ncon but leaves the contacts zero (geom 0 against geom 0): the start a
    run keeps is forwarded again, so the start's overlap is measured on every release (gymnasium's HumanoidStandup,
    its arm 36 mm in the floor, read "no contact with an extent" on 3.0.0 before)."""
    from pytest_physlaw.pack import runs

    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""")
    fresh = runs.start(model)
    first = runs.settled(model, 2, cold=False).first
    assert first.ncon == fresh.ncon > 0
    assert [(c.geom1, c.geom2) for c in first.contact[: first.ncon]] == [(c.geom1, c.geom2) for c in fresh.contact[: fresh.ncon]]
    assert np.allclose(first.contact.dist[: first.ncon], fresh.contact.dist[: fresh.ncon])


def test_a_resting_box_weighs_its_weight_on_its_contacts() -> None:
    """MuJoCo 3.0's MjContact reads a zero `frame` one contact at a time (the contact array's view is right):
    model-contact-carries-weight read 0 of the weight on gymnasium-robotics' Fetch, Shadow hand and kitchen there.
    The contact forces on a box at rest, in the world frame, carry its weight on every release."""
    from pytest_physlaw.pack import runs, settled_pose

    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="plane" size="2 2 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body></worldbody></mujoco>""")
    final = runs.settled(model, 500, cold=False).final
    weight = 2 * float(np.linalg.norm(model.opt.gravity))
    assert settled_pose._contact_force_on(model, final, 1)[2] == pytest.approx(weight, rel=0.02)



OLD_FULLM_DOC = ("mj_fullM(m: mujoco._structs.MjModel, dst: numpy.ndarray[numpy.float64[m, n], flags.writeable, "
                 "flags.c_contiguous], M: numpy.ndarray[numpy.float64[m, 1]]) -> None\n\nConvert sparse to dense.")
NEW_FULLM_DOC = ("mj_fullM(m: mujoco._structs.MjModel, d: mujoco._structs.MjData, dst: typing.Annotated["
                 "numpy.typing.NDArray[numpy.float64], \"[m, n]\", \"flags.writeable\"]) -> None")


class _Binding:
    """A fake pybind11 function: declares `doc`'s signature and, like pybind, refuses other arguments with a
    TypeError ("incompatible function arguments") before it does anything."""

    def __init__(self, doc: str | None, accepts, body) -> None:
        self.__doc__, self.accepts, self.body, self.calls = doc, accepts, body, 0

    def __call__(self, *args):
        self.calls += 1
        if not self.accepts(*args):
            raise TypeError("mj_fullM(): incompatible function arguments")
        self.body(*args)


def _old_fullm(model, doc):  # mj_fullM(m, dst, M) of MuJoCo before 3.10: the dense matrix from the sparse qM
    dense = mujoco_versions.full_mass(model, _data_of(model))

    def body(m, dst, qm):
        dst[:] = dense
    return _Binding(doc, lambda m, dst, qm: isinstance(dst, np.ndarray) and isinstance(qm, np.ndarray), body)


def _new_fullm(model, doc, real=mujoco.mj_fullM):  # mj_fullM(m, d, dst) of 3.10 on
    return _Binding(doc, lambda m, d, dst: isinstance(d, DataWithQM) and isinstance(dst, np.ndarray),
                    lambda m, d, dst: real(m, d.data, dst))


class DataWithQM:
    """An MjData of MuJoCo 3.10 (or before): the same state, and the legacy sparse `qM` beside it."""

    def __init__(self, data: mujoco.MjData) -> None:
        self.data, self.qM = data, np.zeros(8)

    def __getattr__(self, name: str):
        return getattr(self.data, name)


def _data_of(model):
    data = mujoco.MjData(model)
    data.qpos[:2] = [0.4, -0.3]
    mujoco.mj_forward(model, data)
    return data


@pytest.mark.parametrize("doc", [NEW_FULLM_DOC, None], ids=["declared", "undeclared"])
def test_full_mass_takes_the_new_call_while_qm_is_still_there(arm, monkeypatch, doc) -> None:
    """MuJoCo 3.10 takes `mj_fullM(m, d, dst)` and still has `qM`: the signature, not the field, picks the call
    (the `hasattr(data, "qM")` shim called the old form there: "incompatible function arguments")."""
    model, data = arm
    expected = mujoco_versions.full_mass(model, data)
    data = DataWithQM(data)
    fake = _new_fullm(model, doc)
    monkeypatch.setattr(mujoco, "mj_fullM", fake)
    for _ in range(3):
        assert np.array_equal(mujoco_versions.full_mass(model, data), expected)
    assert fake.calls == 3  # the newer call found once (tried, not refused), then called alone


@pytest.mark.parametrize("doc", [OLD_FULLM_DOC, None], ids=["declared", "undeclared"])
def test_full_mass_takes_the_old_call_where_the_binding_does(arm, monkeypatch, doc) -> None:
    """Before 3.10 `mj_fullM(m, dst, M)` reads the sparse `qM`: declared, it is called so at once; undeclared,
    the newer call's TypeError selects it, once."""
    model, data = arm
    expected = mujoco_versions.full_mass(model, data)
    data = DataWithQM(data)
    fake = _old_fullm(model, doc)
    monkeypatch.setattr(mujoco, "mj_fullM", fake)
    for _ in range(3):
        assert np.array_equal(mujoco_versions.full_mass(model, data), expected)
    assert fake.calls == (3 if doc else 4)  # undeclared: one refused try, then the old call each time


def test_a_wrong_call_is_not_hidden(arm, monkeypatch) -> None:
    """A binding that refuses both forms is an error, not a silent zero matrix."""
    model, data = arm
    monkeypatch.setattr(mujoco, "mj_fullM", _Binding(None, lambda *a: False, lambda *a: None))
    with pytest.raises(TypeError):
        mujoco_versions.full_mass(model, data)


@pytest.mark.parametrize("doc,newer", [
    ("mj_solveM2(m: MjModel, d: MjData, x: numpy.ndarray[numpy.float64[m, n]], y: numpy.ndarray[numpy.float64[m, n]])"
     " -> None", False),
    ("mj_solveM2(m: MjModel, d: MjData, x: Annotated[NDArray[float64], \"[m, n]\"], y: Annotated[NDArray[float64], "
     "\"[m, n]\"], sqrtInvD: Annotated[NDArray[float64], \"[m, n]\"]) -> None", True),
    (None, True), (None, False)])
def test_the_half_solve_by_its_signature(arm, monkeypatch, doc, newer) -> None:
    """`mj_solveM2` took D^-1/2 as an argument from 3.2.7 (`qLDiagSqrtInv` removed): either form gives
    MuJoCo's half solve."""
    model, data = arm
    rows = np.eye(model.nv)[:2].copy()
    sqrt_inv_d = np.sqrt(data.qLDiagInv)
    expected = np.zeros_like(rows)
    mujoco_versions.solve_half(model, data, expected, rows, sqrt_inv_d)
    real = mujoco.mj_solveM2
    if newer:
        fake = _Binding(doc, lambda *a: len(a) == 5, real)
    else:
        fake = _Binding(doc, lambda *a: len(a) == 4, lambda m, d, x, y: real(m, d, x, y, sqrt_inv_d))
    monkeypatch.setattr(mujoco, "mj_solveM2", fake)
    out = np.zeros_like(rows)
    mujoco_versions.solve_half(model, data, out, rows, sqrt_inv_d)
    assert np.array_equal(out, expected)


def test_declared_parameters_are_read_past_brackets() -> None:
    """pybind11's signature line, old (numpy.ndarray[...]) and new (typing.Annotated[...]) forms; an overload set
    declares none."""
    assert mujoco_versions.parameters(_Binding(OLD_FULLM_DOC, None, None)) == ("m", "dst", "M")
    assert mujoco_versions.parameters(_Binding(NEW_FULLM_DOC, None, None)) == ("m", "d", "dst")
    assert mujoco_versions.parameters(mujoco.mj_fullM) in (("m", "d", "dst"), ("m", "dst", "M"))
    assert mujoco_versions.parameters(_Binding("mj_x(*args, **kwargs)\nOverloaded function.", None, None)) is None
    assert mujoco_versions.parameters(_Binding(None, None, None)) is None


def test_the_flexes_of_contacts_from_the_array_view() -> None:
    """A cloth on a sphere: each contact's flex side is the cloth (0), its geom side -1, as MuJoCo's contact array
    holds them (3.0.1's single MjContact read -1 -1 for these contacts: model-constraint-wrenches counted them as
    a geom's and read a wrench mismatch of 1.0 on the cloth)."""
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody><geom type="sphere" size="0.08"/>
        <flexcomp name="cloth" type="grid" count="4 4 1" spacing="0.04 0.04 0.04" pos="0 0 0.07" radius="0.004"
                  dim="2" mass="0.05"><edge equality="true"/></flexcomp></worldbody></mujoco>""")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    flexes = mujoco_versions.contact_flexes(data)
    assert data.ncon > 0 and flexes.shape == (data.ncon, 2)
    assert np.array_equal(flexes, np.array([data.contact[i].flex for i in range(data.ncon)]))  # right on 3.14
    assert set(map(tuple, flexes)) == {(-1, 0)}


def test_mesh_inertia_modes_are_spelt_as_the_release_accepts() -> None:
    """Legacy and exact are found on every release (3.0's default and `exactmeshinertia`, 3.2.5's mesh `inertia`),
    and the spelling found makes a non-convex mesh weigh what that mode computes: an L-shaped prism of volume 3 whose
    legacy volume is 3 too (star-shaped about its centres), and the mode a release has no spelling for is None."""
    prism = ('vertex="0 0 0 2 0 0 2 1 0 1 1 0 1 2 0 0 2 0 0 0 1 2 0 1 2 1 1 1 1 1 1 2 1 0 2 1" face="0 2 1 0 3 2 0 5 3 '
             '3 5 4 6 7 8 6 8 9 6 9 11 9 10 11 0 1 7 0 7 6 1 2 8 1 8 7 2 3 9 2 9 8 3 4 10 3 10 9 4 5 11 4 11 10 5 0 6 '
             '5 6 11"')
    for mode in ("legacy", "exact"):
        compiler, mesh = mujoco_versions.mesh_inertia_attributes(mode)
        model = mujoco.MjModel.from_xml_string(
            f'<mujoco><compiler {compiler}/><asset><mesh name="m" {mesh} {prism}/></asset><worldbody><body>'
            '<freejoint/><geom type="mesh" mesh="m" density="1"/></body></worldbody></mujoco>')
        if mode == "exact" or mujoco_versions.version() != (3, 0, 0):  # 3.0.0's legacy: the inertia box's volume
            assert model.body_mass[1] == pytest.approx(3.0, rel=1e-6)  # 3.0 processes meshes in float32
    mujoco_versions._MESH_INERTIA_SPELLINGS["nonesuch"] = [("", 'inertia="nonesuch"')]
    try:
        assert mujoco_versions.mesh_inertia_attributes("nonesuch") is None
    finally:
        del mujoco_versions._MESH_INERTIA_SPELLINGS["nonesuch"]
        mujoco_versions._MESH_INERTIA.pop("nonesuch", None)


def test_the_mesh_inertia_kind_by_either_spelling_of_the_enum(monkeypatch) -> None:
    import types

    assert mujoco_versions.mesh_inertia_kind("convex") == mujoco.mjtMeshInertia.mjMESH_INERTIA_CONVEX
    # 3.2.5 to 3.2.7 spell the members mjINERTIA_*; before 3.2.5 there is no mjtMeshInertia
    monkeypatch.setattr(mujoco, "mjtMeshInertia", types.SimpleNamespace(mjINERTIA_CONVEX=1, mjINERTIA_LEGACY=3))
    assert mujoco_versions.mesh_inertia_kind("convex") == 1 and mujoco_versions.mesh_inertia_kind("legacy") == 3
    monkeypatch.delattr(mujoco, "mjtMeshInertia")
    assert mujoco_versions.mesh_inertia_kind("convex") is None
