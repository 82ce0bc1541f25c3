"""Gradient descent on an L-smooth convex function (Drori & Teboulle 2014, Theorem 3.1), as a plugin.

Run:  convbound --plugin docs/examples/gd_drori_teboulle.py check DT14.T3.1 L=1 gamma=1 n=10 D2=1
      convbound --plugin docs/examples/gd_drori_teboulle.py verify DT14.T3.1
Read from PEPit's examples/unconstrained_convex_minimization/gradient_descent.py, which states
[1, Theorem 3.1]: for gamma <= 1/L, f(x_n) - f* <= L ||x0 - x*||^2 / (4 n L gamma + 2) (tight).
Certificate: FedAvg with one local step, every client every round and no noise is exactly gradient
descent on F = mean_i F_i, so the shared-Hessian quadratic of ``quadratics`` is an instance.
"""
import time

from bounds import Domain, Hypothesis, Kind, Provenance, Result, SymbolInfo, Term, sym
from verify import Check, Context, certificate

L, gamma, n, D2 = (sym(s, d) for s, d in (("L", Domain.POSITIVE), ("gamma", Domain.POSITIVE),
                                          ("n", Domain.POSITIVE_INTEGER), ("D2", Domain.POSITIVE)))


def results():
    return [Result(
        id="DT14.T3.1", title="Gradient descent, L-smooth convex: tight last-iterate bound",
        paper="Drori & Teboulle 2014", kind=Kind.UPPER, lhs="f(x_n) - f* after n steps of gradient descent",
        lhs_latex=r"f(x_n) - f_\star", terms=(Term("optimisation", L * D2 / (4 * n * L * gamma + 2)),),
        symbols=(SymbolInfo("L", "smoothness of f"), SymbolInfo("gamma", "step size", prefer="max"),
                 SymbolInfo("n", "iterations", Domain.POSITIVE_INTEGER), SymbolInfo("D2", "||x0 - x*||^2")),
        hypotheses=(Hypothesis("step size gamma <= 1/L", gamma <= 1 / L),),
        provenance=Provenance("Drori & Teboulle, Math. Program. 145 (2014) 451-482, read via PEPit "
                              "examples/unconstrained_convex_minimization/gradient_descent.py", "Theorem 3.1"),
        example=(("L", 1), ("gamma", 1), ("n", 10), ("D2", 1)))]


def certify(ctx: Context):
    from quadratics import fedavg, heterogeneous_quadratic, uniform

    t0 = time.perf_counter()
    pb = heterogeneous_quadratic(L=1.0, mu=0.01, d=20, M=4, zeta=1.0, sigma=0.0, D0=1.0, seed=ctx.seed)
    c, R, trials = pb.constants, 10, ctx.n(2, 4)
    sim = ctx.simulate(pb, fedavg(eta=1 / c["L"], K=1), uniform(M=pb.M, S=pb.M), trials, R)
    values = dict(L=c["L"], gamma=1 / c["L"], n=R, D2=c["D0"])
    return [certificate(ctx, check_id="DT14.T3.1", title="GD = FedAvg(K=1, all clients, no noise) on a quadratic",
                        key="DT14.T3.1", values=values, samples=sim.metrics["gap"][R], trials=trials,
                        instance={"problem": pb.describe()}, started=t0)]


def scenarios():
    return [Check("DT14.T3.1", certify, title="GD on a quadratic", result="DT14.T3.1")]
