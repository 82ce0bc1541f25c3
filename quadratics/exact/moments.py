"""The moment recursion of an affine round with random coefficients, its powers, and their rounding bound.

**Setting**: e = z - z_ref (the state centred at the optimum's reference); one round
e' = B(u) e + c(u) + N(u) xi with B(u) = sum_f u_f B_f, c(u) = sum_f u_f c_f (u_0 = 1), u the client
features (independent of the state and of xi ~ N(0, I)) and noise N(u) = sum_i (q_i NX_i + 1_i NY_i) xi_i.
**Statement**: with m = E e and S = E e e^T, and Mu = E[u u^T] (so Mu[0, f] = E u_f),
  m' = sum_f Mu[0, f] (B_f m + c_f),
  S' = sum_{f,g} Mu[f, g] (B_f S B_g^T + B_f m c_g^T + c_f m^T B_g^T + c_f c_g^T) + sum_i E[n_i n_i^T],
exactly (the expectation of a product of independent factors). On v = (1, m, vech S) this is one
matrix T of size 1 + D + D(D+1)/2; metrics (dist_sq, gap, grad_sq of x) are linear in vech S. Three
accumulators a' = a + Lmetrics v' ride along, so one augmented matrix G advances moments and running
sums; R rounds of a law of period P are G_{P-1}...G_0 raised to the power R // P by repeated squaring
(log2 R products) and the remaining rounds.
**Rounding bound**: every matrix carries an entrywise bound E >= |exact - computed|, propagated to first
order with absolute-value arithmetic (Higham, Accuracy and Stability, 2nd ed., §3.5): a product
C = fl(A B) gets |A| E_B + E_A |B| + E_A E_B + gamma_n |A| |B| with gamma_n = n u / (1 - n u), u = 2^-53.
The seed: each probed coefficient is uncertain by ``probe_rel`` x the probe's output scale (K local
steps of d-term dot products: gamma_{K (d + 4) + 16}), the law's moments by ``law.rel_err`` relative,
and the assembly sums by gamma_{F + 4}. The bound is first order (it drops products of two
rounding errors except E_A E_B). Along repeated squaring it grows like |T^k| (the computed powers), along
a chain of single rounds like |T|^k, which explodes where T mixes signs (SCAFFOLD: 4e77 after 1000 single
rounds against 3e-11 by squaring), so every run of equal rounds is squared, never chained.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

U = 2.0**-53


#: Orders from which a product goes to CUDA when torch sees a GPU. Measured (tests/benchmarks/bench_exact_gpu.py,
#: H100, copies included, G^(10^6) by squaring with the bound carried): order 193 1.2x, 600 4.3x, 1,503 7.4x
#: faster than the host CPU; order 69 4x slower (launch and copy costs dominate).
CUDA_MIN_ORDER = 400


#: Products of at most this much work (rows x inner x columns of one matrix) stay in numpy; larger ones go to torch.
NUMPY_MAX_WORK = 2_000_000


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float64 matrix product: numpy for small operands, torch on one thread for large ones, CUDA for the
    largest when a GPU is present (its float64 products obey the same gamma_n model: the bound holds for any
    order of summation, and fused multiply-adds only round less).

    Measured on this 2-core machine: 48 x 48, numpy 17 us, torch 43 us on one thread and 2.5 ms on two
    threads at load 10 (its threads wait for each other); 300 x 300, torch 2.3 ms on one thread, numpy's
    OpenBLAS 3.3 ms single-threaded and ~3x slower with its own threads competing."""
    with np.errstate(over="ignore", invalid="ignore"):  # a diverging recursion overflows: its callers say so
        return _product(a, b)


