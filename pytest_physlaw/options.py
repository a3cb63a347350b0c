"""Every command-line option and ini key of pytest-physlaw, registered in one place.

Ini values are read as strings and parsed here (pytest 8.0 has no float ini type), so a bad value
is a `pytest.UsageError` naming the key, never a traceback deep in a hook.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pytest_physlaw.model_files import ModelPaths
from pytest_physlaw.record import DEFAULT_DRIFT, DEFAULT_DRIFT_FLOOR

GROUP = "physlaw"

DEFAULT_REPORT = ".physlaw/report.json"
DEFAULT_GAP_DIR = "docs/known_gaps"
DEFAULT_VERSIONS = ["numpy", "mujoco", "warp-lang", "pytest", "hypothesis"]
DEFAULT_MODEL_SECONDS = 1.0
ROUTES = ("warp", "mjx", "newton")  # the model pack's optional routes: MuJoCo Warp, MJX, Newton's SolverMuJoCo on
# MuJoCo's CPU backend (pytest_physlaw/pack/routes/)
ROUTE_KEYS = {  # ini physlaw_route_<key>: the settings a policy is trained with on the route
    "solver": "solver the route runs (CG or Newton)",
    "iterations": "the route's solver iteration cap",
    "ls_iterations": "the route's line-search iteration cap",
    "precision": "float32 or float64 (MJX has both; MuJoCo Warp computes in float32)",
    "nconmax": "contact capacity per world (MuJoCo Warp nconmax; MJX: the model's max_contact_points)",
    "njmax": "constraint-row capacity per world (MuJoCo Warp njmax)",
    "nworld": "worlds stepped together (MuJoCo Warp nworld, MJX vmap); the laws use at least 3",
    "timestep": "the timestep the route steps with (default the model's)",
    "jacobian": "dense, sparse or auto: the layout of the route's constraint Jacobian and mass matrix (default the "
                "model's <option jacobian>)",
}
DEFAULT_MODEL_STEPS = 1000  # a 1e-4 s model runs 0.1 s by default, not 10,000 steps a run


def register(parser: pytest.Parser) -> None:
    """Add the plugin's options and ini keys to pytest's parser."""
    group = parser.getgroup(GROUP, "physics laws (pytest-physlaw)")
    group.addoption(
        "--law-tol-scale", dest="law_tol_scale", metavar="F", type=_tol_scale, default=None,
        help="multiply every rel/abs tolerance of the law checks by F (>= 0; 0 shows raw "
             "residuals as failures with their values). Default 1.",
    )
    group.addoption(
        "--law-report", dest="law_report", metavar="PATH", default=None,
        help="write the JSON law report to PATH instead of ini physlaw_report.",
    )
    group.addoption(
        "--law-baseline", dest="law_baseline", metavar="PATH", default=None,
        help="compare this run with a saved law report and fail the session on regressions.",
    )
    group.addoption(
        "--law-save-baseline", dest="law_save_baseline", metavar="PATH", default=None,
        help="merge this run's laws into the baseline at PATH (added, updated, kept, pruned); an incomplete "
             "run writes nothing.",
    )
    group.addoption(
        "--law-markdown", dest="law_markdown", metavar="PATH", default=None,
        help="write the law table and the regressions as Markdown to PATH (also appended to "
             "$GITHUB_STEP_SUMMARY when it is set).",
    )
    group.addoption(
        "--law-spec", dest="law_spec", metavar="PATH", default=None,
        help="write the law catalogue (Markdown, no measured values) to PATH.",
    )
    group.addoption(
        "--physlaw-model", dest="physlaw_model", metavar="PATH", action="append", default=[],
        help="run the model law pack over this MJCF file, or the MJCF files of this folder, recursively "
             "(repeatable; adds to ini physlaw_models). Needs MuJoCo: pip install 'pytest-physlaw[mujoco]'.",
    )
    group.addoption(
        "--physlaw-advise", dest="physlaw_advise", metavar="FILE.json", default=None,
        help="also advise each --physlaw-model's settings (pytest-physlaw advise): one test per model that fails "
             "when the model's own settings are outside the tolerance; the advice written to FILE.json.",
    )
    group.addoption(
        "--physlaw-advise-tol", dest="physlaw_advise_tol", metavar="QUANTITY=BOUND", action="append", default=[],
        help="a bound of --physlaw-advise's tolerance (repeatable; docs/advise.md lists the quantities and defaults).",
    )
    group.addoption(
        "--physlaw-models-only", dest="physlaw_models_only", action="store_true", default=False,
        help="collect only the model law pack's models: no test paths, not testpaths, not the current folder "
             "(what `pytest-physlaw check` runs).",
    )

    group.addoption(
        "--physlaw-route", dest="physlaw_route", metavar="ROUTE", action="append", default=[], choices=ROUTES,
        help="also run each --physlaw-model on this route beside MuJoCo C, with the settings of ini "
             "physlaw_route_* (repeatable: warp, mjx, newton; adds to ini physlaw_model_routes). Needs the route's "
             "packages (mujoco-warp; mujoco-mjx and jax; newton and mujoco-warp); without them its laws skip naming "
             "the versions.",
    )

    parser.addini("physlaw_models", "MJCF files (or folders of them) the model law pack runs over, relative to "
                  "the rootdir",
                  type="linelist", default=[])
    parser.addini("physlaw_model_seconds", "simulated seconds the model law pack settles each model "
                  f"(default {DEFAULT_MODEL_SECONDS})", default=str(DEFAULT_MODEL_SECONDS))
    parser.addini("physlaw_model_steps", "at most this many timesteps a model law pack run takes: the horizon is "
                  "the shorter of physlaw_model_seconds and this many of the model's own timesteps "
                  f"(default {DEFAULT_MODEL_STEPS})", default=str(DEFAULT_MODEL_STEPS))
    parser.addini("physlaw_model_keyframe", "keyframe the model law pack starts each model from: a name, an index, "
                  "or 'qpos0' (default: keyframe 0 when the model has one, else qpos0)", default="")
    parser.addini("physlaw_model_controls", "controls of the model law pack's exercised run: 'seeded' (uniform "
                  "inside ctrlrange, redrawn every 50 ms, seeded) or 'none' (default seeded)", default="seeded")
    parser.addini("physlaw_model_accept", "findings of the model law pack accepted for a model, one a line: "
                  "'MODEL_PATH LAW_ID: reason' (the law runs and is gated, as a non-strict xfail)",
                  type="linelist", default=[])
    parser.addini("physlaw_model_routes", "routes the model law pack also runs each model on, beside MuJoCo C "
                  f"({', '.join(ROUTES)}; adds to --physlaw-route)", type="args", default=[])
    for key, what in ROUTE_KEYS.items():
        parser.addini(f"physlaw_route_{key}", what + " (a value for every route, or ROUTE=VALUE items, e.g. "
                      "'warp=4 mjx=8'; default: the route's own)", default="")
    parser.addini("physlaw_rel", "default relative tolerance of a near= check (none if unset)", default="")
    parser.addini("physlaw_abs", "default absolute tolerance of a near= check (none if unset)", default="")
    parser.addini("physlaw_drift", "default relative drift of a checked value the baseline gate allows "
                  f"(default {DEFAULT_DRIFT})", default=str(DEFAULT_DRIFT))
    parser.addini("physlaw_drift_floor", "a check's zero (drift_abs: two values within it are round-off to the gate), "
                  f"as a share of its tight scale (its near tolerance or its smallest bound; default {DEFAULT_DRIFT_FLOOR})",
                  default=str(DEFAULT_DRIFT_FLOOR))
    parser.addini("physlaw_hypothesis_profile", "Hypothesis profile loaded for the run unless "
                  "--hypothesis-profile names one (e.g. physlaw-ci: derandomized, so laws see the same "
                  "examples every run)", default="")
    parser.addini("physlaw_gap_dir", f"folder of the known-gap pages, relative to the rootdir "
                  f"(default {DEFAULT_GAP_DIR})", default=DEFAULT_GAP_DIR)
    parser.addini("physlaw_report", f"path of the JSON law report, relative to the rootdir "
                  f"(default {DEFAULT_REPORT})", default=DEFAULT_REPORT)
    parser.addini("physlaw_versions", "packages whose versions the law report records",
                  type="linelist", default=list(DEFAULT_VERSIONS))


def _non_negative(text: str, where: str) -> float:
    """`text` as a finite float >= 0, or a UsageError that starts with `where` (the option or key)."""
    try:
        f = float(text)
    except ValueError:
        raise pytest.UsageError(f"{where} {text!r} is not a number") from None
    if not (math.isfinite(f) and f >= 0):
        raise pytest.UsageError(f"{where} {text!r} must be a finite number >= 0")
    return f


def _tol_scale(text: str) -> float:
    return _non_negative(text, "--law-tol-scale:")


def _ini_float(config: pytest.Config, key: str, *, optional: bool) -> float | None:
    text = str(config.getini(key)).strip()
    if not text:
        if optional:
            return None
        raise pytest.UsageError(f"ini {key}: empty, give a number")
    return _non_negative(text, f"ini {key} =")


def tol_scale(config: pytest.Config) -> float:
    """The --law-tol-scale factor (1 when not given)."""
    f = config.getoption("law_tol_scale", None)
    return 1.0 if f is None else f


def default_rel(config: pytest.Config) -> float | None:
    return _ini_float(config, "physlaw_rel", optional=True)


def default_abs(config: pytest.Config) -> float | None:
    return _ini_float(config, "physlaw_abs", optional=True)


def default_drift(config: pytest.Config) -> float:
    return _ini_float(config, "physlaw_drift", optional=False)


def drift_floor(config: pytest.Config) -> float:
    return _ini_float(config, "physlaw_drift_floor", optional=False)


def gap_dir(config: pytest.Config) -> str:
    """The known-gap folder, rootdir-relative, posix, without a trailing slash."""
    text = str(config.getini("physlaw_gap_dir")).strip().replace("\\", "/").rstrip("/")
    if not text:
        raise pytest.UsageError("ini physlaw_gap_dir: empty, give a folder relative to the rootdir")
    return text


def models(config: pytest.Config) -> ModelPaths:
    """The model pack's MJCF files: --physlaw-model (from the invocation directory), then ini physlaw_models
    (from the rootdir); a folder gives its MJCF files (`model_files`). A missing path, or a folder
    without any .xml file, is a UsageError naming it."""
    given = [(Path(config.invocation_params.dir), "--physlaw-model", p) for p in config.getoption("physlaw_model") or []]
    given += [(Path(config.rootpath), "ini physlaw_models:", p) for p in config.getini("physlaw_models")]
    out = ModelPaths()
    for base, where, text in given:
        path = (base / str(text).strip()).resolve()
        if path.is_dir():
            if not out.add_folder(path):
                raise pytest.UsageError(f"{where} {text}: no .xml file in this folder ({path}; hidden folders, "
                                        "virtual environments and caches are not searched)")
        elif path.is_file():
            out.add_file(path)
        else:
            raise pytest.UsageError(f"{where} {text}: no such file or folder ({path})")
    return out


def models_only(config: pytest.Config) -> bool:
    """--physlaw-models-only: the run collects the models and nothing else."""
    return bool(config.getoption("physlaw_models_only", False))


def model_seconds(config: pytest.Config) -> float:
    """ini physlaw_model_seconds: the simulated time the model pack settles a model (> 0)."""
    f = _ini_float(config, "physlaw_model_seconds", optional=False)
    if f <= 0:
        raise pytest.UsageError(f"ini physlaw_model_seconds = {f}: must be > 0")
    return f


def model_routes(config: pytest.Config) -> tuple[str, ...]:
    """--physlaw-route and ini physlaw_model_routes, in that order, each once; an unknown name is a UsageError."""
    given = list(config.getoption("physlaw_route", None) or []) + list(config.getini("physlaw_model_routes"))
    unknown = [r for r in given if r not in ROUTES]
    if unknown:
        raise pytest.UsageError(f"ini physlaw_model_routes: unknown route {unknown[0]!r} (routes: {', '.join(ROUTES)})")
    return tuple(dict.fromkeys(given))
