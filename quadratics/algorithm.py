"""Algorithms as pairs of pure functions over explicit state, batched over trials (optax style).

``Algorithm.init(bound, x0 [T,d], M) -> state`` and
``Algorithm.round(state, bound, q [T,M], r, gen, aux) -> state``; ``state["x"]`` is the global
model [T,d]. Only clients with q > 0 matter; the round gathers the ``n`` largest weights per trial
(n = max participants over trials) and runs their K local steps as one [T, n, d] tensor program.

**One local step** (:func:`local_sgd`, every algorithm's): d_k = g_k + correction + mu_prox (y_k - x),
y_{k+1} = y_k - eta_k d_k, g_k = grad F_i(y_k) + xi_k. The algorithms are variations of it:
FedAvg (no correction, no prox), FedProx (mu_prox), SCAFFOLD and Amplified SCAFFOLD (a control-variate
correction and the kept raw gradient sum), F3AST (its aggregation weights), FAST (a pattern), the
amplified methods (a window-level server step); see :mod:`quadratics.local_methods` and
:mod:`quadratics.amplified`. :func:`_reference_steps` is that step written once for any problem
(``bound.grad``); problems with an elementwise affine gradient (``bound.affine``) run exact rewrites of
it (tabulated steps, closed-form affine coordinates, a numpy loop), tested against it to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch

from bounds.core.errors import UserInputError

from .problem import GaussianStream

State = dict[str, torch.Tensor]


class Algorithm(NamedTuple):
    """An FL method as pure functions: ``init(bound, x0 [T, d], M) -> state`` and
    ``round(state, bound, q [T, M], r, generator, aux) -> state``, batched over trials; ``K`` local steps.
    ``linear(problem, aux) -> RoundMap | str`` (optional): the declaration that the round is affine in the
    state given the participating set (:mod:`quadratics.exact.declare`), which the exact path scores; a
    string says why not here; absent: simulated."""

    name: str
    params: Mapping[str, Any]
    K: int
    init: Callable[[Any, torch.Tensor, int], State]
    round: Callable[[State, Any, torch.Tensor, int, Any, Mapping[str, Any]], State]  # gen: stream or Generator
    linear: Callable[[Any, Mapping[str, Any]], Any] | None = None


def active(q: torch.Tensor, aux: Mapping[str, Any] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices [T,n] of the n largest weights per trial (n = max #participants, at least 1) and their
    weights; taken from ``aux["idx"], aux["qa"]`` when the engine already computed them."""
    if aux is not None and "idx" in aux:
        return aux["idx"], aux["qa"]
    n = int((q > 0).sum(1).max())
    qa, idx = torch.topk(q, max(n, 1), dim=1, sorted=False)
    return idx, qa


def aggregate(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor, eta_g: float) -> torch.Tensor:
    """Server step x + eta_g sum_i w_i (y_i - x) for x [T,d], local models y [T,n,d], weights w [T,n].

    With one active client per trial this is lerp(x, y_1, eta_g w_1), one tensor operation (w may
    then also be [T,d], the weight repeated over the coordinates: same-shape operands are faster).
    """
    if y.shape[1] == 1:
        return torch.lerp(x, y.select(1, 0), w if eta_g == 1.0 else eta_g * w)
    return x.add((w[..., None] * (y - x[:, None, :])).sum(1), alpha=eta_g)


def _step_tables(bound: Any, eta: float, mu_prox: float) -> tuple[Any, ...]:
    """Per-client step data of all M clients, built once per (bound, eta, mu_prox).

    Returns (table, per_client, shrink, noise_coef, nonlinear): table [2, M, d] holding
    1 - eta (a_i + mu_prox) and -eta b_i when the curvature a is per client (per_client True), else
    [M, d] holding -eta b_i (and the shared shrink 1 - eta (a + mu_prox) [d]); noise_coef = -eta scale;
    nonlinear = (-eta coef, fn) or None (both coefficients [d], as the Bound protocol says).
    """
    cache = bound.__dict__.setdefault("_step_tables", {})
    key = (eta, mu_prox)
    if key not in cache:
        every = torch.arange(bound.M, device=bound.device)[None, :]
        a, b = bound.affine(bound.prepare(every))
        b = b.reshape(bound.M, -1)
        shrink = 1.0 - eta * (a + mu_prox)
        per_client = shrink.dim() > 1
        nb = -eta * b
        table = torch.stack([shrink.reshape(bound.M, -1), nb]) if per_client else nb.contiguous()
        scale = bound.noise_law[1]
        nl = bound.nonlinear
        cache[key] = (table, per_client, None if per_client else shrink, None if scale is None else -eta * scale,
                      None if nl is None else (-eta * nl[0], nl[1]))
    return cache[key]


