"""The round of an algorithm as affine maps, read from the engine's own round function.

**Why probing**: the exact recursion must follow the very step the simulator runs (FedAvg, FedProx,
SCAFFOLD's control variates, F3AST's weights, the amplified window, step schedules). Every supported
round is affine in the state for a fixed participation and noise, and affine in the client features
u = (q_i, 1{q_i > 0}); so running ``algorithm.round`` once on a batch of probe states (a reference
state and its unit perturbations), probe weights (nobody; client i with weight 1 and 2) and unit noise
vectors gives every coefficient: the state map is

    z' - z_ref = (A_0 + sum_i q_i X_i + 1_i Y_i) (z - z_ref) + (c_0 + sum_i q_i cx_i + 1_i cy_i)
                 + sum_i (q_i NX_i + 1_i NY_i) xi_i

with xi_i the standard normal draws of client i's local steps. A multi-client probe checks that the
round is indeed additive over clients (else the algorithm is declined).
**State**: the algorithm's state dict flattened in key order (``x`` first), without the control-variate
accumulators that every P = 1 round leaves at zero; z_ref = x* for ``x`` and ``anchor``, 0 elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .declare import RoundCoefficients, RoundMap

# per-window accumulators of the control variates: zero at every round boundary when the window is one round
_ACCUMULATORS = ("sum_w", "sum_wg")


@dataclass(frozen=True)
class RoundMaps:
    """Coefficients of one round (all float64 numpy): B [F, D, D], c [F, D] with features
    f = 0 (constant), 1..M (q_i), M+1..2M (1_i); noise N [F, D, J] (J = K x width standard normals
    per client); ``scale``: magnitude of the probe's outputs (for the rounding bound)."""

    B: np.ndarray
    c: np.ndarray
    N: np.ndarray
    scale: float


class _Layout:
    """Flattening of the algorithm's state dict (per trial) into one vector z."""

    def __init__(self, state: dict[str, torch.Tensor], skip: tuple[str, ...]):
        self.keys = sorted(k for k in state if k not in skip)
        self.keys.sort(key=lambda k: k != "x")
        self.shapes = {k: tuple(state[k].shape[1:]) for k in state}
        self.sizes = [int(np.prod(self.shapes[k])) for k in self.keys]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(int)
        self.D = int(self.offsets[-1])
        self.skip = skip

    def unflatten(self, z: torch.Tensor) -> dict[str, torch.Tensor]:
        T = z.shape[0]
        out = {k: z[:, a:b].reshape((T,) + self.shapes[k]).clone()
               for k, a, b in zip(self.keys, self.offsets[:-1], self.offsets[1:])}
        for k in self.skip:
            out[k] = z.new_zeros((T,) + self.shapes[k])
        return out

    def flatten(self, state: dict[str, torch.Tensor]) -> torch.Tensor:
        T = state["x"].shape[0]
        for k in self.skip:
            if k in state and bool((state[k] != 0).any()):
                raise _Declined(f"state {k!r} does not return to zero after a round")
        return torch.cat([state[k].reshape(T, -1) for k in self.keys], 1)

    def block(self, key: str) -> slice:
        j = self.keys.index(key)
        return slice(int(self.offsets[j]), int(self.offsets[j + 1]))


class _Declined(Exception):
    pass


class _TooLarge(_Declined):
    """Declined for the dense moment recursion's size alone (another route may still apply)."""



class Remembered:
    """The last ``size`` answers of one question about (problem, algorithm, pattern), by the objects' identity:
    the value, or the _Declined reason, which is raised again. Why identity: a law's ``aux`` and the objects may
    hold arrays, so they are not compared; the entries hold the objects, so an identity is never reused while
    remembered. Why remembered: one search point asks the same question of the same objects several times."""

    def __init__(self, size: int):
        self.size = size
        self.entries: list[tuple[tuple[Any, ...], Any]] = []

    def get(self, objects: tuple[Any, ...], answer: Callable[[], Any]) -> Any:
        got = next((g for key, g in self.entries
                    if len(key) == len(objects) and all(a is b for a, b in zip(key, objects))), None)
        if got is None:
            try:
                got = answer()
            except _Declined as e:  # the decline of its own type (_TooLarge stays _TooLarge)
                got = e
            self.entries.insert(0, (objects, got))
            del self.entries[self.size:]
        if isinstance(got, _Declined):
            raise type(got)(*got.args)
        return got


