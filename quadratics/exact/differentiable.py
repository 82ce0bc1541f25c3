"""The exact moment recursion in torch, differentiable in every declared number (for gradient search).

**Setting**: an instance whose problem, algorithm and pattern declare what :mod:`quadratics.exact` reads
(:mod:`quadratics.exact.declare`): the round e' = B(u) e + c(u) + n, the law of u (E u, E u u^T as a
:class:`~quadratics.exact.declare.Pairwise`), the start z0 and centre z_ref, and a quadratic form
(Q, c, s) of e_x measured at round R (``kind="final"``) or averaged over rounds first..R (``"mean"``).
**Quantity**: :func:`declared_inputs` collects those numbers as float64 torch leaves (one entry per phase of
the round map and per key of the law over one period); :func:`moment_lhs` maps them to the exact
expectation, by the same recursion as :mod:`quadratics.exact.moments` (``assemble``, the running-sum
augmentation, whole periods by repeated squaring), written with torch operations so that
``torch.autograd`` gives d LHS / d (every declared number) in one backward pass.
**Statement**: the value equals :func:`quadratics.exact.exact_moments`'s to rounding (tested); no rounding
bound is carried here: a search uses the gradient only to propose points, and every proposed point is scored
and confirmed by the ordinary exact path.
Covered: a :class:`~quadratics.exact.declare.Law` and a round map with a period (what a Markov or
per-trial law, or a step schedule changing every round, declares is not: :func:`declared_inputs` says why).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .declare import Law
from .evaluate import declared_law, declared_round
from .laws import lcm
from .plan import MAX_ORDER

__all__ = ["DeclaredInputs", "declared_inputs", "moment_lhs"]

_T = torch.float64


@dataclass
class DeclaredInputs:
    """Every number one exact evaluation reads, as torch tensors (``leaves()`` in a fixed order).

    ``maps[phase] = (B, c, noise | None)``; ``moments[law key] = (Eu, same, V, W)``; ``z0``, ``z_ref`` [D];
    ``form = (Q [d, d], cf [d], s [])`` on the ``x`` block ``x_block``; ``phase(r)``, ``key(r)`` and ``period``
    as the declarations give them."""

    maps: dict[Hashable, tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]]
    moments: dict[Hashable, tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]
    z0: torch.Tensor
    z_ref: torch.Tensor
    form: tuple[torch.Tensor, torch.Tensor, torch.Tensor]
    x_block: slice
    phase: Any
    key: Any
    period: int

    def leaves(self) -> list[torch.Tensor]:
        out: list[torch.Tensor] = []
        for k in sorted(self.maps, key=repr):
            out += [t for t in self.maps[k] if t is not None]
        for k in sorted(self.moments, key=repr):
            out += list(self.moments[k])
        return out + [self.z0, self.z_ref, *self.form]

    def signature(self) -> tuple:
        """Shapes and keys: two inputs with equal signatures are the same structure at other numbers."""
        return (self.period, self.x_block, tuple((repr(k), tuple(t.shape)) for k in sorted(self.maps, key=repr)
                                                 for t in self.maps[k] if t is not None),
                tuple(sorted(map(repr, self.moments))), tuple(tuple(t.shape) for t in self.leaves()))

    def requires_grad_(self) -> DeclaredInputs:
        for t in self.leaves():
            t.requires_grad_(True)
        return self


def _t(x: Any) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach().to(dtype=_T, device="cpu").clone()
    return torch.as_tensor(np.asarray(x, dtype=float), dtype=_T).clone()


def declared_inputs(problem: Any, algorithm: Any, pattern: Any, form: tuple[Any, Any, float]) -> DeclaredInputs | str:
    """The declared numbers of an instance (fresh tensors, no gradient yet), or why there are none here."""
    law = declared_law(pattern)
    if isinstance(law, str):
        return law
    if not isinstance(law, Law):
        return f"the declared law is a {type(law).__name__} (the differentiable recursion covers a plain Law)"
    rm = declared_round(problem, algorithm, law.aux)
    if isinstance(rm, str):
        return rm
    if rm.period is None:
        return "the round map changes every round (a step schedule): no period to power"
    order = 1 + rm.D + rm.D * (rm.D + 1) // 2
    if order > MAX_ORDER:  # scored exactly coordinate by coordinate (quadratics.exact.diagonal), not rebuilt dense
        return (f"the differentiable recursion is dense: order {order} > {MAX_ORDER} (a state of {rm.D} numbers); "
                "no gradient here")
    try:
        x_block = rm.block("x")
    except KeyError:
        return "the declared round map has no state block named 'x'"
    period = lcm(int(rm.period), int(law.period))
    maps: dict[Hashable, tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]] = {}
    moments: dict[Hashable, tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]] = {}
    try:
        for r in range(period):
            ph, key = rm.phase(r), law.key(r)
            if ph not in maps:
                co = rm.coefficients(r)
                maps[ph] = (_t(co.B), _t(co.c), None if co.noise is None else _t(co.noise))
            if key not in moments:
                Eu, pairs = law.moments(key)
                moments[key] = (_t(Eu), _t(pairs.same), _t(pairs.V), _t(pairs.W))
    except Exception as e:  # a declaration that fails at this point: no gradient here (the search goes on)
        return f"a declaration failed ({type(e).__name__}: {e})"
    Q, cf, s = form
    return DeclaredInputs(maps, moments, _t(rm.z0), _t(rm.z_ref), (_t(Q), _t(cf), _t(float(s))), x_block,
                          rm.phase, law.key, period)


def _apply(same: torch.Tensor, V: torch.Tensor, W: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """E[u u^T] @ X over the 2M client features (``Pairwise.apply`` in torch)."""
    M = same.shape[0]
    out = V @ (W @ (V.T @ X))
    Rv = torch.stack([V[:M], V[M:]], 1)
    delta = same - torch.einsum("iar,rs,ibs->iab", Rv, W, Rv)
    fix = torch.einsum("iab,ibk->iak", delta, torch.stack([X[:M], X[M:]], 1))
    return out + torch.cat([fix[:, 0], fix[:, 1]])


def _assemble(B: torch.Tensor, c: torch.Tensor, noise: torch.Tensor | None,
              mom: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]) -> torch.Tensor:
    """The moment matrix T on v = (1, m, vech S) (``quadratics.exact.moments.assemble`` in torch)."""
    Eu, same, V, W = mom
    F, D = c.shape
    iu, ju = (torch.as_tensor(a) for a in np.triu_indices(D))
    Bc = B[1:].reshape(F - 1, -1)
    C = torch.cat([(B[0] + (Eu @ Bc).reshape(D, D))[None],
                   (Eu[:, None] * B[0].reshape(1, -1) + _apply(same, V, W, Bc)).reshape(F - 1, D, D)])
    cm = torch.cat([(c[0] + Eu @ c[1:])[None], Eu[:, None] * c[0][None, :] + _apply(same, V, W, c[1:])])
    on = torch.as_tensor(np.flatnonzero((B.detach().abs().reshape(F, -1).amax(1) + c.detach().abs().amax(1)).numpy() > 0))
    Bo, Co, co, cmo = B[on], C[on], c[on], cm[on]
    Bt = Bo.reshape(on.numel(), D * D).T
    op = (Bt @ Co.reshape(on.numel(), D * D)).reshape(D, D, D, D).permute(0, 2, 1, 3)[iu, ju]
    opS = op[:, iu, ju] + torch.where(iu != ju, op[:, ju, iu], torch.zeros((), dtype=_T))
    H = (Bt @ cmo).reshape(D, D, D).permute(0, 2, 1)
    opm = (H + H.permute(1, 0, 2))[iu, ju]
    const = co.T @ cmo
    if noise is not None:
        const = const + (same.reshape(-1) @ noise.reshape(-1, D * D)).reshape(D, D)
    n = 1 + D + iu.numel()
    top = torch.zeros((1, n), dtype=_T)
    top[0, 0] = 1.0
    mid = torch.cat([cm[0][:, None], C[0], torch.zeros((D, iu.numel()), dtype=_T)], 1)
    low = torch.cat([const[iu, ju][:, None], opm, opS], 1)
    return torch.cat([top, mid, low], 0)


def _form_row(inp: DeclaredInputs, D: int) -> torch.Tensor:
    """L with L v = E[e_x^T Q e_x + cf^T e_x + s] (``quadratics.exact.moments.form_rows`` in torch)."""
    Q, cf, s = inp.form
    iu, ju = (torch.as_tensor(a) for a in np.triu_indices(D))
    full = torch.zeros((D, D), dtype=_T)
    xb = inp.x_block
    full = full.index_put((torch.arange(xb.start, xb.stop)[:, None], torch.arange(xb.start, xb.stop)[None, :]), Q)
    lin = torch.zeros(D, dtype=_T).index_put((torch.arange(xb.start, xb.stop),), cf)
    quad = torch.where(iu == ju, full[iu, ju], full[iu, ju] + full[ju, iu])
    return torch.cat([s.reshape(1), lin, quad])


def _power_apply(G: torch.Tensor, k: int, v: torch.Tensor) -> torch.Tensor:
    P = G
    while k:
        if k & 1:
            v = P @ v
        k >>= 1
        if k:
            P = P @ P
    return v


def moment_lhs(inp: DeclaredInputs, rounds: int, first: int, kind: str) -> torch.Tensor:
    """E of the declared form at round ``rounds`` (``kind="final"``) or averaged over rounds first..rounds
    (``"mean"``), as a differentiable function of ``inp``'s tensors (the same recursion as ``exact_moments``)."""
    D = int(inp.z0.numel())
    Lrow = _form_row(inp, D)
    n = Lrow.numel()
    Ts = {(ph, key): _assemble(*inp.maps[ph], inp.moments[key])
          for ph, key in {(inp.phase(r), inp.key(r)) for r in range(inp.period)}}

    def G(r: int) -> torch.Tensor:  # [[T, 0], [L T, 1]]: v' = T v, a' = a + L v'
        T = Ts[(inp.phase(r), inp.key(r))]
        top = torch.cat([T, torch.zeros((n, 1), dtype=_T)], 1)
        bottom = torch.cat([(Lrow @ T)[None], torch.ones((1, 1), dtype=_T)], 1)
        return torch.cat([top, bottom], 0)

    def advance(v: torch.Tensor, r0: int, count: int) -> torch.Tensor:
        r, end = r0, r0 + count
        while r < end and r % inp.period:
            v, r = G(r) @ v, r + 1
        whole = (end - r) // inp.period
        if whole:
            Wn = G(r)
            for j in range(1, inp.period):
                Wn = G(r + j) @ Wn
            v, r = _power_apply(Wn, whole, v), r + whole * inp.period
        while r < end:
            v, r = G(r) @ v, r + 1
        return v

    iu, ju = (torch.as_tensor(a) for a in np.triu_indices(D))
    e0 = inp.z0 - inp.z_ref
    v0 = torch.cat([torch.ones(1, dtype=_T), e0, torch.outer(e0, e0)[iu, ju], torch.zeros(1, dtype=_T)])
    if first == 0:
        head, start = torch.cat([v0[:n], (Lrow @ v0[:n]).reshape(1)]), 0
    else:
        head = advance(v0, 0, first - 1)
        head, start = torch.cat([head[:n], torch.zeros(1, dtype=_T)]), first - 1
    tail = advance(head, start, rounds - start)
    if kind == "final":
        return Lrow @ tail[:n]
    return tail[n] / (rounds - first + 1)
