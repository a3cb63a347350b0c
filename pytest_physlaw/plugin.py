"""pytest hooks of pytest-physlaw: the `law` fixture, the markers, known gaps and the law records.

Flow of one law test: collection marks it `law` (and a known gap a strict xfail with
raises=LawViolation); setup binds the session's `law` handle to a fresh `LawChecks`; the call phase
ends with one LawViolation if any check failed; the teardown report carries the finished
`LawRecord` as JSON (`physlaw_record`), so that under xdist it reaches the controller with the report.
Everything about the run as a whole (collection bookkeeping, the xdist transport, the start, the end
and the exit status) is `run.LawRun`'s: those hooks here delegate to it in one line.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_physlaw import examples, gaps, html_report, junit, marks, options, progress, shutdown
from pytest_physlaw.check import LawChecks, LawViolation
from pytest_physlaw.fixture import Law
from pytest_physlaw.model_files import ModelPaths
from pytest_physlaw.model_summary import ModelSummary
from pytest_physlaw.outcome import crashed, final_outcome, phase_outcome
from pytest_physlaw.record import LawRecord
from pytest_physlaw.run import REPORT_ATTR, LawRun
from pytest_physlaw.scope import relative


_HANDLE = pytest.StashKey[Law]()
_INFO = pytest.StashKey[marks.LawInfo]()
_GAP = pytest.StashKey[marks.GapInfo]()
_CHECKS = pytest.StashKey[LawChecks]()
_PHASES = pytest.StashKey[dict]()


class Defaults(NamedTuple):
    """The run's tolerance defaults: ini rel/abs, --law-tol-scale, ini drift and drift floor."""

    rel: float | None
    abs: float | None
    tol_scale: float
    drift: float
    drift_floor: float


_DEFAULTS = pytest.StashKey[Defaults]()


