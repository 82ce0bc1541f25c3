"""Participation hypotheses of the encoded results, checked on a log.

**Setting**: a validated ``ParticipationLog`` (rate_region.logs) and, for F3AST, an availability model.
**Quantity**: three checks, each True (met), False (not met) or None (unverified, with the reason):
``fast`` (FAST Algorithm 1: snapshot rounds, chosen w.p. q, in which S_r is a uniform m-subset of all
M clients; the log must flag snapshot rounds in its snapshot column); ``regularized`` (Amplified
SCAFFOLD ASCAF.PAT.REG: every client participates in every window {r0, ..., r0 + P - 1},
r0 in {0, P, ..., R - P}; the aggregation weights w = 1/N are not in the log and not checked);
``region`` (F3AST: the realised rate vector lies in the achievable region of the model,
rate_region.region.membership; r-hat outside but its lower confidence bounds inside: met within
sampling error, said so in the reason; even the lower bounds outside: not met).
Which results a check serves is read from the results themselves (``Result.participation``, one
``ParticipationAssumption`` per result; :func:`participation_checks`), so a new or plugged-in result
that declares snapshot, regularized or static-rate participation is audited without a list to edit.
Kinds with no check on a log yet (iid, cyclic, asynchronous) are listed by ``unchecked_kinds``.
"""

from __future__ import annotations

import numpy as np

from rate_region.fit import wilson

# participation kind declared by a result (bounds.result.PARTICIPATION_KINDS) -> the check of a log
KIND_CHECK = {"snapshot": "fast", "regularized": "regularized", "static-rate": "region"}


def participation_checks() -> dict[str, str]:
    """Result ID -> the audit check of its participation hypothesis, from every registered result.

    Loads the registry (a second or two of sympy): the price of one source of truth.
    """
    from bounds.registry import all_results

    out: dict[str, str] = {}
    for res in all_results():
        for assumption in res.participation:
            if assumption.kind in KIND_CHECK:
                out.setdefault(res.id, KIND_CHECK[assumption.kind])
    return out


def unchecked_kinds() -> dict[str, list[str]]:
    """Participation kind -> result IDs whose hypothesis no log check covers yet."""
    from bounds.registry import all_results

    out: dict[str, list[str]] = {}
    for res in all_results():
        for assumption in res.participation:
            if assumption.kind not in KIND_CHECK and res.id not in out.get(assumption.kind, []):
                out.setdefault(assumption.kind, []).append(res.id)
    return out
CHECK_TITLES = {
    "fast": "FAST: snapshot rounds of uniform m-of-M participation, with probability q",
    "regularized": "Amplified SCAFFOLD: regularized participation (every client in every window of P rounds)",
    "region": "F3AST: realised rates inside the achievable region of the availability model",
}


def bh_reject(pvalues: np.ndarray, alpha: float) -> np.ndarray:
    """Benjamini-Hochberg step-up at FDR level alpha (independent or PRDS p-values)."""
    p = np.asarray(pvalues, dtype=float)
    n = p.size
    if n == 0:
        return np.zeros(0, bool)
    order = np.argsort(p, kind="stable")
    ok = p[order] <= alpha * np.arange(1, n + 1) / n
    cut = int(np.flatnonzero(ok).max()) + 1 if ok.any() else 0
    out = np.zeros(n, bool)
    out[order[:cut]] = True
    return out


