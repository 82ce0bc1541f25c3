"""Declared round maps of the state-x methods (FedAvg, FedProx, FAST with these bases, Amplified FedAvg) in
closed form, in torch (differentiable in the problem's and the algorithm's numbers).

**Setting**: client gradients A_i y + h_i + xi (:class:`quadratics.exact.declare.AffineGradients`), constant
local step eta, K local steps, proximal weight mu, server step eta_g, amplification gamma over windows of P.
**Algorithm**: one local step is y <- S_i y + eta mu x - eta h_i - eta xi with S_i = I - eta (A_i + mu I), so
after K steps y_K = P_i x + o_i + n_i with P_i = S_i^K + eta mu Sigma_i, Sigma_i = sum_{k<K} S_i^k,
o_i = -eta Sigma_i h_i and n_i = -eta sum_k S_i^(K-1-k) xi_k of covariance eta^2 sum_k S_i^k C S_i^kT.
The server step x' = x + eta_g sum_i q_i (y_i - x) is affine in the features: on e = x - x*, the weight
q_i multiplies B_i = eta_g (P_i - I) and c_i = eta_g ((P_i - I) x* + o_i); the indicators enter nowhere.
Amplified FedAvg keeps an anchor: at a window's last round x <- anchor + gamma (x' - anchor), anchor <- x.
**Notation**: F = 1 + 2M features (constant, q_i, 1_i); D = d (x) or 2d (x, anchor).
"""

from __future__ import annotations

from typing import Any

import torch

from .declare import AffineGradients, DiagonalCoefficients, RoundCoefficients, RoundMap
from .moments import one_torch_thread


def off_diagonal_zero(t: torch.Tensor | None) -> bool:
    """True when every matrix of ``t`` [..., d, d] has exact zeros off its diagonal (None: True). A client axis
    broadcast by ``expand`` (stride 0) is read once, so a shared [d, d] matrix is never copied M times."""
    if t is None:
        return True
    while t.dim() > 2 and (t.stride(0) == 0 or t.shape[0] == 1):
        t = t[0]
    if t.numel() == 0:
        return True
    return int(torch.count_nonzero(t)) == int(torch.count_nonzero(torch.diagonal(t, dim1=-2, dim2=-1)))


def diagonal_of(t: torch.Tensor) -> torch.Tensor:
    """The diagonals [..., d] of ``t`` [..., d, d] (a view: an expanded client axis stays unexpanded)."""
    return torch.diagonal(t, dim1=-2, dim2=-1)


