"""One SGD step on a finite sum of smooth strongly convex functions (Taylor, Hendrickx & Glineur 2017, PESTO).

Run:  convbound --plugin docs/examples/sgd_pesto_one_step.py check PESTO.SGD L=1 mu=0.1 R2=4 v2=1
Read from PEPit's examples/stochastic_and_randomized_convex_minimization/sgd.py: with gamma = 1/L and
v^2 >= (1/n) sum_i ||grad f_i(x*)||^2, E||x1 - x*||^2 <= (1/2)(1-mu/L)^2 R^2
+ (1/2)(1-mu/L) R sqrt((1-mu/L)^2 R^2 + 4 v^2/L^2) + v^2/L^2. PEPit calls it "empirically tight,
provided in the code of PESTO [1]": found numerically, with no written proof, hence status INFERRED.
Certificate: FedAvg with one local step on one uniformly sampled client and no noise is one SGD step.
"""
import time

import numpy as np
import sympy as sp

from bounds import Domain, Hypothesis, Kind, Provenance, Result, Status, SymbolInfo, Term, sym
from verify import Check, Context, certificate

L, mu, R2, v2 = (sym(s, Domain.POSITIVE) for s in ("L", "mu", "R2", "v2"))
a = 1 - mu / L


def results():
    return [Result(
        id="PESTO.SGD", title="One SGD step, gamma = 1/L, variance v^2 at the optimum", paper="PESTO (CDC 2017)",
        kind=Kind.UPPER, lhs="E||x_1 - x*||^2 after one step x0 - (1/L) grad f_i(x0), i uniform",
        lhs_latex=r"\mathbb{E}\|x_1 - x_\star\|^2",
        terms=(Term("contraction", a**2 * R2 / 2 + a * sp.sqrt(R2) * sp.sqrt(a**2 * R2 + 4 * v2 / L**2) / 2),
               Term("variance", v2 / L**2)),
        symbols=(SymbolInfo("L", "smoothness of every f_i"), SymbolInfo("mu", "strong convexity of every f_i"),
                 SymbolInfo("R2", "||x0 - x*||^2 (R^2)"), SymbolInfo("v2", "(1/n) sum ||grad f_i(x*)||^2 bound")),
        hypotheses=(Hypothesis("mu <= L", mu <= L),), status=(Status.INFERRED,),
        flags=("numerically observed (PEP) guarantee, no written proof; gamma = 1/L is fixed",),
        provenance=Provenance("Taylor, Hendrickx & Glineur, PESTO, CDC 2017, read via PEPit "
                              "examples/stochastic_and_randomized_convex_minimization/sgd.py", "wc_sgd docstring"),
        example=(("L", 1), ("mu", 0.1), ("R2", 4), ("v2", 1)))]


def certify(ctx: Context):
    from quadratics import fedavg, heterogeneous_quadratic, uniform

    t0 = time.perf_counter()
    pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=8, M=5, zeta=1.0, sigma=0.0, D0=4.0, seed=ctx.seed)
    c, trials = pb.constants, ctx.n(2000, 20000)
    sim = ctx.simulate(pb, fedavg(eta=1 / c["L"], K=1), uniform(M=pb.M, S=1), trials, 1)
    v2 = float(np.mean(np.sum(pb.client_grads(pb.x_star) ** 2, axis=1)))  # exact: grad f_i(x*) = -A delta_i
    values = dict(L=c["L"], mu=c["mu"], R2=c["D0"], v2=v2)
    return [certificate(ctx, check_id="PESTO.SGD", title="one SGD step = FedAvg(K=1, S=1, no noise)",
                        key="PESTO.SGD", values=values, samples=sim.metrics["dist_sq"][1], trials=trials,
                        instance={"problem": pb.describe()}, started=t0)]


def scenarios():
    return [Check("PESTO.SGD", certify, title="one SGD step on a quadratic", result="PESTO.SGD")]
