"""Audit a participation log against the theorems' participation assumptions.

**Setting**: a log (rate_region.logs) of T rounds and N clients with availability A and participation S.
**Quantity**: realised rates r_k = (1/T) sum_t S_{t,k} with Wilson intervals at ``level`` (95%) using the
effective size T (1 - rho_k) / (1 + rho_k), rho_k >= 0 the lag-1 autocorrelation of S_{., k}; a
two-sided normal test of r_k = target_k per client with Benjamini-Hochberg control of the false
discovery rate at ``alpha`` (5%); the fitted availability model (rate_region.fit, chosen by BIC);
r* = argmin_R H of that model (or of a model the user gives) with the log's cap k and weights p;
H(r) against H(r*) (rate_region.variance, objective "p2" by default); and the participation check of
every encoded result whose participation hypothesis has a check (``checks.participation_checks``).
**Statement**: targets: ``uniform:k/N`` (r_k = k/N), ``rstar`` (r* of the model), ``fast:q``
(snapshot rounds only, against m/M, and the realised snapshot share against q), ``available:k`` (the
everyday sampler, k uniformly among the clients available in each round: r_k = (1/T) sum over the rounds
client k was available of min(1, k/|A_t|), computed from the log; ``available``: k_t = the round's own
count; the test uses the count's exact variance given availability, ``checks.available_rates``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face
from bounds.core.record import Record, register
from bounds.core.stats import RATE_LEVEL
from rate_region.audit.checks import (
    AUDIT_STATUS,
    AVAILABLE_CONVENTION,
    CHECK_TITLES,
    audit_status,
    available_rates,
    bh_reject,
    check_fast,
    check_region,
    check_regularized,
    effective_size,
    participation_checks,
    rate_test,
)

LEVEL = RATE_LEVEL  # the one source: bounds.core.stats
ALPHA = 0.05


@dataclass(frozen=True)
class Target:
    kind: str  # "uniform" | "rstar" | "fast" | "available"
    value: float | int | None  # k/N for uniform, q for fast, k for available (None: each round's own count)
    text: str


_TARGETS = ("uniform:k/N (e.g. uniform:10/100), rstar, fast:q with 0 < q <= 1, available:k (k uniformly among the "
            "clients available in each round, k a positive integer) or available (as many as each round selected)")


def _positive(word: str) -> float:
    v = float(word)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(word)
    return v


def parse_target(text: str) -> Target:
    """'uniform:k/N' | 'uniform:0.1' | 'rstar' | 'fast:q' | 'available:k' | 'available'."""
    from bounds.core.errors import WORD_WIDTH

    t = (text or "").strip()
    kind, colon, arg = t.partition(":")
    if kind in ("rstar", "available") and not colon:
        return Target(kind, None, t)
    if kind == "available" and arg.strip().isdigit() and 0 < int(arg) < 2**63:
        return Target(kind, int(arg), t)
    if kind in ("uniform", "fast") and arg:
        try:
            if "/" in arg:  # both parts positive: uniform:-1/-2 is no fraction of clients
                a, b = arg.split("/", 1)
                val = _positive(a) / _positive(b)
            else:
                val = float(arg)
        except (ValueError, ZeroDivisionError, OverflowError):
            val = float("nan")
        if np.isfinite(val) and 0 < val <= 1:
            return Target(kind, val, t)
    shown = t if len(t) <= WORD_WIDTH else t[:WORD_WIDTH] + "..."
    raise UserInputError(f"target {shown!r} is not valid; use {_TARGETS}")


def _status(status: bool | None) -> str:
    return audit_status(status)


def _audit_summary(a: AuditRecord) -> str:
    states = [c.get("status") for c in a.checks]
    lg = a.log
    said = AUDIT_STATUS

    return (f"log {lg.get('source')}: {lg.get('rounds')} rounds, {lg.get('clients')} clients; model "
            f"{a.model.get('kind')}; checks: {states.count(True)} {said[True]}, {states.count(False)} "
            f"{said[False]}, {states.count(None)} {said[None]}")


@register
@notebook_face(_audit_summary, rows=lambda a: [(c.get("check"), _status(c.get("status")),
                                                c.get("reason", "")) for c in a.checks],
               header=("check", "status", "reason"))
@dataclass(frozen=True, eq=False)
class AuditRecord(Record):
    """Everything the audit found; ``to_dict`` carries inputs, seeds (none: the audit is deterministic), versions.

    Equality is equality of the saved form (the fields hold numpy arrays, which ``==`` compares elementwise).
    """

    KIND = "audit"

    log: dict
    target: dict
    rates: dict
    bias: dict
    model: dict
    model_toml: str
    rstar: dict
    variance: dict
    checks: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)

    def payload(self) -> dict:
        from bounds.core.jsonable import jsonable

        return jsonable({"kind": "audit", "log": self.log, "target": self.target, "rates": self.rates,
                         "bias": self.bias, "availability_model": self.model, "model_toml": self.model_toml,
                         "rstar": self.rstar, "variance": self.variance, "checks": self.checks, "inputs": self.inputs,
                         "seeds": [], "versions": self.versions})

    @property
    def record_id(self) -> str:
        return str(self.log.get("source", ""))

    @classmethod
    def read(cls, data: Any, where: str) -> AuditRecord:
        from rate_region.audit.saved import check_audit

        check_audit(data, where)
        return cls(log=dict(data["log"]), target=dict(data["target"]), rates=dict(data["rates"]),
                   bias=dict(data["bias"]), model=dict(data["availability_model"]),
                   model_toml=str(data.get("model_toml") or ""), rstar=dict(data["rstar"]),
                   variance=dict(data["variance"]), checks=list(data["checks"]), inputs=dict(data.get("inputs") or {}),
                   versions=dict(data.get("versions") or {}))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def text(self, max_clients: int = 10) -> str:
        """Plain-text summary; lists at most ``max_clients`` clients per list and says how many it left out."""
        from rate_region.fit import gof_text

        lg, b, v, m = self.log, self.bias, self.variance, self.model
        ids = self.rates["client_ids"]

        def listing(idx):
            shown = ", ".join(str(ids[i]) for i in idx[:max_clients])
            more = f" (and {len(idx) - max_clients} more, see --json)" if len(idx) > max_clients else ""
            return (shown or "none") + more

        def cand(c):
            return c["kind"] + ("" if c["period"] is None else f"(P={c['period']})") + f" {c['bic']:.6g}"

        lines = [f"log {lg['source']}: {lg['rows']} rows, {lg['rounds']} rounds, {lg['clients']} clients"
                 + (f", {lg['missing_pairs']} (round, client) pairs missing (counted unavailable)" if lg["missing_pairs"] else ""),
                 f"availability model: {m['kind']} (BIC; "
                 + ", ".join(cand(c) for c in m["candidates"])
                 + "); goodness of fit: " + gof_text(m["goodness_of_fit"]),
                 f"cap k = {m['k']} (largest participant count in a round); a_k in "
                 f"[{min(m['a']):.3g}, {max(m['a']):.3g}], {m['level']:.0%} intervals",
                 f"target {self.target['text']}: {b['tested_clients']} clients tested over {self.target['rounds_used']} "
                 f"{'snapshot ' if self.target['kind'] == 'fast' else ''}rounds, rates in "
                 f"[{min(b['r_tested']):.4g}, {max(b['r_tested']):.4g}], max |r - target| = {b['max_abs_dev']:.4g}",
                 f"biased clients (BH, FDR {b['alpha']:g}): {len(b['flagged'])}: {listing(b['flagged'])}",
                 f"  under-served (r below target): {listing(b['under_served'])}",
                 *([f"  {self.target['rounds_off_size']} of {lg['rounds']} rounds selected a number other than "
                    f"min(k, |A_t|) (Flower's FedAvg selects nobody when fewer than k are connected); target "
                    f"'available' takes each round's own count"] if self.target.get("rounds_off_size") else []),
                 f"r* ({self.rstar['source']}): H(r*) = {v['H_rstar']:.6g}; H(realised r) = {v['H_realised']:.6g}; "
                 f"ratio {v['ratio']:.4g} (objective {v['objective']}); max |r - r*| = {v['max_abs_dev_rstar']:.4g}"]
        if v["excluded_never_available"]:
            lines.append(f"  H and r* leave out {len(v['excluded_never_available'])} client(s) never available "
                         f"(H would be infinite): {listing(v['excluded_never_available'])}")

        lines.append("participation hypotheses:")
        for c in self.checks:
            st = audit_status(c["status"])
            lines.append(f"  {c['check']:<12} {st:<10} {', '.join(c['results'])}: {c['reason']}")
        return "\n".join(lines)


def check_level(level: float, alpha: float) -> None:
    """``level`` in (0, 1) with a finite normal quantile z_{(1 + level)/2}; ``alpha`` in (0, 1)."""
    if not (0 < alpha < 1):
        raise UserInputError(f"--alpha {alpha!r} is a false discovery rate: it must lie in (0, 1), e.g. 0.05")
    if not (0 < level < 1) or not 0.5 + level / 2 < 1.0:
        # 0.5 + level / 2 == 1.0 in floating point for level > 1 - 2^-53: the quantile would be infinite
        raise UserInputError(f"--level {level!r} must lie in (0, 1) and at most 1 - 1e-15, where the normal "
                             "quantile of the interval is still finite; e.g. 0.95")


def check_cap(k, n_clients: int, what: str = "--k") -> int:
    """A cap per round: an integer from 1 to the number of clients (a cap of N or more caps nothing)."""
    if isinstance(k, bool) or int(k) != k or not 1 <= int(k) <= n_clients:
        kk = str(k) if len(str(k)) <= 30 else str(k)[:30] + "..."
        raise UserInputError(f"{what} {kk}: the cap per round is an integer from 1 to the log's {n_clients} clients")
    return int(k)


def _versions() -> dict:
    import platform

    out = {"python": platform.python_version(), "numpy": np.__version__}
    try:
        from importlib.metadata import version

        out["convbound"] = version("convbound")
        out["polars"] = version("polars")
    except Exception:  # pragma: no cover - not installed as a distribution
        pass
    return out


def audit(log, target: str = "rstar", *, alpha: float = ALPHA, level: float = LEVEL, period: int | None = None,
          model=None, k: int | None = None, objective: str = "p2") -> AuditRecord:
    """Audit ``log`` (a ``ParticipationLog``); ``model`` overrides the fitted model for r* and the region."""
    from rate_region.fit import fit_availability, wilson

    check_level(level, alpha)
    tgt = parse_target(target)
    A, S = log.available, log.participated
    T, N = S.shape
    kcap = check_cap(k, N) if k is not None else max(int(S.sum(1).max()), 1)
    if tgt.kind == "available" and tgt.value is not None:
        check_cap(tgt.value, N, f"target {tgt.text}:")
    p = log.weights if log.weights is not None else np.full(N, 1.0 / N)

    fitted = fit_availability(A, log.round_ids, kcap, p, level=level, source=log.source)
    use_model = model if model is not None else fitted.model()
    if use_model.n_clients != N:
        raise UserInputError(f"the model has {use_model.n_clients} clients but the log has {N}")
    never, p_h = _weights_of_available(use_model, p)
    from rate_region.optimum import min_variance_rates

    opt = min_variance_rates(use_model, kcap, p_h, objective)
    rstar = np.asarray(opt.r_star, dtype=float)

    r = S.sum(0) / T
    n_eff = effective_size(S)
    lo, hi = wilson(r * n_eff, n_eff, level)
    tau, sd, rows, target_extra = _target_rates(tgt, log, rstar)
    bias = _bias_test(S[rows], int(rows.sum()), tau, sd, alpha)
    checks = _participation_checks(log, tgt, (use_model, kcap, r, lo), alpha=alpha, level=level, period=period)
    return AuditRecord(
        log=log.describe(),
        target={"text": tgt.text, "kind": tgt.kind, "value": tgt.value, "per_client": tau.tolist(),
                "rounds_used": int(rows.sum()), **target_extra},
        rates={"client_ids": log.client_ids.tolist(), "r": r.tolist(), "low": lo.tolist(), "high": hi.tolist(),
               "n_eff": n_eff.tolist(), "level": level,
               "interval": "Wilson with effective size T(1-rho)/(1+rho), rho = lag-1 autocorrelation >= 0"},
        bias=bias, model=fitted.to_dict(), model_toml=fitted.to_toml(),
        rstar={"r": rstar.tolist(), "source": "given model" if model is not None else "fitted model",
               "method": opt.method, "status": opt.status, "k": kcap},
        variance=_variance_price(r, rstar, p_h, never, objective), checks=checks,
        inputs={"target": target, "alpha": alpha, "level": level, "period": period, "k": kcap,
                "objective": objective, "model_given": model is not None},
        versions=_versions())


def _weights_of_available(model, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(clients never available in ``model`` with positive weight, the weights renormalised over the others).

    A client never available makes H infinite for every achievable r: H and r* are taken over the others, and
    the record names the excluded clients."""
    never = np.flatnonzero((model.marginals() <= 0) & (p > 0))
    p_h = p.copy()
    if never.size:
        p_h[never] = 0.0
        if p_h.sum() <= 0:
            raise UserInputError("no client with positive weight is ever available in the log; nothing to audit")
        p_h = p_h / p_h.sum()
    return never, p_h


