"""The orders table on the planted errors of the order kind, beside their correct counterparts (issue 27 item 3).

An error is of the order kind when it gives a term the wrong order in one scale parameter; each is run on the
rays of that parameter's axis (``verify.search.orders.order_table`` with ``only``: from the default point and from each
term's tight base of each ray; ``terms=False``). A row says whether some ray of the error fails far along with a
confirmed violating point, and whether any ray of the counterpart does (an order deficiency of a correct bound:
must never happen).

    PYTHONPATH=. python tests/benchmarks/planted/orders_table.py --out tests/benchmarks/planted/results-orders.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: error -> (its axis, its correct counterpart)
ORDER_KIND = {
    "PLANT.eta-power": ("eta_frac", "PLANT.correct"),
    "PLANT.K-power": ("K", "PLANT.correct"),
    "PLANT.R-power": ("R", "PLANT.correct"),
    "PLANT.participation-direction": ("M", "PLANT.correct"),
    **{f"REGIME.{t}-mu-{a}": ("mu_frac", "REGIME.correct") for t in ("noise", "sampling") for a in (16, 24, 32, 48, 64, 96, 128)},
    "REGIME.drift-noise-M": ("M", "REGIME.drift-correct"),
}


def summary(sid: str, rows: list) -> dict:
    hits = [r for r in rows if r.finding == "fails far along"
            and r.violation.get("confirmation", {}).get("verdict") == "violated"]
    best = max(hits, key=lambda r: r.violation["confirmation"]["ratio"], default=None)
    return {"id": sid, "rays": len(rows), "fails_far_along": sum(r.finding == "fails far along" for r in rows),
            "confirmed": len(hits), "example": None if best is None else {
                "ray": best.ray, "base": best.base_label, "why": best.why, "widened": best.widened,
                "point": best.violation["point"], "ratio": best.violation["confirmation"]["ratio"]},
            "rows": [r.to_dict() for r in rows]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids", default=None, help="comma-separated subset of the errors")
    ap.add_argument("--confirm-trials", type=int, default=64)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    from bounds import plugins
    from verify.scenarios import get
    from verify.search.orders import order_table
    from verify.suite import versions

    plugins.add_files([str(HERE / "planted.py"), str(HERE / "regime.py")])
    ids = args.ids.split(",") if args.ids else list(ORDER_KIND)
    out, done, t0 = [], set(), time.perf_counter()
    for sid in ids:
        axis, right = ORDER_KIND[sid]
        for s in (sid, right):
            if (s, axis) in done:
                continue
            done.add((s, axis))
            t1 = time.perf_counter()
            rec = summary(s, order_table(get(s), only=[axis], terms=False, confirm_trials=args.confirm_trials))
            rec.update(axis=axis, wall_s=time.perf_counter() - t1, correct=s == right)
            out.append(rec)
            print(f"{s} ({axis}): {rec['confirmed']} of {rec['rays']} rays fail far along with a confirmed point "
                  f"({rec['wall_s']:.0f} s)", file=sys.stderr, flush=True)
    print("| planted error | ray axis | rays | confirmed deficiencies | example (ray, base, point, LHS/RHS) |")
    print("|---|---|---|---|---|")
    for r in out:
        ex = r["example"]
        cell = "-" if ex is None else (f"{ex['ray']}, {ex['base']}, {r['axis']} = {ex['point'][r['axis']]:.4g}, "
                                       f"{ex['ratio']:.4g}")
        print(f"| {r['id']} | {r['axis']} | {r['rays']} | {r['confirmed']}" + (" (correct)" if r["correct"] else "")
              + f" | {cell} |")
    if args.out:
        Path(args.out).write_text(json.dumps({"versions": versions(), "load": os.getloadavg(), "seed": 0,
                                              "total_s": time.perf_counter() - t0, "results": out},
                                             indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
