"""The terminal summary: a "physics laws" row per check and the gaps; -q keeps only the rows that
need attention and the counts; long nodeids are shortened so the columns stay readable."""

from __future__ import annotations

import textwrap

import pytest

from pytest_physlaw.gate import Finding, GateResult
from pytest_physlaw.record import CheckRecord, LawRecord
from pytest_physlaw.session import LawSession
from pytest_physlaw.rows import check_rows, counts
from pytest_physlaw.table import law_lines, shorten


def sample_run() -> LawSession:
    ok = CheckRecord("creep_mm", 1.25, "<= 10", {"le": 10.0}, 0.875, True, unit="mm")
    bad = CheckRecord("ratio", 1.5, "1 ± 0.1", {"near": 1.0, "tol": 0.1}, -4.0, False, count=30)
    run = LawSession()
    for r in (LawRecord("laws/a.py::test_ok", "laws/a.py", checks=[ok]),
              LawRecord("laws/a.py::test_gap", "laws/a.py", outcome="xfailed", known_gap="docs/g.md", checks=[bad]),
              LawRecord("laws/a.py::test_bad", "laws/a.py", outcome="failed", checks=[bad]),
              LawRecord("laws/a.py::test_skip", "laws/a.py", outcome="skipped")):
        run.records[r.nodeid] = r
    run.gap_pages["docs/g.md"] = ["laws/a.py::test_gap"]
    return run


def test_rows_say_each_checks_outcome():
    rows = {(r.law.split("::")[1], r.quantity): r for r in check_rows(sample_run())}
    ok = rows["test_ok", "creep_mm"]
    assert (ok.value, ok.bound, ok.margin, ok.outcome, ok.attention) == ("1.25 mm", "<= 10", "0.875", "pass", False)
    assert rows["test_gap", "ratio x30"].outcome == "gap" and not rows["test_gap", "ratio x30"].attention
    assert rows["test_bad", "ratio x30"].outcome == "FAIL" and rows["test_bad", "ratio x30"].attention
    assert rows["test_skip", "-"].outcome == "skipped"


def test_a_drifted_check_is_marked():
    gate = GateResult(regressions=[Finding("drift", "laws/a.py::test_ok", "moved", "creep_mm")])
    row = next(r for r in check_rows(sample_run(), gate) if r.quantity == "creep_mm")
    assert row.outcome == "pass, DRIFT" and row.attention


def test_counts_line():
    line = counts(sample_run(), GateResult())
    assert line == ("4 laws (1 failed, 1 passed, 1 skipped, 1 xfailed); 3 checks (1 passed, 1 failed, 1 failing as open gaps say); "
                    "1 gap (1 open); baseline: 0 regressions, 0 notes")


def test_long_test_names_are_shortened_to_fit():
    assert shorten("test_x[PGS]", 48) == "test_x[PGS]"
    long = "test_" + "a" * 40 + "_" + "z" * 40 + "[PGS]"
    short = shorten(long, 48)
    assert len(short) == 48 and short.startswith("test_aaa") and short.endswith("zzz[PGS]") and "..." in short
    long_case = shorten("test_x[" + "p" * 30 + "-" + "q" * 30 + "]", 48)
    assert len(long_case) == 48 and long_case.startswith("test_x[ppp") and long_case.endswith("qqq]")


def test_rows_sit_under_their_file_a_laws_name_once_and_columns_align():
    lines = law_lines(check_rows(sample_run()))
    assert lines[0].split() == ["law", "id", "quantity", "value", "bound", "margin", "outcome"]
    assert lines[1] == "laws/a.py" and lines[2].startswith("  test_bad ")
    col = lines[0].index("quantity")
    assert all(line[col - 2:col] == "  " for line in lines[2:])


def test_a_wide_terminal_shows_whole_names():
    run = sample_run()
    long = "laws/a.py::test_" + "n" * 70
    run.records[long] = LawRecord(long, "laws/a.py", outcome="skipped")
    assert any(long.split("::")[1] in line for line in law_lines(check_rows(run), width=200))
    assert not any(long.split("::")[1] in line for line in law_lines(check_rows(run)))  # width unknown: 48


MODEL = "../physlaw-zoo/franka_emika_panda/panda_gripper_scene.xml"
BODIES = ("gripper_base_link", "gripper_finger_link_left", "gripper_finger_link_right", "wrist_rotation_link")