def pytest_addoption(parser: pytest.Parser) -> None:
    options.register(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_physlaw import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", marks.LAW_MARKER)
    config.addinivalue_line("markers", marks.GAP_MARKER)
    options.gap_dir(config)  # bad ini values stop the run here, at its start
    config.stash[_HANDLE] = Law(config.rootpath)
    config.stash[_DEFAULTS] = Defaults(options.default_rel(config), options.default_abs(config),
                                       options.tol_scale(config), options.default_drift(config),
                                       options.drift_floor(config))
    LawRun.register(config)
    examples.load_profile(config)
    html_report.register(config)  # only where pytest-html is installed
    progress.attach(config)
    shutdown.skip_final_collection()
    _model_pack(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    progress.detach(config)


def _model_pack(config: pytest.Config) -> None:
    """Register the per-model summary when a model path is given, and the model law pack when it names
    a model file (a folder of include fragments names none); only then is MuJoCo imported."""
    paths = options.models(config)
    if options.models_only(config):
        _collect_only_models(config, paths)
    if not paths.given():
        return
    config.pluginmanager.register(ModelSummary(config, paths), f"physlaw-model-summary-{id(config)}")
    if paths.files:
        options.model_seconds(config)
        from pytest_physlaw.pack import ModelPack

        config.pluginmanager.register(ModelPack(config, paths), f"physlaw-models-{id(config)}")
        if config.getoption("physlaw_advise", None):
            from pytest_physlaw.advise.pytest_plugin import AdvisePlugin

            config.pluginmanager.register(AdvisePlugin(config, paths), f"physlaw-advise-{id(config)}")


def _collect_only_models(config: pytest.Config, paths: ModelPaths) -> None:
    """--physlaw-models-only: the run's paths are the model files, not testpaths nor the current folder
    (and the gap pages are not judged as in a whole run)."""
    if not paths.given():
        raise pytest.UsageError("--physlaw-models-only: no model given (--physlaw-model=PATH or ini physlaw_models)")
    if config.args_source == pytest.Config.ArgsSource.ARGS and config.args:
        raise pytest.UsageError(f"--physlaw-models-only runs the models alone, but test paths were given too: "
                                f"{' '.join(config.args)} (give models with --physlaw-model=PATH)")
    config.args[:] = [str(p) for p in paths.files]
    config.args_source = pytest.Config.ArgsSource.ARGS


@pytest.fixture(scope="session")
def law(request: pytest.FixtureRequest) -> Law:
    """Check measured values against a law's bounds: `law.check(quantity, value, le=..., ...)`.

    Checks are soft; the test fails at the end of its call phase with one LawViolation. The handle
    is session-scoped and bound to the running law test, so it is safe inside Hypothesis `@given`.
    """
    return request.config.stash[_HANDLE]


# -- collection ------------------------------------------------------------------------------------

@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Read and validate the law/known_gap markers of the new items; a bad one fails the collector."""
    rep = yield
    if rep.passed and rep.result:
        errors = []
        for node in rep.result:
            if isinstance(node, pytest.Item):
                try:
                    _prepare(node)
                except marks.MarkerError as e:
                    errors.append(str(e))
        if errors:
            rep.outcome, rep.longrepr, rep.result = "failed", "\n".join(errors), []
    return rep


def _prepare(item: pytest.Item) -> None:
    gap = marks.gap_info(item)
    if not (gap or item.get_closest_marker("law") is not None or _uses_our_law(item)):
        return
    if item.get_closest_marker("law") is None:
        item.add_marker("law")
    item.stash[_INFO] = marks.law_info(item)
    if gap is None:
        return
    error = gaps.page_error(item.nodeid, gap.page, Path(item.config.rootpath), options.gap_dir(item.config))
    if error:
        raise marks.MarkerError(error)
    if item.get_closest_marker("xfail") is not None:
        raise marks.MarkerError(f"{item.nodeid}: known_gap already makes the test a strict xfail; drop its xfail marker")
    item.add_marker(pytest.mark.xfail(strict=True, raises=LawViolation, reason=gaps.xfail_reason(gap.page, gap.reason)))
    item.stash[_GAP] = gap


def _uses_our_law(item: pytest.Item) -> bool:
    """Whether the test requests the `law` fixture and gets this plugin's (not a suite's own `law`)."""
    if "law" not in getattr(item, "fixturenames", ()):
        return False
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}).get("law")
    if not defs:
        return True
    func = getattr(defs[-1], "func", None)
    return getattr(func, "__module__", None) == __name__


def pytest_itemcollected(item: pytest.Item) -> None:
    if _INFO in item.stash:
        LawRun.of(item.config).collected(_record(item, item.stash[_INFO], item.stash.get(_GAP, None), outcome="passed"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    LawRun.of(config).identity_clashes(_owners(items))


def _owners(items: list[pytest.Item]) -> dict[str, list[str]]:
    """Identity ("id[case]") -> nodeids of the law items that carry it."""
    owners: dict[str, list[str]] = {}
    for item in items:
        info = item.stash.get(_INFO, None)
        if info is not None and info.identity:
            owners.setdefault(info.identity, []).append(item.nodeid)
    return owners


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        LawRun.of(items[0].config).deselected([i.nodeid for i in items if _INFO in i.stash])


def pytest_collection_finish(session: pytest.Session) -> None:
    LawRun.of(session.config).collection_finished(session)


# -- running a law test ----------------------------------------------------------------------------

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    info = item.stash.get(_INFO, None)
    if info is not None:
        config = item.config
        d = config.stash[_DEFAULTS]
        rel, abs_ = (info.rel, info.abs) if info.rel is not None or info.abs is not None else (d.rel, d.abs)
        checks = LawChecks(rel=rel, abs=abs_, tol_scale=d.tol_scale, drift=d.drift, drift_floor=d.drift_floor)
        item.stash[_CHECKS] = checks
        config.stash[_HANDLE]._bind(item.nodeid, checks)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest) -> Generator[None, Any, Any]:
    """While a fixture wider than one test runs, checks are refused: they would go to whichever
    test happened to request it first."""
    checks = request.config.stash[_HANDLE]._checks if _HANDLE in request.config.stash else None
    if checks is None or fixturedef.scope == "function":
        return (yield)
    before = checks.refusal
    checks.refusal = (f"made in the {fixturedef.scope}-scoped fixture {fixturedef.argname!r}, which serves many tests; "
                      "check in the test (or a function-scoped fixture) with the value the fixture returns")
    try:
        return (yield)
    finally:
        checks.refusal = before


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After the test function returns, its failed checks fail it here, in the call phase."""
    __tracebackhide__ = True
    checks = item.stash.get(_CHECKS, None)
    handle = getattr(getattr(item, "obj", None), "hypothesis", None)
    inner = getattr(handle, "inner_test", None) if checks is not None else None
    if inner is not None:
        handle.inner_test = examples.recording(inner, item, checks)
    try:
        with examples.same_draws(item) if inner is not None else nullcontext():
            result = yield
    finally:
        if inner is not None:
            handle.inner_test = inner
        if checks is not None:
            checks.close(f"made after the call phase of {item.nodeid}: the law's verdict is already given")
    if checks is not None:
        checks.raise_if_failed()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        if _INFO in item.stash:
            item.config.stash[_HANDLE]._unbind()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, Any]:
    """Outermost: sees the report after xfail handling; a closed gap's XPASS names its page."""
    info = item.stash.get(_INFO, None)
    if info is not None and call.when == "call" and _CHECKS in item.stash:  # the checks are final
        junit.add_check_properties(item, info.law, item.stash[_CHECKS].records.values())
    rep = yield
    if info is None:
        return rep
    gap = item.stash.get(_GAP, None)
    closed = False
    if gap is not None and call.when == "call" and rep.failed and call.excinfo is None:
        rep.longrepr = gaps.closed_message(item.nodeid, gap.page)
        closed = True
    if call.when == "call" and call.excinfo is not None and call.excinfo.type is LawViolation:
        _drop_hidden_frames_note(rep)
    phases = item.stash.setdefault(_PHASES, {})
    phases[call.when] = phase_outcome(rep, gap_closed=closed, crash=crashed(call.excinfo))
    if call.when == "teardown":
        record = _record(item, info, gap, outcome=final_outcome(phases))
        checks = item.stash.get(_CHECKS, None)
        record.checks = list(checks.records.values()) if checks is not None else []
        if checks is not None and checks.premise is not None and record.outcome == "xfailed":
            record.follows = checks.premise[0]
        record.examples = examples.fingerprint(item)
        setattr(rep, REPORT_ATTR, record.to_json(wire=True))
    return rep


def _drop_hidden_frames_note(rep: pytest.TestReport) -> None:
    """The violation table is the whole story: no "all traceback entries are hidden" note."""
    for element in getattr(rep.longrepr, "chain", ()):
        if getattr(element[0], "extraline", None):
            element[0].extraline = None


def _record(item: pytest.Item, info: marks.LawInfo, gap: marks.GapInfo | None, *, outcome: str) -> LawRecord:
    path = relative(item.path, item.config.rootpath) or Path(item.path).as_posix()
    return LawRecord(nodeid=item.nodeid, path=path, law=info.law, source=info.source, doc=info.doc,
                     outcome=outcome, known_gap=gap.page if gap else None, identity=info.identity)


def pytest_sessionstart(session: pytest.Session) -> None:
    LawRun.of(session.config).start()  # a bad output path or baseline is a usage error before any test


@pytest.hookimpl(tryfirst=True)  # the gate decides before junitxml and pytest-html write their files
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    LawRun.of(session.config).finish(session)  # gate, outputs, exit status (a worker ships its collection)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    LawRun.of(config).summary(terminalreporter)  # laws, regressions, problems, and their counts
