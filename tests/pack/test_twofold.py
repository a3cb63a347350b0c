"""The second-computation laws (`pytest_physlaw/pack/twofold/`) pass on sound models and fail when MuJoCo's path
they compare is made to compute another answer (the fault injected for the inner run only); and the inverse-dynamics
law judges a PGS stack by its forward solve's own error (docs/second-computations.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mujoco
import pytest

from pytest_physlaw import mujoco_versions

MODELS = Path(__file__).resolve().parents[2] / "regressions" / "models"
ROOT_SCALES_DIAGONAL = mujoco_versions.version() < (3, 2, 7)  # mujoco-ec322641: mj_mulM2 scaled the diagonal alone
TREE = "mujoco_4_0_0_sparse_newton_tree.xml"  # MuJoCo 4.0.0's sparse Newton defect: sound on the pinned release
STACK = """<mujoco><option solver="PGS"/><worldbody><geom type="plane" size="2 2 0.1"/>
  <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  <body pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  <body pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>"""


def _record(pytester: pytest.Pytester, model: str, keyword: str, law_id: str) -> dict:
    pytester.runpytest_inprocess(f"--physlaw-model={model}", "-p", "no:cacheprovider", "-k", keyword)
    report = json.loads((pytester.path / ".physlaw" / "report.json").read_text())
    (record,) = [r for r in report["laws"] if r["law"] == law_id]
    return record


def test_dense_and_sparse_paths_agree_on_the_pinned_mujoco(pytester: pytest.Pytester) -> None:
    shutil.copy(MODELS / TREE, pytester.path / TREE)
    record = _record(pytester, TREE, "jacobian", "model-jacobian-paths-agree")
    assert record["outcome"] == "passed", record
    assert all(c["value"] < 1e-3 for c in record["checks"]), record


def _sparse_path_off(real):
    def faulty(m, d):  # the sparse path's answer a fifth of the correction off, its forces a tenth (4.0.0: 1.69)
        real(m, d)
        if m.opt.jacobian == mujoco.mjtJacobian.mjJAC_SPARSE:
            d.qacc[:] += 0.2 * (d.qacc_smooth - d.qacc)
            d.efc_force[: d.nefc] *= 1.1
    return faulty


def _sparse_path_capped(real):
    def faulty(m, d):  # the sparse path stops at its cap
        real(m, d)
        if m.opt.jacobian == mujoco.mjtJacobian.mjJAC_SPARSE:
            d.solver_niter[0] = m.opt.iterations
    return faulty


@pytest.mark.parametrize(("fault", "quantities"), [(_sparse_path_off, {"qacc_apart_over_reach", "force_apart_over_reach"}),
                                                   (_sparse_path_capped, {"capped_apart"})])
def test_dense_and_sparse_law_fails_when_the_sparse_path_is_off(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch, fault,
                                                                quantities: set[str]) -> None:
    shutil.copy(MODELS / TREE, pytester.path / TREE)
    monkeypatch.setattr(mujoco, "mj_forward", fault(mujoco.mj_forward))
    record = _record(pytester, TREE, "jacobian", "model-jacobian-paths-agree")
    assert record["outcome"] == "failed", record
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert quantities <= failed, record
    assert "engine defect" in json.dumps(record)


def test_a_pgs_stack_is_judged_by_its_solves_own_error(pytester: pytest.Pytester) -> None:
    """Three boxes stacked, PGS: at the start they fall together, the only constraint rows (box on box, at distance
    -0.0) carry round-off (6.5e-15 N), and inverse dynamics' force was 1.77 of that: a finding against a share of
    the largest force alone. Against the state's force scale it is round-off; later, PGS's forces are 5e-4 off
    inverse dynamics', twice what they move when the solve goes on: within the bound."""
    pytester.path.joinpath("stack.xml").write_text(STACK)
    record = _record(pytester, "stack.xml", "inverse", "model-inverse-dynamics")
    assert record["outcome"] == "passed", record
    (check,) = [c for c in record["checks"] if c["quantity"] == "constraint_recovered_over_reach"]
    assert check["value"] <= 1, record


def test_a_loose_pgs_stack_names_the_tolerance_that_settles_its_forces(pytester: pytest.Pytester) -> None:
    """At tolerance 1e-3 PGS's forces are 0.11 of the largest off inverse dynamics': the solve's own error (they
    move 0.06 when it goes on), not an engine defect; the message names the tolerance that settles them."""
    pytester.path.joinpath("stack.xml").write_text(STACK.replace('solver="PGS"', 'solver="PGS" tolerance="1e-3"'))
    record = _record(pytester, "stack.xml", "inverse", "model-inverse-dynamics")
    assert record["outcome"] == "passed", record
    text = json.dumps(record)
    assert "the forward solve's own error" in text and "settle to 0.0001 with <option tolerance=" in text, record


def _whole_model_solve_off(real):
    def faulty(m, d):  # the solve of the whole model (islands off) a fifth of the correction off
        real(m, d)
        if m.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_ISLAND):
            d.qacc[:] += 0.2 * (d.qacc_smooth - d.qacc)
    return faulty


