"""The regression corpus (`regressions/`) stays rerunnable: every case names installable version sets, models
that compile on the pinned MuJoCo (or, with `pinned_release`, says why the pinned MuJoCo refuses them; with
`untriggered_until`, the release from which the twin's attribute is gone), laws the pack has, and a direct measurement in confirm.py; the trigger models
pass every law of the pack here (3.14.0 is a fixed release of each of them), as the corpus's "clean on the fixed
release" needs; their twins are the corpus run's. (The bad releases are the corpus run's, `python regressions/run.py`:
not in the default run.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mujoco
import pytest

from pytest_physlaw import upgrade
from pytest_physlaw.pack import law_ids

HERE = Path(__file__).resolve().parents[2] / "regressions"
CASES = json.loads((HERE / "cases.json").read_text())["cases"]


def _confirm():
    spec = importlib.util.spec_from_file_location("confirm", HERE / "confirm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_case_is_complete(case: dict) -> None:
    assert upgrade.requirements(case["bad"]) and upgrade.requirements(case["fixed"])
    assert case["bad"] != case["fixed"]
    assert set(case["expect"]) - {"gate"} <= law_ids(), case["expect"]
    assert case["expect"] or case.get("missed"), "a case nothing catches says why in 'missed'"
    if "gate" in case["expect"]:  # the gate's flag is the bug's only where the twin gates clean across the two
        assert "untriggered" in case, "a case caught by the gate needs the scene with its trigger removed"
    for key in ("model", "untriggered"):
        if key in case:
            if "pinned_release" in case or (key == "untriggered" and "untriggered_until" in case):  # a case whose scene the pinned MuJoCo refuses says so, and it still must
                with pytest.raises(ValueError):
                    mujoco.MjModel.from_xml_path(str(HERE / case[key]))
            else:
                mujoco.MjModel.from_xml_path(str(HERE / case[key]))
    for extra in case.get("files", []):
        assert (HERE / extra).is_file(), extra
    assert case["id"] in _confirm().CASES


def _on_pinned(case: dict) -> bool:
    """Whether the case's scenes run on the pinned MuJoCo: C cases (no route option) whose models it compiles."""
    return not case.get("options") and "pinned_release" not in case


def test_the_mujoco_c_trigger_models_pass_the_pack_on_the_pinned_release(pytester: pytest.Pytester) -> None:
    # the triggers alone: each twin is its trigger's scene less the trigger, compiled here by test_each_case_is_complete
    # and run through the pack on both its releases by every corpus run (run.py); running the twins here too doubled
    # the longest test of the suite
    models = [c["model"] for c in CASES if _on_pinned(c)]
    extra = [f for c in CASES if _on_pinned(c) for f in c.get("files", [])]  # files a scene reads (an attached model)
    for model in models + extra:
        (pytester.path / Path(model).name).write_text((HERE / model).read_text())
    # a trigger whose bug lives only past a law's bound (a ball sunk deeper than its radius) fails that law by design,
    # on every release, and a scene may carry a finding of its own on every release (its twin alike): the case names
    # those laws' tests in `pinned_findings`, and why
    # (a node id prefix: a per-body law's ids, `[model.xml:body]`, are pinned with the model's)
    designed = [f"--deselect={Path(c['model']).name}::{test}[{Path(c['model']).name}" for c in CASES if _on_pinned(c)
                for test in c.get("pinned_findings", {})]
    result = pytester.runpytest_inprocess(*[f"--physlaw-model={Path(m).name}" for m in models], "-p", "no:cacheprovider",
                                          *designed)
    assert result.ret == 0, result.stdout.str()[-3000:]


