"""Rerun the regression corpus (cases.json): for each case, in a kept environment of its bad and of its fixed
release, the direct measurement of the symptom (confirm.py) and `pytest-physlaw check` on its trigger model (and
on the same scene with the trigger removed, where the case has one); then a table: which laws fail on the bad
release, whether the fixed release is clean, and whether the expected law is among them. A case whose `expect` names
`gate` is caught by the gate instead: the bad release's report against a baseline saved on the fixed release has
regressions, while the scene with the trigger removed gates clean across the same two releases (so the flag is the
bug's, not another change of the release); a law that fails alike on both releases (another bug the two share) does
not count against it, as the gate does not. A case no law and no gate catches has `"expect": []` and says why in
`"missed"`: it is reported as missed, not as a failure of the run.

Each case is also judged blind, whatever its `expect`: `check` (no baseline) catches it where some law fails on the
bad release while the fixed release passes every law and the trigger-removed twin passes every law on both; the gate
where the bad release's report against the fixed one's has regressions and the twin gates clean across the two. A
second tally judges each law on its own: `check` where some law fails the trigger on the bad release only (not on
the fixed release, not the twin on either), and the fixed release fails no law its twin passes (nor one the case's
`fixed_defects` names: a defect of the fixed release that only the trigger's scene shows); the gate where some
regression of the trigger's gate is not among the twin's. A release carrying another defect (3.3.0's mj_jacDot,
failing trigger and twin alike) then hides no other law's catch. A case whose `expect` names laws is caught as
expected where one of them is the bug's by that judgement; one whose `expect` is the gate, where some regression is
the trigger's alone.

    python regressions/run.py [--envs DIR] [--only CASE_ID ...] [--markdown FILE] [--json FILE]

Not part of the default test run: it installs two MuJoCo releases a case (kept in --envs, default as
`pytest-physlaw upgrade` keeps them). Exit status 1 when a case is not caught, as its `expect` says, on its bad
release, or not clean on its fixed one; a missed case (`"expect": []`) never fails the run, and one that a law now catches is
named so that its `expect` can be updated.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from pytest_physlaw import gate, reportfile, upgrade
from pytest_physlaw.session import LawSession

HERE = Path(__file__).resolve().parent


def failing(report: Path) -> list[str]:
    """The law ids that failed in a check's report."""
    run = LawSession.from_report(reportfile.read(report, str(report)))
    return sorted({r.law or r.nodeid for r in run.records.values() if r.outcome == "failed"})


def gated(bad: Path, fixed: Path) -> list[str]:
    """The gate's regressions of the bad release's report against the fixed release's as the baseline:
    'law quantity' each."""
    new = reportfile.read(bad, str(bad))
    result = gate.compare(gate.Baseline.from_report(reportfile.read(fixed, str(fixed))), LawSession.from_report(new),
                          reportfile.versions(new))
    return sorted({f"{f.nodeid.split('::')[-1].split('[')[0]} {f.quantity or ''}".strip() for f in result.regressions})


def check(side: upgrade.Side, model: Path, work: Path, options: list[str]) -> Path:
    """The report of `pytest-physlaw check` on `model` in `side`'s environment."""
    name = f"{side.name}-{model.stem}"
    report, status, _ = upgrade.run_side(upgrade.Side(name, side.requirements, side.env), [str(model)], options, False,
                                         work)
    if not report.is_file() or status not in (0, 1):  # 0 all passed, 1 some law failed; else the run broke
        raise upgrade.UpgradeError(f"{name}: {'no report' if not report.is_file() else 'the check did not run'} "
                                   f"(pytest exit {status}); see {work / (name + '.log')}")
    return report


def confirm(side: upgrade.Side, case: str) -> str:
    done = subprocess.run([str(side.env / "bin/python"), str(HERE / "confirm.py"), case], capture_output=True, text=True)
    return (done.stdout or done.stderr).strip().splitlines()[-1]


