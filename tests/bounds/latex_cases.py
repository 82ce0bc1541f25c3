"""Cases for the LaTeX import, shared by tests/bounds/test_latex_import.py and tests/benchmarks/bench_latex_parsers.py.

STATEMENTS: 20 statements copied from ../shared/spec/*.md and ../shared/seeds/*.txt (source given per
case), each with its expected reading written by hand as sympy (never produced by a parser), or None
where the import must refuse, with the token it must name. NEAR_MISSES: hand-written near-misses with
their expected readings; tests/bounds/test_latex_import.py adds generated ones (mutation rules).
"""

from __future__ import annotations

import sympy as sp

from bounds.latex_parse import symbol_key
from bounds.symbols import Domain, sym

# --- the declared symbol table: LaTeX -> (name, domain)
DECLARED = {
    r"\eta_c": ("eta_c", Domain.POSITIVE), "L": ("L", Domain.POSITIVE), "K": ("K", Domain.POSITIVE_INTEGER),
    "R": ("R", Domain.POSITIVE_INTEGER), "m": ("m", Domain.POSITIVE_INTEGER), "n": ("n", Domain.POSITIVE_INTEGER),
    "q": ("q", Domain.PROBABILITY), r"\zeta": ("zeta", Domain.POSITIVE), r"\sigma": ("sigma", Domain.NONNEGATIVE),
    r"\sigma_G": ("sigma_G", Domain.NONNEGATIVE), "G_1": ("G_1", Domain.REAL), "G_2": ("G_2", Domain.REAL),
    "G_3": ("G_3", Domain.REAL), r"\mu": ("mu", Domain.POSITIVE), r"\kappa": ("kappa", Domain.NONNEGATIVE),
    r"q_{\min}": ("q_min", Domain.REAL), "D": ("D", Domain.POSITIVE), "E": ("E_loc", Domain.POSITIVE_INTEGER),
    "G": ("G", Domain.NONNEGATIVE), "N": ("N", Domain.POSITIVE_INTEGER), r"\gamma": ("gamma", Domain.POSITIVE),
    r"\eta_t": ("eta_t", Domain.POSITIVE), "t": ("t", Domain.NONNEGATIVE_INTEGER),
    "t_0": ("t_0", Domain.NONNEGATIVE), r"\epsilon": ("epsilon", Domain.POSITIVE), r"\alpha": ("alpha", Domain.POSITIVE),
    r"\eta_{(1,1)}": ("eta_11", Domain.POSITIVE), r"\mathrm{Var}_2": ("Var_2", Domain.NONNEGATIVE),
    "v": ("v", Domain.REAL), r"\eta": ("eta", Domain.POSITIVE), r"p_{\min}": ("p_min", Domain.OPEN_PROBABILITY),
    "I": ("I", Domain.POSITIVE_INTEGER), "P": ("P", Domain.POSITIVE_INTEGER),
    r"v^i_{r_0}": ("v_i", Domain.REAL), r"\bar q^i_{r_0}": ("qbar_i", Domain.PROBABILITY),
    r"\eta_0": ("eta_0", Domain.POSITIVE), "Q_r^k": ("Q", Domain.POSITIVE_INTEGER),
    "a": ("a", Domain.POSITIVE), "b": ("b", Domain.POSITIVE), "c": ("c", Domain.POSITIVE),
    "x^*": ("x_star", Domain.REAL),
}
VECTORS = {"p": "p", "r": "r"}


def tables() -> tuple[dict, dict]:
    table = {symbol_key(latex): sym(name, dom) for latex, (name, dom) in DECLARED.items()}
    vectors = {symbol_key(latex): sp.IndexedBase(name) for latex, name in VECTORS.items()}
    return table, vectors


S = {name: sym(name, dom) for name, dom in DECLARED.values()}
eta_c, L, K, R, m, n, q = (S[k] for k in ("eta_c", "L", "K", "R", "m", "n", "q"))
zeta, sigma, sigma_G, G_1, G_2, G_3, mu, kappa = (S[k] for k in ("zeta", "sigma", "sigma_G", "G_1", "G_2", "G_3",
                                                                 "mu", "kappa"))
q_min, D, E, G, N, gamma, eta_t, t = (S[k] for k in ("q_min", "D", "E_loc", "G", "N", "gamma", "eta_t", "t"))
t_0, epsilon, alpha, eta_11, Var_2, v, eta = (S[k] for k in ("t_0", "epsilon", "alpha", "eta_11", "Var_2", "v", "eta"))
p_min, I, P, v_i, qbar_i, eta_0, Q = (S[k] for k in ("p_min", "I", "P", "v_i", "qbar_i", "eta_0", "Q"))
a, b, c, x_star = S["a"], S["b"], S["c"], S["x_star"]
p, r = sp.IndexedBase("p"), sp.IndexedBase("r")
k = sp.Symbol("k", integer=True)
HALF = sp.Rational(1, 2)

