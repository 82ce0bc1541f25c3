"""The likely bug class of a departure, and the line of the algorithm it breaks (a declared mapping).

**Setting**: a departing check's departures (scenario, round, quantity) and the scenarios it ran.
**Quantity**: the departure's *signature*: the claimed algorithm; the earliest departing round (1, or later: the
state the server or the clients carry from round to round); whether the earliest round departs in a mean or only
in second moments (spread: sampling, noise, random initialisation); whether only the scenarios with a server step
other than 1 depart while a scenario with eta_g = 1 ran clean.
**Statement**: :data:`RULES` maps a signature to a bug class of public reports (:data:`BUG_CLASSES`) and a line of
the claimed algorithm (:data:`LINES`), first matching rule wins. It is a likely class, not a proof: two bug classes
can share a signature; the record keeps the signature so that a reader can judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .claims import ADAPTIVE, ETA_G, SERVER_OPTIMISERS

BUG_CLASSES = {
    "server-step": "server step size ignored or applied twice (eta_g missing or squared)",
    "momentum-update": "server momentum used where the update belongs, or the update where the momentum belongs",
    "server-optimiser": "the server optimiser's update rule (momentum, second moment or step)",
    "proximal-term": "FedProx's proximal term (always 0 from parameters not detached, not squared, wrong sign)",
    "control-variate-update": "SCAFFOLD's control-variate update (c_i sent instead of its change, its scale, sign)",
    "control-variate-init": "control variates initialised at random instead of zero",
    "carried-state": "state carried across rounds (an aggregate not reset, stale results or variates)",
    "spread": "sampling or noise (with replacement, a non-uniform draw, random state): the spread departs, "
              "not the mean",
    "local-or-weights": "the local update (step count, gradient point, accumulated gradients) or the "
                        "aggregation weights (data size, cohort size, non-participants, saturated sums)",
}

LINES = {
    "sample": "sample the cohort S_r from the claimed law",
    "local": "K local steps y <- y - eta (g(y) + correction + mu_prox (y - x))",
    "prox": "FedProx's local step y <- y - eta (g(y) + mu (y - x)), the gradient of (mu / 2) ||y - x||^2",
    "server": "server step x <- x + eta_g (1 / |S|) sum_i (y_i - x)",
    "momentum": "server momentum v <- beta v + Delta, x <- x + eta_g v",
    "adaptive": "m <- beta_1 m + (1 - beta_1) Delta; v <- (rule) ; x <- x + eta_t m / (sqrt(v) + tau)",
    "control": "control variates c_i <- (mean of the K gradients), c <- c + (1 / M) sum_i (c_i+ - c_i)",
    "control-init": "control variates start at c_i = c = 0",
}


@dataclass(frozen=True)
class Signature:
    """What the departures show (see the module docstring)."""

    algorithm: str
    first_round: int
    first_in_mean: bool
    only_server_step: bool


@dataclass(frozen=True)
class Rule:
    """A signature pattern (None: any) and the bug class and algorithm line it points to."""

    bug_class: str
    line: str
    algorithms: tuple[str, ...] | None = None
    first_round_one: bool | None = None
    first_in_mean: bool | None = None
    only_server_step: bool | None = None

    def matches(self, s: Signature) -> bool:
        return ((self.algorithms is None or s.algorithm in self.algorithms)
                and (self.first_round_one is None or self.first_round_one == (s.first_round == 1))
                and (self.first_in_mean is None or self.first_in_mean == s.first_in_mean)
                and (self.only_server_step is None or self.only_server_step == s.only_server_step))


_SCAFFOLDS = ("scaffold", "amplified_scaffold")
RULES: tuple[Rule, ...] = (
    Rule("server-step", "server", only_server_step=True),
    Rule("momentum-update", "momentum", algorithms=("fedavgm",)),
    Rule("server-optimiser", "adaptive", algorithms=ADAPTIVE, first_in_mean=True),
    Rule("control-variate-init", "control-init", algorithms=_SCAFFOLDS, first_round_one=True, first_in_mean=False),
    Rule("control-variate-update", "control", algorithms=_SCAFFOLDS, first_round_one=False),
    Rule("proximal-term", "prox", algorithms=("fedprox",), first_in_mean=True),
    Rule("carried-state", "server", first_round_one=False),
    Rule("spread", "sample", first_in_mean=False),
    Rule("local-or-weights", "local"),
)


@dataclass(frozen=True)
class Diagnosis:
    """The likely bug class (key of :data:`BUG_CLASSES`), its description, the algorithm line and the signature."""

    bug_class: str
    description: str
    line: str
    signature: dict[str, Any]


def server_step_scenario(algorithm: str, setting: Any) -> bool:
    """True for a scenario whose server step differs from 1 to tell server-step bugs (not an optimiser's own)."""
    return algorithm not in SERVER_OPTIMISERS and setting.eta_g != ETA_G


def diagnose(algorithm: str, found: Sequence[Any], ran: Sequence[Any]) -> Diagnosis | None:
    """The diagnosis of departures ``found`` (sorted: earliest round first) over the scenarios ``ran``
    (:class:`verify.conformance.claims.Scenario`); None when nothing departs."""
    if not found:
        return None
    first = found[0].round
    at_first = [f for f in found if f.round == first]
    stepped = {sc.name for sc in ran if server_step_scenario(algorithm, sc.setting)}
    departing = {f.scenario for f in found}
    clean_unit_step = any(sc.name not in stepped and sc.name not in departing for sc in ran)
    sig = Signature(algorithm, first, any(f.quantity.startswith("mean") for f in at_first),
                    bool(stepped) and departing <= stepped and clean_unit_step)
    rule = next(r for r in RULES if r.matches(sig))
    return Diagnosis(rule.bug_class, BUG_CLASSES[rule.bug_class], LINES[rule.line], asdict(sig))
