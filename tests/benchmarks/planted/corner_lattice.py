"""Where the regime errors are violated on the corner lattice of their space (issue 27 item 6; verify/search/corners.py).

**Setting**: the two bases of ``regime.py`` (the shared-Hessian FedAvg bound, ``REGIME.correct``'s space, and the
drift bound, ``REGIME.drift-correct``'s); the problem's ``draw`` at its default.
**Quantity**: every point of the lattice whose numeric axes sit at their ends (``--levels ends``) or, for an
integer axis, also at low + 1 (``--levels ends+1``), categorical axes at each choice; all of them, or
``--sample`` drawn with ``random.Random(0)``. Each point's LHS is scored exactly once (``evaluate_point``, the
correct bound's scenario) and divided by each planted bound's RHS there (``bounds``); a point counts as a
violation of an error where LHS/RHS > 1 + 1e-9 (a screen, not a confirmation).
**Statement**: per error, how many lattice points violate it and which levels they share (an axis with one level
in every violating point is part of the corner). It says nothing about points off the lattice.
With ``--arrays`` (``--levels ends`` only, where the lattice is the ``corners`` optimiser's pool when it holds
every combination): for seeds 0-4 and strengths 3 and 4, the ``corners`` optimiser's own rows
(``verify.search.corners.CornerArrays``) and, per error, the first row (1-based, in proposal order) that violates it.

    PYTHONPATH=. python tests/benchmarks/planted/corner_lattice.py --base shared --levels ends --arrays \\
        --out tests/benchmarks/planted/results-corner-lattice-shared-ends.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _levels(p, mode: str) -> list:
    if p.choices is not None:
        return list(p.choices)
    if p.integer:
        ends = {int(p.low), int(p.high)} | ({int(p.low) + 1} if mode == "ends+1" else set())
        return sorted(ends)
    return [float(p.low), float(p.high)]


def lattice(base: str, mode: str, sample: int | None) -> dict:
    """The per-error summary of the lattice (module docstring)."""
    import bounds
    from bounds import plugins
    from bounds.evaluate import evaluate
    from verify.scenario import evaluate_point
    from verify.scenarios import get

    plugins.add_files([str(HERE / "regime.py")])
    planted = plugins.load_file(str(HERE / "regime.py")).PLANTED
    ids = [k for k in planted if k.startswith("REGIME.drift") == (base == "drift")]
    sc = get("REGIME.drift-correct" if base == "drift" else "REGIME.correct")
    axes = [p for p in sc.space if p.name != "draw" and (p.choices is not None or p.low < p.high)]
    combos = list(itertools.product(*[_levels(p, mode) for p in axes]))
    total = len(combos)
    if sample is not None and sample < total:
        combos = random.Random(0).sample(combos, sample)
    hits: dict[str, list] = {i: [] for i in ids}
    scored = 0
    for combo in combos:
        pt = {**sc.point(), **dict(zip((p.name for p in axes), combo))}
        est = evaluate_point(sc, pt, trials=16, seed=1)
        if est.score is None:
            continue
        scored += 1
        values = dict(sc.build(sc.point(pt)).values)
        for i in ids:
            rhs = float(evaluate(bounds.get(i), values).value)
            if rhs > 0 and float(est.lhs) / rhs > 1 + 1e-9:
                hits[i].append((combo, float(est.lhs) / rhs))
    out: dict = {}
    for i, hs in hits.items():
        shared = {p.name: hs[0][0][j] for j, p in enumerate(axes) if len({h[0][j] for h in hs}) == 1} if hs else {}
        out[i] = {"violating": len(hs), "best_ratio": max((h[1] for h in hs), default=None), "fixed_levels": shared}
    return {"base": base, "levels": mode, "lattice_points": total, "scored": scored, "axes": [p.name for p in axes],
            "errors": out, "_hits": {i: [h[0] for h in hs] for i, hs in hits.items()}}


def arrays(base: str, hits: dict, axes: list[str]) -> list[dict]:
    """Per seed and strength, the first of the corners optimiser's rows that violates each error (None: none)."""
    from verify.scenarios import get
    from verify.search.corners import CornerArrays
    from verify.search.optimisers import make_optimiser

    sc = get("REGIME.drift-correct" if base == "drift" else "REGIME.correct")
    where = {i: {tuple(c) for c in cs} for i, cs in hits.items()}
    out = []
    for strength in (3, 4):
        for seed in range(5):
            opt = CornerArrays(sc, make_optimiser("stratified", sc, seed=seed, population=8, budget=300), seed=seed,
                               budget=300, strength=strength)
            rows = [tuple(opt.points[i][a] for a in axes) for _, i in opt.rows]
            first = {i: next((n + 1 for n, r in enumerate(rows) if r in w), None) for i, w in where.items()}
            out.append({"strength": strength, "seed": seed, "rows": len(rows), "first_violating_row": first})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", choices=("shared", "drift"), default="shared")
    ap.add_argument("--levels", choices=("ends", "ends+1"), default="ends")
    ap.add_argument("--sample", type=int, default=None, help="score this many lattice points drawn with seed 0")
    ap.add_argument("--out", default=None)
    ap.add_argument("--arrays", action="store_true", help="also the corners optimiser's rows, seeds 0-4, strengths 3, 4")
    args = ap.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        ap.error(f"--sample {args.sample}: a positive count")
    if args.arrays and (args.levels != "ends" or args.sample is not None):
        ap.error("--arrays: with --levels ends and no --sample (the lattice must be the optimiser's whole pool)")
    from verify.suite import versions

    t0 = time.perf_counter()
    doc = {**lattice(args.base, args.levels, args.sample), "sample": args.sample, "seed": 0, "versions": versions()}
    hits = doc.pop("_hits")
    if args.arrays:
        doc["arrays"] = arrays(args.base, hits, doc["axes"])
        for a in doc["arrays"]:
            print(f"strength {a['strength']} seed {a['seed']}: {a['rows']} rows; first violating row "
                  f"{a['first_violating_row']}")
    doc["wall_s"] = time.perf_counter() - t0
    text = json.dumps(doc, indent=1, default=str)
    if args.out:
        Path(args.out).write_text(text + "\n")
    for i, e in doc["errors"].items():
        print(f"{i}: {e['violating']} of {doc['scored']} lattice points; levels every one shares: {e['fixed_levels']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
