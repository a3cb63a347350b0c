"""`pytest-physlaw advise MODEL...`: the advice on each model printed, and optionally written as JSON and plotted,
and the recommendation verified by the pack's laws (`--verify`).

Exit status: 0 advice given; 1 with `--fail-own`, a model's own settings outside the tolerance, or with
`--verify`, a law the reference passes lost by the recommendation; 2 bad input (a message naming it).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, TextIO

from pytest_physlaw.advise import distance

CACHE_ENV = "PHYSLAW_ADVISE_CACHE"  # the cache folder's default, or 'off'


def default_cache() -> str:
    return os.environ.get(CACHE_ENV) or str(Path.home() / ".cache" / "pytest-physlaw" / "advise")


HELP = "the cheapest solver, cap, tolerance, timestep and integrator that keep a model's physics, measured"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("advise", help=HELP, description=HELP + " (docs/advise.md)")
    p.add_argument("models", metavar="MODEL", nargs="+", help="MJCF files")
    p.add_argument("--tol", action="append", metavar="QUANTITY=BOUND",
                   help="a bound of the tolerance (repeatable); defaults: " +
                        ", ".join(f"{q}={b:g}" for q, b in distance.DEFAULT_BOUNDS.items()))
    p.add_argument("--json", metavar="FILE", help="write the advice as JSON (all models in one file)")
    p.add_argument("--plot", metavar="FILE", help="FILE.png/.svg/.pdf: the Pareto plot (one per model: the model's "
                                                  "name is added when there are several)")
    p.add_argument("--driven", type=float, default=1.0, metavar="S", help="simulated s of driven transitions (1)")
    p.add_argument("--settled", type=float, default=1.0, metavar="S", help="simulated s of the settled run (1)")
    p.add_argument("--keyframe", default="", help="the starting keyframe, as ini physlaw_model_keyframe")
    p.add_argument("--budget", type=float, default=40.0, metavar="S", help="wall s the sweep of one model may take (40)")
    p.add_argument("--keep", action="append", choices=("timestep", "integrator"), default=[],
                   help="hold the model's own timestep or integrator (a control loop's period): the sweep varies the rest")
    p.add_argument("--route", choices=("warp",), help="also plan the route's own settings (capacities nconmax and "
                   "njmax, iterations, ls_iterations) measured on the route; prints its physlaw_route_* keys")
    p.add_argument("--route-seconds", type=float, default=0.2, metavar="S",
                   help="simulated s of the route's runs (0.2: the route is slow on a CPU)")
    p.add_argument("--cache", default=default_cache(), metavar="DIR",
                   help=f"keep each model's converged reference here, keyed on the compiled model's bytes, MuJoCo's "
                        f"version, the tolerance and the horizons ({default_cache()}; env {CACHE_ENV}); 'off': none")
    p.add_argument("--verify", action="store_true", help="run `pytest-physlaw check` on the reference and the "
                                                          "recommendation: every law the reference passes must pass")
    p.add_argument("--fail-own", action="store_true", help="exit 1 when a model's own settings are outside the tolerance")
    p.set_defaults(func=run)
    return p


def _verified(path: str, advice: Any, out: TextIO) -> dict[str, Any]:
    """`verify` on the candidates cheapest first; the first that keeps every law the reference passes becomes the
    recommendation (the advice is changed in place); a failure to check is said, never a traceback."""
    from pytest_physlaw.advise.verify import verify

    candidates = advice.candidates or [advice.recommended]
    try:
        verdict, index = verify(Path(path), advice.plan.reference.setting, [p.setting for p in candidates])
    except Exception as exc:  # MjSpec cannot write the copy, or the check-up wrote no report
        return {"error": " ".join(str(exc).split())}
    if not verdict.lost:
        advice.recommended = candidates[index]
    return verdict.to_json()


def _plot_path(plot: str, model: str, many: bool) -> str:
    if not many:
        return plot
    p = Path(plot)
    return str(p.with_name(f"{p.stem}-{Path(model).stem}{p.suffix}"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_physlaw.advise import report
    from pytest_physlaw.advise.advice import advise
    from pytest_physlaw.advise.advice import load as load_model
    from pytest_physlaw.advise.observe import Horizon

    try:
        tolerance = distance.Tolerance.parse(args.tol)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    for name, value in (("--driven", args.driven), ("--settled", args.settled), ("--budget", args.budget),
                        ("--route-seconds", args.route_seconds)):
        if not value > 0:
            raise CommandError(f"{name} {value}: must be > 0")
    if args.plot and Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CommandError(f"--plot {args.plot}: the file must end in .png, .svg or .pdf")
    horizon = Horizon(driven=args.driven, settled=args.settled, keyframe=args.keyframe)
    failed, written = False, []
    for path in args.models:
        try:
            advice = advise(path, tolerance, horizon, args.budget, keep=frozenset(args.keep),
                            cache_dir=None if args.cache == "off" else Path(args.cache))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if args.route:
            from pytest_physlaw.advise.route import advise_route

            try:
                advice.route = advise_route(advice.plan.own.setting.applied(load_model(path)), args.route, tolerance,
                                            args.keyframe, args.route_seconds)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        failed |= args.fail_own and not advice.own_within
        verified = None
        if args.verify:
            verified = _verified(path, advice, out)
            failed |= verified.get("error") is not None or bool(verified.get("lost"))
        out.write(report.text(advice))
        entry = report.to_json(advice)
        if verified is not None:
            entry["verified"] = verified
            out.write("verified by the pack's laws: " + (
                f"not verified: {verified['error']}" if "error" in verified else
                f"{verified['laws_reference_passes']} laws pass on the reference; "
                + (f"the recommendation loses {', '.join(verified['lost'])}" if verified["lost"] else
                   "every one passes with the recommendation")
                + "".join(f"; tried first: {t}" for t in verified["tried"])) + "\n")
        if args.plot:
            from pytest_physlaw.advise import plot

            out.write(plot.write(advice, _plot_path(args.plot, path, len(args.models) > 1)) + "\n")
        written.append(entry)
        out.write("\n")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"schema_version": report.SCHEMA_VERSION, "models": written}, indent=1))
        out.write(f"{args.json}: the advice on {len(written)} model(s)\n")
    return 1 if failed else 0


class CommandError(Exception):
    """Bad input: the CLI prints the message and exits 2."""