def _target_rates(tgt: Target, log, rstar: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, dict]:
    """(per-client target tau, the count's sd given availability or None, the rounds tested, extra record keys)."""
    A, S = log.available, log.participated
    T, N = S.shape
    rows = np.ones(T, bool)
    sd = None
    target_extra: dict = {}
    if tgt.kind == "uniform":
        tau = np.full(N, float(tgt.value or 0.0))
    elif tgt.kind == "available":
        kk = None if tgt.value is None else int(tgt.value)
        tau, sd, off = available_rates(A, S, kk)
        target_extra = {"convention": AVAILABLE_CONVENTION, "rounds_off_size": off}
    elif tgt.kind == "rstar":
        tau = rstar
    else:
        if log.snapshot is None:
            raise UserInputError("target fast:q needs a snapshot column in the log (1 in snapshot rounds); "
                                 "map it with --columns snapshot=NAME")
        rows = log.snapshot
        m = int(S[rows].sum(1).max()) if rows.any() else 0
        tau = np.full(N, m / N)
    return tau, sd, rows, target_extra


def _bias_test(Ssub: np.ndarray, Tn: int, tau: np.ndarray, sd: np.ndarray | None, alpha: float) -> dict[str, Any]:
    """The record's ``bias``: each client's rate over the ``Tn`` tested rounds ``Ssub`` against ``tau``,
    two-sided, Benjamini-Hochberg at ``alpha``."""
    N = Ssub.shape[1]
    n_test = np.ones(N) if not Tn else effective_size(Ssub) if sd is None else np.full(N, float(Tn))
    z, pv = rate_test(Ssub.sum(0), n_test, max(Tn, 1), tau, sd)
    flag = bh_reject(pv, alpha)
    rsub = Ssub.sum(0) / max(Tn, 1)
    flagged = np.flatnonzero(flag)
    under = flagged[rsub[flagged] < tau[flagged]]
    over = flagged[rsub[flagged] > tau[flagged]]
    return {"alpha": alpha, "method": "two-sided normal test per client, Benjamini-Hochberg FDR" + (
                "; variance of the count given availability, sum_t A_tk pi_t (1 - pi_t)" if sd is not None else
                "; variance tau (1 - tau) / n_eff"),
            "r_tested": rsub.tolist(), "z": z.tolist(), "p_values": pv.tolist(), "flagged": flagged.tolist(),
            "under_served": under.tolist(), "over_served": over.tolist(), "tested_clients": N,
            "max_abs_dev": float(np.max(np.abs(rsub - tau)))}


