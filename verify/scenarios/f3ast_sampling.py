"""F3AST's selection instances: an availability model's static policy with fixed client updates, and the
client-sampling variance bound from Lemma B.5's identity (split from ``verify.scenarios.f3ast``)."""

from __future__ import annotations

import numpy as np

# Updates v_k of size eta (one unit-gradient step scale) and the local steps E of the sampling lemmas.
LOCAL_E, UPDATE_ETA = 5, 0.1


def selection_instance(name: str, clients: int | None, k: int, d: int, seed: int, antialigned: bool = False):
    """An availability model's static policy and fixed client updates.

    The policy selects in each configuration the available clients of largest utility p_k^2 / r*_k^2 at
    the optimal rate r* (the greedy rule frozen at r*); updates v_k ~ N(0, I_d) eta (or +-u eta,
    alternating, when ``antialigned``), drawn from the ``instance`` stream of ``seed``.
    Returns (model, p, r (the policy's exact rate), r*, subsets [S, N] float, probs [S], V [N, d]).
    """
    from bounds.core.seeds import key, rng
    from rate_region.cvx import configurations
    from rate_region.models import named_model
    from rate_region.optimum import min_variance_rates, resolve_weights
    from rate_region.policy import priority_policy

    model = named_model(name, clients=clients, seed=seed)
    p = resolve_weights(model, None)
    opt = min_variance_rates(model, k, p, "p2")
    cfg = configurations(model, k)
    policy = priority_policy(cfg.sets, cfg.caps, cfg.probs, p**2 / np.maximum(opt.r_star, 1e-300) ** 2)
    subsets, probs = policy.selection_law()
    r = policy.rate()
    N = model.n_clients
    draws = rng(seed, "instance", key("f3ast updates"))
    if antialigned:
        u = draws.standard_normal(d)
        V = np.stack([u if i % 2 == 0 else -u for i in range(N)]) / np.linalg.norm(u)
    else:
        V = draws.standard_normal((N, d))
    return model, p, r, opt.r_star, subsets.astype(float), probs, V * UPDATE_ETA


def sampling_variance_lb5(subsets, probs, p, steps: np.ndarray, G2: float) -> tuple[float, float]:
    """Var2 = sigma_t^2(f^r) bounded via the exact identity of Lemma B.5 and A4.

    E||Delta - vbar||^2 = Tr(Y Y^T Sigma) = sum_kl Sigma_kl (p_k/r_k)(p_l/r_l) <v_k, v_l>
    <= lambda_max(D Sigma D) sum_k E||v_k||^2, D = diag(p/r), and E||v_k||^2 <= (sum_i eta_(t,i))^2 G^2
    (Cauchy-Schwarz over the E local steps); divided by eta_(t,E)^2 (spec LB.5), worst round t = 1.
    Returns (Var2 bound, lambda_max(D Sigma D)).
    """
    from rate_region.variance import selection_moments

    r, Sigma = selection_moments(subsets, probs)
    D = np.diag(p / r)
    lam = float(np.linalg.eigvalsh(D @ Sigma @ D).max())
    return len(p) * lam * (steps.sum() / steps[-1]) ** 2 * G2, lam