def local_sgd(bound: Any, x: torch.Tensor, idx: torch.Tensor, K: int, eta: float | Any, gen: Any,
              correction: torch.Tensor | None = None, mu_prox: float = 0.0,
              keep_grad_sum: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """K local SGD steps of the clients idx [T,n] from x [T,d] (FAST.ALG1 step 4; ASCAF.ALG1 lines 5-8).

    d_k = g_k + correction (+ mu_prox (y_k - x) for FedProx), y_{k+1} = y_k - eta d_k, g_k the raw
    stochastic gradient. Returns y_K [T,n,d] and, if asked, sum_k g_k (raw, for control variates).
    ``gen``: a :class:`quadratics.problem.GaussianStream` (the engine's) or a torch.Generator.
    Nine parameters, why: they are the local step's own inputs (model, clients, K, eta, noise, correction,
    mu_prox) and what to return; the kernels below receive them as one ``_Job``.

    The client gradient is a * y + b + coef * fn(y) (``bound.affine``, ``bound.nonlinear``); the
    correction, the proximal term and the noise of step k are constant or affine in y, so they are
    folded into one per-step offset and the step is y <- (1 - eta a) y - eta (b_k) - eta coef fn(y)
    (one tensor operation, three with a nonlinearity). 1 - eta a and -eta b of every client are
    tabulated once per run and gathered per round in one operation; the noise enters the offsets
    as z * (-eta scale) with z only as wide as ``bound.noise_law`` says. The raw gradient sum
    follows by telescoping: sum_k d_k = (y_0 - y_K) / eta.
    ``eta`` may also be K step sizes (one per local step, e.g. a :mod:`quadratics.schedule` row):
    then :func:`_reference_steps` runs, with the same noise draws; so does any problem without
    ``affine`` (the general path: one ``bound.grad`` per step).
    Coordinates without nonlinearity and noise (all but x3 for the LB objective) are affine per
    step and take their K steps in closed form; only the others run the step loop
    (:func:`_affine_split`, :func:`_split_sgd`). FedProx with a kept gradient sum takes the general step.
    """
    job = _Job(x, idx, K, eta, gen, correction, mu_prox, keep_grad_sum)
    if (not isinstance(eta, (int, float)) and getattr(eta, "ndim", 1) != 0) or getattr(bound, "affine", None) is None:
        return _reference_steps(bound, job)
    if keep_grad_sum and mu_prox:  # no built-in method keeps FedProx's raw gradient sum: the general step
        return _reference_steps(bound, job)
    return _split_sgd(bound, _affine_split(bound, eta, mu_prox, K), job)


@dataclass(frozen=True)
class _Job:
    """One round's local steps as :func:`local_sgd` was asked for them (its arguments after ``bound``)."""

    x: torch.Tensor
    idx: torch.Tensor
    K: int
    eta: Any
    gen: Any
    correction: torch.Tensor | None
    mu_prox: float
    keep_grad_sum: bool


def _affine_split(bound: Any, eta: float, mu_prox: float, K: int) -> dict[str, Any]:
    """Closed-form data for the coordinates whose local steps are affine (possibly none), and the step
    data of the others.

    A coordinate j with nonlinear coefficient 0 and noise scale 0 (read from ``bound.nonlinear`` and
    ``bound.noise_law``) has a diagonal affine step y <- s y + o with s, o constant over the K steps
    (o also holds the proximal term and the correction), so y_K = s^K y_0 + (sum_{k<K} s^k) o exactly.
    Tabulated once per (bound, eta, mu_prox, K): P = s^K, S = sum_{k<K} s^k, S o [3, M, d]; the
    other ("looped") coordinates L keep their step data [2, M, |L|] for the step loop.
    """
    cache = bound.__dict__.setdefault("_affine_split", {})
    key = (eta, mu_prox, K)
    if key not in cache:
        table, per_client, shrink, ncoef_noise, nl = _step_tables(bound, eta, mu_prox)[:5]
        M = bound.M
        nb = table[1] if per_client else table
        d = nb.shape[1]
        s = table[0] if per_client else shrink.reshape(1, -1).expand(M, d)
        loop = torch.zeros(d, dtype=torch.bool, device=nb.device)
        for coef in (None if nl is None else nl[0], ncoef_noise):
            if coef is not None:
                loop |= coef != 0
        P, S = torch.ones_like(nb), torch.zeros_like(nb)
        for _ in range(K):  # by multiplication, so a factor 1 (no curvature) gives S = K exactly
            S.add_(P)
            P.mul_(s)
        L = loop.nonzero().reshape(-1)
        pick = (lambda v: None if v is None else v.index_select(0, L).contiguous())
        steps = torch.stack([s.index_select(1, L), nb.index_select(1, L)])
        # a contiguous block of looped coordinates is read as a view (no gather);
        # step data equal for all clients is used as one row (no per-round gather)
        first = int(L[0]) if L.numel() else 0
        uniform = bool((steps == steps[:, :1]).all())
        # a relu kink with one shared step factor s and kink coefficient c on every looped
        # coordinate: s y + c relu(y) = (s + c) leaky_relu(y, s / (s + c)), two operations a step
        leaky = None
        if uniform and nl is not None and nl[1] in (torch.relu, torch.nn.functional.relu) and L.numel():
            sv, cv = steps[0, 0], nl[0].index_select(0, L)
            if bool((sv == sv[0]).all()) and bool((cv == cv[0]).all()) and float(sv[0] + cv[0]) != 0.0:
                leaky = (float(sv[0]) / float(sv[0] + cv[0]), float(sv[0] + cv[0]))
        PQ = torch.stack([P, S * nb])
        # a step factor shared by all clients (one curvature) is used as one row: only -eta b is gathered
        shared = None if per_client else shrink.reshape(-1).index_select(0, L).contiguous()
        block = L.numel() > 0 and bool((L == torch.arange(first, first + L.numel(), device=L.device)).all())
        cache[key] = {
            "shared": shared, "all": L.numel() == d,
            "leaky": leaky, "np": _numpy_loop(leaky, steps, nb, K, None if ncoef_noise is None else pick(ncoef_noise),
                                              PQ, block),
            "PQ": PQ, "S": S, "nb": nb.contiguous(), "L": L, "w": L.numel(), "block": block,
            "first": first, "uniform": uniform, "loop": steps,
            "ncoef_noise": pick(ncoef_noise), "nl": None if nl is None else (pick(nl[0]), nl[1]), "shapes": {},
        }
    return cache[key]


def _numpy_loop(leaky: tuple[float, float] | None, steps: torch.Tensor, nb: torch.Tensor, K: int,
                noise_coef: torch.Tensor | None, PQ: torch.Tensor, block: bool) -> tuple[Any, ...] | None:
    """Data of the numpy step loop for a noisy relu kink on CPU in float64, or None.

    With A = s + c (factor for y > 0) and B = s (for y <= 0), B > 0, the step y <- o_k + (A or B) y
    becomes, for v_k = y_k / B^k, v <- o_k / B^(k+1) + ext(v, (A/B) v) with ext = min when A <= B
    (else max): three numpy ufuncs of ~0.4 us where the two torch operations cost ~2.5 us; the
    rescaling only moves rounding (y_K = B^K v_K). Returns (c1, c0, r, B^K, ext, PQ) with
    o_k / B^(k+1) = z_k c1[k] + c0[k], c1, c0 [K, 1, 1, w], PQ: the closed-form table as numpy.
    ``noise_coef``: the looped coordinates' noise coefficients; ``block``: they are one contiguous block.
    """
    if leaky is None or noise_coef is None or nb.device.type != "cpu" or nb.dtype != torch.float64 or not block:
        return None
    slope, scale = leaky
    A, B = scale, scale * slope
    if not (B > 0 and K * abs(math.log(B)) < 100 and math.isfinite(A)):
        return None
    inv = B ** -np.arange(1, K + 1, dtype=np.float64)[:, None, None, None]
    c1 = inv * noise_coef.numpy()
    c0 = inv * steps[1, 0].numpy()
    return c1, c0, A / B, B ** K, np.minimum if A <= B else np.maximum, PQ.numpy()


def _numpy_round(split: dict[str, Any], fast: tuple[Any, ...], x: torch.Tensor, idx: torch.Tensor, K: int,
                 gen: GaussianStream, width: int) -> torch.Tensor | None:
    """:func:`_split_sgd` without proximal term and correction, in numpy on CPU float64 (each
    ufunc on a few hundred values costs ~0.4 us, a torch operation 1-3 us); the same noise draws.
    None (nothing drawn) when the stream cannot hand out numpy views."""
    T, n = idx.shape
    z = gen.normal_np((K, T, n, width))
    if z is None:
        return None
    w, first = split["w"], split["first"]
    if width != 1:
        z = z[..., first:first + w]
    c1, c0, r, BK, ext, PQ = fast
    xn = x.numpy()
    g = PQ.take(idx.numpy().reshape(-1), axis=1)  # [2, T n, d]: s^K and (sum_k s^k) o of the clients
    d = PQ.shape[2]
    y = np.multiply(g[0].reshape(T, n, d), xn[:, None, :])
    y += g[1].reshape(T, n, d)
    off = np.multiply(z, c1)  # this round's own memory: the steps run in it
    off += c0
    v = xn[:, None, first:first + w]  # y_0 = x (broadcast over the n clients)
    tmp = np.empty(off.shape[1:])
    shapes = split["shapes"]
    if ("r", T, n) not in shapes:  # a same-shape factor: faster than a Python float operand
        shapes[("r", T, n)] = np.full(off.shape[1:], r)
    rr = shapes[("r", T, n)]
    for o in off:
        np.multiply(v, rr, out=tmp)
        ext(v, tmp, out=tmp)
        v = np.add(o, tmp, out=o)
    np.multiply(v, BK, out=y[..., first:first + w])
    return torch.from_numpy(y)


def _split_sgd(bound: Any, split: dict[str, Any], job: _Job) -> tuple[torch.Tensor, torch.Tensor | None]:
    """:func:`local_sgd` with the affine coordinates in closed form (:func:`_affine_split`) and the
    step loop only over the others; same noise draws (same stream, same shape) as the full loop."""
    x, idx, K, eta, gen = job.x, job.idx, job.K, job.eta, job.gen
    correction, mu_prox, keep_grad_sum = job.correction, job.mu_prox, job.keep_grad_sum
    fast = split["np"]
    if fast is not None and not mu_prox and correction is None and type(gen) is GaussianStream:
        yn = _numpy_round(split, fast, x, idx, K, gen, bound.noise_law[0])
        if yn is not None:
            return yn, (None if not keep_grad_sum else (x.unsqueeze(1) - yn).div_(eta))
    T, n = idx.shape
    flat = idx.reshape(-1)
    x_b = x.unsqueeze(1)
    y = None if split["all"] else _closed_form_part(split, x_b, flat, T, n, eta, correction, mu_prox)
    if split["w"]:
        yl = _looped_part(bound, split, job, x_b, flat)
        if y is None:
            y = yl
        else:
            y.index_copy_(2, split["L"], yl)  # (faster than a copy into a strided view)
    assert y is not None  # (set above: closed form, loop, or both)
    if not keep_grad_sum:
        return y, None
    gsum = (x_b - y).div_(eta)
    if correction is not None:
        gsum.sub_(correction, alpha=K)
    return y, gsum


def _closed_form_part(split: dict[str, Any], x_b: torch.Tensor, flat: torch.Tensor, T: int, n: int, eta: float,
                      correction: torch.Tensor | None, mu_prox: float) -> torch.Tensor:
    """The affine coordinates after K steps: y = P x + Q, with FedProx's pull and a control variate in Q."""
    d = x_b.shape[2]
    pq = split["PQ"].index_select(1, flat).view(2, T, n, d)
    P, Q = pq.select(0, 0), pq.select(0, 1)
    if mu_prox or correction is not None:
        S = split["S"].index_select(0, flat).view(T, n, d)
        nb = split["nb"].index_select(0, flat).view(T, n, d)
        if mu_prox:
            nb = nb.add(x_b, alpha=eta * mu_prox)
        if correction is not None:
            nb = nb.add(correction, alpha=-eta)
        Q = S * nb
    return torch.addcmul(Q, P, x_b)


def _looped_part(bound: Any, split: dict[str, Any], job: _Job, x_b: torch.Tensor, flat: torch.Tensor) -> torch.Tensor:
    """The coordinates that need the step loop (kinked or noisy): per-step offsets, then K steps."""
    (T, n), K, eta, gen, correction, mu_prox = job.idx.shape, job.K, job.eta, job.gen, job.correction, job.mu_prox
    w, L = split["w"], split["L"]
    shapes = split["shapes"]
    x_l = x_b.narrow(2, split["first"], w) if split["block"] else x_b.index_select(2, L)
    if split["uniform"]:  # same-shape operands take torch's fast path (broadcast ones do not)
        if (T, n) not in shapes:
            shapes[(T, n)] = split["loop"][:, :1].expand(2, T * n, w).reshape(2, T, n, w)
        shrink, nbl = shapes[(T, n)].unbind(0)
    elif split["shared"] is not None:  # one step factor for all clients: gather only -eta b
        shrink, nbl = split["shared"], split["loop"][1].index_select(0, flat).view(T, n, w)
    else:
        g = split["loop"].index_select(1, flat).view(2, T, n, w)
        shrink, nbl = g.select(0, 0), g.select(0, 1)
    if mu_prox:
        nbl = nbl.add(x_l, alpha=eta * mu_prox)
    if correction is not None:
        nbl = nbl.add(correction if split["all"] else correction.index_select(2, L), alpha=-eta)
    ncoef_noise = split["ncoef_noise"]
    if ncoef_noise is not None:
        width = bound.noise_law[0]
        shape = (K, T, n, width)
        if isinstance(gen, torch.Generator):
            z = torch.randn(shape, generator=gen, device=x_b.device, dtype=x_b.dtype)
        else:
            z = gen.normal(shape)
        if width != 1 and not split["all"]:
            z = z.index_select(3, L)
        offsets = torch.addcmul(nbl, z, ncoef_noise).unbind(0)
    else:
        offsets = (nbl,) * K
    return _steps(split, x_l, shrink, offsets, fresh=ncoef_noise is not None, T=T, n=n)


def _steps(split: dict[str, Any], yl: torch.Tensor, shrink: torch.Tensor, offsets: tuple[torch.Tensor, ...], *,
           fresh: bool, T: int, n: int) -> torch.Tensor:
    """K steps y <- shrink * y (+ kink) + offset_k. With ``fresh`` offsets (one tensor per step, from the
    noise draw) the steps run in place in the offsets' memory; a shared offset tensor is never written."""
    leaky, nl, shapes = split["leaky"], split["nl"], split["shapes"]
    if leaky is not None:
        slope, scale = leaky
        if not fresh:
            for off in offsets:
                yl = torch.add(off, torch.nn.functional.leaky_relu(yl, slope), alpha=scale)
        else:
            yl = offsets[0].add_(torch.nn.functional.leaky_relu(yl, slope), alpha=scale)
            for off in offsets[1:]:  # yl is the previous offset's memory from here on
                yl = off.add_(torch.nn.functional.leaky_relu_(yl, slope), alpha=scale)
    elif not fresh:
        for off in offsets:
            yl = torch.addcmul(off, shrink, yl) if nl is None else torch.addcmul(off, shrink, yl).addcmul_(nl[0], nl[1](yl))
    elif nl is None:
        for off in offsets:
            yl = off.addcmul_(shrink, yl)
    else:
        if ("nl", T, n) not in shapes:
            shapes[("nl", T, n)] = nl[0].expand(T, n, split["w"]).contiguous()
        ncoef, fn = shapes[("nl", T, n)], nl[1]
        for off in offsets:
            yl = off.addcmul_(shrink, yl).addcmul_(ncoef, fn(yl))
    return yl


def _draw(gen: Any, shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    """Standard normals of ``shape`` from the engine's stream or a torch.Generator (do not write to them)."""
    if isinstance(gen, torch.Generator):
        return torch.randn(shape, generator=gen, device=like.device, dtype=like.dtype)
    return gen.normal(shape)


def _reference_steps(bound: Any, job: _Job) -> tuple[torch.Tensor, torch.Tensor | None]:
    """:func:`local_sgd` for any problem: K steps y <- y - eta_k (g + correction + mu_prox (y - x)) with
    g = bound.grad(y, ctx) + z_k scale, batched over [T, n]; ``eta`` one number or K numbers.

    The noise of the round is drawn exactly as in the tabulated paths (one [K,T,n,width] request), so
    both give the same trajectories to rounding. Returns y_K and, if asked, sum_k g_k (raw gradients).
    """
    x, idx, K, eta, gen = job.x, job.idx, job.K, job.eta, job.gen
    correction, mu_prox, keep_grad_sum = job.correction, job.mu_prox, job.keep_grad_sum
    if isinstance(eta, (int, float)) or getattr(eta, "ndim", 1) == 0:
        etas = [float(eta)] * K
    else:
        etas = [float(e) for e in (eta.tolist() if hasattr(eta, "tolist") else eta)]
        if len(etas) != K:
            raise UserInputError(f"{len(etas)} step sizes given for K={K} local steps")
    T, n = idx.shape
    d = x.shape[1]
    ctx = bound.prepare(idx)
    width, scale = bound.noise_law
    z = None if scale is None else _draw(gen, (K, T, n, width), x)
    x_b = x.unsqueeze(1)
    y = x_b.expand(T, n, d)
    gsum = torch.zeros((T, n, d), device=x.device, dtype=x.dtype) if keep_grad_sum else None
    for k, eta_k in enumerate(etas):
        g = bound.grad(y, ctx)
        if z is not None:
            g.addcmul_(z[k], scale)
        if gsum is not None:
            gsum.add_(g)
        if correction is not None:
            g.add_(correction)
        if mu_prox:
            g.add_(y - x_b, alpha=mu_prox)
        y = y.sub(g, alpha=eta_k)
    return y, gsum
