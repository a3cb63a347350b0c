"""Reading a saved law report or baseline: every field checked by type, every defect named.

A report is what a run writes (`--law-report`); a baseline is a report kept on purpose
(`--law-save-baseline`). Both are read here, by the gate (`--law-baseline`), by a save that merges
into an existing baseline, and by the `pytest-physlaw` command. A defect is a `ReportError` whose
message starts with where the file came from (the option and the path) and names the key at fault.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pytest_physlaw.outcome import OUTCOMES
from pytest_physlaw.record import SCHEMA_VERSION

_FLOAT_WORDS = ("nan", "inf", "-inf")


class ReportError(ValueError):
    """A report file that cannot be used; the message names the file and the key."""


def read(path: str | Path, where: str) -> dict[str, Any]:
    """The report at `path`, validated; `where` ("--law-baseline base.json") starts every message."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ReportError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ReportError(f"{where}: is a folder, not a report file") from None
    except OSError as exc:
        raise ReportError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReportError(f"{where}: not a text file (not UTF-8); a law report is JSON") from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise ReportError(f"{where}: not JSON ({exc})") from None
    validate(data, where)
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (the plugin writes non-finite numbers as strings)")


def validate(data: Any, where: str) -> None:
    """Check a report's JSON form key by key; raise ReportError naming the first defect."""
    if not isinstance(data, dict) or "schema_version" not in data:
        raise ReportError(f"{where}: not a pytest-physlaw report (no schema_version)")
    version = data["schema_version"]
    if version != SCHEMA_VERSION:
        raise ReportError(f"{where}: schema version {version!r}, this pytest-physlaw reads version "
                          f"{SCHEMA_VERSION}; re-save it with --law-save-baseline (or re-run for a report)")
    _type(data.get("complete", True), bool, where, "complete")
    _type(data.get("environment", {}), dict, where, "environment")
    versions = data.get("environment", {}).get("versions", {})
    _type(versions, dict, where, "environment.versions")
    for name, v in versions.items():
        _type(v, (str, type(None)), where, f"environment.versions.{name}")
    laws = data.get("laws")
    _type(laws, list, where, "laws")
    seen: dict[str, int] = {}
    identities: dict[str, str] = {}
    for i, law in enumerate(laws):
        _law(law, where, i)
        nodeid = law["nodeid"]
        if nodeid in seen:
            raise ReportError(f"{where}: law #{i} ({nodeid}) appears twice (also law #{seen[nodeid]})")
        seen[nodeid] = i
        identity = law.get("identity")
        if identity is not None:
            if identity in identities:
                raise ReportError(f"{where}: law id {identity!r} is given to two laws: {identities[identity]} "
                                  f"and {nodeid}")
            identities[identity] = nodeid
    run = data.get("run", {})
    _type(run, dict, where, "run")
    for key in ("collect_args", "deselected", "not_run"):
        _strings(run.get(key, []), where, f"run.{key}")
    _type(run.get("skipped_modules", {}), dict, where, "run.skipped_modules")
    _type(run.get("leaves_files_out", False), bool, where, "run.leaves_files_out")
    _models(run.get("models", []), where)


MODEL_STATUSES = ("model", "not a model", "collection error")  # as `model_summary` writes them


def _models(models: Any, where: str) -> None:
    """run.models (a model pack run's files; absent in older reports): path, status, why, and what its runs covered
    (`coverage`, an object; absent in older reports and where no law read the exercised states)."""
    _type(models, list, where, "run.models")
    for j, entry in enumerate(models):
        at = f"run.models[{j}]"
        _type(entry, dict, where, at)
        _type(entry.get("path"), str, where, f"{at}.path")
        if entry.get("status") not in MODEL_STATUSES:
            raise ReportError(f"{where}: {at}.status is {entry.get('status')!r}, not one of {', '.join(MODEL_STATUSES)}")
        _type(entry.get("why", ""), str, where, f"{at}.why")
        _type(entry.get("coverage", {}), dict, where, f"{at}.coverage")


def _type(value: Any, kind: type | tuple[type, ...], where: str, key: str) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        names = " or ".join(_name(k) for k in _tuple(kind))
        raise ReportError(f"{where}: {key} is {_name(type(value))} {_show(value)}, not {names}")


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _name(kind: type) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", int: "an integer",
            float: "a number", type(None): "null"}.get(kind, kind.__name__)


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, (dict, list)) else ""
    return f"({text})" if text and len(text) < 40 else ""


