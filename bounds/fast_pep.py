"""FAST's results against a worst-case (PEP) setting: which ones a setting covers and how its numbers read.

**Setting**: a worst-case setting (:mod:`bounds.pep_cover`'s protocols): method, constants, participation law or
fixed schedule, noise. Declared for ``bounds.fast`` (and its repaired statements, ``bounds.fast_repaired``).
**Statement**: the strongly convex PEP class bounds heterogeneity only at x* (||grad f_i(x*)|| <= zeta), so it
contains FAST's class (A3: ||grad f_i - grad F|| <= sigma_G everywhere, sigma_G = zeta): the PEP value bounds
Theorem 2's worst case from above. The non-convex PEP class imposes the dissimilarity only at evaluated points
and F >= F_inf through a necessary condition, so it contains Theorem 1's class (A1-A3, F(x_0) - F* = zeta): its
certified value bounds Theorem 1's worst case from above. FAST's inputs are read from the setting through
``bounds.conventions`` (its sigma_G is the common zeta_G, its kappa the initial squared distance D0).
**Notation**: FAST's (q, m, n) of a law (:func:`fast_participation`): full and uniform m of M are every-round
snapshots (q = 1); a snapshot law gives its own.
"""

from __future__ import annotations

from typing import Any

from bounds.pep_cover import ORDER, ConvexSetting, Cover, LawView, NonconvexSetting, PepRule

__all__ = ["fast_participation", "fast_t2_values", "pep_rule"]

# the snapshot-participation assumption, as every law fast_participation reads meets it
SNAPSHOT = {"snapshot": (True, "the law's snapshot rounds are uniform m of M with probability q (q = 1: every round), "
                               "its other rounds follow a fixed rule, one of FAST's arbitrary processes")}


def fast_participation(law: LawView | None, M: int) -> tuple[float, int | None, int | None] | None:
    """FAST's (q, m, n) for a PEP law: full and uniform m of M are every-round snapshots (q = 1); a snapshot law
    gives its own; any other law (Bernoulli, whose rounds have no fixed size) is not FAST's: None."""
    if law is None or law.kind == "full":
        return 1.0, M, M
    if law.kind == "uniform":
        return 1.0, law.m, law.m
    if law.kind == "snapshot":
        return float(law.q or 0.0), law.m, law.n
    return None


def fast_t2_values(s: ConvexSetting) -> dict[str, Any] | None:
    """Theorem 2's inputs for ``s`` (q, snapshot size m, arbitrary-round size n, sigma, sigma_G = zeta), or None
    when FAST's participation does not describe ``s``'s law."""
    from bounds.conventions import read_inputs

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
    common = {"L": s.L, "mu": s.mu, "tau": s.K, "q": q, "m": m, "n": n, "sigma": s.sigma, "zeta_G": s.zeta,
              "D0": s.D0}
    return {**read_inputs("FAST.T2", common, ("L", "mu", "K", "m", "n", "q")), "R": s.R, "eta_c": s.eta,
            **read_inputs("FAST.T2", common, ("sigma", "sigma_G", "kappa"))}


def _t2_not_covered(s: ConvexSetting) -> str | None:
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


def t2_at(s: ConvexSetting) -> Cover:
    """Theorem 2 (and its corrected and repaired forms) at a strongly convex worst case."""
    why = _t2_not_covered(s)
    if why:
        return Cover("no", why)
    law = s.law.text() if s.law is not None else "full participation"
    return Cover("yes", f"FAST's setting with participation {law} (snapshot rounds uniform m of M; FAST allows any "
                        "process in the other rounds, so the stated rule is one of them), noise variance sigma^2 = "
                        f"{s.sigma**2:g}; the PEP class (heterogeneity at x* only) contains FAST's class (A3 with "
                        "sigma_G = zeta), so the PEP value bounds FAST's worst case from above: ratio <= 1 proves the "
                        "bound for every instance of the setting; ratio > 1 does not show a violation",
                 fast_t2_values(s) or {}, SNAPSHOT)


def t1_at_nonconvex(s: NonconvexSetting) -> Cover:
    """Theorem 1 at a non-convex worst case: FedAvg local steps, server step 1, the average over rounds 1..R."""
    if s.method != "local_gd" or s.eta_g != 1.0:
        return Cover("no", "FAST.T1 is FedAvg local steps with server step 1")
    if s.measure != "avg_grad_sq":
        return Cover("no", "FAST.T1 measures (1/R) sum_{r=1..R} E||grad F(x_r)||^2 (measure avg_grad_sq)")
    qmn = fast_participation(s.law, s.M)
    if qmn is None:
        return Cover("no", "FAST.T1's snapshot rounds have a fixed size m; Bernoulli participation does not")
    q, m, n = qmn
    return Cover("yes", "FAST's class (A1-A3, F(x_0) - F* = zeta) inside the PEP's (dissimilarity at evaluated "
                        "points): the PEP value bounds FAST's worst case from above",
                 {"L": s.L, "K": s.K, "m": m, "n": n, "q": q, "R": s.R, "eta_c": s.eta, "sigma": s.sigma,
                  "sigma_G": s.zeta, "zeta": s.Delta}, SNAPSHOT)


T1_CONVEX = Cover("no", "FAST.T1 bounds an average of ||grad F||^2 over rounds: its tightness comes from the non-convex "
                        "worst case (worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure; "
                        "FAST.R2 is a threshold on q")


def pep_rule(key: str) -> PepRule | None:
    """FAST's results at a worst-case setting (:mod:`bounds.pep_cover`); every variant of an ID shares its rule
    at strongly convex settings, and Theorem 1 as printed is the one the non-convex worst case compares."""
    base = key.split("@")[0]
    if base == "FAST.T2":
        return PepRule(convex=t2_at)
    if base.startswith("FAST.C"):
        return PepRule(convex=Cover("no", ORDER))
    if base in ("FAST.T1", "FAST.R2"):
        return PepRule(convex=T1_CONVEX, nonconvex=t1_at_nonconvex if key == "FAST.T1" else None)
    return None