def effective_size(X: np.ndarray) -> np.ndarray:
    """T (1 - rho) / (1 + rho) per column, rho the lag-1 autocorrelation, clipped to [1, T].

    Clipping at T keeps negatively correlated (regular) samplers at the i.i.d. size: conservative.
    """
    X = np.asarray(X, dtype=float)
    T = X.shape[0]
    if T < 3:
        return np.full(X.shape[1], float(T))
    c = X - X.mean(0)
    var = (c**2).mean(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(var > 0, (c[1:] * c[:-1]).mean(0) / np.where(var > 0, var, 1), 0.0)
    rho = np.clip(rho, 0.0, 0.99)
    return np.clip(T * (1 - rho) / (1 + rho), 1.0, T)


def rate_test(count: np.ndarray, n_eff: np.ndarray, n: int, target: np.ndarray,
              sd: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided normal test of r_k = target_k from count_k of n rounds: (z, p).

    The standard deviation of r_k is ``sd`` when given, else sqrt(target (1 - target) / n_eff) (n_eff the
    effective size). A zero standard deviation makes any deviation certain (p = 0) and none p = 1.
    """
    from statistics import NormalDist

    r = np.asarray(count, dtype=float) / max(n, 1)
    tau = np.asarray(target, dtype=float)
    if sd is None:
        sd = np.sqrt(tau * (1 - tau) / np.maximum(n_eff, 1.0))
    sd = np.asarray(sd, dtype=float)
    safe = np.where(sd > 0, sd, 1.0)
    z = np.where(sd > 0, (r - tau) / safe, np.where(np.isclose(r, tau, rtol=0.0, atol=1e-12), 0.0, np.inf))
    cdf = np.vectorize(NormalDist().cdf, otypes=[float])  # over clients only (N values), not rows
    p = 2 * (1 - cdf(np.abs(np.nan_to_num(z, posinf=40.0))))
    return z, np.clip(p, 0.0, 1.0)


AVAILABLE_CONVENTION = ("k uniformly among the |A_t| clients available in round t: each is selected with probability "
                        "pi_t = min(1, k / |A_t|) (every available client when fewer than k are), pi_t = 0 when "
                        "nobody is; target 'available' takes k_t = the round's own participant count")


def available_rates(A: np.ndarray, S: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    """The everyday sampler's expected rates, from the log itself: (tau, sd, rounds_off_size).

    Under "k clients uniformly among those available in each round" (``AVAILABLE_CONVENTION``; k = None:
    k_t = |S_t|, the round's own count), client j is selected in round t with probability A_tj pi_t; rounds
    are independent given availability, so its count has mean sum_t A_tj pi_t and variance
    sum_t A_tj pi_t (1 - pi_t) (a Poisson-binomial law). tau = mean / T and sd = sqrt(variance) / T are the
    rate's; ``rounds_off_size`` counts the rounds whose participant count is not min(k, |A_t|) (Flower's
    FedAvg selects nobody when fewer than k clients are connected).
    """
    A = np.asarray(A, dtype=bool)
    S = np.asarray(S, dtype=bool)
    T = A.shape[0]
    size = A.sum(1)
    chosen = S.sum(1)
    kt = chosen if k is None else np.full(T, int(k))
    pi = np.where(size > 0, np.minimum(1.0, kt / np.maximum(size, 1)), 0.0)
    tau = (pi @ A) / T
    sd = np.sqrt(np.maximum((pi * (1.0 - pi)) @ A, 0.0)) / T
    off = int(np.count_nonzero(chosen != np.minimum(kt, size)))
    return tau, sd, off


def check_fast(S: np.ndarray, snapshot: np.ndarray | None, q: float | None, alpha: float, level: float,
               A: np.ndarray | None = None) -> dict:
    """FAST: realised snapshot share (Wilson CI) against q, and uniformity inside snapshot rounds."""
    if snapshot is None:
        return {"status": None, "reason": "the log has no snapshot column, so snapshot rounds cannot be told apart",
                "evidence": {}}
    T, N = S.shape
    ns = int(snapshot.sum())
    lo, hi = wilson(ns, T, level)
    ev: dict = {"snapshot_rounds": ns, "rounds": T, "q_hat": ns / T, "q_ci": [float(lo), float(hi)], "level": level,
                "q_claimed": q}
    if ns == 0:
        return {"status": False, "reason": "no snapshot round in the log", "evidence": ev}
    Ss = S[snapshot]
    sizes = np.unique(Ss.sum(1))
    ev["snapshot_sizes"] = sizes.tolist()
    # FAST draws S_r from all M clients: rounds where some client was not even available cannot be uniform over [M]
    ev["snapshot_rounds_all_available"] = float(A[snapshot].all(1).mean()) if A is not None else None
    m = int(sizes.max())
    if m == 0:
        return {"status": False, "reason": "snapshot rounds have no participant", "evidence": ev}
    counts = Ss.sum(0)
    _, pv = rate_test(counts, np.full(N, float(ns)), ns, np.full(N, m / N))
    flagged = np.flatnonzero(bh_reject(pv, alpha))
    ev.update({"m": m, "uniform_target": m / N, "flagged_clients": flagged.tolist(), "fdr_level": alpha})
    reasons = []
    if sizes.size > 1:
        reasons.append(f"snapshot rounds have sizes {sizes.tolist()[:5]}, not one m")
    if flagged.size:
        reasons.append(f"{flagged.size} client(s) deviate from the uniform rate m/M = {m / N:.4g} in snapshot rounds "
                       f"(BH at FDR {alpha})")
    if q is not None and not (lo <= q <= hi):
        reasons.append(f"realised q = {ns / T:.4g} [{float(lo):.4g}, {float(hi):.4g}] excludes the claimed q = {q:g}")
    if reasons:
        return {"status": False, "reason": "; ".join(reasons), "evidence": ev}
    tail = "" if q is not None else " (no q claimed: the realised q is the one the bound may use)"
    return {"status": True, "reason": f"snapshot rounds uniform (m = {m}), realised q = {ns / T:.4g} "
            f"[{float(lo):.4g}, {float(hi):.4g}] at {level:.0%}{tail}", "evidence": ev}


def _windows_ok(C: np.ndarray, P: int) -> tuple[bool, int, int]:
    """Every client in every full window of P rounds? C = cumulative participation [T+1, N]."""
    starts = np.arange(0, C.shape[0] - 1 - P + 1, P)
    if starts.size == 0:
        return False, -1, -1
    bad = (C[starts + P] - C[starts]) == 0
    if bad.any():
        w, k = divmod(int(np.argmax(bad)), bad.shape[1])
        return False, int(starts[w]), int(k)
    return True, -1, -1


def check_regularized(S: np.ndarray, P: int | None, max_search: int = 4096) -> dict:
    """Amplified SCAFFOLD's regularized participation: windows of P rounds, and the largest gap per client."""
    T, N = S.shape
    C = np.vstack([np.zeros((1, N), np.int64), np.cumsum(S, 0)])
    # largest gap between appearances, counting from round -1 and to round T (so a silent start or end shows)
    t = np.arange(T)
    last = np.maximum.accumulate(np.where(S, t[:, None], -1), axis=0)  # last appearance up to t
    gap_in = np.where(S, t[:, None] - np.vstack([np.full((1, N), -1), last[:-1]]), 0).max(0)
    gap = np.maximum(gap_in, T - last[-1])
    ev: dict = {"max_gap": int(gap.max()), "worst_client": int(gap.argmax()), "gap_per_client_max": gap.tolist()}
    smallest = None
    # an empty stretch of g - 1 rounds between appearances (or before the first) holds a whole aligned window
    # of any length P <= g / 2, so the search starts above that
    start = int(gap_in.max()) // 2 + 1
    for p in range(start, min(T, max_search) + 1):  # a loop over window lengths, each vectorised over windows x clients
        if _windows_ok(C, p)[0]:
            smallest = p
            break
    ev["smallest_P"] = smallest
    if P is None:
        hint = f"the log is regularized for P = {smallest}" if smallest else "no window length up to the log works"
        return {"status": None, "reason": f"no period P given (--period); {hint}; largest gap {int(gap.max())}",
                "evidence": ev}
    if int(P) > T:  # before any array sized by P (a period of 10^22 would overflow numpy's integers)
        ev["P"] = int(P)
        return {"status": None, "reason": f"the log ({T} rounds) is shorter than one window of P = {P}", "evidence": ev}
    ok, r0, k = _windows_ok(C, int(P))
    ev["P"] = int(P)
    if ok:
        return {"status": True, "reason": f"every client appears in each of the {T // int(P)} windows of {P} rounds "
                f"(largest gap {int(gap.max())})", "evidence": ev}
    if r0 < 0:
        return {"status": None, "reason": f"the log ({T} rounds) is shorter than one window of P = {P}", "evidence": ev}
    return {"status": False, "reason": f"client {k} is absent from window [{r0}, {r0 + int(P) - 1}] "
            f"(largest gap {int(gap.max())} > P = {P} for some client)" if gap.max() > int(P) else
            f"client {k} is absent from window [{r0}, {r0 + int(P) - 1}]", "evidence": ev}


def check_region(model, k: int, r_hat: np.ndarray, r_low: np.ndarray) -> dict:
    """F3AST: realised rates inside the achievable region of ``model`` (rate_region's membership test)."""
    from bounds.core.errors import UserInputError
    from rate_region.region import membership

    try:
        m = membership(model, k, r_hat, certificate=False)
    except UserInputError as exc:
        return {"status": None, "reason": f"membership undecided: {exc}", "evidence": {}}
    ev = {"achievable": m.achievable, "violation": m.violation, "method": m.method, "message": m.message}
    if m.achievable:
        return {"status": True, "reason": "realised r is achievable under the fitted model: " + m.message, "evidence": ev}
    low = membership(model, k, r_low, certificate=False)
    ev["lower_bound_achievable"] = low.achievable
    if low.achievable:
        # a sampler that fills the cap every round sits on the region's face sum r = E min(|A|, k); the fitted
        # model's face is itself estimated, so r-hat may overshoot it by sampling error alone
        return {"status": True, "reason": f"on the boundary within sampling error: r-hat exceeds the fitted region "
                f"by {m.violation:.3g} but its lower confidence bounds are achievable", "evidence": ev}
    return {"status": False, "reason": "even the lower confidence bounds of r are not achievable: " + low.message,
            "evidence": ev}


# The audit's word for one participation check's status; never stored in a field called verdict.
AUDIT_STATUS = {True: "met", False: "not met", None: "unverified"}


def audit_status(status: bool | None) -> str:
    """The audit's word for one participation check's status (never stored as a verdict)."""
    return AUDIT_STATUS[status]