def pack_run() -> LawSession:
    """The model pack's shape: one file, a law per body whose case id repeats the file's path."""
    run = LawSession()
    for test, law_id in (("test_scalar_proxy_error_along_the_axis", "model-scalar-over-axis"),
                         ("test_tensor_proxy_answers_like_the_body", "model-tensor-proxy-answers")):
        for body in BODIES:
            nodeid = f"{MODEL}::{test}[{MODEL}:{body}]"
            check = CheckRecord("answer_seeded", 0.555556, "0.555556 ± 0.0556", {"near": 0.555556, "tol": 0.0556},
                                1.0, True, unit="1/kg")
            run.records[nodeid] = LawRecord(nodeid, MODEL, law=law_id, identity=f"{law_id}[{MODEL}:{body}]",
                                            checks=[check])
    figures = f"{MODEL}::test_model_figures[{MODEL}]"
    run.records[figures] = LawRecord(figures, MODEL, law="model-figures", identity=f"model-figures[{MODEL}]",
                                     checks=[CheckRecord("mean_iterations", 0.482, "<= 3", {"le": 3.0}, 0.839, True,
                                                         unit="iterations/step")])
    return run


@pytest.mark.parametrize("width", [80, 100, 120, 160, 240])
def test_the_table_fits_the_terminal_and_keeps_what_tells_rows_apart(width):
    lines = law_lines(check_rows(pack_run()), width=width)
    assert max(map(len, lines)) <= width
    assert lines.count(MODEL) == 1  # the file's path once, as its heading
    text = "\n".join(lines)
    for body in BODIES:  # every case's distinguishing tail, whole, once per law
        assert text.count(f"[...:{body}]") == 2
    assert "model-scalar-over-axis" in text and "model-tensor-proxy-answers" in text
    assert "test_model_figures[...]" in text


def test_a_wide_terminal_keeps_one_line_per_check_and_a_narrow_one_stacks():
    wide = law_lines(check_rows(pack_run()), width=240)
    assert wide[0].split() == ["law", "id", "quantity", "value", "bound", "margin", "outcome"]
    assert any(line.startswith("  test_scalar_proxy_error_along_the_axis[...:gripper_finger_link_left]  ")
               and "model-scalar-over-axis" in line and "answer_seeded" in line for line in wide)
    narrow = law_lines(check_rows(pack_run()), width=120)
    assert narrow[0] == "law  id" and narrow[1].split() == ["quantity", "value", "bound", "margin", "outcome"]
    title = narrow.index("  test_scalar_proxy_error_along_the_axis[...:gripper_finger_link_left]  model-scalar-over-axis")
    assert narrow[title + 1].split() == ["answer_seeded", "0.555556", "1/kg", "0.555556", "±", "0.0556", "1", "pass"]


def test_a_case_id_keeps_its_tail_when_the_function_name_gives_way():
    name = "test_scalar_proxy_error_along_the_axis[...:gripper_finger_link_left]"
    short = shorten(name, 54)
    assert len(short) == 54 and short.endswith("[...:gripper_finger_link_left]") and short.startswith("test_scalar")


LAWS = """
    import pytest

    def test_passes(law):
        "a law that holds"
        law.check("creep_mm", 1.25, le=10.0, unit="mm")
        law.check("ratio", 1.01, near=1.0, rel=0.1)

    def test_fails(law):
        "a law that fails"
        law.check("energy_J", 12.0, le=10.0, unit="J")

    def test_plain():
        assert True
"""


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_the_terminal_table(pytester):
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*= physics laws =*",
        "law * quantity * value * bound * margin * outcome",
        "test_laws.py",
        "  test_fails * energy_J * 12 J * <= 10 * -0.2 * FAIL",
        "  test_passes * creep_mm * 1.25 mm * <= 10 * 0.875 * pass",
        "  * ratio * 1.01 * 1 ± 0.1 * 0.9 * pass",
        "2 laws (1 failed, 1 passed); 3 checks (2 passed, 1 failed)",
    ])
    assert "test_plain" not in result.stdout.str().split("physics laws")[1]


def test_quiet_shows_only_failing_rows_and_the_counts(pytester):
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    result = pytester.runpytest("-q")
    section = result.stdout.str().split("physics laws")[1]
    assert "energy_J" in section and "FAIL" in section
    assert "creep_mm" not in section and "ratio" not in section
    assert "2 laws (1 failed, 1 passed); 3 checks (2 passed, 1 failed)" in section


def test_no_section_without_laws_or_when_none_ran(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    assert result.ret == 0 and "physics laws" not in result.stdout.str()
    pytester.makepyfile(test_laws=textwrap.dedent(LAWS))
    result = pytester.runpytest("--collect-only")
    assert result.ret == 0 and "physics laws" not in result.stdout.str()
    assert not (pytester.path / ".physlaw").exists()
