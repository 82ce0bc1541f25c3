"""F3AST's results against a worst-case (PEP) setting (declared by ``verify.scenarios.f3ast``; read by
``verify.pep.compare``).

**Setting**: a :class:`verify.pep.setting.Setting`.
**Statement**: Lemma B.2 (operative variant) is one full-participation FedAvg round; with E = K = 1 and
sigma = 0 its V1 is 6 L Gamma, evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class:
a comparison, not a per-instance check. Theorem 3.5 and Lemma B.2 need bounded stochastic gradients, which
the PEP class (heterogeneity at x* only) does not bound; the other results are identities, bounds on the
sampling variance or thresholds, not trajectory worst cases.
"""

from __future__ import annotations

from typing import Any

from verify.scenarios.pep_words import Cover

__all__ = ["pep_coverage"]


def pep_coverage(key: str, s: Any) -> Cover | None:
    """F3AST's results at a PEP setting ``s`` (``verify.scenarios.pep_words``); None for other papers' keys."""
    base = key.split("@")[0]
    if key == "F3AST.LB.2@operative":
        if s.method == "scaffold" or not s.full_every_round() or s.sigma > 0 or s.K != 1 or s.R != 1 \
                or s.measure != "dist_sq" or s.mu <= 0 or s.eta_g != 1.0:
            return "no", ("Lemma B.2 is one full-participation FedAvg round; compared only for K = R = 1, mu > 0, "
                          "dist_sq"), None
        gamma = s.zeta**2 / (2 * s.mu)
        return "comparison", (
            "one full-participation round with E = K = 1 and sigma = 0 makes V1 = 6 L Gamma; the bound is "
            "evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class, so it bounds every "
            "instance's own RHS from above: a comparison, not a per-instance check"), \
            {"eta": s.eta, "mu": s.mu, "D": s.D0, "V1": 6 * s.L * gamma}
    if base in ("F3AST.T3.5", "F3AST.LB.2"):
        return "no", ("needs bounded stochastic gradients E||g||^2 <= G^2 and (T3.5) decreasing step sizes; the PEP "
                      "class bounds heterogeneity only at x*, so G is unbounded over it"), None
    if base.startswith("F3AST."):
        return "no", "a sampling-variance identity/bound or burn-in threshold, not a trajectory worst case", None
    return None