def _product(a: np.ndarray, b: np.ndarray, lead: int = 0) -> np.ndarray:
    """:func:`_mm` without its ``errstate``, for callers that enter it once around several products (entering
    it costs about 2.5 us, as much as a product of the small matrices the recursions multiply). ``lead``: leading
    axes that stack independent recursions (one per trial); they do not count toward the size that chooses the
    library, so each stacked product is computed as it would be alone."""
    if a.shape[lead] * a.shape[lead + 1] * b.shape[-1] < NUMPY_MAX_WORK:
        return a @ b
    ta, tb = torch.from_numpy(np.ascontiguousarray(a)), torch.from_numpy(np.ascontiguousarray(b))
    if min(a.shape[lead], a.shape[lead + 1]) >= CUDA_MIN_ORDER and torch.cuda.is_available():
        return (ta.cuda() @ tb.cuda()).cpu().numpy()
    with one_torch_thread():
        return (ta @ tb).numpy()


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch's intra-op threads set to one inside the block, restored after it. Why: the exact path's torch work
    (its large products, the declared rounds' coefficients, the check of a round against the engine) is small
    operations whose threads wait for each other (measured: see :func:`_mm`)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def gamma(n: int) -> float:
    return n * U / (1 - n * U)


def vech_index(D: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(D)


@dataclass
class Tracked:
    """A matrix (or vector) with its entrywise rounding bound; ``lead`` leading axes stack independent ones (one
    per trial: :meth:`quadratics.exact.plan._Plan.stack`)."""

    val: np.ndarray
    err: np.ndarray
    lead: int = 0

    def __matmul__(self, other: Tracked) -> Tracked:
        a, b = self.val, other.val
        n = a.shape[-1]
        k = max(self.lead, other.lead)
        aa, ab = np.abs(a), np.abs(b)
        with np.errstate(over="ignore", invalid="ignore"):  # as in _mm, entered once for the five products
            p1, p2, p3, p4, val = (_product(aa, other.err, k), _product(self.err, ab, k),
                                   _product(self.err, other.err, k), _product(aa, ab, k), _product(a, b, k))
        err = p1 + p2 + p3 + gamma(n) * p4
        return Tracked(val, err * (1 + 4 * U), k)



def assemble(B: np.ndarray, c: np.ndarray, noise: np.ndarray | None, Eu: np.ndarray, pairs: Any) -> np.ndarray:
    """The moment matrix T on v = (1, m, vech S) (see the module docstring); B [F,D,D], c [F,D], noise
    [M,2,2,D,D] per-client covariance blocks or None, Eu [2M] and pairs (a ``Pairwise``: E[u u^T] of the
    2M client features). Cost O(F r D^2 + F D^4) for a law of rank r: no F x F matrix is formed."""
    F, D = c.shape
    iu, ju = vech_index(D)
    nS = iu.size
    # C_f = sum_g Mu[f,g] B_g with Mu = [[1, Eu^T], [Eu, Euu]] (u_0 = 1)
    Bc = B[1:].reshape(F - 1, -1)
    C = np.empty_like(B)
    C[0] = B[0] + (Eu @ Bc).reshape(D, D)
    C[1:] = (Eu[:, None] * B[0].reshape(1, -1) + pairs.apply(Bc)).reshape(F - 1, D, D)
    cm = np.empty_like(c)
    cm[0] = c[0] + Eu @ c[1:]
    cm[1:] = Eu[:, None] * c[0][None, :] + pairs.apply(c[1:])
    A_mean, c_mean = C[0], cm[0]
    # only features with a nonzero coefficient contribute below (FedAvg's indicators enter nowhere)
    on = np.flatnonzero(np.abs(B).reshape(F, -1).max(1) + np.abs(c).max(1) > 0)
    B, C, c, cm = B[on], C[on], c[on], cm[on]
    # S' from S: sum_fg Mu_fg B_f[i,k] B_g[j,l] S[k,l] as one product over the features: [D^2, D^2]
    Bt = np.ascontiguousarray(B.reshape(on.size, D * D).T)
    full = _mm(Bt, C.reshape(on.size, D * D)).reshape(D, D, D, D).transpose(0, 2, 1, 3)
    op = full[iu, ju]                                 # [nS, D, D]
    opS = op[:, iu, ju] + np.where(iu != ju, op[:, ju, iu], 0.0)
    # S' from m: sum_fg Mu_fg (B_f[i,k] c_g[j] + c_f[i] B_g[j,k])
    H = _mm(Bt, cm).reshape(D, D, D).transpose(0, 2, 1)
    opm = (H + H.transpose(1, 0, 2))[iu, ju]
    const = _mm(np.ascontiguousarray(c.T), cm)
    if noise is not None:  # client i's noise enters with its own features (q_i, 1_i): the same-client blocks
        const = const + (pairs.same.reshape(-1) @ noise.reshape(-1, D * D)).reshape(D, D)
    n = 1 + D + nS
    T = np.zeros((n, n))
    T[0, 0] = 1.0
    T[1:1 + D, 0], T[1:1 + D, 1:1 + D] = c_mean, A_mean
    T[1 + D:, 0] = const[iu, ju]
    T[1 + D:, 1:1 + D], T[1 + D:, 1 + D:] = opm, opS
    return T


def form_rows(D: int, x_block: slice, forms: list[tuple[np.ndarray, np.ndarray, float]]) -> np.ndarray:
    """Rows L [len(forms), 1 + D + nS] with L v = E[e_x^T Q e_x + c^T e_x + s] for each form (Q, c, s)."""
    iu, ju = vech_index(D)
    n = 1 + D + iu.size
    L = np.zeros((len(forms), n))
    for row, (Q, cv, s) in enumerate(forms):
        full = np.zeros((D, D))
        full[x_block, x_block] = np.asarray(Q, dtype=float)
        L[row, 0] = float(s)
        L[row, 1 + x_block.start:1 + x_block.stop] = np.asarray(cv, dtype=float)
        L[row, 1 + D:] = np.where(iu == ju, full[iu, ju], full[iu, ju] + full[ju, iu])
    return L


def augmented(T: Tracked, L: np.ndarray) -> Tracked:
    """G = [[T, 0], [L T, I]]: v' = T v and a' = a + L v' (one running sum per row of L)."""
    n = T.val.shape[0]
    LT = L @ T.val
    LTe = np.abs(L) @ T.err + gamma(n) * (np.abs(L) @ np.abs(T.val))
    k = L.shape[0]
    G = np.zeros((n + k, n + k))
    E = np.zeros_like(G)
    G[:n, :n], G[n:, :n], G[n:, n:] = T.val, LT, np.eye(k)
    E[:n, :n], E[n:, :n] = T.err, LTe
    return Tracked(G, E)


def power_apply(G: Tracked, k: int, v: Tracked) -> Tracked:
    """G^k v by repeated squaring (the set bits of k), with the bound carried."""
    P = G
    while k:
        if k & 1:
            v = matvec(P, v)
        k >>= 1
        if k:
            P = P @ P
    return v


def matrix_power(G: Tracked, k: int) -> Tracked:
    """G^k (k >= 1) by repeated squaring, with the bound carried."""
    out: Tracked | None = None
    P = G
    while k:
        if k & 1:
            out = P if out is None else P @ out
        k >>= 1
        if k:
            P = P @ P
    assert out is not None
    return out


def matvec(A: Tracked, v: Tracked) -> Tracked:
    """A v with the bound carried (batched: A [..., n, n], v [..., n])."""
    w = Tracked(v.val[..., None], v.err[..., None], v.lead)
    out = A @ w
    return Tracked(out.val[..., 0], out.err[..., 0], out.lead)