# how: "rel" (hypotheses: a list of relations), "bound" (right side; the left side is kept as text)
# expected: a list of relations, or an expression; None: refused, naming the token in `token`
STATEMENTS = [
    dict(src="spec/fast.md FAST.T1 hypothesis", how="rel",
         tex=r"\eta_c\le\min\Bigl\{\frac{1}{8LK},\ \frac{nq+m(1-q)}{5mnLK}\Bigr\}",
         expected=[sp.Le(eta_c, sp.Min(1 / (8 * L * K), (n * q + m * (1 - q)) / (5 * m * n * L * K)))]),
    dict(src="seeds/000 line 160 FAST Theorem 1, q condition", how="rel",
         tex=r"q \geq \frac{(2LK\eta_c - 1)G_2 + 2K^2\sigma_G^2}{G_1 + (2LK\eta_c - 1)G_2 - 2LK\eta_c G_3 + "
             r"2K^2\sigma_G^2}",
         expected=[sp.Ge(q, ((2 * L * K * eta_c - 1) * G_2 + 2 * K**2 * sigma_G**2)
                         / (G_1 + (2 * L * K * eta_c - 1) * G_2 - 2 * L * K * eta_c * G_3 + 2 * K**2 * sigma_G**2))]),
    dict(src="spec/fast.md FAST.T1 conclusion", how="bound",
         tex=r"""\frac1R\sum_{r=1}^{R}\mathbb E\|\nabla F(\mathbf x_r)\|^2\ \le\
\underbrace{\frac{4\zeta}{KR\eta_c}}_{\text{optimisation}}
+\underbrace{\frac{4\,(qn+(1-q)m)\,L\eta_c}{mn}\,\sigma^2}_{\text{statistical}}
+\underbrace{\bigl(120(1-q)+60q\bigr)L^2K^2\eta_c^2\sigma_G^2}_{\text{heterogeneity}} .""",
         expected=4 * zeta / (K * R * eta_c) + 4 * (q * n + (1 - q) * m) * L * eta_c / (m * n) * sigma**2
         + (120 * (1 - q) + 60 * q) * L**2 * K**2 * eta_c**2 * sigma_G**2),
    dict(src="seeds/000 line 162 FAST Theorem 1 conclusion", how="bound",
         tex=r"\frac{1}{R} \sum_{r=1}^R \mathbb{E} \|\nabla F(\mathbf{x}_r)\|^2 \leq \underbrace{\frac{4\zeta}"
             r"{KR\eta_c}}_{\text{Optimization Error}} + \underbrace{\frac{4(qn + (1-q)m)L\eta_c}{mn}}_{\text{"
             r"Statistical Error}} \sigma^2 + \underbrace{\left(120(1-q) + 60q\right)L^2 K^2 \eta_c^2 \sigma_G^2}"
             r"_{\text{Heterogeneity Error}},",
         expected=4 * zeta / (K * R * eta_c) + 4 * (q * n + (1 - q) * m) * L * eta_c / (m * n) * sigma**2
         + (120 * (1 - q) + 60 * q) * L**2 * K**2 * eta_c**2 * sigma_G**2),
    dict(src="spec/fast.md FAST.T2 hypotheses", how="rel",
         tex=r"0<\eta_c\le\min\Bigl\{\frac1{20mLK},\frac1{20nLK}\Bigr\},\qquad q\ \ge\ 1-\frac{\mu K\eta_c-16L^2K^2"
             r"\eta_c^2}{4\sigma_G^2}",
         expected=[sp.Lt(0, eta_c, evaluate=False), sp.Le(eta_c, sp.Min(1 / (20 * m * L * K), 1 / (20 * n * L * K))),
                   sp.Ge(q, 1 - (mu * K * eta_c - 16 * L**2 * K**2 * eta_c**2) / (4 * sigma_G**2))]),
    dict(src="spec/fast.md FAST.T2 conclusion (up to the comma before the definition of kappa)", how="bound",
         tex=r"\mathbb E\|\mathbf x_R-\mathbf x^*\|^2\le e^{-\mu KR\eta_c}\,\kappa+\frac{(1-q)}{2\mu}K\eta_c"
             r"+\frac{8}{\mu}K\eta_c\sigma_G^2+\frac{2(qn+(1-q)m)}{mn\mu}\eta_c\sigma^2",
         expected=sp.exp(-mu * K * R * eta_c) * kappa + (1 - q) / (2 * mu) * K * eta_c + 8 / mu * K * eta_c * sigma_G**2
         + 2 * (q * n + (1 - q) * m) / (m * n * mu) * eta_c * sigma**2),
    dict(src="spec/fast.md FAST.C3 hypotheses", how="rel",
         tex=r"\mu>0,\ m=n,\ \eta_c\le\frac1{20mLK},\ R\ge20mL",
         expected=[sp.Gt(mu, 0, evaluate=False), sp.Eq(m, n), sp.Le(eta_c, 1 / (20 * m * L * K)), sp.Ge(R, 20 * m * L)]),
    dict(src="spec/fast.md FAST.R2", how="rel",
         tex=r"q_{\min}=\frac{1}{1+\dfrac{G_1-2LK\eta_cG_3}{2K^2\sigma_G^2+2LK\eta_cG_2-G_2}}",
         expected=[sp.Eq(q_min, 1 / (1 + (G_1 - 2 * L * K * eta_c * G_3)
                                     / (2 * K**2 * sigma_G**2 + 2 * L * K * eta_c * G_2 - G_2)))]),
    dict(src="spec/fast.md FAST.C1 conclusion", how="bound",
         tex=r"\frac1R\sum_{r=1}^R\mathbb E\|\nabla F(\mathbf x_r)\|^2=\mathcal O\Bigl(\sqrt{\tfrac{nq+m(1-q)}{nmKR}}"
             r"\Bigr)+\mathcal O\Bigl(\tfrac{mnK}{(nq+(1-q)m)R}\Bigr).",
         expected=None, token=r"\mathcal"),
    dict(src="seeds/001 line 192 F3AST Lemma III.4 eq. (6)", how="bound",
         tex=r"\sigma_t^2(\mathbf{f}^r) \leq 4E^2G^2 \left(\sum_{k=1}^N \frac{p_k}{r_k} - 1 \right). \quad (6)",
         expected=4 * E**2 * G**2 * (sp.Sum(p[k] / r[k], (k, 1, N)) - 1)),
    dict(src="seeds/001 line 196 F3AST Lemma III.4 eq. (7)", how="bound",
         tex=r"\sigma_t^2(\mathbf{f}^r) \leq 4E^2G^2 \left(\sum_{k=1}^N \frac{p_k^2}{r_k} + \sum_{k=1}^N p_k^2 "
             r"\right). \quad (7)",
         expected=4 * E**2 * G**2 * (sp.Sum(p[k]**2 / r[k], (k, 1, N)) + sp.Sum(p[k]**2, (k, 1, N)))),
    dict(src="seeds/001 line 198 F3AST Theorem III.5, gamma", how="rel",
         tex=r"\gamma = \max\{8\frac{L}{\mu}, E\}", expected=[sp.Eq(gamma, sp.Max(8 * L / mu, E))]),
    dict(src="seeds/001 line 198 F3AST Theorem III.5, step size", how="rel",
         tex=r"\eta_t = \frac{2}{\mu(\gamma+t)}", expected=[sp.Eq(eta_t, 2 / (mu * (gamma + t)))]),
    dict(src="seeds/001 line 220 F3AST Theorem III.7, burn-in", how="rel",
         tex=r"t_0 \geq \frac{\log \epsilon}{\log \alpha}", expected=[sp.Ge(t_0, sp.log(epsilon) / sp.log(alpha))]),
    dict(src="spec/f3ast.md line 243 (B.5 step sizes)", how="rel",
         tex=r"\eta_{(1,1)}\le\min\{1/\mu,1/(4L)\}", expected=[sp.Le(eta_11, sp.Min(1 / mu, 1 / (4 * L)))]),
    dict(src="spec/f3ast.md line 260 (worked example)", how="rel",
         tex=r"\mathrm{Var}_2\le4E^2G^2\cdot\frac43", expected=[sp.Le(Var_2, 4 * E**2 * G**2 * sp.Rational(4, 3))]),
    dict(src="spec/f3ast.md lines 241-242 (B.5 conclusion)", how="bound",
         tex=r"\mathbb E F(\bar{\mathbf w}^t)-F^*\le\frac L2\cdot\frac{v}{\gamma'+tE}.", expected=None, token="'"),
    dict(src="spec/amplified_scaffold.md ASCAF.T1 hypotheses", how="rel",
         tex=r"\gamma\eta\le\frac{p_{\min}}{60LIP},\qquad \eta\le\frac{\sqrt{p_{\min}}}{60LIP}.",
         expected=[sp.Le(gamma * eta, p_min / (60 * L * I * P)), sp.Le(eta, sp.sqrt(p_min) / (60 * L * I * P))]),
    dict(src="spec/amplified_scaffold.md line 137 (v weights)", how="rel",
         tex=r"v^i_{r_0}=\bar q^i_{r_0}-\frac1N", expected=[sp.Eq(v_i, qbar_i - 1 / N)]),
    dict(src="spec/democratic_fl.md line 48 (step size)", how="rel",
         tex=r"\eta_0\ge1/Q_r^k", expected=[sp.Ge(eta_0, 1 / Q)]),
]

