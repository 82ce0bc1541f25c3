"""Project-wide test settings: a derandomised hypothesis profile so CI runs are repeatable, and the
``convbound`` fixture that runs the command line in-process (exit status, stdout, stderr).

Hypothesis keeps its files (example database, caches) in a directory of the system's temporary
area, never in the source tree or in whatever directory pytest was started from.
"""

import itertools
import json
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

_HOME = os.path.join(tempfile.gettempdir(), "convbound-hypothesis")
set_hypothesis_home_dir(_HOME)

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,  # derandomised: nothing to replay, nothing to store
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=30,
                          database=DirectoryBasedExampleDatabase(os.path.join(_HOME, "examples")))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """In the main process, the packages byte-compiled once (:func:`_compile_packages`); an xdist worker's
    temporary folders as short as a plain run's.

    xdist puts each worker's ``tmp_path`` under ``<basetemp>/popen-gwN/``; the ten extra characters push
    the paths of some tests past the 80 characters after which our one-line errors clip a path's middle,
    and those tests check that the error names the whole path. So each worker gets its own short base
    (``/tmp/cb-gwN-XXXX``), made here and removed when the worker ends.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        _compile_packages()
    if worker:
        _collect_garbage_once(config)
    if worker and not getattr(config, "_cb_basetemp", None):
        config._cb_basetemp = tempfile.mkdtemp(prefix=f"cb-{worker}-")
        config.option.basetemp = config._cb_basetemp


#: The packages the tests' child interpreters import from the checkout.
PACKAGES = ("bounds", "quadratics", "rate_region", "verify", "reports")


def _compile_packages() -> None:
    """Byte-compile the packages once, before any test (0.7 s).

    Why: the tests start about 150 child interpreters (the command line as a user runs it, Dask workers, fresh
    interpreters for import checks). Where ``PYTHONDONTWRITEBYTECODE`` is set (as on our CI machines) none of
    them writes its compiled modules, so each compiled the packages again from source: 0.18 s of CPU per child,
    about 27 s per run. The compiled files go where Python itself puts them (``__pycache__``, ignored by git);
    Python reads them whatever that variable says.
    """
    import compileall
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for name in PACKAGES:
        compileall.compile_dir(root / name, quiet=1)


def _collect_garbage_once(config) -> None:
    """An xdist worker ends with one garbage collection, not pytest's five.

    Why: pytest collects garbage five times when a process ends, to report exceptions raised while unreachable
    objects are finalised; on a worker's heap (torch, sympy, Dask, thousands of tests' objects) that took about
    4 s after its last test, and the run ends only when both workers have. One collection still finalises what
    is unreachable (the later ones find what the first one's finalisers left). pytest keeps the count in its
    config stash for its own tests of this (``gc_collect_iterations_key``); where a pytest has none, five stay."""
    try:
        from _pytest.unraisableexception import gc_collect_iterations_key
    except ImportError:
        return
    config.stash[gc_collect_iterations_key] = 1


def pytest_unconfigure(config):
    if getattr(config, "_cb_basetemp", None):
        shutil.rmtree(config._cb_basetemp, ignore_errors=True)


@pytest.fixture
def recorded_calls(monkeypatch):
    """``record(owner, name)`` replaces ``owner.name`` by a wrapper that calls it and appends each call's first
    argument (``arg``: another positional one, e.g. 1 for a method's first after ``self``) to the list it returns:
    how often, and for what, a step ran."""

    def record(owner, name: str, arg: int = 0) -> list:
        seen: list = []
        real = getattr(owner, name)

        def wrapper(*args, **kwargs):
            seen.append(args[arg])
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)
        return seen

    return record


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """Every test starts as a pipe does: no $COLUMNS (rich reads it as the terminal's width, and tables are then
    folded or stacked); a test of a narrow terminal sets it itself. Why: shells and CI runners differ here."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def _own_evidence_store(monkeypatch, tmp_path_factory):
    """Every test's default evidence store is an empty one of its own, never the user's (the shipped store is
    still read), and ``$CONVBOUND_STORE`` is unset, so a command writes evidence only where a test asks
    (``--store``). Why: a user's campaign must not change a test's decision.

    The store's folder is named, not made: a store makes its folder when first written, and most tests write
    none. Why: ``tmp_path_factory.mktemp`` numbers a folder by listing every folder already in the base, so one
    made for each of a worker's ~2,300 tests listed millions of names (about 20 s of CPU a run)."""
    monkeypatch.delenv("CONVBOUND_STORE", raising=False)
    path = tmp_path_factory.getbasetemp() / "stores" / str(next(_STORES)) / "evidence.sqlite"
    monkeypatch.setattr("verify.evidence.store.default_path", lambda: path)


#: Numbers the tests' own evidence stores within one process (each xdist worker has its own base folder).
_STORES = itertools.count()


@pytest.fixture(autouse=True, scope="module")
def _session_results_stay_in_their_module():
    """Results a test module registers in this process (a scenario registers its result when built) and plugin
    files it loads (``plugins.add_files``) are dropped when the module ends. Why: under xdist another module may
    run next in the same worker, and a test that walks every registered result or check would then see, say,
    TEST.CORNERS or the planted PLANT.* results."""
    from bounds import plugins, registry

    before = dict(registry._session)
    files = list(plugins._cli_files)
    yield
    registry._session.clear()
    registry._session.update(before)
    plugins.clear_files()
    plugins.add_files(files)


class Run:
    """One in-process ``convbound`` run: ``code`` (exit status), ``out``, ``err``; ``json()`` parses out."""

    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)

    def __iter__(self):  # code, out, err = convbound(...)
        return iter((self.code, self.out, self.err))


@pytest.fixture
def convbound(capsys):
    """``convbound(*argv) -> Run``: the entry point called in this process, as a user would type it."""
    from reports.cli.main import main

    def run(*argv):
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run


@pytest.fixture(scope="session")
def _quick_run():
    """``run_groups("all", quick=True, device="cpu", seed=0)`` once per session, with the ``evaluate_point`` calls
    each group made (``{group: [(scenario id, point, seed or "exact")]}``): the run's own calls, counted by a
    wrapper of ``verify.scenario.evaluate_point`` (and where falsify and confirm import it by name) while it runs."""
    import verify.scenario
    import verify.search.confirmation
    import verify.search.falsify
    from verify.suite import run_groups

    real = verify.scenario.evaluate_point
    pending: list[tuple] = []
    calls: dict[str, list[tuple]] = {}

    def counted(scenario, point, **kw):
        pending.append((scenario.id, dict(point or {}), "exact" if kw.get("exact_lhs") else kw["seed"]))
        return real(scenario, point, **kw)

    def progress(done, total, key):  # in process, groups run one at a time: the calls since the last one are its
        if key:
            calls[key] = pending[:]
        pending.clear()

    with pytest.MonkeyPatch.context() as mp:
        for module in (verify.scenario, verify.search.falsify, verify.search.confirmation):
            mp.setattr(module, "evaluate_point", counted)
        groups, _ = run_groups("all", quick=True, device="cpu", seed=0, progress=progress)
    return ({key: tuple(records) for key, records in groups.items()},
            {key: tuple(made) for key, made in calls.items()})


@pytest.fixture(scope="session")
def quick_groups(_quick_run):
    """The whole quick verification suite in this process, once per session: ``run_groups("all",
    quick=True, device="cpu", seed=0)`` as ``{check group: tuple of records}`` in suite order (read-only;
    ``to_dict`` gives fresh dicts). A group's records do not depend on which other groups run
    (``tests/verify/test_executor.py`` checks it), so a test of a few groups may read them here.

    Why shared: the quick-suite acceptance test, the in-process sides of the Dask comparisons, the F3AST
    explicit-form tests and the one-pipeline test (which reads :func:`quick_calls` too) need this run, the largest
    single computation in the tests after the quick report. Tests that read it
    carry ``pytest.mark.xdist_group("quick_suite")``: with ``--dist loadgroup`` (pyproject's addopts) they
    run on one xdist worker, so the suite runs once per test run, not once per worker.
    """
    return _quick_run[0]


@pytest.fixture(scope="session")
def quick_calls(_quick_run):
    """The ``evaluate_point`` calls of each group of :func:`quick_groups`' run, in its order:
    ``{check group: tuple of (scenario id, point, seed, or "exact" for an exact_lhs call)}``."""
    return _quick_run[1]


@pytest.fixture(scope="session")
def quick_suite(quick_groups):
    """``run_suite("all", quick=True, device="cpu", seed=0)``: every record of :func:`quick_groups`, in order."""
    return tuple(v for records in quick_groups.values() for v in records)


#: A module groups its tests on one worker (below) only when at most this many need its shared fixture: a
#: few tests around one expensive build. Above it the fixture is a cheap one used by a large parametrised
#: module (``tests/cli/test_fuzz_newer.py``: 1,358 cases in one temporary directory), better spread.
GROUP_AT_MOST = 32


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The tests of a module that share a module- or class-scoped fixture run on one xdist worker.

    Why: with ``--dist loadgroup`` every unmarked test is its own unit of work, so the tests of one module
    alternate between the workers and a module fixture (a report document, a solved SDP) would be built
    once per worker. Marking them ``xdist_group(<module path>)`` keeps one build; tests that name a group
    already (``quick_suite``, ``quick_report``) keep theirs. tryfirst: xdist's worker reads the marks in its
    own hook of this name, which must come after this one.
    """
    sharing: dict[str, list] = {}
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        info = getattr(item, "_fixtureinfo", None)
        defs = [d for ds in (info.name2fixturedefs.values() if info else ()) for d in ds]
        if any(str(d.scope) in ("module", "class", "package") for d in defs):
            sharing.setdefault(item.nodeid.split("::")[0], []).append(item)
    for module, group in sharing.items():
        if len(group) <= GROUP_AT_MOST:
            for item in group:
                item.add_marker(pytest.mark.xdist_group(module))