def local_steps(g: AffineGradients, eta: float, K: int, mu: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """(P [M,d,d], o [M,d], cov [M,d,d] or None) of K local steps from x (see the module docstring).

    Symmetric A_i (every Hessian) are worked in their eigenbasis A_i = Q_i diag(a_i) Q_i^T: S_i^k is then
    diag(s_i^k) and the sums over k are elementwise geometric sums, O(M d^3 + log(K) M d^2) (measured: 2.7 s for
    K = 64 batched 10 x 10 products at M = 1,000 against 0.05 s); diagonal A_i skip the eigendecomposition (Q = I); other
    A_i take the K batched products."""
    M, d = g.h.shape
    A = g.A
    eye = torch.eye(d, dtype=A.dtype)
    diagonal = bool((A * (1 - eye)).abs().max() == 0) if A.numel() else True
    if not diagonal and not bool(torch.allclose(A, A.transpose(1, 2), rtol=0, atol=0)):
        return _local_steps_by_products(g, eta, K, mu)
    if diagonal:
        a, Q = torch.diagonal(A, dim1=1, dim2=2), None
    else:
        a, Q = torch.linalg.eigh(A)
    s = 1 - eta * (a + mu)                                   # [M, d]
    total, sK = geometric(s, K)                               # sum_{k<K} s^k and s^K, elementwise
    Pd = sK + eta * mu * total
    C = g.noise_cov
    cov = None
    if C is not None:
        Cq = C.expand(M, d, d) if Q is None else Q.transpose(1, 2) @ C @ Q
        cov = eta**2 * Cq * geometric(s[:, :, None] * s[:, None, :], K)[0]
    if Q is None:
        P = torch.diag_embed(Pd)
        o = -eta * total * g.h
    else:
        P = Q @ torch.diag_embed(Pd) @ Q.transpose(1, 2)
        o = -eta * (Q @ (total * (Q.transpose(1, 2) @ g.h[..., None])[..., 0])[..., None])[..., 0]
        if cov is not None:
            cov = Q @ cov @ Q.transpose(1, 2)
    return P, o, cov


def geometric(r: torch.Tensor, K: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(sum_{k<K} r^k, r^K) elementwise by binary doubling over the bits of K: S(2n) = S(n) (1 + r^n),
    S(n + 1) = S(n) + r^n; O(log K) products of the operand's size (never K powers in memory), each term a
    product of at most 2 log2(K) roundings."""
    S, P = torch.zeros_like(r), torch.ones_like(r)
    for bit in bin(int(K))[2:]:
        S, P = S * (1 + P), P * P
        if bit == "1":
            S, P = S + P, P * r
    return S, P


def _local_steps_by_products(g: AffineGradients, eta: float, K: int,
                             mu: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """:func:`local_steps` for any A_i: K batched d x d products."""
    M, d = g.h.shape
    eye = torch.eye(d, dtype=g.A.dtype).expand(M, d, d)
    S = eye - eta * (g.A + mu * eye)
    power, total = eye.clone(), torch.zeros_like(g.A)
    C = g.noise_cov
    cov = None if C is None else torch.zeros_like(g.A)
    for _ in range(K):
        total = total + power
        if cov is not None and C is not None:
            cov = cov + power @ C @ power.transpose(1, 2)
        power = S @ power
    P = power + eta * mu * total
    o = -eta * (total @ g.h[..., None])[..., 0]
    return P, o, None if cov is None else eta**2 * cov


def state_x_round_map(problem: Any, eta: float, K: int, eta_g: float, mu: float = 0.0, gamma: float = 1.0,
                      P: int = 1) -> RoundMap | str:
    """The declared round of FedAvg / FedProx (mu > 0) / Amplified FedAvg (gamma != 1, window P) on
    ``problem``, or why there is none (the problem declares no affine client gradients).

    The coefficients are computed when first asked for (the exact path first checks the state's size), on one
    torch thread: these are many small operations, and on a loaded 2-core machine torch's threads wait for each
    other (measured: torch.abs over 2e5 numbers 18 ms on two threads at load 13)."""
    g = problem.affine_gradients() if hasattr(problem, "affine_gradients") else None
    if g is None:
        return (f"problem {getattr(problem, 'name', type(problem).__name__)!r} declares no affine client gradients "
                "(Problem.affine_gradients)")
    d = int(g.h.shape[1])
    xs = torch.as_tensor(problem.x_star, dtype=torch.float64)
    x0 = torch.as_tensor(problem.x0, dtype=torch.float64)
    cache: dict[bool, RoundCoefficients] = {}

    def coefficients(r: int) -> RoundCoefficients:
        if not cache:
            with one_torch_thread():
                cache.update(_coefficients(g, xs, float(eta), int(K), float(eta_g), float(mu), float(gamma)))
        return cache[gamma != 1.0 and (r + 1) % P == 0]

    name = "FedProx" if mu else "FedAvg"
    if gamma == 1.0:
        diagonal = None
        if off_diagonal_zero(g.A) and off_diagonal_zero(g.noise_cov):
            diag_cache: list[DiagonalCoefficients] = []

            def diagonal(r: int) -> DiagonalCoefficients:
                if not diag_cache:
                    with one_torch_thread():
                        diag_cache.append(_diagonal_coefficients(g, xs, float(eta), int(K), float(eta_g), float(mu)))
                return diag_cache[0]
        return RoundMap((("x", d),), x0, xs.clone(), coefficients, describe=f"{name} round (closed form)",
                        diagonal=diagonal)
    return RoundMap((("x", d), ("anchor", d)), torch.cat([x0, x0]), torch.cat([xs, xs]), coefficients,
                    lambda r: (r + 1) % P == 0, int(P), f"Amplified {name} (window {P}, gamma {gamma:g}; closed form)")


def _coefficients(g: AffineGradients, xs: torch.Tensor, eta: float, K: int, eta_g: float, mu: float,
                  gamma: float) -> dict[bool, RoundCoefficients]:
    """{False: a plain round (inside a window), True: a window's last round} (the same when gamma = 1)."""
    M, d = g.h.shape
    Pm, o, cov = local_steps(g, eta, K, mu)
    eye = torch.eye(d, dtype=torch.float64)
    Bi = eta_g * (Pm - eye)                                  # [M, d, d]
    ci = eta_g * ((Pm - eye) @ xs + o)
    zeros = torch.zeros((M, d, d), dtype=torch.float64)
    B = torch.cat([eye[None], Bi, zeros])                    # [F, d, d]
    c = torch.cat([torch.zeros((1, d), dtype=torch.float64), ci, torch.zeros((M, d), dtype=torch.float64)])
    noise = None
    if cov is not None:
        noise = torch.zeros((M, 2, 2, d, d), dtype=torch.float64)
        noise[:, 0, 0] = eta_g**2 * cov
    scale = float(max(1.0, B.abs().max(), c.abs().max(), xs.abs().max() if xs.numel() else 0.0,
                      0.0 if cov is None else cov.abs().max()))
    terms = K * (d + 4) + 16
    if gamma == 1.0:
        plain = RoundCoefficients(B, c, noise, scale, terms, structural_zeros=True)
        return {False: plain, True: plain}
    # (x, anchor): inside a window the anchor stays; at its last round both become anchor + gamma (x' - anchor)
    inner = _blocks(B, c, noise, [[1.0, 0.0], [0.0, 0.0]], anchor_keep=True)
    last = _blocks(B, c, noise, [[gamma, 0.0], [gamma, 0.0]], anchor_keep=False, gamma=gamma)
    return {False: RoundCoefficients(*inner, scale, terms, structural_zeros=True),
            True: RoundCoefficients(*last, scale * max(1.0, abs(gamma), abs(1 - gamma)), terms + 4,
                                    structural_zeros=True)}


def _diagonal_coefficients(g: AffineGradients, xs: torch.Tensor, eta: float, K: int, eta_g: float,
                           mu: float) -> DiagonalCoefficients:
    """:func:`_coefficients` of a plain round where every A_i and the noise covariance are diagonal: the same
    formulas elementwise (S_i = diag(1 - eta (a_i + mu)), its sums over k elementwise geometric sums), O(M d)."""
    M, d = g.h.shape
    a = diagonal_of(g.A)                                         # [M, d] (a view where A is expanded)
    if M > 1 and a.stride(0) == 0:  # one Hessian shared by every client: its sums once, broadcast over clients
        a = a[:1]
    s = 1 - eta * (a + mu)
    total, sK = geometric(s, K)
    Bi = (eta_g * (sK + eta * mu * total - 1)).expand(M, d)      # [M, d]
    ci = Bi * xs - eta_g * eta * total * g.h
    zeros = torch.zeros((M, d), dtype=torch.float64)
    B = torch.cat([torch.ones((1, d), dtype=torch.float64), Bi, zeros])
    c = torch.cat([torch.zeros((1, d), dtype=torch.float64), ci, zeros])
    noise = None
    if g.noise_cov is not None:
        var = eta**2 * diagonal_of(g.noise_cov) * geometric(s * s, K)[0]   # [M, d]
        noise = torch.zeros((M, 2, 2, d), dtype=torch.float64)
        noise[:, 0, 0] = eta_g**2 * var
    scale = float(max(1.0, B.abs().max(), c.abs().max(), xs.abs().max() if xs.numel() else 0.0,
                      0.0 if noise is None else noise.abs().max()))
    # elementwise: each coefficient is a product and sum of O(K) numbers of one coordinate (no d-term dot product)
    return DiagonalCoefficients(B, c, noise, scale, K * 5 + 16, structural_zeros=True)


def _blocks(B: torch.Tensor, c: torch.Tensor, noise: torch.Tensor | None, mix: list[list[float]], *,
            anchor_keep: bool, gamma: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Lift the x-round (B, c, noise) to the state (x, anchor): new block a = sum_b mix[a][b'] ... (see callers).

    Inside a window: x' = x-round(x), anchor' = anchor. At its end: x'' = (1 - gamma) anchor + gamma x-round(x)
    and anchor' = x''."""
    F, d, _ = B.shape
    eye = torch.eye(d, dtype=B.dtype)
    B2 = torch.zeros((F, 2 * d, 2 * d), dtype=B.dtype)
    c2 = torch.zeros((F, 2 * d), dtype=B.dtype)
    rows = (0, 1) if not anchor_keep else (0,)
    for a in rows:
        w = mix[a][0]
        B2[:, a * d:(a + 1) * d, :d] = w * B
        c2[:, a * d:(a + 1) * d] = w * c
    if anchor_keep:
        B2[0, d:, d:] = eye
    else:
        for a in (0, 1):
            B2[0, a * d:(a + 1) * d, d:] = (1 - gamma) * eye
    n2 = None
    if noise is not None:
        M = noise.shape[0]
        n2 = torch.zeros((M, 2, 2, 2 * d, 2 * d), dtype=B.dtype)
        for a in rows:
            for b in rows:
                n2[:, :, :, a * d:(a + 1) * d, b * d:(b + 1) * d] = mix[a][0] * mix[b][0] * noise
    return B2, c2, n2