# near-misses written by hand: (how, tex, expected or None for a refusal)
NEAR_MISSES = [
    ("rel", r"v=q-\frac1N", [sp.Eq(v, q - 1 / N)]),
    ("rel", r"v=q\frac1N", [sp.Eq(v, q / N)]),
    ("expr", r"q-\frac12N", q - N / 2),
    ("expr", r"y^*", None),
    ("expr", r"x^*", x_star),
    ("expr", r"x^\star", None),
    ("expr", r"a^*", None),
    ("expr", r"\min\{a,b\}", sp.Min(a, b)),
    ("expr", r"\min\{a,b,c\}", sp.Min(a, b, c)),
    ("expr", r"\max\left\{a, b\right\}", sp.Max(a, b)),
    ("expr", r"\min(a,-b)", sp.Min(a, -b)),
    ("expr", r"\min_i a", None),
    ("expr", r"\min a,b", None),
    ("expr", r"\frac{1}{\frac{1}{a}+\frac{1}{b}}", 1 / (1 / a + 1 / b)),
    ("expr", r"\frac1{\frac1a}", a),
    ("expr", r"\frac{\frac{a}{b}}{\frac{c}{a}}", a**2 / (b * c)),
    ("expr", r"1/4L", None),
    ("expr", r"1/(4L)", 1 / (4 * L)),
    ("expr", r"a/b/c", None),
    ("expr", r"\frac1\eta_c", None),
    ("expr", r"\frac12", HALF),
    ("expr", r"\frac12N", N / 2),
    ("expr", r"e^{-a}", sp.exp(-a)),
    ("expr", r"\exp(-a)", sp.exp(-a)),
    ("expr", r"\log(ab)", sp.log(a * b)),
    ("expr", r"\log ab", None),
    ("expr", r"\log(a)^2", None),
    ("expr", r"\sqrt ab", sp.sqrt(a) * b),
    ("expr", r"\sqrt[3]{a}", a ** sp.Rational(1, 3)),
    ("expr", r"\sigma_G^2", sigma_G**2),
    ("expr", r"\sigma_H^2", None),
    ("expr", r"a*b", None),
    ("expr", r"a\cdot -b", -a * b),
    ("expr", r"a - -b", None),
    ("expr", r"a^-2", None),
    ("expr", r"a^{-2}", a**-2),
    ("expr", r"a^23", None),
    ("expr", r"{a+b}c", None),
    ("expr", r"a(b)", None),
    ("expr", r"a(b+c)", a * (b + c)),
    ("rel", r"a \approx b", None),
    ("rel", r"a\lesssim b", None),
    ("rel", r"a\in(0,1]", [sp.Gt(a, 0, evaluate=False), sp.Le(a, 1)]),
    ("rel", r"a<=b", [sp.Le(a, b)]),
    ("rel", r"a:=b", None),
    ("expr", r"\mathcal O(a)", None),
    ("expr", r"a 2", None),
    ("expr", r"a_k", None),
    ("expr", r"\sum_{k=1}^{N} p_k", sp.Sum(p[k], (k, 1, N))),
    ("expr", r"\sum_k p_k", None),
    ("expr", r"\sum_{k=1}^{N} k p_k", sp.Sum(k * p[k], (k, 1, N))),
    ("expr", r"k + \sum_{k=1}^{N} p_k", None),
    ("expr", r"\|a\|", None),
    ("expr", r"a'", None),
    ("expr", r"\eta^{(t)}", None),
    ("expr", r"a \pm b", None),
    ("expr", r"\left(a+b\right.", None),
    ("expr", r"\Bigl(a+b\Bigr)c", (a + b) * c),
    # a bound broken over lines (align): \\ and \quad before + or - continue it; elsewhere they separate
    ("bound", r"A &\le a + b \\ &\quad - c \nonumber \\ &\quad + \frac1a .", a + b - c + 1 / a),
    ("bound", r"A \le a \\ b", None),
    ("rel", r"a \le b \\ -c \le a", [sp.Le(a, b), sp.Le(-c, a, evaluate=False)]),
    # from spec/fast.md FAST.C1 (INFERRED cap): a product then one division
    ("rel", r"R\ge 25\,m^3n^3L^2K/D^3", [sp.Ge(R, 25 * m**3 * n**3 * L**2 * K / D**3)]),
]