class _FixedNormals:
    """Stands in for the engine's Gaussian stream: hands out a preset tensor of 'standard normals'."""

    def __init__(self, z: torch.Tensor | None):
        self.z = z
        self.calls = 0

    def normal(self, shape: tuple[int, ...]) -> torch.Tensor:
        self.calls += 1
        if self.z is None or tuple(self.z.shape) != tuple(shape):
            raise _Declined(f"the round drew noise of shape {tuple(shape)}, not one [K, T, n, width] request")
        return self.z


class Prober:
    """Round maps of ``algorithm`` on ``problem`` (cached per algorithm phase)."""

    def __init__(self, problem: Any, algorithm: Any, aux: dict):
        self.problem, self.algorithm, self.aux = problem, algorithm, dict(aux)
        self.bound = problem.bind(torch.device("cpu"), torch.float64)
        self.M, self.d, self.K = int(problem.M), int(problem.d), int(algorithm.K)
        x0 = torch.as_tensor(problem.x0, dtype=torch.float64).reshape(1, -1)
        init = algorithm.init(self.bound, x0, self.M)
        skip = tuple(k for k in _ACCUMULATORS if k in init)
        self.layout = _Layout(init, skip)
        self.D = self.layout.D
        ref = np.zeros(self.D)
        x_star = np.asarray(problem.x_star, dtype=float)
        for key in ("x", "anchor"):
            if key in self.layout.keys:
                ref[self.layout.block(key)] = x_star
        self.z_ref = ref
        self.z0 = self.layout.flatten(init).numpy()[0].copy()
        width, scale = self.bound.noise_law
        self.width = int(width) if scale is not None else 0
        self.J = self.K * self.width
        params = dict(algorithm.params)
        self.window = int(params.get("P") or 1)
        self.scheduled = not isinstance(params.get("eta"), (int, float))
        self._cache: dict[Any, RoundMaps] = {}

    def phase(self, r: int) -> Any:
        """Rounds with the same phase have the same maps: the schedule's round, else the window position."""
        if self.scheduled:
            return r
        return (r + 1) % self.window == 0

    def maps(self, r: int) -> RoundMaps:
        key = self.phase(r)
        if key not in self._cache:
            self._cache[key] = self._probe(r)
        return self._cache[key]

    def _run(self, q: np.ndarray, z: np.ndarray, noise: np.ndarray | None, r: int) -> np.ndarray:
        state = self.layout.unflatten(torch.as_tensor(z, dtype=torch.float64))
        gen = _FixedNormals(None if noise is None else torch.as_tensor(noise, dtype=torch.float64))
        with torch.inference_mode():
            new = self.algorithm.round(state, self.bound, torch.as_tensor(q, dtype=torch.float64), r, gen,
                                       dict(self.aux))
        return self.layout.flatten(new).numpy()

    def _probe(self, r: int) -> RoundMaps:
        M, D, J, K, W = self.M, self.D, self.J, self.K, self.width
        configs = [np.zeros(M)] + [np.eye(M)[i] * w for w in (1.0, 2.0) for i in range(M)]
        nc, per = len(configs), D + 1 + J
        q = np.repeat(np.stack(configs), per, axis=0)
        z = np.tile(np.vstack([self.z_ref, self.z_ref + np.eye(D), np.tile(self.z_ref, (J, 1))]), (nc, 1))
        noise = None
        if W:
            noise = np.zeros((K, nc * per, 1, W))
            rows = (np.arange(nc)[:, None] * per + D + 1 + np.arange(J)[None, :]).reshape(-1)
            kk, jj = np.divmod(np.tile(np.arange(J), nc), W)
            noise[kk, rows, 0, jj] = 1.0
        out = self._run(q, z, noise, r).reshape(nc, per, D)
        base = out[:, 0]                                        # [nc, D]
        B = (out[:, 1:D + 1] - base[:, None, :]).transpose(0, 2, 1)   # [nc, D, D] columns
        N = (out[:, D + 1:] - base[:, None, :]).transpose(0, 2, 1)    # [nc, D, J]
        c = base - self.z_ref
        A0, B1, B2 = B[0], B[1:M + 1], B[M + 1:]
        c0, c1, c2 = c[0], c[1:M + 1], c[M + 1:]
        N0, N1, N2 = N[0], N[1:M + 1], N[M + 1:]
        if np.abs(N0).max(initial=0.0) > 0:
            raise _Declined("noise reaches the state in a round without participants")
        Bf = np.concatenate([A0[None], B2 - B1, 2 * B1 - B2 - A0[None]])
        cf = np.concatenate([c0[None], c2 - c1, 2 * c1 - c2 - c0[None]])
        Nf = np.concatenate([N0[None], N2 - N1, 2 * N1 - N2])
        scale = float(max(1.0, np.abs(out).max(), np.abs(self.z_ref).max(initial=0.0)))
        maps = RoundMaps(Bf, cf, Nf, scale)
        self._check_additive(maps, r)
        return maps

    def _check_additive(self, maps: RoundMaps, r: int) -> None:
        """One round with three clients of unequal weights must equal the sum of the single-client parts."""
        M, D = self.M, self.D
        if M < 2:
            return
        picked = np.arange(min(3, M))
        q = np.zeros(M)
        q[picked] = (0.5, 0.3, 0.2)[:picked.size]
        u = np.concatenate([[1.0], q, (q > 0).astype(float)])
        rng = np.random.default_rng(0)
        e = rng.standard_normal(D)
        want = np.einsum("f,fij,j->i", u, maps.B, e) + u @ maps.c
        got = self._run(q[None], (self.z_ref + e)[None], None if not self.width else
                        np.zeros((self.K, 1, picked.size, self.width)), r)[0] - self.z_ref
        tol = 1e-9 * maps.scale * (1 + np.abs(e).max())
        if np.abs(got - want).max() > tol:
            raise _Declined(f"the round of {self.algorithm.name!r} is not additive over clients "
                            f"(deviation {np.abs(got - want).max():.3g}); its participation enters non-affinely")