def _variance_price(r: np.ndarray, rstar: np.ndarray, p_h: np.ndarray, never: np.ndarray,
                    objective: str) -> dict[str, Any]:
    """The record's ``variance``: H at the realised rates against H at r* (weights ``p_h``)."""
    from rate_region.variance import H

    H_r, H_s = float(H(r, p_h, objective)), float(H(rstar, p_h, objective))
    return {"objective": objective, "excluded_never_available": never.tolist(), "H_realised": H_r, "H_rstar": H_s,
            "ratio": H_r / H_s if H_s > 0 else float("nan"),
            "gap": H_r - H_s, "max_abs_dev_rstar": float(np.max(np.abs(r - rstar)))}


def _participation_checks(log, tgt: Target, region: tuple[Any, int, np.ndarray, np.ndarray], *, alpha: float,
                          level: float, period: int | None) -> list[dict[str, Any]]:
    """The participation check of every encoded result whose hypothesis has one, grouped by check; ``region``:
    the region check's inputs (model, cap k, realised rates, their lower limits)."""
    mapping = participation_checks()
    by_check: dict[str, list[str]] = {}
    for rid in mapping:
        by_check.setdefault(mapping[rid], []).append(rid)
    checks = []
    for name, rids in by_check.items():
        if name == "fast":
            out = check_fast(log.participated, log.snapshot, tgt.value if tgt.kind == "fast" else None, alpha, level,
                             log.available)
        elif name == "regularized":
            out = check_regularized(log.participated, period)
        else:
            out = check_region(*region)
        checks.append({"check": name, "title": CHECK_TITLES[name], "results": rids, **out})
    return checks