def _factor_of_another_matrix(real):
    def faulty(m, d, x, y):  # M^-1 of a matrix 1 % lighter: a term the factor left out
        real(m, d, x, y)
        x *= 1.01
    return faulty


def _midphase_drops_a_contact(real):
    def faulty(m, d):  # with the midphase on, the last contact pruned
        real(m, d)
        if not m.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE) and d.ncon:
            d.ncon = d.ncon - 1
    return faulty


def _pgs_short_of_its_minimum(real):
    def faulty(m, d):  # PGS at tight tolerances a thousandth of the correction short of the minimum
        real(m, d)
        if m.opt.solver == int(mujoco.mjtSolver.mjSOL_PGS) and m.opt.tolerance <= 1e-12:
            d.qacc[:] += 1e-3 * (d.qacc_smooth - d.qacc)
    return faulty


PAIRS = [  # (law id, -k, the model's xml, the MuJoCo function faulted, the fault, the quantity that fails)
    ("model-island-paths-agree", "islands", STACK, "mj_forward", _whole_model_solve_off, "qacc_apart_over_reach"),
    ("model-mass-matrix-inverts", "mass_matrix", STACK, "mj_solveM", _factor_of_another_matrix, "inverse_over_round_off"),
    ("model-midphase-contacts-agree", "midphase", STACK, "mj_collision", _midphase_drops_a_contact, "contacts_apart"),
    ("model-solvers-agree-in-motion", "where_the_model_moves", STACK, "mj_forward", _pgs_short_of_its_minimum,
     "PGS_share_over_bound"),
]


@pytest.mark.parametrize(("law_id", "keyword", "xml", "function", "fault", "quantity"), PAIRS, ids=[p[0] for p in PAIRS])
def test_each_pair_holds_and_fails_under_its_fault(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                   law_id: str, keyword: str, xml: str, function: str, fault,
                                                   quantity: str) -> None:
    if law_id == "model-island-paths-agree" and not hasattr(mujoco.mjtDisableBit, "mjDSBL_ISLAND"):
        pytest.skip(f"MuJoCo {mujoco.__version__} has no mjDSBL_ISLAND")
    pytester.path.joinpath("model.xml").write_text(xml)
    sound = _record(pytester, "model.xml", keyword, law_id)
    # before 3.2.7 the mass law sees its release's mj_mulM2 defect (test_the_mass_matrix_square_root_...)
    released = {"square_root_over_round_off"} if law_id == "model-mass-matrix-inverts" and ROOT_SCALES_DIAGONAL else set()
    assert {c["quantity"] for c in sound["checks"] if not c["passed"]} == released, sound
    monkeypatch.setattr(mujoco, function, fault(getattr(mujoco, function)))
    record = _record(pytester, "model.xml", keyword, law_id)
    assert record["outcome"] == "failed", record
    assert quantity in {c["quantity"] for c in record["checks"] if not c["passed"]}, record


def test_the_paths_compare_the_solve_not_the_noslip_pass_after_it(pytester: pytest.Pytester) -> None:
    """gymnasium-robotics' Adroit door (noslip_iterations 20): the noslip pass's fixed sweeps, which islands order
    otherwise, read 138x the island law's bound before the paths were compared without it."""
    robotics = pytest.importorskip("gymnasium_robotics")
    hand = Path(robotics.__file__).parent / "envs" / "assets" / "adroit_hand"
    shutil.copytree(hand, pytester.path / "adroit_hand")
    record = _record(pytester, "adroit_hand/adroit_door.xml", "islands", "model-island-paths-agree")
    assert record["outcome"] == "passed", record



def _root_one_percent_long(real):
    def faulty(m, d, res, vec):  # M^1/2 x 1 % too long
        real(m, d, res, vec)
        res *= 1.01
    return faulty


def test_the_mass_matrix_square_root_holds_and_fails_under_its_fault(pytester: pytest.Pytester,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """mj_mulM2 gives x^T M x as its squared norm on the stack's coupled free bodies from 3.2.7; before, the law sees
    the released defect (the diagonal alone scaled); a square root 1 % too long fails."""
    pytester.path.joinpath("model.xml").write_text(STACK)
    record = _record(pytester, "model.xml", "mass_matrix", "model-mass-matrix-inverts")
    failed = {c["quantity"] for c in record["checks"] if not c["passed"]}
    assert failed == ({"square_root_over_round_off"} if ROOT_SCALES_DIAGONAL else set()), record
    if ROOT_SCALES_DIAGONAL:
        return
    monkeypatch.setattr(mujoco, "mj_mulM2", _root_one_percent_long(mujoco.mj_mulM2))
    record = _record(pytester, "model.xml", "mass_matrix", "model-mass-matrix-inverts")
    assert {c["quantity"] for c in record["checks"] if not c["passed"]} == {"square_root_over_round_off"}, record
