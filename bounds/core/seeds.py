"""The one seed rule: named random streams of a base seed, as ``numpy.random.SeedSequence`` spawn keys.

**Rule**: stream ``name`` of base seed ``s``, further keyed by integers ``k1, k2, ...`` (a round, a
client block, a check's position), is ``SeedSequence(s, spawn_key=(STREAMS[name], k1, k2, ...))``.
Why: spawn keys give statistically independent streams by construction (numpy's guarantee for
distinct keys of one entropy), so

* two base seeds never share a stream (the entropy differs: seeds 0 and 1 are unrelated, unlike
  ``seed + offset``, where seed 0's second run was seed 1's first);
* within one run the gradient noise and the participation pattern are distinct keys (once both were
  ``default_rng([seed, 7])``);
* a stream is addressed by name, never by a magic tag.

Streams: ``noise`` (stochastic gradients), ``pattern`` (who participates; keyed by pattern tag and
round), ``instance`` (a problem's or an instance's random draw; keyed by the family), ``search``
(falsify's evaluation and confirmation seeds), ``check`` (the simulation seed of each spec of a check
group; keyed by the group id's hash and the spec's position), ``sample`` (Monte Carlo draws that are
not an engine run, e.g. selections of a sampling law).

Imports nothing of ours (ground floor).

>>> word(0, "noise") != word(1, "noise") and word(0, "noise") != word(0, "pattern")
True
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["STREAMS", "key", "rng", "sequence", "spawn", "word"]

STREAMS = {"noise": 0, "pattern": 1, "instance": 2, "search": 3, "check": 4, "sample": 5}


def key(name: str) -> int:
    """A stable integer key for a name (e.g. a check group's id): CRC-32 of its UTF-8 bytes."""
    return zlib.crc32(name.encode())


def sequence(seed: int, stream: str, *keys: int) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=(STREAMS[stream], *keys))``; seed and keys non-negative integers."""
    if stream not in STREAMS:
        raise ValueError(f"stream {stream!r} is not one of {', '.join(STREAMS)}")
    if int(seed) != seed or seed < 0:
        raise ValueError(f"seed={seed!r} must be a non-negative integer")
    return np.random.SeedSequence(int(seed), spawn_key=(STREAMS[stream], *(int(k) for k in keys)))


def rng(seed: int, stream: str, *keys: int) -> np.random.Generator:
    """A numpy generator on the stream (PCG64)."""
    return np.random.default_rng(sequence(seed, stream, *keys))


def word(seed: int, stream: str, *keys: int) -> int:
    """A 63-bit integer from the stream: a seed for an API that takes one integer (torch, a task)."""
    hi, lo = sequence(seed, stream, *keys).generate_state(2, np.uint32)
    return int((int(hi) << 32 | int(lo)) & (2**63 - 1))


def spawn(seed: int, stream: str, n: int) -> list[int]:
    """``n`` words of the stream keyed 0..n-1 (index i does not depend on n)."""
    return [word(seed, stream, i) for i in range(int(n))]
