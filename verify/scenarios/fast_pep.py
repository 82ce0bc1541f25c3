"""FAST's results against a worst-case (PEP) setting: which ones it covers and how its parameters read.

**Setting**: a :class:`verify.pep.setting.Setting` (method, constants, participation law or schedule, noise).
**Quantity**: :func:`pep_coverage` (declared by ``verify.scenarios.fast``; read by ``verify.pep.compare``)
and FAST's (q, m, n) of a PEP law (:func:`fast_participation`, read by FAST.T2's coverage here and FAST.T1's
in ``verify.pep.nonconvex_cover``).
**Statement**: the PEP class bounds heterogeneity only at x* (||grad f_i(x*)|| <= zeta), so it contains FAST's
class (A3: ||grad f_i - grad F|| <= sigma_G everywhere, sigma_G = zeta): the PEP value bounds FAST.T2's worst
case from above. FAST's inputs are read from the setting through ``bounds.conventions`` (its sigma_G is the
common zeta_G, its kappa the initial squared distance D0).
"""

from __future__ import annotations

from typing import Any

from verify.scenarios.pep_words import ORDER, Cover

__all__ = ["fast_participation", "fast_t2_values", "pep_coverage"]


def fast_participation(law: Any, M: int) -> tuple[float, int | None, int | None] | None:
    """FAST's (q, m, n) for a PEP law: full and uniform m of M are every-round snapshots (q = 1); a snapshot law
    gives its own; any other law (Bernoulli, whose rounds have no fixed size) is not FAST's: None."""
    if law is None or law.kind == "full":
        return 1.0, M, M
    if law.kind == "uniform":
        return 1.0, law.m, law.m
    if law.kind == "snapshot":
        return float(law.q or 0.0), law.m, law.n
    return None


def fast_t2_values(s: Any) -> dict[str, Any] | None:
    """FAST.T2's inputs for ``s`` (q, snapshot size m, arbitrary-round size n, sigma, sigma_G = zeta), or None
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


def _t2_relation(s: Any) -> str:
    law = s.law.text() if s.law is not None else "full participation"
    return (f"FAST's setting with participation {law} (snapshot rounds uniform m of M; FAST allows any process in "
            "the other rounds, so the stated rule is one of them), noise variance sigma^2 = "
            f"{s.sigma**2:g}; the PEP class (heterogeneity at x* only) contains FAST's class (A3 with sigma_G = "
            "zeta), so the PEP value bounds FAST's worst case from above: ratio <= 1 proves the bound for "
            "every instance of the setting; ratio > 1 does not show a violation")


def _t2_not_covered(s: Any) -> str | None:
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


def pep_coverage(key: str, s: Any) -> Cover | None:
    """FAST's results at a PEP setting ``s`` (``verify.scenarios.pep_words``); None for other papers' keys."""
    base = key.split("@")[0]
    if base == "FAST.T2":
        why = _t2_not_covered(s)
        return ("no", why, None) if why else ("yes", _t2_relation(s), fast_t2_values(s) or {})
    if base.startswith("FAST.C"):
        return "no", ORDER, None
    if base in ("FAST.T1", "FAST.R2"):
        return "no", ("FAST.T1 bounds an average of ||grad F||^2 over rounds: its tightness comes from the non-convex "
                      "worst case (worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure; "
                      "FAST.R2 is a threshold on q"), None
    return None
