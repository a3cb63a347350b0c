"""Every release the pack claims, proven: `pytest-physlaw check` on models of every kind on the last patch of each
MuJoCo minor release (3.0 to 3.17 and 4.0), then the routes (`--physlaw-route=warp|mjx|newton`) on each minor of
mujoco-warp (3.5 to 4.0), mujoco-mjx (3.1 to 3.17) and newton (1.0 to 1.8); one kept environment a release (built
as `pytest-physlaw upgrade` builds them, the plugin from this checkout). Each release is reported as

- ran: the laws passed / failed / skipped on each model (a failure on a sound model is a finding to explain:
  real on that release, or a shim's bug),
- skipped, naming why (no wheel for this Python, a dependency pip cannot resolve),
- errored: a law raised (a bug of the pack on that release, to fix in `pytest_physlaw/mujoco_versions.py`).

    python regressions/releases.py --envs DIR [--engines mujoco warp mjx newton] [--minors 3.10 4.0]
        [--releases mujoco==3.10.0 ...] [--models arm humanoid ...] [--json FILE] [--markdown FILE]

`--json` (default .physlaw/releases/releases.json) is updated after each release, a rerun replacing only the
releases it ran: rerun the ones a fix touched with `--minors`. The last patch of each minor is read with
`pip index versions`; `--releases` gives the requirement instead. A route's release is installed with its
dependencies capped at its PERIOD: warp-lang, jax, jaxlib, numpy (and for Newton mujoco and mujoco-warp) at the
newest final release uploaded before the route's own release (upload dates from PyPI's JSON API), so that it runs
with what it was released against, not with what came out after it; the versions it ran with are recorded.
The models are the repo's own (`regressions/models`, `regressions/releases_models`) and ones shipped by gymnasium,
gymnasium-robotics and dm_control, installed without their dependencies into one more kept environment
(`models`): nothing is copied.
Not part of the test run. Exit status 1 when a release errored.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_physlaw import upgrade  # noqa: E402
from pytest_physlaw.session import LawSession  # noqa: E402

MODEL_PACKAGES = ("gymnasium==1.4.0", "gymnasium-robotics==1.4.2", "dm_control==1.0.34")
SITE = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


@dataclass(frozen=True)
class Model:
    """A model of one kind: where it comes from ('repo' or the package that ships it) and its path there."""

    kind: str
    origin: str
    path: str


MODELS = (
    Model("arm", "gymnasium", "envs/mujoco/assets/pusher.xml"),
    Model("hand with tendons", "gymnasium_robotics", "envs/assets/hand/manipulate_block.xml"),
    Model("legged", "gymnasium", "envs/mujoco/assets/ant.xml"),
    Model("humanoid", "dm_control", "suite/humanoid.xml"),
    Model("arm and ball, tendon gripper", "dm_control", "suite/manipulator.xml"),
    Model("muscles", "repo", "regressions/releases_models/muscle_arm.xml"),
    Model("flex cloth", "repo", "regressions/releases_models/cloth.xml"),
    Model("many contacts", "repo", "regressions/releases_models/bin_pile.xml"),
    Model("loop linkage (connect)", "repo", "regressions/models/mujoco_2179_fourbar_anchor.xml"),
    Model("slider-crank", "repo", "regressions/models/mujoco_3_2_5_slider_crank.xml"),
)
ROUTE_MODELS = (
    Model("two hinges, implicitfast", "repo", "regressions/models/mujoco_warp_1662_implicitfast_two_hinges.xml"),
    Model("box resting on a floor", "repo", "regressions/models/mjx_1668_default_solref.xml"),
)
MINORS = {
    "mujoco": [(3, m) for m in range(18)] + [(4, 0)],
    "warp": [(3, m) for m in range(5, 18)] + [(4, 0)],
    "mjx": [(3, m) for m in range(1, 18)],
    "newton": [(1, m) for m in range(9)],
}
PACKAGE = {"mujoco": "mujoco", "warp": "mujoco-warp", "mjx": "mujoco-mjx", "newton": "newton"}
# a route release's dependencies capped at the newest release uploaded before its own (its period)
PERIOD = {"warp": ("warp-lang", "numpy"), "mjx": ("jax", "jaxlib", "numpy"),
          "newton": ("warp-lang", "mujoco-warp", "mujoco", "numpy")}
RAN_WITH = ("mujoco", "mujoco-warp", "mujoco-mjx", "newton", "warp-lang", "jax", "jaxlib", "numpy")
PYPI_JSON = "https://pypi.org/pypi/{}/json"
# what is known of a release beyond its run (the cause of a failure, a later fix), shown in the table
_VERBOSE = ("errored on 2026-12-04 uncapped, with warp-lang 1.19.0 (2026-11-02), which dropped `warp.config.verbose`: "
            "Newton 1.0 to 1.2 read it in `solver_mujoco.py`, 1.3.0 no longer does; runs with its period's warp-lang")
NOTES: dict[tuple[str, str], str] = {
    ("warp", "3.7"): "errored on 2026-12-04 uncapped, with warp-lang 1.19.0 (2026-11-02): mujoco-warp 3.7.0.1's own "
                     "kernels did not compile (`WarpCodegenKeyError` in `_sensor_pos`); runs with its period's "
                     "warp-lang",
    ("newton", "1.0"): _VERBOSE,
    ("newton", "1.1"): _VERBOSE,
}


def available(package: str) -> list[str]:
    """The releases of `package` the index holds, newest first (`pip index versions`)."""
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"],
                          capture_output=True, text=True)
    found = re.search(r"Available versions:\s*(.*)", done.stdout)
    return [v.strip() for v in found.group(1).split(",")] if found else []


def numbers(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def last_patches(package: str, minors: list[tuple[int, int]]) -> dict[tuple[int, int], str | None]:
    """The last final release of each minor (None where the index has none)."""
    versions = [v for v in available(package) if re.fullmatch(r"[\d.]+", v)]
    return {m: max((v for v in versions if numbers(v)[:2] == m), key=numbers, default=None) for m in minors}


def first_uploads(index: dict) -> dict[str, str]:
    """Each release's first upload (ISO 8601, UTC) from a PyPI JSON API answer; releases all of whose files were
    yanked, or that have none, left out."""
    return {version: min(f["upload_time_iso_8601"] for f in files)
            for version, files in index.get("releases", {}).items()
            if files and not all(f.get("yanked") for f in files)}


@lru_cache(maxsize=None)
def upload_times(package: str) -> dict[str, str]:
    """When each release of `package` was first uploaded (PyPI's JSON API)."""
    with urllib.request.urlopen(PYPI_JSON.format(package), timeout=60) as answer:
        return first_uploads(json.load(answer))


def period_cap(uploads: dict[str, str], released: str) -> str | None:
    """The newest final release (no rc, dev or post tag) uploaded at or before `released`, None where none was."""
    finals = [v for v, t in uploads.items() if re.fullmatch(r"\d+(\.\d+)*", v) and t <= released]
    return max(finals, key=numbers, default=None)


def period(engine: str, version: str) -> dict:
    """The release's upload time and its dependencies' caps ({} for MuJoCo C, whose wheels bring no dependency the
    pack reads); without PyPI's answer, no cap and why."""
    if engine not in PERIOD:
        return {}
    try:
        released = upload_times(PACKAGE[engine])[version]
        caps = {name: period_cap(upload_times(name), released) for name in PERIOD[engine]}
    except (OSError, ValueError, KeyError) as exc:
        return {"released": None, "caps": {}, "why": f"uncapped: PyPI's JSON API gave no upload time ({exc!r})"[:300]}
    return {"released": released, "caps": {name: cap for name, cap in caps.items() if cap},
            "source": "PyPI JSON API (first upload of each release)"}


def requirement_set(engine: str, version: str, caps: dict[str, str] | None = None) -> tuple[str, ...]:
    """The pip requirements of one release of `engine`: the route's package with the MuJoCo of its minor, then its
    period's caps (`name<=version`)."""
    major_minor_patch = ".".join(version.split(".")[:3])
    if engine == "mujoco":
        reqs: tuple[str, ...] = (f"mujoco=={version}",)
    elif engine == "warp":
        reqs = (f"mujoco-warp=={version}", f"mujoco=={major_minor_patch}")
    elif engine == "mjx":
        reqs = (f"mujoco-mjx=={version}", f"mujoco=={version}")
    else:
        reqs = (f"newton[sim]=={version}",)
    pinned = {re.split(r"[\[=<>]", r)[0] for r in reqs}
    return reqs + tuple(f"{name}<={cap}" for name, cap in (caps or {}).items() if name not in pinned)


def ran_with(freeze: list[str], engine: str) -> dict[str, str]:
    """The versions of the packages that matter to a route (`pip freeze` lines of its environment), its own left
    out."""
    found = {}
    for line in freeze:
        name, _, version = line.partition("==")
        name = name.strip().lower().replace("_", "-")
        if version and name in RAN_WITH and name != PACKAGE[engine]:
            found[name] = version.strip()
    return {name: found[name] for name in RAN_WITH if name in found}


def model_env(envs: Path, out) -> Path:
    """The kept environment whose site-packages hold the shipped models (the packages without dependencies)."""
    env = envs / "models"
    if not (env / upgrade.MARK).is_file():
        out.write(f"[models] building {env}\n")
        upgrade._run([sys.executable, "-m", "venv", "--clear", str(env)], "models: python -m venv")
        upgrade._run([str(env / "bin/python"), "-m", "pip", "install", "-q", "--no-deps",
                      "--disable-pip-version-check", *MODEL_PACKAGES], "models: pip install the model packages")
        (env / upgrade.MARK).write_text(json.dumps({"requirements": MODEL_PACKAGES}))
    return env


def model_path(model: Model, models: Path) -> Path:
    return ROOT / model.path if model.origin == "repo" else models / SITE / model.origin / model.path


def outcomes(report: Path) -> dict[str, dict]:
    """Per model file of a check's report: the laws passed, failed, xfailed (the release's known defects, or a
    failure that follows from another finding), skipped, errored, and the ids of the failed, xfailed and errored."""
    from pytest_physlaw import reportfile

    run = LawSession.from_report(reportfile.read(report, str(report)))
    per: dict[str, dict] = {}
    for record in run.records.values():
        entry = per.setdefault(record.path or record.nodeid.split("::")[0],
                               {"passed": 0, "failed": 0, "xfailed": 0, "skipped": 0, "error": 0, "failed_laws": [],
                                "xfailed_laws": [], "errors": []})
        kind = record.outcome if record.outcome in ("passed", "failed", "xfailed", "skipped", "error") else "skipped"
        entry[kind] += 1
        if kind in ("failed", "xfailed"):
            entry[f"{kind}_laws"].append(record.law or record.nodeid)
        if kind == "error":
            entry["errors"].append(record.law or record.nodeid)
    return per


def error_lines(log: str) -> list[str]:
    """The exceptions the laws raised, each once, as pytest printed them ("E   FatalError: ...")."""
    found = re.findall(r"^E\s+((?:[\w.]+)(?:Error|Exception)\b.*)$", log, re.M)
    return list(dict.fromkeys(line[:300] for line in found))[:5]


def check_models(side: upgrade.Side, models: list[tuple[Model, Path]], options: list[str], work: Path) -> dict:
    """`check` on the models in `side`'s env, in one run; a model this release cannot compile stops the collection
    (exit 2, "ERROR <path>"): it is reported as not run, with MuJoCo's reason, and the run repeated without it.
    Per model: the outcomes, or why it did not run."""
    results: dict = {}
    left = list(models)
    while left:
        report, status, log = upgrade.run_side(side, [str(p) for _, p in left], options, False, work)
        if status not in (2, 4, 5) and report.is_file():
            results.update(_by_model(left, outcomes(report), log))
            return results
        refused = {ln.split()[1] for ln in log.splitlines() if ln.startswith("ERROR ") and len(ln.split()) > 1}
        stopped = [(m, p) for m, p in left if any(str(p).endswith(r) or r.endswith(p.name) for r in refused)]
        if not stopped and len(left) > 1:  # no model named: each one alone, to say which
            for one in left:
                results.update(check_models(side, [one], options, work))
            return results
        stopped = stopped or left
        for model, path in stopped:
            why = [ln.split("collection error: ", 1)[1] for ln in log.splitlines()
                   if path.name in ln and "collection error: " in ln]
            results[model.kind] = {"model": model.path, "ran": False, "status": status,
                                   "why": (why[0] if why else _last_error(log, status))[:300]}
        left = [m for m in left if m not in stopped]
    return results


def _last_error(log: str, status: int) -> str:
    lines = [ln for ln in log.splitlines() if "rror" in ln] or log.strip().splitlines()
    return lines[-1] if lines else f"pytest exit {status}"


def _by_model(models: list[tuple[Model, Path]], per: dict[str, dict], log: str) -> dict:
    errors = error_lines(log)
    out = {}
    for model, path in models:
        entry = next((v for k, v in per.items() if Path(k).name == path.name and path.as_posix().endswith(k)), None)
        if entry is None:
            entry = next((v for k, v in per.items() if Path(k).name == path.name), None)
        if entry is None:
            out[model.kind] = {"model": model.path, "ran": False, "why": "no law reported on it"}
            continue
        out[model.kind] = {"model": model.path, "ran": True, **entry,
                           "error_messages": errors if entry["error"] else []}
    return out


def run_release(engine: str, minor: tuple[int, int], version: str | None, reqs: tuple[str, ...] | None,
                models: list[tuple[Model, Path]], envs: Path, work: Path, out, capped: dict | None = None) -> dict:
    row: dict = {"engine": engine, "minor": ".".join(map(str, minor)), "release": version,
                 "requirements": list(reqs or ())}
    if capped:
        row["period"] = capped
    if version is None:
        return {**row, "status": "skipped", "why": f"the index has no {PACKAGE[engine]} {row['minor']}.x release"}
    side = upgrade.Side(f"{engine}-{version}", reqs, upgrade.env_dir(envs, reqs))
    started = time.monotonic()
    try:
        upgrade.ensure(side, out)
    except upgrade.UpgradeError as exc:
        text = str(exc)
        reason = ("no wheel or source pip can install for Python "
                  f"{sys.version_info[0]}.{sys.version_info[1]}" if "No matching distribution" in text
                  else "pip cannot resolve the set" if "ResolutionImpossible" in text or "conflict" in text
                  else "could not be installed")
        return {**row, "status": "skipped", "why": f"{reason}: {text.splitlines()[-1].strip()[:300]}"}
    os.environ["WARP_CACHE_PATH"] = str(side.env / "warp-cache")  # kernels kept per env, as regressions/run.py
    if engine != "mujoco":
        row["ran_with"] = ran_with(json.loads((side.env / upgrade.MARK).read_text()).get("freeze", []), engine)
    # -rfEs: the failures, errors and skips (each naming why) in the log
    options = ["-rfEs"] + ([f"--physlaw-route={engine}"] if engine != "mujoco" else [])
    results = check_models(side, models, options, work / side.name)
    errored = [k for k, r in results.items() if r.get("error")]
    row.update(models=results, seconds=round(time.monotonic() - started, 1),
               status="errored" if errored else "ran",
               why=f"a law raised on {', '.join(errored)}" if errored else "")
    return row


def release_cell(row: dict) -> str:
    """The release, then what it ran with and the date its dependencies were capped at."""
    cell = row["release"] or "-"
    used = ", ".join(f"{name} {version}" for name, version in row.get("ran_with", {}).items())
    released = (row.get("period") or {}).get("released")
    capped = f"capped at {released[:10]}" if released else (row.get("period") or {}).get("why", "")
    extra = "; ".join(x for x in (used, capped) if x)
    return f"{cell} ({extra})" if extra else cell


def markdown(rows: list[dict]) -> str:
    lines = ["| engine | release (ran with) | result | laws passed / failed / xfailed / skipped (models run) | "
             "failed laws | xfailed laws (known defects) | why / not run |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        note = f"note: {row['note']}" if row.get("note") else ""
        if row["status"] == "skipped":
            why = "; ".join(x for x in (row["why"], note) if x)
            lines.append(f"| {row['engine']} {row['minor']} | {release_cell(row)} | skipped | - | - | - | {why} |")
            continue
        ran = {k: r for k, r in row["models"].items() if r.get("ran")}
        # rows of runs before xfails were counted apart hold none: their xfails were counted as skipped
        totals = [sum(r.get(key, 0) for r in ran.values()) for key in ("passed", "failed", "xfailed", "skipped")]
        failed, xfailed = ("; ".join(f"{k}: {', '.join(sorted(set(r.get(key, []))))}" for k, r in ran.items()
                                     if r.get(key)) for key in ("failed_laws", "xfailed_laws"))
        errors = "; ".join(f"{k}: {', '.join(sorted(set(r['errors'])))} ({r['error']} cases"
                           + (f": {r['error_messages'][0][:160]}" if r.get("error_messages") else "") + ")"
                           for k, r in ran.items() if r["error"])
        notrun = "; ".join(f"{k}: {r['why']}" for k, r in row["models"].items() if not r.get("ran"))
        why = "; ".join(x for x in (f"errors: {errors}" if errors else "", f"not run: {notrun}" if notrun else "",
                                    note) if x)
        lines.append(f"| {row['engine']} {row['minor']} | {release_cell(row)} | {row['status']} | "
                     f"{totals[0]} / {totals[1]} / {totals[2]} / {totals[3]} ({len(ran)} of {len(row['models'])}) | "
                     f"{failed or '-'} | {xfailed or '-'} | {why or '-'} |")
    return "\n".join(lines) + "\n"


def _order(row: dict) -> tuple:
    return (list(MINORS).index(row["engine"]), numbers(row["minor"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", default=os.environ.get("PYTEST_PHYSLAW_ENVS")
                        or str(Path.home() / ".cache/pytest-physlaw/envs"))
    parser.add_argument("--work", default=".physlaw/releases")
    parser.add_argument("--engines", nargs="*", default=["mujoco"], choices=list(MINORS))
    parser.add_argument("--merge", nargs="+", default=[], metavar="JSON", help="first take the releases of these "
                        "results (runs split across processes) into --json")
    parser.add_argument("--minors", nargs="+", metavar="X.Y", help="only these minors (of each engine asked for)")
    parser.add_argument("--releases", nargs="+", metavar="PKG==VERSION", help="these releases instead of the last "
                        "patch of each minor (e.g. mujoco==3.10.0 mujoco-warp==3.10.0.3)")
    parser.add_argument("--models", nargs="+", metavar="KIND", help="only the models of these kinds")
    parser.add_argument("--json", default=None, help="the results, updated after each release")
    parser.add_argument("--markdown", metavar="FILE")
    args = parser.parse_args(argv)
    envs, work = Path(args.envs), Path(args.work).resolve()
    os.chdir(ROOT)  # the checks run in the checkout, its conftest the top-level one
    store = Path(args.json or work / "releases.json")
    store.parent.mkdir(parents=True, exist_ok=True)
    rows = json.loads(store.read_text())["releases"] if store.is_file() else []
    for other in args.merge:
        taken = json.loads(Path(other).read_text())["releases"]
        keys = {(r["engine"], r["minor"]) for r in taken}
        rows = sorted([r for r in rows if (r["engine"], r["minor"]) not in keys] + taken, key=_order)
    for row in rows:  # what is known of a release beyond its run
        if (row["engine"], row["minor"]) in NOTES:
            row["note"] = NOTES[(row["engine"], row["minor"])]
    if args.merge:
        store.write_text(json.dumps({"releases": rows, "python": sys.version.split()[0]}, indent=1))
    models_env = model_env(envs, sys.stdout) if args.engines else None
    for engine in args.engines:
        minors = [m for m in MINORS[engine] if not args.minors or ".".join(map(str, m)) in args.minors]
        if args.minors:  # in the order asked for: the ones that matter most first
            minors.sort(key=lambda m: args.minors.index(".".join(map(str, m))))
        given = {numbers(r.split("==")[1])[:2]: r.split("==")[1] for r in args.releases or []
                 if r.split("==")[0] == PACKAGE[engine]}
        patches = ({m: given.get(m) for m in minors if m in given} if given else last_patches(PACKAGE[engine], minors))
        chosen = [m for m in (ROUTE_MODELS if engine != "mujoco" else MODELS)
                  if not args.models or m.kind in args.models]
        paths = [(m, model_path(m, models_env)) for m in chosen]
        for minor, version in patches.items():
            capped = period(engine, version) if version else {}
            reqs = requirement_set(engine, version, capped.get("caps")) if version else None
            sys.stdout.write(f"== {engine} {'.'.join(map(str, minor))}: {' '.join(reqs or [str(version)])}\n")
            sys.stdout.flush()
            row = run_release(engine, minor, version, reqs, paths, envs, work, sys.stdout, capped)
            sys.stdout.write(f"   {row['status']} {row.get('why', '')}\n")
            if (engine, row["minor"]) in NOTES:
                row["note"] = NOTES[(engine, row["minor"])]
            rows = [r for r in rows if (r["engine"], r["minor"]) != (engine, row["minor"])] + [row]
            rows.sort(key=_order)
            store.write_text(json.dumps({"releases": rows, "python": sys.version.split()[0]}, indent=1))
    table = markdown(rows)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    return 1 if any(r["status"] == "errored" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