def run_case(case: dict, envs: Path, work: Path, out) -> dict:
    sides = {k: upgrade.Side(k, upgrade.requirements(case[k]), upgrade.env_dir(envs, upgrade.requirements(case[k])))
             for k in ("bad", "fixed")}
    row: dict = {"id": case["id"]}
    reports: dict[str, Path] = {}
    for key, side in sides.items():
        upgrade.ensure(side, out)
        # Warp's compiled kernels kept with each environment: one cache shared by warp-lang releases is not safe
        os.environ["WARP_CACHE_PATH"] = str(side.env / "warp-cache")
        row[f"{key}_confirm"] = confirm(side, case["id"])
        options = case.get("options", [])
        for model, label in ((case["model"], ""), (case.get("untriggered"), "_untriggered")):
            if model:
                reports[key + label] = check(side, HERE / model, work / case["id"], options)
                row[f"{key}{label or '_failed'}"] = failing(reports[key + label])
    row["caught"] = [law for law in case["expect"] if law in row["bad_failed"]]
    twin = "untriggered" in case
    clean_twin = not row.get("bad_untriggered") and not row.get("fixed_untriggered")
    row["gate"] = gated(reports["bad"], reports["fixed"])
    row["gate_untriggered"] = gated(reports["bad_untriggered"], reports["fixed_untriggered"]) if twin else []
    if "gate" in case["expect"] and row["gate"]:
        row["caught"].append("gate")
    row["blind_check"] = bool(row["bad_failed"]) and not row["fixed_failed"] and clean_twin
    attribute(row, case.get("fixed_defects", {}))
    row["blind_gate"] = bool(row["gate"]) and not row["gate_untriggered"]
    row["missed"] = not case["expect"]
    if "gate" in case["expect"]:  # the gate's own terms: a law failing alike on both releases is no regression
        row["ok"] = "gate" in row["caught"] and bool(row["gate_by_law"])
    else:
        row["ok"] = row["missed"] or (bool(set(row["caught"]) & set(row["by_law"])) and row["fixed_own"])
    return row


def attribute(row: dict, fixed_defects: dict | None = None) -> None:
    """Each law's own verdict, where a release carries another defect: `by_law`, the laws that fail the trigger on
    the bad release and pass it on the fixed one, and pass the twin on both (the bug's, not the release's);
    `fixed_own`, whether every law failing the trigger on the fixed release fails its twin there too (the fixed
    release's own defect, as 3.2.4's mj_jacDot), or is one the case names in `fixed_defects` with why (a defect of
    the fixed release that only the trigger's scene shows); `gate_by_law`, the trigger's gated regressions that the
    twin's gate does not flag too (the bug's moves, not the release's other changes). `blind_check_by_law`: some law
    is the bug's and the fixed release fails nothing of the trigger's own. `issue_check`: the issue's own count, some
    law fails the bad release and none the fixed one, the twin not asked."""
    # the issue's own count: `check` fails the bad release and passes the fixed one, the twin not asked
    row["issue_check"] = bool(row["bad_failed"]) and not row["fixed_failed"]
    twin = set(row.get("bad_untriggered", [])) | set(row.get("fixed_untriggered", []))
    row["by_law"] = [law for law in row["bad_failed"] if law not in row["fixed_failed"] and law not in twin]
    own = set(row.get("fixed_untriggered", [])) | set(fixed_defects or {})
    row["fixed_own"] = set(row["fixed_failed"]) <= own
    row["blind_check_by_law"] = bool(row["by_law"]) and row["fixed_own"]
    row["gate_by_law"] = [g for g in row.get("gate", []) if g not in set(row.get("gate_untriggered", []))]


def blind(row: dict) -> str:
    """What catches the case blind: `check` without a baseline, else the gate, else nothing."""
    return "check" if row["blind_check"] else "gate" if row["blind_gate"] else "missed"


