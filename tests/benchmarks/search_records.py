"""Same seed, same numbers: dump regime-benchmark searches whole, and compare two dumps (issue 27 item 6).

``dump``: for each case ``ID:optimiser:seed``, one search with the planted benchmark's protocol (16 trials, 256
confirmation trials, population 8, stop at a confirmed violation), its record, every evaluation summary of every
generation, and with ``--shrink`` the shrunk instance of a confirmed violation; times, versions and
wall_seconds are left out (they differ from run to run). ``compare``: every key and value of two dumps, floats
by their repr (bit for bit); paths of the two checkouts are equated with ``--same-path OLD=NEW``.

    PYTHONPATH=/path/to/old python tests/benchmarks/search_records.py dump old.json --budget 300 --shrink CASE ...
    PYTHONPATH=. python tests/benchmarks/search_records.py dump new.json --budget 300 --shrink CASE ...
    python tests/benchmarks/search_records.py compare old.json new.json --same-path /path/to/old=$PWD
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMING = {"elapsed_s", "wall_seconds", "wall_s", "versions"}


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, (list, tuple)):
        return [_strip(v) for v in x]
    return x


def dump(out: str, budget: int, cases: list[str], shrink: bool) -> None:
    from bounds import plugins

    plugins.add_files([str(HERE / "planted" / "regime.py")])
    import verify.search.falsify as vf
    from verify.scenarios import get

    original, docs = vf.evaluate_points, {}
    for case in cases:
        sid, opt, seed = case.split(":")
        generations: list = []

        def recording(*a, _into=generations, **k):
            got = original(*a, **k)
            _into.append(got)
            return got

        vf.evaluate_points = recording  # the search looks it up when it starts
        try:
            rec = vf.search(get(sid), budget=budget, seed=int(seed), trials=16, confirm_trials=256, optimiser=opt,
                            population=8, stop_at_violation=True)
        finally:
            vf.evaluate_points = original
        shrunk = None
        if shrink and rec.confirmation.get("verdict") == "violated":
            from verify.search.shrink import shrink as shrink_point

            shrunk = shrink_point(get(sid), rec.best["point"], trials=16, confirm_trials=256, seed=int(seed)).to_dict()
        doc = {"record": rec.to_dict(), "evaluations": generations, "shrunk": shrunk}
        docs[case] = _strip(json.loads(json.dumps(doc, default=str)))
        print(case, rec.evaluations, rec.confirmation.get("verdict"), rec.confirmation.get("ratio"), file=sys.stderr)
    Path(out).write_text(json.dumps(docs, indent=0, sort_keys=True))


def _differences(x, y, path: str, out: list[str]) -> None:
    if type(x) is not type(y):
        out.append(f"{path}: {x!r:.80} != {y!r:.80}")
    elif isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                out.append(f"{path}/{k}: in one only")
            else:
                _differences(x[k], y[k], f"{path}/{k}", out)
    elif isinstance(x, list):
        if len(x) != len(y):
            out.append(f"{path}: {len(x)} != {len(y)} entries")
        for i, (u, v) in enumerate(zip(x, y)):
            _differences(u, v, f"{path}[{i}]", out)
    elif x != y and not (x != x and y != y):  # NaN equals NaN here
        out.append(f"{path}: {x!r:.80} != {y!r:.80}")


def compare(old: str, new: str, same_path: str | None) -> int:
    text = Path(old).read_text()
    if same_path:
        before, after = same_path.split("=", 1)
        text = text.replace(before, after)
    a, b = json.loads(text), json.loads(Path(new).read_text())
    bad = 0
    for case in sorted(set(a) | set(b)):
        diffs: list[str] = []
        if case not in a or case not in b:
            diffs.append("in one dump only")
        else:
            _differences(a[case], b[case], case, diffs)
        n = sum(len(g) for g in (a.get(case) or b[case])["evaluations"])
        print(f"{case}: {'identical' if not diffs else f'{len(diffs)} differences'} ({n} evaluations)")
        for d in diffs[:5]:
            print("   ", d)
        bad += bool(diffs)
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("cases", nargs="+", help="ID:optimiser:seed")
    d.add_argument("--budget", type=int, default=300)
    d.add_argument("--shrink", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--same-path", default=None, metavar="OLD=NEW")
    args = ap.parse_args(argv)
    if args.what == "dump":
        dump(args.out, args.budget, args.cases, args.shrink)
        return 0
    return compare(args.old, args.new, args.same_path)


if __name__ == "__main__":
    sys.exit(main())
