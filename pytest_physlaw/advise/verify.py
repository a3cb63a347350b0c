"""The recommendation judged by the pack's laws: `pytest-physlaw check` (in a subprocess, as a user runs it) on a
copy of the model with the reference's settings and on one with the recommendation's (`setting.write_model`).
Every law the reference passes must still pass with the recommendation; the laws that do not are named.

Run on the reference and the recommendation, not on every setting of the sweep (a check-up costs seconds): when the
recommendation loses a law, the next cheapest setting within the tolerance is checked instead, up to `TRIES`
settings; the one that keeps every law becomes the recommendation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pytest_physlaw.advise.setting import Setting, write_model


TRIES = 3


@dataclass(frozen=True)
class Verdict:
    reference_passed: list[str]
    lost: list[str]  # laws the reference passes and the recommendation does not
    exit_codes: tuple[int, int]
    tried: list[str] = field(default_factory=list)  # the settings checked before this one, each with what it lost

    def to_json(self) -> dict:
        return {"laws_reference_passes": len(self.reference_passed), "lost": self.lost, "tried": self.tried,
                "exit_codes": list(self.exit_codes)}


def outcomes(report: Path) -> dict[str, str]:
    """Each law case's outcome, its id without the model's path (two copies of one model compare)."""
    data = json.loads(report.read_text())
    return {law["nodeid"].split("::", 1)[-1]: law["outcome"] for law in data["laws"]}


def check(model: Path, folder: Path) -> tuple[dict[str, str], int]:
    report = folder / "report.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                                      os.environ.get("PYTHONPATH", "")]))}
    done = subprocess.run([sys.executable, "-m", "pytest_physlaw", "check", str(model), f"--law-report={report}",
                           "-q", "-p", "no:cacheprovider", f"--rootdir={folder}"], cwd=folder, env=env,
                          capture_output=True, text=True)
    if not report.is_file():
        raise ValueError(f"pytest-physlaw check {model.name} wrote no report (exit {done.returncode}): "
                         + (done.stdout + done.stderr)[-600:])
    return outcomes(report), done.returncode


def verify(source: Path, reference: Setting, candidates: list[Setting], tries: int = TRIES) -> tuple[Verdict, int]:
    """The check-up on the reference's copy, then on each candidate's, cheapest first, until one keeps every law the
    reference passes (at most `tries`): (its verdict, its index; the last tried's when none kept them all)."""
    with tempfile.TemporaryDirectory(prefix="physlaw-advise-") as tmp:
        folder = Path(tmp) / "reference"
        ref, ref_code = check(write_model(source, reference, folder), folder)
        passed = sorted(k for k, v in ref.items() if v == "passed")
        verdict, index, tried = Verdict(passed, [], (ref_code, ref_code)), 0, []
        for index, setting in enumerate(candidates[:tries]):
            folder = Path(tmp) / f"candidate{index}"
            got, code = check(write_model(source, setting, folder), folder)
            verdict = Verdict(passed, sorted(k for k in passed if got.get(k) != "passed"), (ref_code, code), list(tried))
            if not verdict.lost:
                break
            tried.append(f"{setting.label()}: lost {', '.join(verdict.lost)}")
    return verdict, index