def blind_by_law(row: dict) -> str:
    """The same, each law judged on its own (`attribute`): `check` where some law is the bug's alone, the gate
    where some regression is the trigger's alone."""
    return "check" if row["blind_check_by_law"] else "gate" if row["gate_by_law"] else "missed"


def markdown(cases: list[dict], rows: list[dict]) -> str:
    lines = ["| case | bad -> fixed | direct measurement (bad; fixed) | fails on bad | fixed | trigger removed | blind |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for case, row in zip(cases, rows):
        untriggered = ("-" if "bad_untriggered" not in row else
                       "clean on both" if not row["bad_untriggered"] and not row["fixed_untriggered"] else
                       f"bad: {', '.join(row['bad_untriggered']) or 'clean'}; fixed: {', '.join(row['fixed_untriggered']) or 'clean'}")
        caught = ", ".join(row["bad_failed"]) or "nothing"
        caught += f"; the gate against the fixed release: {len(row['gate'])} regressions"
        if row["gate"]:
            caught += f" ({', '.join(row['gate'][:4])}" + (", ...)" if len(row["gate"]) > 4 else ")")
        if "bad_untriggered" in row:
            untriggered += f"; gated: {len(row['gate_untriggered'])} regressions"
        verdict = blind(row) + (f" ({case['missed']})" if case.get("missed") and blind(row) == "missed" else "")
        if blind_by_law(row) != blind(row):
            verdict += f"; by law: {blind_by_law(row)} ({', '.join(row['by_law'])})"
        lines.append(f"| {case['engine']} {case['reference']}: {case['symptom']} | {case['bad']} -> {case['fixed']} | "
                     f"{row['bad_confirm'].split(': ', 1)[1]}; {row['fixed_confirm'].split(': ', 1)[1]} | "
                     f"{caught} | {', '.join(row['fixed_failed']) or 'clean'} | {untriggered} | {verdict} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", default=os.environ.get("PYTEST_PHYSLAW_ENVS") or str(Path.home() / ".cache/pytest-physlaw/envs"))
    parser.add_argument("--work", default=".physlaw/regressions")
    parser.add_argument("--only", nargs="*", metavar="CASE_ID")
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--json", metavar="FILE", help="each case's row (the laws failing each side, the gate's regressions)")
    args = parser.parse_args()
    cases = [c for c in json.loads((HERE / "cases.json").read_text())["cases"] if not args.only or c["id"] in args.only]
    rows = [run_case(c, Path(args.envs), Path(args.work), sys.stdout) for c in cases]
    table = markdown(cases, rows)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    failed = [r["id"] for r in rows if not r["ok"]]
    missed = [r["id"] for r in rows if r["missed"]]
    judged = len(rows) - len(missed)
    print(f"{judged - len(failed)} of {judged} caught as expected on the bad release and clean on the fixed one"
          + (f"; not: {', '.join(failed)}" if failed else "")
          + (f"; {len(missed)} missed by the pack ({', '.join(missed)})" if missed else ""))
    tally = {k: sum(blind(r) == k for r in rows) for k in ("check", "gate", "missed")}
    print(f"blind: check without a baseline {tally['check']} of {len(rows)}, the gate alone {tally['gate']} more, "
          f"missed {tally['missed']}")
    by_law = {k: sum(blind_by_law(r) == k for r in rows) for k in ("check", "gate", "missed")}
    print(f"each law on its own (a defect the release's twin shares set aside): check {by_law['check']} of "
          f"{len(rows)}, the gate alone {by_law['gate']} more, missed {by_law['missed']}")
    print(f"as the issue counts (check fails the bad release and passes the fixed one, the twin not asked): "
          f"{sum(r['issue_check'] for r in rows)} of {len(rows)}")
    now = [r["id"] for r in rows if r["missed"] and blind_by_law(r) != "missed"]
    if now:
        print(f"missed cases caught now (update their expect): {', '.join(now)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
