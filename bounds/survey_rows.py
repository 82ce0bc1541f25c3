"""The survey's rows (seed 003) that state no rate: catalogue entries, listed and shown, never evaluated.

Kept apart from :mod:`bounds.survey` (the rows with a rate, as sympy results) so that ``convbound list``
loads no sympy.
"""

from __future__ import annotations

from dataclasses import dataclass

SEED = "003_703fb3fbc0a289c6.txt"


@dataclass(frozen=True)
class Entry:
    """A survey row that states no rate: listed, never evaluated.

    Args:
        id: ``SURV.<METHOD>``; method, ref: the survey's name and bracket reference.
        participation: the participation model in the survey's words.
        guarantee: what the survey says about convergence, quoted or paraphrased closely.
        conditions: the assumptions / conditions the survey states for it.
        flags: the survey's internal inconsistencies about this row.
    """

    id: str
    method: str
    ref: str
    participation: str
    guarantee: str
    conditions: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    seed: str = SEED
    locator: str = "method section and Table I"

    @property
    def unrecovered(self) -> str:
        return "the rate itself (the survey gives no formula), its constants, and the error measure"

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "method": self.method, "ref": self.ref, "participation": self.participation,
                "guarantee": self.guarantee, "conditions": list(self.conditions), "flags": list(self.flags),
                "provenance": {"seed": self.seed, "locator": self.locator, "spec": f"survey_methods.md {self.id}"},
                "unrecovered": self.unrecovered}


ENTRIES: tuple[Entry, ...] = (
    Entry("SURV.SAFARI", "SAFARI / SA-FL", "[7]",
          "incomplete participation (some clients excluded); the server holds auxiliary data",
          "'PAC-learnable' (no rate)",
          ("(alpha, beta)-positive relatedness", "auxiliary data i.i.d. from the global distribution"),
          ("SAFARI [7] vs the server-assisted paper [21] in the reference list",)),
    Entry("SURV.MIFA", "MIFA", "[11]",
          "arbitrary device unavailability (non-stationary, adversarial); memory of the latest updates",
          "'minimax optimal' rates, convex and non-convex (no formula)",
          ("non-convex case: bounded gradient noise and gradient dissimilarity",),
          ("the survey cites [11] (a different paper) for MIFA",)),
    Entry("SURV.FEDCM", "FedCM", "[10]",
          "clients activated independently with a fixed probability (0.1 / 0.02 in the experiments)",
          "'faster than FedAvg' (no formula)",
          ("synchronous rounds", "uniform availability probabilities (limitations)")),
    Entry("SURV.FEDVARP", "FedVARP", "[8]",
          "uniform random sampling without replacement (5 clients per round in the experiments)",
          "'faster than SCAFFOLD' (Table I) / 'faster than FedAvg' (text); no formula",
          ("uniform random sampling (limitations)", "O(N d) server memory"),
          ("Table I says 'faster than SCAFFOLD', the text 'faster than FedAvg'",
           "FedVARP appears as both [8] and [19] with different authors",
           "data sets differ: CIFAR-10 + Shakespeare in the text, CIFAR-10 + IMDB in Table III")),
    Entry("SURV.FEDPROX", "FedProx", "[17]", "a random subset of clients with variable local work",
          "convergence for convex objectives and to stationary points for non-convex (no formula)",
          ("bounded dissimilarity",)),
    Entry("SURV.SCAFFOLD", "SCAFFOLD", "[12]", "a sampled subset each round",
          "convergence for convex / to stationary points for non-convex (no formula)",
          ("'standard assumptions'", "synchronous communication"),
          ("Table I lists SCAFFOLD's sampling as 'adaptive sampling'; SCAFFOLD's own paper samples S of N uniformly "
           "and states explicit rates (encoded as SCAF.T1-T4)",)),
    Entry("SURV.EMBRACING", "EmbracingFL", "[13]/[18]", "weak clients train output-side layers only",
          "'converges under weak client participation' (no formula)", (),
          ("EmbracingFL is cited as both [13] and [18]",)),
)


def entry(entry_id: str) -> Entry | None:
    """The no-rate survey row with this ID, or None."""
    return next((e for e in ENTRIES if e.id == entry_id), None)
