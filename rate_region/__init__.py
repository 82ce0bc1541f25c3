"""rate_region: convex geometry of participation under intermittent availability (F3AST, seed 001).

Modules: ``availability`` (models, caps), ``models`` (the paper's models by name, ``named_model``),
``tomlfile`` (file format), ``polymatroid`` (rank g(U) = E[min(|A n U|, K)], exact argmin of H),
``cvx`` (CVXPY over explicit configurations), ``optimum`` (``min_variance_rates``), ``region``
(``membership``, ``support``, ``extreme_points``), ``policy`` (static policies), ``variance``
(H, Lemma B.5, bounds (6)/(7)), ``sampler`` (F3AST and naive samplers), ``plots``.
numpy/scipy only at import; CVXPY and matplotlib are imported where used.
"""
