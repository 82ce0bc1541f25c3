"""What `convbound list` shows of each built-in result, by paper module (generated; do not edit).

Regenerate after changing a paper module: ``python -m bounds.registry > bounds/catalogue.py``
(tests/bounds/test_registry_index.py fails while it is out of date).
"""

from __future__ import annotations

from typing import Any

# per module: (key, id, variant, title, kind, paper, reconstructed, source, status, flags, builder) of each
# result, in order; flags: how many flags it carries;
# builder: index in the module's builders() of the function that makes it (0 without builders())
CATALOGUE: dict[str, tuple[tuple[Any, ...], ...]] = {
    'bounds.fast': (
        ('FAST.T1', 'FAST.T1', 'published', 'Non-convex convergence of FAST', 'upper', 'FAST', False, '000_cd604f43d63aca60.txt, Theorem 1', 'PUBLISHED FLAG UNRECOVERED', 2, 0),
        ('FAST.C1', 'FAST.C1', 'published', 'Non-convex rate of FAST with the Theta step size', 'order', 'FAST', False, '000_cd604f43d63aca60.txt, Corollary 1', 'PUBLISHED INFERRED UNRECOVERED', 2, 1),
        ('FAST.C2@corrected', 'FAST.C2', 'corrected', 'Non-convex rate of FAST for m = n (E and the O(mK/R) term restored)', 'order', 'FAST', True, '000_cd604f43d63aca60.txt, Corollary 2', 'PUBLISHED FLAG INFERRED', 2, 2),
        ('FAST.C2@printed', 'FAST.C2', 'printed', 'Non-convex rate of FAST for m = n (as printed)', 'order', 'FAST', False, '000_cd604f43d63aca60.txt, Corollary 2', 'PUBLISHED FLAG INFERRED', 2, 3),
        ('FAST.R2', 'FAST.R2', 'published', 'Snapshot-probability threshold q_min (Remark 2)', 'threshold', 'FAST', False, '000_cd604f43d63aca60.txt, Remark 2', 'PUBLISHED UNRECOVERED', 1, 4),
        ('FAST.T2', 'FAST.T2', 'published', 'Strongly convex convergence of FAST', 'upper', 'FAST', False, '000_cd604f43d63aca60.txt, Theorem 2', 'PUBLISHED FLAG', 2, 5),
        ('FAST.T2@corrected', 'FAST.T2', 'corrected', 'Strongly convex convergence of FAST (sigma_G^2 restored in the (1-q) term)', 'upper', 'FAST', True, '000_cd604f43d63aca60.txt, Theorem 2', 'INFERRED FLAG', 2, 6),
        ('FAST.C3', 'FAST.C3', 'published', 'Strongly convex rate of FAST for m = n', 'order', 'FAST', False, '000_cd604f43d63aca60.txt, Corollary 3', 'PUBLISHED FLAG', 3, 7),
        ('FAST.C3@corrected', 'FAST.C3', 'corrected', 'Strongly convex rate of FAST for m = n (round condition R >= 20mL/mu)', 'order', 'FAST', True, '000_cd604f43d63aca60.txt, Corollary 3', 'INFERRED FLAG', 3, 8),
    ),
    'bounds.fast_repaired': (
        ('FAST.T1@repaired', 'FAST.T1', 'repaired', 'Non-convex convergence of FAST (repaired: first-order sampling term added)', 'upper', 'FAST', True, '000_cd604f43d63aca60.txt, Theorem 1, repaired (sampling term derived)', 'INFERRED UNRECOVERED', 2, 0),
        ('FAST.T2@repaired', 'FAST.T2', 'repaired', 'Strongly convex convergence of FAST (repaired: arbitrary-round bias added)', 'upper', 'FAST', True, '000_cd604f43d63aca60.txt, Theorem 2, repaired (bias term derived)', 'INFERRED', 1, 1),
    ),
    'bounds.f3ast': (
        ('F3AST.E3@p2', 'F3AST.E3', 'p2', 'Sampling objective H(r) sum p_k^2/r_k (uncorrelated / negatively correlated availability)', 'equality', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Section III, eq. (3)', 'PUBLISHED', 1, 0),
        ('F3AST.E3@p', 'F3AST.E3', 'p', 'Sampling objective H(r) sum p_k/r_k (positively correlated availability)', 'equality', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Section III, eq. (3)', 'PUBLISHED', 1, 1),
        ('F3AST.L3.4@eq6', 'F3AST.L3.4', 'eq6', 'Client-sampling variance bound (6)', 'upper', 'F3AST', True, '001_5713ca58b34c1d5c.txt, Lemma III.4', 'INFERRED FLAG', 2, 2),
        ('F3AST.L3.4@eq7', 'F3AST.L3.4', 'eq7', 'Client-sampling variance bound (7)', 'upper', 'F3AST', True, '001_5713ca58b34c1d5c.txt, Lemma III.4', 'INFERRED FLAG', 2, 3),
        ('F3AST.L3.4@eq6-printed', 'F3AST.L3.4', 'eq6-printed', 'Client-sampling variance bound (6) with the printed 1/eta normalisation', 'upper', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma III.4', 'PUBLISHED FLAG', 2, 4),
        ('F3AST.L3.4@eq7-printed', 'F3AST.L3.4', 'eq7-printed', 'Client-sampling variance bound (7) with the printed 1/eta normalisation', 'upper', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma III.4', 'PUBLISHED FLAG', 2, 5),
        ('F3AST.T3.5', 'F3AST.T3.5', 'published', 'Strongly convex convergence of F3AST (eq. 8)', 'order', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Theorem III.5', 'PUBLISHED FLAG', 3, 6),
        ('F3AST.T3.5@explicit', 'F3AST.T3.5', 'explicit', 'F3AST explicit bound from the proof of Theorem III.5 (with L/2, 6 L Gamma)', 'upper', 'F3AST', True, '001_5713ca58b34c1d5c.txt, Theorem III.5', 'INFERRED FLAG', 3, 7),
        ('F3AST.T3.5@explicit-eq19', 'F3AST.T3.5', 'explicit-eq19', 'F3AST explicit bound from the proof of Theorem III.5 as printed in eq. (19) (L/2 dropped)', 'upper', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Theorem III.5', 'PUBLISHED FLAG', 4, 8),
        ('F3AST.LB.2@operative', 'F3AST.LB.2', 'operative', 'One-round recursion (contraction 1 - eta mu)', 'upper', 'F3AST', True, '001_5713ca58b34c1d5c.txt, Lemma B.2', 'INFERRED FLAG', 1, 9),
        ('F3AST.LB.2@printed', 'F3AST.LB.2', 'printed', 'One-round recursion (printed (1 - eta^2 mu))', 'upper', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma B.2', 'PUBLISHED FLAG', 1, 10),
        ('F3AST.LB.3', 'F3AST.LB.3', 'published', 'Inner products of local updates', 'upper', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma B.3', 'PUBLISHED', 0, 11),
        ('F3AST.LB.5', 'F3AST.LB.5', 'published', 'Exact client-sampling variance Tr(Y Y^T Sigma) / eta^2', 'equality', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma B.5', 'PUBLISHED', 0, 12),
        ('F3AST.T3.7@corrected', 'F3AST.T3.7', 'corrected', 'Markov-chain burn-in t0', 'threshold', 'F3AST', True, '001_5713ca58b34c1d5c.txt, Theorem III.7', 'INFERRED FLAG', 1, 13),
        ('F3AST.T3.7@printed', 'F3AST.T3.7', 'printed', 'Markov-chain burn-in t0 as printed (log eps / log alpha)', 'threshold', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Theorem III.7', 'PUBLISHED FLAG', 1, 14),
        ('F3AST.LB.1', 'F3AST.LB.1', 'published', "Unbiased aggregate: E_S[Delta] = vbar with weights p_k / r_k at the policy's true rates", 'equality', 'F3AST', False, '001_5713ca58b34c1d5c.txt, Lemma B.1', 'PUBLISHED', 0, 15),
    ),
    'bounds.ascaf': (
        ('ASCAF.T1', 'ASCAF.T1', 'published', 'Non-convex convergence of Amplified SCAFFOLD', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Theorem 1', 'DECODED-H DECODED-M DECODED-L FLAG UNRECOVERED', 3, 0),
        ('ASCAF.T1@caps', 'ASCAF.T1', 'caps', 'Non-convex convergence of Amplified SCAFFOLD (step-size cap constants c1, c2 as inputs)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Theorem 1', 'DECODED-H DECODED-M DECODED-L FLAG UNRECOVERED', 3, 1),
        ('ASCAF.C1', 'ASCAF.C1', 'published', 'Communication rounds of Amplified SCAFFOLD for an eps-stationary point', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Corollary 1', 'DECODED-M FLAG', 1, 2),
        ('ASCAF.RC', 'ASCAF.RC', 'published', 'Reduced communication: R = O(L Delta P / (p_min eps^2)) at I = I*', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.2, Reduced Communication', 'DECODED-H', 1, 3),
        ('ASCAF.LS', 'ASCAF.LS', 'published', 'Linear speedup: RI = O(L Delta rho^2 sigma^2 / eps^4)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.2, Linear Speedup', 'DECODED-H', 1, 4),
        ('ASCAF.P.IID', 'ASCAF.P.IID', 'published', 'Amplified SCAFFOLD under i.i.d. participation', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.3 / Table 1', 'DECODED-M', 1, 5),
        ('ASCAF.P.REG', 'ASCAF.P.REG', 'published', 'Amplified SCAFFOLD under regularized participation', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.3 / Table 1', 'DECODED-H', 1, 6),
        ('ASCAF.P.CYC', 'ASCAF.P.CYC', 'published', 'Amplified SCAFFOLD under cyclic participation (printed p_min = S/N)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.3 / Table 1', 'DECODED-M FLAG', 1, 7),
        ('ASCAF.P.CYC@pmin-exact', 'ASCAF.P.CYC', 'pmin-exact', 'Amplified SCAFFOLD under cyclic participation (exact p_min = S Kbar/N)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Section 4.3 / Table 1', 'DECODED-M FLAG', 1, 8),
        ('ASCAF.TAB1.IID.FEDAVG', 'ASCAF.TAB1.IID.FEDAVG', 'published', 'Table 1: FedAvg under i.i.d. participation (S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'INFERRED UNRECOVERED', 1, 9),
        ('ASCAF.TAB1.IID.SCAFFOLD', 'ASCAF.TAB1.IID.SCAFFOLD', 'published', 'Table 1: SCAFFOLD under i.i.d. participation (S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-L FLAG', 1, 9),
        ('ASCAF.TAB1.IID.AFEDAVG', 'ASCAF.TAB1.IID.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under i.i.d. participation (S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'INFERRED UNRECOVERED', 1, 9),
        ('ASCAF.TAB1.IID.ASCAF', 'ASCAF.TAB1.IID.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under i.i.d. participation (S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-M', 1, 9),
        ('ASCAF.TAB1.REG.AFEDAVG', 'ASCAF.TAB1.REG.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under regularized participation (P, rho) (reduced communication: yes; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-H UNRECOVERED FLAG', 1, 9),
        ('ASCAF.TAB1.REG.ASCAF', 'ASCAF.TAB1.REG.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under regularized participation (P, rho) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-H', 1, 9),
        ('ASCAF.TAB1.CYC.AFEDAVG', 'ASCAF.TAB1.CYC.AFEDAVG', 'published', 'Table 1: Amplified FedAvg under cyclic participation (Kbar, S) (reduced communication: no; unaffected by heterogeneity: no)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-H UNRECOVERED', 1, 9),
        ('ASCAF.TAB1.CYC.ASCAF', 'ASCAF.TAB1.CYC.ASCAF', 'published', 'Table 1: Amplified SCAFFOLD under cyclic participation (Kbar, S) (reduced communication: yes; unaffected by heterogeneity: yes)', 'order', 'Amplified SCAFFOLD', True, '004_6701e408bce7fa6d.txt, Table 1', 'DECODED-M FLAG', 1, 9),
    ),
    'bounds.dfl': (
        ('DFL.T1', 'DFL.T1', 'published', 'Ergodic convergence of Democratic FL', 'order', 'Democratic FL', False, '002_64b3fc4e83f014cc.txt, Theorem 1', 'PUBLISHED FLAG INFERRED', 4, 0),
    ),
    'bounds.scaffold': (
        ('SCAF.T1@sc', 'SCAF.T1', 'sc', 'FedAvg with client sampling (strongly convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem I (FedAvg)', 'PUBLISHED INFERRED UNRECOVERED', 1, 0),
        ('SCAF.T1@convex', 'SCAF.T1', 'convex', 'FedAvg with client sampling (general convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem I (FedAvg)', 'PUBLISHED FLAG INFERRED UNRECOVERED', 3, 1),
        ('SCAF.T1@nonconvex', 'SCAF.T1', 'nonconvex', 'FedAvg with client sampling (non-convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem I (FedAvg)', 'PUBLISHED FLAG INFERRED UNRECOVERED', 3, 2),
        ('SCAF.T2', 'SCAF.T2', 'published', 'Lower bound for FedAvg: f(x^R) - f* >= Omega(G^2/(mu R^2))', 'lower', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem II (lower bound)', 'PUBLISHED UNRECOVERED', 1, 3),
        ('SCAF.T3@sc', 'SCAF.T3', 'sc', 'SCAFFOLD with client sampling (strongly convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem III (SCAFFOLD)', 'PUBLISHED INFERRED UNRECOVERED', 1, 4),
        ('SCAF.T3@convex', 'SCAF.T3', 'convex', 'SCAFFOLD with client sampling (general convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem III (SCAFFOLD)', 'PUBLISHED FLAG INFERRED UNRECOVERED', 3, 5),
        ('SCAF.T3@nonconvex', 'SCAF.T3', 'nonconvex', 'SCAFFOLD with client sampling (non-convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem III (SCAFFOLD)', 'PUBLISHED INFERRED UNRECOVERED', 1, 6),
        ('SCAF.T4@sc', 'SCAF.T4', 'sc', 'SCAFFOLD on quadratics with Hessian dissimilarity (strongly convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem IV (quadratics)', 'PUBLISHED FLAG INFERRED UNRECOVERED', 2, 7),
        ('SCAF.T4@weakly-convex', 'SCAF.T4', 'weakly-convex', 'SCAFFOLD on quadratics with Hessian dissimilarity (weakly convex)', 'order', 'SCAFFOLD', False, 'SCAFFOLD, ICML 2020 (main text; not a seed), Theorem IV (quadratics)', 'PUBLISHED INFERRED UNRECOVERED', 1, 8),
    ),
    'bounds.survey': (
        ('SURV.FEDAVG', 'SURV.FEDAVG', 'published', 'FedAvg [6]: rate stated by the survey', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (FedAvg row)', 'PUBLISHED UNRECOVERED', 1, 0),
        ('SURV.CYCP', 'SURV.CYCP', 'published', 'CyCP [14]: rate stated by the survey', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (CyCP row); section on cyclic participation', 'PUBLISHED UNRECOVERED', 1, 1),
        ('SURV.GENFEDAVG@text', 'SURV.GENFEDAVG', 'text', 'Generalized FedAvg (two-sided learning rates) [4]: rate stated by the survey (text)', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, text, Generalized FedAvg section', 'PUBLISHED UNRECOVERED FLAG', 3, 2),
        ('SURV.GENFEDAVG@table', 'SURV.GENFEDAVG', 'table', 'Generalized FedAvg (two-sided learning rates) [4]: rate stated by the survey (table)', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (Generalized FedAvg row)', 'PUBLISHED UNRECOVERED FLAG', 3, 3),
        ('SURV.FEDEF', 'SURV.FEDEF', 'published', 'Fed-EF [15]: rate stated by the survey', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (Fed-EF row)', 'PUBLISHED UNRECOVERED FLAG', 2, 4),
        ('SURV.GRADMA', 'SURV.GRADMA', 'published', 'GradMA [16]: rate stated by the survey', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (GradMA row)', 'PUBLISHED UNRECOVERED', 1, 5),
        ('SURV.FEDAMD', 'SURV.FEDAMD', 'published', 'FedAMD [9]: rate stated by the survey', 'order', 'Survey (partial participation)', False, '003_703fb3fbc0a289c6.txt, Table I (FedAMD row)', 'PUBLISHED UNRECOVERED FLAG', 2, 6),
    ),
}
