"""Which encoded results a worst-case setting covers, and the tightness (worst case / bound) of each.

The PEP class bounds heterogeneity only at x* (||grad f_i(x*)|| <= zeta), so it contains FAST's class
(A3: ||grad f_i - grad F|| <= sigma_G everywhere, sigma_G = zeta): the PEP value is >= the worst case over
FAST's class. A ratio <= 1 therefore proves the bound for every instance of the setting; a ratio > 1
does not show a violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verify.pep.setting import Setting


def fast_participation(law: Any, M: int) -> tuple[float, int | None, int | None] | None:
    """FAST's (q, m, n) for a PEP law: full and uniform m of M are every-round snapshots (q = 1); a snapshot law
    gives its own; any other law (Bernoulli, whose rounds have no fixed size) is not FAST's: None. Read by
    FAST.T2's coverage here and FAST.T1's in verify.pep.nonconvex_cover."""
    if law is None or law.kind == "full":
        return 1.0, M, M
    if law.kind == "uniform":
        return 1.0, law.m, law.m
    if law.kind == "snapshot":
        return float(law.q or 0.0), law.m, law.n
    return None


def fast_t2_values(s: Setting) -> dict[str, Any] | None:
    """FAST.T2's inputs for ``s`` (q, snapshot size m, arbitrary-round size n, sigma, sigma_G = zeta), or None
    when FAST's participation does not describe ``s``'s law."""
    qmn: tuple[float, int | None, int | None] | None
    if s.schedule is not None or s.I is not None:
        if not s.full_every_round():
            return None
        qmn = (1.0, s.M, s.M)
    else:
        qmn = fast_participation(s.law, s.M)
    if qmn is None:
        return None
    q, m, n = qmn
    return {"L": s.L, "mu": s.mu, "K": s.K, "m": m, "n": n, "q": q, "R": s.R, "eta_c": s.eta,
            "sigma": s.sigma, "sigma_G": s.zeta, "kappa": s.D0}


def _t2_relation(s: Setting) -> str:
    law = s.law.text() if s.law is not None else "full participation"
    return (f"FAST's setting with participation {law} (snapshot rounds uniform m of M; FAST allows any process in "
            "the other rounds, so the stated rule is one of them), noise variance sigma^2 = "
            f"{s.sigma**2:g}; the PEP class (heterogeneity at x* only) contains FAST's class (A3 with sigma_G = "
            "zeta), so the PEP value bounds FAST's worst case from above: ratio <= 1 proves the bound for "
            "every instance of the setting; ratio > 1 does not show a violation")


def coverage(s: Setting, value: float) -> list[dict[str, Any]]:
    """The tightness (PEP worst / bound) of every encoded result that covers ``s``, and why others do not.

    Returns one dict per registry key: ``key``, ``covers`` (``yes`` | ``comparison`` | ``no``), ``reason``,
    and, where a bound value exists, ``bound``, ``ratio``, ``hypotheses`` (True/False/None per named
    hypothesis from ``bounds``) and ``hypotheses_hold``.
    """
    from bounds.registry import all_results

    full = s.full_every_round()
    out: list[dict[str, Any]] = []
    for res in all_results():
        key = res.key
        row: dict[str, Any] = {"key": key, "kind": str(getattr(res.kind, "value", res.kind))}
        reason = _non_cover_reason(key, s, full)
        if reason is None and key.startswith("FAST.T2"):
            row.update(covers="yes", reason=_t2_relation(s))
            _evaluate(row, res, fast_t2_values(s) or {}, value)
        elif reason is None and key == "F3AST.LB.2@operative":
            gamma = s.zeta**2 / (2 * s.mu)
            row.update(covers="comparison", reason=(
                "one full-participation round with E = K = 1 and sigma = 0 makes V1 = 6 L Gamma; the bound is "
                "evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class, so it bounds every "
                "instance's own RHS from above: a comparison, not a per-instance check"))
            _evaluate(row, res, {"eta": s.eta, "mu": s.mu, "D": s.D0, "V1": 6 * s.L * gamma}, value)
        else:
            row.update(covers="no", reason=reason or "not applicable")
        out.append(row)
    return out


def _evaluate(row: dict[str, Any], res: Any, values: Mapping[str, Any], value: float) -> None:
    # only FAST-shaped laws reach here: snapshot rounds uniform m of M with probability q, other rounds by a rule
    decided = {a.name: (True, "the law's snapshot rounds are uniform m of M with probability q (q = 1: every "
                              "round), its other rounds follow a fixed rule, one of FAST's arbitrary processes")
               for a in res.participation if a.kind == "snapshot"}
    report = res.check(values, decided)
    hyps = {c.name: (None if c.holds is None else bool(c.holds)) for c in report.conditions}
    bound = float(report.evaluation.value)
    row.update(inputs=dict(values), bound=bound, ratio=value / bound if bound > 0 else None, hypotheses=hyps,
               hypotheses_hold=None if report.holds is None else bool(report.holds))


def _non_cover_reason(key: str, s: Setting, full: bool) -> str | None:
    """None when ``key`` may cover ``s``; otherwise why it does not."""
    base = key.split("@")[0]
    if base == "FAST.T2":
        if s.method == "scaffold":
            return "FAST.T2 is about FAST with FedAvg local steps, not SCAFFOLD"
        if fast_t2_values(s) is None:
            if s.schedule is not None or s.I is not None:
                return ("FAST.T2 bounds the expectation over random snapshot coins (probability q) and random "
                        "cohorts; a fixed deterministic schedule is one realisation, not that expectation")
            return "FAST.T2's snapshot rounds have a fixed size m; independent Bernoulli participation does not"
        if s.measure != "dist_sq" or s.mu <= 0 or s.eta_g != 1.0:
            return "FAST.T2 measures ||x_R - x*||^2 for mu > 0 with server step 1"
        return None
    if key == "F3AST.LB.2@operative":
        if s.method == "scaffold" or not full or s.sigma > 0 or s.K != 1 or s.R != 1 or s.measure != "dist_sq" or s.mu <= 0 \
                or s.eta_g != 1.0:
            return "Lemma B.2 is one full-participation FedAvg round; compared only for K = R = 1, mu > 0, dist_sq"
        return None
    if base.startswith("FAST.C"):
        return "order result (hidden constant): only its scaling is checkable, no tightness ratio"
    if base in ("FAST.T1", "FAST.R2"):
        return ("FAST.T1 bounds an average of ||grad F||^2 over rounds: its tightness comes from the non-convex "
                "worst case (worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure; "
                "FAST.R2 is a threshold on q")
    if base == "F3AST.T3.5" or base == "F3AST.LB.2":
        return ("needs bounded stochastic gradients E||g||^2 <= G^2 and (T3.5) decreasing step sizes; the PEP class "
                "bounds heterogeneity only at x*, so G is unbounded over it")
    if base.startswith("F3AST."):
        return "a sampling-variance identity/bound or burn-in threshold, not a trajectory worst case"
    if base in ("ASCAF.T1", "DFL.T1") or key in ("SCAF.T1@nonconvex", "SCAF.T3@nonconvex"):
        return ("a gradient-norm result for non-convex clients: compared by the non-convex worst case "
                "(worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure")
    if base.startswith("ASCAF."):
        return "non-convex order result on ||grad f||^2 (hidden constants; heterogeneity bounded everywhere)"
    if base.startswith("DFL."):
        return "order result on an ergodic gradient norm (non-convex)"
    return "no rule relates this result to deterministic local methods; not compared"