def probed_round_map(algorithm: Any, problem: Any, aux: dict) -> RoundMap | str:
    """A declaration helper: the round of ``algorithm`` as a :class:`RoundMap` read off its own ``round``
    function at probe points, for an algorithm that knows its round is affine in its state and in the client
    features (its ``linear`` calls this; the additivity over clients is checked, never assumed). The string
    says why not (the problem declares no affine gradients, or the probe finds the round not additive)."""
    if getattr(problem, "affine_gradients", lambda: None)() is None:
        return (f"problem {getattr(problem, 'name', type(problem).__name__)!r} declares no affine client gradients "
                "(Problem.affine_gradients)")
    try:
        prober = Prober(problem, algorithm, aux)  # (probes when a round's coefficients are first asked for)
    except _Declined as e:
        return str(e)
    M = prober.M
    cache: dict[Any, RoundCoefficients] = {}

    def coefficients(r: int) -> RoundCoefficients:
        key = prober.phase(r)
        if key not in cache:
            try:
                maps = prober.maps(r)
            except _Declined as e:
                raise DeclarationError(str(e)) from None
            N = maps.N
            noise = None
            if N.shape[2]:
                parts = np.stack([N[1:M + 1], N[M + 1:]], 1)  # [M, 2, D, J]
                noise = torch.from_numpy(np.einsum("iadj,ibej->iabde", parts, parts))
            cache[key] = RoundCoefficients(torch.from_numpy(maps.B), torch.from_numpy(maps.c), noise, maps.scale,
                                           prober.K * (prober.d + 4) + 16)
        return cache[key]

    layout = tuple((k, int(n)) for k, n in zip(prober.layout.keys, prober.layout.sizes))
    return RoundMap(layout, torch.from_numpy(prober.z0), torch.from_numpy(prober.z_ref), coefficients,
                    prober.phase, None if prober.scheduled else prober.window,
                    f"{algorithm.name} round (probed)")


class DeclarationError(Exception):
    """A declared round map that fails when asked for a round's coefficients (its reason)."""