def _strings(value: Any, where: str, key: str) -> None:
    _type(value, list, where, key)
    for j, s in enumerate(value):
        _type(s, str, where, f"{key}[{j}]")


def _law(law: Any, where: str, i: int) -> None:
    name = law.get("nodeid") if isinstance(law, dict) else None
    at = f"law #{i}" + (f" ({name})" if isinstance(name, str) else "")
    _type(law, dict, where, at)
    for key in ("nodeid", "path"):
        if key not in law:
            raise ReportError(f"{where}: {at} lacks the key {key!r}; re-save the baseline with --law-save-baseline")
        _type(law[key], str, where, f"{at}.{key}")
    for key in ("law", "identity", "source", "doc", "known_gap"):
        _type(law.get(key), (str, type(None)), where, f"{at}.{key}")
    outcome = law.get("outcome", "passed")
    if outcome not in OUTCOMES:
        raise ReportError(f"{where}: {at}.outcome is {outcome!r}, not one of {', '.join(OUTCOMES)}")
    examples = law.get("examples")
    if examples is not None:
        _type(examples, dict, where, f"{at}.examples")
        _type(examples.get("count"), int, where, f"{at}.examples.count")
        _type(examples.get("digest"), str, where, f"{at}.examples.digest")
    checks = law.get("checks", [])
    _type(checks, list, where, f"{at}.checks")
    names = set()
    for j, check in enumerate(checks):
        _check(check, where, f"{at}.checks[{j}]")
        if check["quantity"] in names:
            raise ReportError(f"{where}: {at} checks {check['quantity']!r} twice")
        names.add(check["quantity"])


def _check(check: Any, where: str, at: str) -> None:
    _type(check, dict, where, at)
    for key in ("quantity", "value", "bound", "margin", "passed"):
        if key not in check:
            raise ReportError(f"{where}: {at} lacks the key {key!r}; re-save the baseline with --law-save-baseline")
    at = f"{at} ({check['quantity']!r})" if isinstance(check["quantity"], str) else at
    _type(check["quantity"], str, where, f"{at}.quantity")
    _type(check["bound"], str, where, f"{at}.bound")
    _type(check["passed"], bool, where, f"{at}.passed")
    for key in ("value", "margin"):
        _number(check[key], where, f"{at}.{key}")
    _type(check.get("bounds", {}), dict, where, f"{at}.bounds")
    for key, b in check.get("bounds", {}).items():
        if key not in ("le", "lt", "ge", "gt", "near", "tol"):
            raise ReportError(f"{where}: {at}.bounds has the unknown key {key!r}")
        _number(b, where, f"{at}.bounds.{key}")
    for key in ("count", "size"):
        n = check.get(key, 1)
        _type(n, int, where, f"{at}.{key}")
        if n < 1:
            raise ReportError(f"{where}: {at}.{key} is {n}, not a count >= 1")
    drift = check.get("drift")
    if drift is not None:
        _number(drift, where, f"{at}.drift", finite=True)
    _number(check.get("drift_abs", 0.0), where, f"{at}.drift_abs", finite=True)
    for key in ("unit", "why", "example"):
        _type(check.get(key), (str, type(None)), where, f"{at}.{key}")


def _number(x: Any, where: str, key: str, *, finite: bool = False) -> None:
    if isinstance(x, str) and x in _FLOAT_WORDS and not finite:
        return
    _type(x, (int, float), where, key)
    if finite and not (math.isfinite(x) and x >= 0):
        raise ReportError(f"{where}: {key} is {x}, not a finite number >= 0")


def require_complete(data: dict[str, Any], where: str, what: str = "a baseline") -> None:
    """Refuse the report of an incomplete run (interrupted, collection errors, ...) as `what`."""
    if not data.get("complete", True):
        raise ReportError(f"{where}: the report of an incomplete run ({data.get('incomplete', 'incomplete')}) "
                          f"cannot serve as {what}; save one from a complete run with --law-save-baseline")


def versions(data: dict[str, Any]) -> dict[str, str | None]:
    return dict(data.get("environment", {}).get("versions", {}))
