"""pytest hooks of pytest-physlaw: the `law` fixture, the markers, known gaps and the law records.

Flow of one law test: collection marks it `law` (and a known gap a strict xfail with
raises=LawViolation); setup binds the session's `law` handle to a fresh `LawChecks`; the call phase
ends with one LawViolation if any check failed; the teardown report carries the finished
`LawRecord` as JSON (`physlaw_record`), so that under xdist it reaches the controller with the report.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_physlaw import environment, examples, gaps, marks, options, outputs
from pytest_physlaw.check import LawChecks, LawViolation
from pytest_physlaw.fixture import Law
from pytest_physlaw.outcome import crashed, final_outcome, phase_outcome
from pytest_physlaw.record import LawRecord
from pytest_physlaw.scope import collect_args, leaves_files_out, whole_run
from pytest_physlaw.session import law_session

REPORT_ATTR = "physlaw_record"
WORKER_KEY = "physlaw"

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
    config.pluginmanager.register(_RunHooks(config), f"physlaw-run-{id(config)}")
    examples.load_profile(config)
    _model_pack(config)


def _model_pack(config: pytest.Config) -> None:
    """Register the model law pack when models are given; only then is MuJoCo imported."""
    models = options.models(config)
    if models:
        options.model_seconds(config)
        from pytest_physlaw.pack import ModelPack

        config.pluginmanager.register(ModelPack(config, models), f"physlaw-models-{id(config)}")


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
    info = item.stash.get(_INFO, None)
    if info is None:
        return
    gap = item.stash.get(_GAP, None)
    law_session(item.config).collected[item.nodeid] = _record(item, info, gap, outcome="passed")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Two laws with one identity (law id and case) are a collection error naming both."""
    owners: dict[str, list[str]] = {}
    for item in items:
        info = item.stash.get(_INFO, None)
        if info is not None and info.identity:
            owners.setdefault(info.identity, []).append(item.nodeid)
    for identity, nodeids in sorted(owners.items()):
        if len(nodeids) > 1:
            message = (f"law id {identity!r} is given to {len(nodeids)} tests: {', '.join(nodeids)}; a law id and "
                       "case name one law (the baseline finds a law by them), give each its own id")
            report = pytest.CollectReport(nodeids[1].partition("::")[0], "failed", message, [])
            config.hook.pytest_collectreport(report=report)


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        if _INFO in item.stash:
            law_session(item.config).deselected.add(item.nodeid)


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    state = law_session(config)
    state.collect_args = collect_args(config)
    for nodeid, rec in sorted(state.collected.items()):
        if rec.known_gap:
            state.gap_pages.setdefault(rec.known_gap, []).append(nodeid)
    kept = {page: [(n, state.collected[n].path) for n in ids] for page, ids in state.gap_pages.items()}
    state.problems.extend(gaps.page_problems(
        Path(config.rootpath), options.gap_dir(config), kept,
        collected_files={r.path for r in state.collected.values()} | _item_files(session),
        args=state.collect_args, whole=whole_run(config, state.collect_args),
        judge_orphans=not _run_hooks(config).collect_errors,
    ))


def _item_files(session: pytest.Session) -> set[str]:
    root = Path(session.config.rootpath)
    out = set()
    for item in session.items:
        try:
            out.add(Path(item.path).relative_to(root).as_posix())
        except ValueError:
            pass
    return out


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
    rep = yield
    info = item.stash.get(_INFO, None)
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
        record.examples = examples.fingerprint(item)
        setattr(rep, REPORT_ATTR, record.to_json(wire=True))
    return rep


def _drop_hidden_frames_note(rep: pytest.TestReport) -> None:
    """The violation table is the whole story: no "all traceback entries are hidden" note."""
    for element in getattr(rep.longrepr, "chain", ()):
        if getattr(element[0], "extraline", None):
            element[0].extraline = None


def _record(item: pytest.Item, info: marks.LawInfo, gap: marks.GapInfo | None, *, outcome: str) -> LawRecord:
    try:
        path = Path(item.path).relative_to(item.config.rootpath).as_posix()
    except ValueError:
        path = Path(item.path).as_posix()
    return LawRecord(nodeid=item.nodeid, path=path, law=info.law, source=info.source, doc=info.doc,
                     outcome=outcome, known_gap=gap.page if gap else None, identity=info.identity)


class _RunHooks:
    """Hooks that need the run's config but are not given it, registered once per config."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.collect_errors = 0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        state = law_session(self.config)
        if report.failed:
            self.collect_errors += 1
            state.collect_errors += 1
        elif report.skipped and report.nodeid.endswith(".py"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            state.skipped_modules[report.nodeid] = str(reason).removeprefix("Skipped: ")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Serial run and xdist controller alike: the teardown report carries the finished record."""
        data = getattr(report, REPORT_ATTR, None)
        if data is not None:
            record = LawRecord.from_json(data)
            law_session(self.config).records[record.nodeid] = record

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist controller: merge what a worker collected (records come with the reports)."""
        data = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if data is not None:
            _merge_collection(law_session(self.config), data)


def _run_hooks(config: pytest.Config) -> _RunHooks:
    return config.pluginmanager.get_plugin(f"physlaw-run-{id(config)}")


# -- end of the session ----------------------------------------------------------------------------

def _collection_json(state: Any) -> dict[str, Any]:
    return {
        "collected": [r.to_json() for _, r in sorted(state.collected.items())],
        "deselected": sorted(state.deselected),
        "collect_args": list(state.collect_args),
        "gap_pages": {k: list(v) for k, v in sorted(state.gap_pages.items())},
        "problems": list(state.problems),
        "environment": dict(state.environment),
        "skipped_modules": dict(state.skipped_modules),
    }


def _merge_collection(state: Any, data: dict[str, Any]) -> None:
    """Every worker collects the same suite: the union of theirs is the controller's collection."""
    for d in data["collected"]:
        state.collected.setdefault(d["nodeid"], LawRecord.from_json(d))
    state.deselected.update(data["deselected"])
    if not state.collect_args:
        state.collect_args = list(data["collect_args"])
    for page, ids in data["gap_pages"].items():
        have = state.gap_pages.setdefault(page, [])
        have.extend(i for i in ids if i not in have)
    state.problems.extend(p for p in data["problems"] if p not in state.problems)
    for key, value in data.get("environment", {}).items():
        state.environment.setdefault(key, value)
    state.skipped_modules.update(data.get("skipped_modules", {}))


def pytest_sessionstart(session: pytest.Session) -> None:
    outputs.start(session.config)  # a bad --law-baseline is a usage error before any test runs


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker ships its collection to the controller; elsewhere session problems fail the run."""
    config = session.config
    state = law_session(config)
    state.leaves_files_out = leaves_files_out(config)
    environment.gather(config, state)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[WORKER_KEY] = _collection_json(state)
        return
    outputs.finish(session)  # report, baseline, gate, Markdown, catalogue, exit status


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    outputs.summary(terminalreporter, config)  # laws, regressions, problems, and their counts
