"""The recommendation judged by the pack's laws: `pytest-physlaw check` (in a subprocess, as a user runs it) on a
copy of the model with the reference's settings and on one with the recommendation's (`setting.write_model`).
Every law the reference passes must still pass with the recommendation; the laws that do not are named.

Run on the recommendation and the reference only, not on every setting of the sweep: a check-up costs seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pytest_physlaw.advise.setting import Setting, write_model


@dataclass(frozen=True)
class Verdict:
    reference_passed: list[str]
    lost: list[str]  # laws the reference passes and the recommendation does not
    exit_codes: tuple[int, int]

    def to_json(self) -> dict:
        return {"laws_reference_passes": len(self.reference_passed), "lost": self.lost,
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


def verify(source: Path, reference: Setting, recommended: Setting) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="physlaw-advise-") as tmp:
        got = {}
        for name, setting in (("reference", reference), ("recommended", recommended)):
            folder = Path(tmp) / name
            got[name] = check(write_model(source, setting, folder), folder)
    ref, ref_code = got["reference"]
    rec, rec_code = got["recommended"]
    passed = sorted(k for k, v in ref.items() if v == "passed")
    lost = sorted(k for k in passed if rec.get(k) != "passed")
    return Verdict(passed, lost, (ref_code, rec_code))
