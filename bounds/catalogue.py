"""What `convbound list` shows of each built-in result, by paper module (generated; do not edit).

Regenerate after changing a paper module: ``python -m bounds.registry > bounds/catalogue.py``
(tests/bounds/test_registry_index.py fails while it is out of date).
"""

from __future__ import annotations

from typing import Any

# per module: (key, id, variant, title, kind, paper, reconstructed, builder) of each result, in order;
# builder: index in the module's builders() of the function that makes it (0 without builders())
CATALOGUE: dict[str, tuple[tuple[Any, ...], ...]] = {
    'bounds.fast': (
        ('FAST.T1', 'FAST.T1', 'published', 'Non-convex convergence of FAST', 'upper', 'FAST', False, 0),
        ('FAST.C1', 'FAST.C1', 'published', 'Non-convex rate of FAST with the Theta step size', 'order', 'FAST', False, 1),
        ('FAST.C2@corrected', 'FAST.C2', 'corrected', 'Non-convex rate of FAST for m = n (E and the O(mK/R) term restored)', 'order', 'FAST', True, 2),
        ('FAST.C2@printed', 'FAST.C2', 'printed', 'Non-convex rate of FAST for m = n (as printed)', 'order', 'FAST', False, 3),
        ('FAST.R2', 'FAST.R2', 'published', 'Snapshot-probability threshold q_min (Remark 2)', 'threshold', 'FAST', False, 4),
        ('FAST.T2', 'FAST.T2', 'published', 'Strongly convex convergence of FAST', 'upper', 'FAST', False, 5),
        ('FAST.T2@corrected', 'FAST.T2', 'corrected', 'Strongly convex convergence of FAST (sigma_G^2 restored in the (1-q) term)', 'upper', 'FAST', True, 6),
        ('FAST.C3', 'FAST.C3', 'published', 'Strongly convex rate of FAST for m = n', 'order', 'FAST', False, 7),
        ('FAST.C3@corrected', 'FAST.C3', 'corrected', 'Strongly convex rate of FAST for m = n (round condition R >= 20mL/mu)', 'order', 'FAST', True, 8),
    ),
    'bounds.f3ast': (
        ('F3AST.E3@p2', 'F3AST.E3', 'p2', 'Sampling objective H(r) sum p_k^2/r_k (uncorrelated / negatively correlated availability)', 'equality', 'F3AST', False, 0),
        ('F3AST.E3@p', 'F3AST.E3', 'p', 'Sampling objective H(r) sum p_k/r_k (positively correlated availability)', 'equality', 'F3AST', False, 1),
        ('F3AST.L3.4@eq6', 'F3AST.L3.4', 'eq6', 'Client-sampling variance bound (6)', 'upper', 'F3AST', True, 2),
        ('F3AST.L3.4@eq7', 'F3AST.L3.4', 'eq7', 'Client-sampling variance bound (7)', 'upper', 'F3AST', True, 3),
        ('F3AST.L3.4@eq6-printed', 'F3AST.L3.4', 'eq6-printed', 'Client-sampling variance bound (6) with the printed 1/eta normalisation', 'upper', 'F3AST', False, 4),
        ('F3AST.L3.4@eq7-printed', 'F3AST.L3.4', 'eq7-printed', 'Client-sampling variance bound (7) with the printed 1/eta normalisation', 'upper', 'F3AST', False, 5),
        ('F3AST.T3.5', 'F3AST.T3.5', 'published', 'Strongly convex convergence of F3AST (eq. 8)', 'order', 'F3AST', False, 6),
        ('F3AST.T3.5@explicit', 'F3AST.T3.5', 'explicit', 'F3AST explicit bound from the proof of Theorem III.5 (with L/2, 6 L Gamma)', 'upper', 'F3AST', True, 7),
        ('F3AST.T3.5@explicit-eq19', 'F3AST.T3.5', 'explicit-eq19', 'F3AST explicit bound from the proof of Theorem III.5 as printed in eq. (19) (L/2 dropped)', 'upper', 'F3AST', False, 8),
        ('F3AST.LB.2@operative', 'F3AST.LB.2', 'operative', 'One-round recursion (contraction 1 - eta mu)', 'upper', 'F3AST', True, 9),
        ('F3AST.LB.2@printed', 'F3AST.LB.2', 'printed', 'One-round recursion (printed (1 - eta^2 mu))', 'upper', 'F3AST', False, 10),
        ('F3AST.LB.3', 'F3AST.LB.3', 'published', 'Inner products of local updates', 'upper', 'F3AST', False, 11),
        ('F3AST.LB.5', 'F3AST.LB.5', 'published', 'Exact client-sampling variance Tr(Y Y^T Sigma) / eta^2', 'equality', 'F3AST', False, 12),
        ('F3AST.T3.7@corrected', 'F3AST.T3.7', 'corrected', 'Markov-chain burn-in t0', 'threshold', 'F3AST', True, 13),
        ('F3AST.T3.7@printed', 'F3AST.T3.7', 'printed', 'Markov-chain burn-in t0 as printed (log eps / log alpha)', 'threshold', 'F3AST', False, 14),
        ('F3AST.LB.1', 'F3AST.LB.1', 'published', "Unbiased aggregate: E_S[Delta] = vbar with weights p_k / r_k at the policy's true rates", 'equality', 'F3AST', False, 15),
    ),
    'bounds.ascaf': (
        ('ASCAF.T1', 'ASCAF.T1', 'published', 'Non-convex convergence of Amplified SCAFFOLD', 'order', 'Amplified SCAFFOLD', True, 0),
        ('ASCAF.T1@caps', 'ASCAF.T1', 'caps', 'Non-convex convergence of Amplified SCAFFOLD (step-size cap constants c1, c2 as inputs)', 'order', 'Amplified SCAFFOLD', True, 1),
        ('ASCAF.C1', 'ASCAF.C1', 'published', 'Communication rounds of Amplified SCAFFOLD for an eps-stationary point', 'order', 'Amplified SCAFFOLD', True, 2),
        ('ASCAF.RC', 'ASCAF.RC', 'published', 'Reduced communication: R = O(L Delta P / (p_min eps^2)) at I = I*', 'order', 'Amplified SCAFFOLD', True, 3),
        ('ASCAF.LS', 'ASCAF.LS', 'published', 'Linear speedup: RI = O(L Delta rho^2 sigma^2 / eps^4)', 'order', 'Amplified SCAFFOLD', True, 4),
        ('ASCAF.P.IID', 'ASCAF.P.IID', 'published', 'Amplified SCAFFOLD under i.i.d. participation', 'order', 'Amplified SCAFFOLD', True, 5),
        ('ASCAF.P.REG', 'ASCAF.P.REG', 'published', 'Amplified SCAFFOLD under regularized participation', 'order', 'Amplified SCAFFOLD', True, 6),
        ('ASCAF.P.CYC', 'ASCAF.P.CYC', 'published', 'Amplified SCAFFOLD under cyclic participation (printed p_min = S/N)', 'order', 'Amplified SCAFFOLD', True, 7),
        ('ASCAF.P.CYC@pmin-exact', 'ASCAF.P.CYC', 'pmin-exact', 'Amplified SCAFFOLD under cyclic participation (exact p_min = S Kbar/N)', 'order', 'Amplified SCAFFOLD', True, 8),
        ('ASCAF.TAB1.IID.FEDAVG', 'ASCAF.TAB1.IID.FEDAVG', 'published', 'Table 1: FedAvg under i.i.d. participation (S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.IID.SCAFFOLD', 'ASCAF.TAB1.IID.SCAFFOLD', 'published', 'Table 1: SCAFFOLD under i.i.d. participation (S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.IID.AFEDAVG', 'ASCAF.TAB1.IID.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under i.i.d. participation (S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.IID.ASCAF', 'ASCAF.TAB1.IID.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under i.i.d. participation (S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.REG.AFEDAVG', 'ASCAF.TAB1.REG.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under regularized participation (P, rho) (reduced communication: yes; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.REG.ASCAF', 'ASCAF.TAB1.REG.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under regularized participation (P, rho) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.CYC.AFEDAVG', 'ASCAF.TAB1.CYC.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under cyclic participation (Kbar, S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, 9),
        ('ASCAF.TAB1.CYC.ASCAF', 'ASCAF.TAB1.CYC.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under cyclic participation (Kbar, S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, 9),
    ),
    'bounds.dfl': (
        ('DFL.T1', 'DFL.T1', 'published', 'Ergodic convergence of Democratic FL', 'order', 'Democratic FL', False, 0),
    ),
}
