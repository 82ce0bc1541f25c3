"""One record model (issue 26 item 1): every saved kind round-trips ``to_dict``/``from_dict``, carries its
schema tag, seeds and versions, and a bad file is one line naming the field (exit 2 from the CLI).

The recorded run ``data/quick_c0dc853.json`` is ``convbound verify all --quick --json`` at commit c0dc853,
before the record model: re-read through the new reader it must give back the same verdicts and numbers,
and two cheap checks recomputed now must give the recorded numbers (same seed, same numbers).
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest

from bounds.core.errors import UserInputError
from bounds.core.record import KINDS, BadRecord, Record

RECORDED = Path(__file__).with_name("data") / "quick_c0dc853.json"


def _verification():
    from verify.record import Verification

    return Verification("FAST.T2", "t", "holds", lhs=0.5, ci=(0.4, float("inf")), rhs=1.0, ratio=0.5,
                        instance={"L": 1.0}, conditions=({"name": "cap", "holds": True},), series={"x": [1, 2]},
                        notes=("n",), trials=64, seed=3, variant="published", versions={"numpy": "2"})


def _search():
    from verify.search.falsify import SearchRecord

    conf = {"verdict": "violated", "lhs": 2.0, "ci": [1.5, 2.5], "rhs": 1.0, "ratio": 2.0, "ratio_ci": [1.5, 2.5],
            "trials": 64, "seeds": [11], "level": 0.99}
    return SearchRecord("FAST.T2@corrected", "FAST.T2", "random", seed=5, budget=20, time_limit=None, trials=8,
                        population=4, evaluations=20, admissible=18, best={"point": {"het": 0.135}, "score": 2.0},
                        default={"point": {}}, confirmation=conf, trace=[{"evaluation": 1, "ratio": 0.5, "best": 0.5}],
                        notes=["a note"], versions={"torch": "2"})


def _worst_case():
    from verify.pep.core import WorstCase
    from verify.pep.setting import Setting, parse_law

    s = Setting("fast", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=2, R=2, M=2, law=parse_law("uniform:1"))
    return WorstCase(s, value=0.25, primal_value=0.2499, solver_status="optimal", solver="CLARABEL",
                     certificate={"status": "certified"}, solve_seconds=0.5,
                     coverage=({"key": "FAST.T2", "covers": "yes", "reason": "", "bound": 0.3, "ratio": 0.8},),
                     notes=("n",), versions={"cvxpy": "1"}, symmetry="none", size={"seconds": 0.1})


def _audit():
    from rate_region.audit import audit
    from rate_region.logs import ParticipationLog

    T, N = 40, 4
    rng = np.random.default_rng(0)
    A = np.ones((T, N), bool)
    S = np.zeros((T, N), bool)
    S[np.arange(T)[:, None], np.argsort(rng.random((T, N)), axis=1)[:, :2]] = True  # 2 of 4 each round
    return audit(ParticipationLog("synthetic", T * N, np.arange(T), np.arange(N), A, S, None, None, 0), "uniform:2/4")


def _comparison():
    from bounds.compare import compare, make_setting

    setting = make_setting(dict(L=1, tau=5, S=10, N=100, sigma=1, zeta_G=0.5, Delta0=1, eps=0.05, R=1000,
                                eta_c=0.005), pattern="iid", measure="grad-sq", convexity="nonconvex")
    return compare(setting, ["ASCAF.P.IID", "SCAF.T3@nonconvex", "SCAF.T1@nonconvex"])


def _instance():
    from verify.instance import InstanceFile

    return InstanceFile.from_dict({"format": "convbound-instance/1", "scenario": "FAST.T1", "point": {},
                                   "trials": 8, "seeds": [3], "level": 0.99, "device": "cpu",
                                   "expect": {"verdict": "holds", "lhs": 0.1, "ci": [0.05, 0.2], "rhs": 1.0}})


MAKERS = {"verification": _verification, "search": _search, "worst-case": _worst_case, "audit": _audit,
          "comparison": _comparison, "instance": _instance}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_every_kind_round_trips_through_strict_json(kind):
    from reports.schema import read_record

    rec = MAKERS[kind]()
    assert isinstance(rec, Record) and rec.KIND == kind
    d = rec.to_dict()
    assert d["schema"] == f"convbound.{kind}/1"
    text = json.dumps(d, allow_nan=False)
    back = type(rec).from_dict(json.loads(text))
    assert back == rec
    assert back.to_dict() == d
    # the one reader picks the class by the schema tag alone
    again = read_record(json.loads(text))
    assert type(again) is type(rec) and again == rec
    assert len(repr(rec)) < 200 and "\n" not in repr(rec)
    assert isinstance(rec.record_id, str) and isinstance(rec.record_versions, dict)
    assert all(isinstance(s, int) for s in rec.record_seeds)


def test_seeds_and_ids_are_the_records_own():
    assert _verification().record_seeds == (3,) and _verification().record_id == "FAST.T2"
    assert _search().record_seeds == (5,) and _instance().record_seeds == (3,)
    assert _worst_case().record_seeds == () and _worst_case().record_versions == {"cvxpy": "1"}


def test_reserved_kinds_have_slots_but_no_reader_yet():
    from reports.schema import read_record

    assert {"decision", "conformance"} <= set(KINDS)
    with pytest.raises(BadRecord, match="no reader"):
        read_record({"schema": "convbound.conformance/1", "id": "x"})
    # decision has its reader now (verify.decision): a partial one is refused naming the field
    with pytest.raises(BadRecord, match="'record.outcome' is missing"):
        read_record({"schema": "convbound.decision/1", "id": "x"})


def test_a_record_of_another_kind_or_a_newer_version_is_refused():
    from verify.record import Verification

    with pytest.raises(BadRecord, match="expected 'convbound.verification/1'"):
        Verification.from_dict(_search().to_dict())
    with pytest.raises(BadRecord, match="upgrade convbound"):
        Verification.from_dict({**_verification().to_dict(), "schema": "convbound.verification/2"})
    with pytest.raises(BadRecord, match="expected 'convbound.KIND/N'"):
        Verification.from_dict({**_verification().to_dict(), "schema": "verification"})


def _leaves(obj, path=()):
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield path + (k,), v
        yield from _leaves(v, path + (k,))


@pytest.mark.parametrize("kind", ["verification", "search", "worst-case", "audit", "comparison"])
def test_generated_bad_records_are_one_line_naming_the_field(kind):
    """Seeded edits anywhere in a record: read, or refused with one line that names a field."""
    from reports.schema import read_record

    good = json.loads(json.dumps(MAKERS[kind]().to_dict(), allow_nan=False))
    rng = random.Random(26)
    paths = [p for p, _ in _leaves(good) if p != ("schema",)]
    refused = 0
    for _ in range(40):
        bad = copy.deepcopy(good)
        path = rng.choice(paths)
        parent = bad
        for p in path[:-1]:
            parent = parent[p]
        parent[path[-1]] = rng.choice([None, "x", 7, -1.5, True, [], {}, [None]])
        try:
            read_record(bad)
        except (BadRecord, UserInputError) as exc:
            refused += 1
            msg = str(exc)
            assert "\n" not in msg and ("field '" in msg or "is not a valid" in msg), msg
    assert refused > 0


@pytest.mark.parametrize(("kind", "path", "field"), [
    ("search", ("best", "point"), "'record.best.point' is missing"),
    ("worst-case", ("certificate", "status"), "'record.certificate.status' is missing"),
    ("audit", ("variance", "H_rstar"), "'record.variance.H_rstar' is missing"),
    ("verification", ("verdict",), "'record.verdict' is missing"),
    ("comparison", ("setting", "measure"), "'record.setting.measure' is missing"),
])
def test_a_missing_field_is_named(kind, path, field):
    from reports.schema import read_record

    bad = json.loads(json.dumps(MAKERS[kind]().to_dict(), allow_nan=False))
    parent = bad
    for p in path[:-1]:
        parent = parent[p]
    del parent[path[-1]]
    with pytest.raises(BadRecord) as err:
        read_record(bad)
    assert field in str(err.value)


def test_from_json_refuses_a_bad_verification_in_one_line(tmp_path, convbound):
    rec = {**_verification().to_dict(), "verdict": "maybe"}
    path = tmp_path / "v.json"
    path.write_text(json.dumps([rec]))
    run = convbound("report", "--from-json", str(path), "--out", str(tmp_path / "rep"))
    assert run.code == 2 and run.err.strip().count("\n") == 0 and "Traceback" not in run.err
    assert "field '[0].verdict' is 'maybe'; expected one of holds" in run.err and str(path) in run.err


@pytest.mark.parametrize(("change", "words"), [
    ({"seeds": [True]}, "seeds[0] must be an integer in [0, 2^63), not the boolean true"),
    ({"trials": "8"}, "trials must be an integer >= 2 (an interval needs two), not the text '8'"),
    ({"level": 2}, "level must be a confidence level in [0.5, 0.999999], not the number 2"),
    ({"extra": 1}, "unknown key(s) 'extra'"),
])
def test_verify_instance_refuses_a_bad_file_in_one_line(tmp_path, convbound, change, words):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({**_instance().payload(), **change}))
    run = convbound("verify", "--instance", str(path))
    assert run.code == 2 and run.err.strip().count("\n") == 0 and "Traceback" not in run.err
    assert words in run.err, run.err


# The recorded run (before the refactor) -----------------------------------------------------------------

NUMBERS = ("verdict", "expected", "lhs", "ci", "rhs", "ratio", "trials", "seed", "notes", "conditions", "series")


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def test_the_recorded_run_reads_back_unchanged(recorded):
    from reports.schema import as_report_document, read_record

    doc = as_report_document(recorded, str(RECORDED))
    assert len(doc["verifications"]) == len(recorded) == 57
    for i, saved in enumerate(recorded):
        rec = read_record(saved, f"[{i}]", "verification")
        again = rec.to_dict()
        assert again.pop("schema") == "convbound.verification/1"
        # added after the recording: the hypotheses a conditional violation rests on (none in a recorded record)
        assert again.pop("unless") == []
        assert again.pop("measured") == {}  # added after the recording: a shape check's own quantities
        assert again == saved, saved["id"]  # every field, verdicts and numbers included
        assert {k: again[k] for k in NUMBERS} == {k: saved[k] for k in NUMBERS}
    verdicts = [v["verdict"] for v in recorded]
    assert (verdicts.count("holds"), verdicts.count("violated"), verdicts.count("unverified")) == (27, 26, 4)


def test_two_cheap_checks_recomputed_give_the_recorded_numbers(recorded):
    """F3AST.L3.4 (the Table I rate region, 8 records) and SURV.rates (three rates and a control) in about a
    second: the same seed and sizes as the recorded run give the same verdicts and numbers."""
    from verify.suite import run_suite

    saved = {v["id"]: v for v in recorded}
    fresh = run_suite(["F3AST.L3.4", "SURV.rates"], quick=True, device="cpu", seed=0)
    assert len(fresh) >= 4
    for v in fresh:
        d = v.to_dict()
        old = saved[v.id]
        assert (d["verdict"], d["trials"], d["seed"]) == (old["verdict"], old["trials"], old["seed"]), v.id
        for key in ("lhs", "rhs", "ratio"):
            assert d[key] == pytest.approx(old[key], rel=1e-9, abs=1e-12), (v.id, key)
        assert d["ci"] == pytest.approx(old["ci"], rel=1e-9, abs=1e-12), v.id


def test_reports_has_no_import_circle():
    """The reader and the renderers import one way (``reports.records`` and ``reports.validate`` imported each
    other): no cycle among ``reports`` modules, counting imports inside functions."""
    import ast

    root = Path(__file__).resolve().parents[2]
    mods = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
            for p in (root / "reports").rglob("*.py")}
    graph = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                deps |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
        graph[name] = (deps & set(mods)) - {name}

    def reaches(start, goal, seen):
        return any(d == goal or (d not in seen and not seen.add(d) and reaches(d, goal, seen)) for d in graph[start])

    assert "reports.schema" in graph and "reports.records" in graph["reports.schema"]
    assert [m for m in graph if reaches(m, m, set())] == []