def _run_module():
    spec = importlib.util.spec_from_file_location("corpus_run", HERE / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_case_caught_by_the_gate_is_judged_by_the_gate_across_the_two_reports(pytester: pytest.Pytester) -> None:
    """run.py's gate verdict: the bad release's report against the fixed one's flags a moved value, and a report
    against itself flags nothing (the twin's clean gate)."""
    reports = {}
    for name, value in (("fixed", 1.0), ("bad", 1.5)):
        pytester.makepyfile(test_value=f"""
            import pytest
            @pytest.mark.law("value-law")
            def test_value(law):
                law.check("height_mm", {value}, le=10.0)
        """)
        reports[name] = pytester.path / f"{name}.json"
        assert pytester.runpytest_inprocess(f"--law-report={reports[name]}", "-p", "no:cacheprovider").ret == 0
    gated = _run_module().gated
    assert gated(reports["bad"], reports["fixed"]) == ["test_value height_mm"]
    assert gated(reports["fixed"], reports["fixed"]) == []


@pytest.mark.parametrize(("row", "by_law", "check"), [
    # 3.3.0's replicate case: the as-written law fails the trigger only; mj_jacDot's defect fails trigger and twin
    ({"bad_failed": ["as-written", "jacdot"], "fixed_failed": [], "bad_untriggered": ["jacdot"],
      "fixed_untriggered": []}, ["as-written"], True),
    # a fixed release with its own defect, failing trigger and twin alike there
    ({"bad_failed": ["as-written", "jacdot"], "fixed_failed": ["jacdot"], "bad_untriggered": ["jacdot"],
      "fixed_untriggered": ["jacdot"]}, ["as-written"], True),
    # a law failing on the fixed release too is no catch; nor a fixed release failing what its twin passes
    ({"bad_failed": ["depth"], "fixed_failed": ["depth"]}, [], False),
    ({"bad_failed": ["as-written"], "fixed_failed": ["depth"], "bad_untriggered": [], "fixed_untriggered": []},
     ["as-written"], False),
    # a law failing the twin is the release's, not the bug's
    ({"bad_failed": ["energy"], "fixed_failed": [], "bad_untriggered": ["energy"], "fixed_untriggered": []}, [],
     False),
], ids=["another-defect-of-the-bad-release", "another-defect-of-the-fixed-release", "fails-on-both",
        "fixed-release-fails-the-trigger", "twin-fails-alike"])
def test_each_law_is_judged_on_its_own(row: dict, by_law: list, check: bool) -> None:
    """run.py's second tally: a law is the bug's where it fails the trigger on the bad release only, and the fixed
    release fails nothing its twin passes."""
    run = _run_module()
    run.attribute(row)
    assert row["by_law"] == by_law and row["blind_check_by_law"] is check


def test_the_issues_count_asks_the_bad_and_the_fixed_release_only() -> None:
    """run.py's third tally, the issue's: `check` fails the bad release and passes the fixed one, whatever the twin."""
    run = _run_module()
    twin_fails = {"bad_failed": ["wraps"], "fixed_failed": [], "bad_untriggered": ["wraps"], "fixed_untriggered": []}
    run.attribute(twin_fails)
    assert twin_fails["issue_check"] and not twin_fails["by_law"]
    fixed_fails = {"bad_failed": ["wraps"], "fixed_failed": ["authority"]}
    run.attribute(fixed_fails)
    assert not fixed_fails["issue_check"]


def test_the_gate_and_a_fixed_release_defect_are_judged_on_their_own_too() -> None:
    """The trigger's gated regressions that the twin's gate flags too are the release's (3.2.7's mj_mulM2 fix moves
    every coupled model); a fixed release's defect that only the trigger shows is set aside where the case names
    it (`fixed_defects`)."""
    run = _run_module()
    row = {"bad_failed": [], "fixed_failed": ["transition"], "bad_untriggered": [], "fixed_untriggered": [],
           "gate": ["test_mass square_root", "test_settled drift_mm"], "gate_untriggered": ["test_mass square_root"]}
    run.attribute(row)
    assert row["gate_by_law"] == ["test_settled drift_mm"] and not row["fixed_own"]
    run.attribute(row, {"transition": "the damping of the unnudged control, 3.0 to 3.17"})
    assert row["fixed_own"]
