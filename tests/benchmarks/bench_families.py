"""Benchmark (not a test): which problem family a falsify search's best points come from, and each family's
best point confirmed on fresh trials.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_families.py FAST.T1 --budget 200 [--seed 0] [--out f.json]``.
Re-runs ``verify.search.falsify.search`` (same seed: the same evaluations as ``convbound falsify``) with a mapper
that keeps each evaluation's point, groups the evaluations by the ``problem`` axis (points tried,
admissible, inadmissible reasons, best first-estimate ratio), then confirms each family's best admissible
point with ``--confirm-trials`` trials on the search's confirmation seed (disjoint from every search seed).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

from verify.scenarios import get
from verify.search.falsify import confirm, evaluate_points, search


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--confirm-trials", type=int, default=4096)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    sc = get(a.scenario)
    seen: list[dict[str, Any]] = []

    def mapper(*args: Any) -> list[dict[str, Any]]:
        out = evaluate_points(*args)
        seen.extend(out)
        return out

    t0 = time.perf_counter()
    rec = search(sc, budget=a.budget, seed=a.seed, map_points=mapper)
    conf_seed = rec.confirmation["seeds"][0]
    rows = []
    for fam in sc.space[0].choices or ():
        evs = [e for e in seen if e["point"]["problem"] == fam]
        ok = [e for e in evs if e["score"] is not None]
        why = Counter(b for e in evs if e["score"] is None for b in e["broken"])
        row: dict[str, Any] = {"family": fam, "tried": len(evs), "admissible": len(ok), "inadmissible": dict(why)}
        if ok:
            best = max(ok, key=lambda e: e["score"])
            c, _ = confirm(sc, best["point"], trials=a.confirm_trials, seed=conf_seed)
            row.update(search_ratio=best["score"], confirmed_ratio=c["ratio"], ratio_ci=c["ratio_ci"],
                       verdict=c["verdict"], trials=c["trials"], point=best["point"])
        rows.append(row)
    wall = time.perf_counter() - t0
    print(f"{a.scenario} budget {a.budget} seed {a.seed}: overall best {rec.confirmation['ratio']:.4g} "
          f"{rec.confirmation['ratio_ci']} ({rec.best['point']['problem']}), confirm seed {conf_seed}, {wall:.1f} s")
    for r in rows:
        conf = (f"search {r['search_ratio']:.4g}, confirmed {r['confirmed_ratio']:.4g} "
                f"[{r['ratio_ci'][0]:.4g}, {r['ratio_ci'][1]:.4g}] ({r['trials']} trials, {r['verdict']})"
                if "search_ratio" in r else "no admissible point")
        print(f"  {r['family']:20s} tried {r['tried']:3d} admissible {r['admissible']:3d} {conf} {r['inadmissible']}")
    if a.out:
        from reports.jsonable import strict_json

        with open(a.out, "w") as fh:
            fh.write(strict_json({"scenario": a.scenario, "budget": a.budget, "seed": a.seed, "wall_s": wall,
                            "confirm_seed": conf_seed, "overall": rec.confirmation, "families": rows}))


if __name__ == "__main__":
    main()
