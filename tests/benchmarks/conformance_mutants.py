"""Mutants of the correct implementations of :mod:`verify.conformance.examples`: one bug each, in the form
where it can live (sampling bugs only where the implementation samples: the Flower form).

Each entry (:class:`Mutant`): name, form, claimed algorithm, claimed law, implementation, bug, and the class of
public bug report it reproduces (:data:`REPORTS`: the class and the repository/issue where a report of it was
found, or none located: then the class is from issue 41's list of commonly reported bugs).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NamedTuple

sys.path.insert(0, os.path.dirname(__file__))

import conformance_mutants_release as rel  # noqa: E402
import conformance_mutants_server as srv  # noqa: E402

from verify.conformance import examples as ex  # noqa: E402

# The classes of public bug reports the mutants reproduce: key -> (what, where a public report of it was found;
# "" where none was located: then the class comes from the list of commonly reported bugs)
REPORTS: dict[str, tuple[str, str]] = {
    "scaffold-sign": ("SCAFFOLD correction sign flipped", "fedbiomed/fedbiomed#734"),
    "cv-delta-zero": ("control-variate change always zero", "KarhouTam/SCAFFOLD-PyTorch#1"),
    "steps-count": ("local steps counted as samples x epochs", "VectorInstitute/FL4Health#64"),
    "cohort-size": ("weights wrong when the cohort size changes", "WAFFLE#6"),
    "nonparticipants": ("non-participants' updates or state aggregated", "KarhouTam/FL-bench#19"),
    "server-step-twice": ("server step applied twice", ""),
    "prox-sign": ("proximal term with the wrong sign", ""),
    "data-size": ("weights by data size where equal weights are claimed", ""),
    "stale-cv": ("stale control variate after non-participation", ""),
    "rates-stuck": ("F3AST's rate estimates never updated", ""),
    "amplify-every-round": ("amplification every round, not once per window", ""),
    "grad-at-server": ("gradient taken at the server model", ""),
    "cv-sum": ("control variate = sum of the gradients, not their mean", ""),
    "no-zero-grad": ("gradients accumulated across steps (no zero_grad)", ""),
    "sampling": ("sampling with replacement or not uniformly", ""),
    "momentum-for-update": ("server momentum used where the update belongs (or the reverse)", ""),
    "prox-zero": ("proximal term always 0: parameters not detached or copied", "KarhouTam/FL-bench#165, "
                  "flwrlabs/flower#1654"),
    "prox-not-squared": ("proximal term not squared", "MLOPTPSU/FedTorch#11, ki-ljl/FedProx-PyTorch#1"),
    "cv-sends-ci": ("SCAFFOLD client sends c_i instead of its change", "TL-System/plato#382"),
    "cv-epoch-scale": ("SCAFFOLD c_i scaled by one epoch's steps, not all K", "TL-System/plato#382, "
                       "ki-ljl/Scaffold-Federated-Learning#1"),
    "cv-random-init": ("control variates initialised at random", "Xtra-Computing/NIID-Bench#8"),
    "aggregate-not-reset": ("aggregate accumulates across rounds (not reset)", "cisco-open/flame#95"),
    "secagg-saturates": ("secure aggregation's fixed-point sum saturates", "fedbiomed/fedbiomed#1210"),
}


class Mutant(NamedTuple):
    """One planted bug: where it lives (form), what is claimed, the implementation, the bug and its report class."""

    name: str
    form: str
    algorithm: str
    law: str
    impl: Any
    bug: str
    report: str


_OLD = [  # last release's 28 (name, form, algorithm, law, implementation, report class)
    ("fn-scaffold-sign", "function", "scaffold", "uniform", rel.fn_scaffold_sign, "scaffold-sign"),
    ("fn-scaffold-zero-delta", "function", "scaffold", "uniform", rel.fn_scaffold_zero_delta, "cv-delta-zero"),
    ("fn-steps-samples-epochs", "function", "fedavg", "uniform", rel.fn_steps_samples_epochs, "steps-count"),
    ("fn-cohort-size", "function", "fedavg", "bernoulli", rel.fn_cohort_size, "cohort-size"),
    ("fn-nonparticipants", "function", "fedavg", "uniform", rel.fn_nonparticipants, "nonparticipants"),
    ("fn-server-twice", "function", "fedavg", "uniform", rel.fn_server_twice, "server-step-twice"),
    ("fn-fedprox-sign", "function", "fedprox", "uniform", rel.fn_fedprox_sign, "prox-sign"),
    ("fn-data-size", "function", "fedavg", "uniform", rel.fn_data_size, "data-size"),
    ("fn-stale-cv", "function", "scaffold", "bernoulli", rel.fn_stale_cv, "stale-cv"),
    ("fn-f3ast-rates-stuck", "function", "f3ast", "static-policy", rel.fn_f3ast_rates_stuck, "rates-stuck"),
    ("fn-amplify-every-round", "function", "amplified_fedavg", "cyclic", rel.fn_amplify_every_round, "amplify-every-round"),
    ("fn-grad-at-server", "function", "fedavg", "uniform", rel.fn_grad_at_server, "grad-at-server"),
    ("fn-scaffold-sum", "function", "scaffold", "uniform", rel.fn_scaffold_sum, "cv-sum"),
    ("t-scaffold-sign", "torch", "scaffold", "uniform", rel.t_scaffold_sign, "scaffold-sign"),
    ("t-mask-ignored", "torch", "fedavg", "bernoulli", rel.t_mask_ignored, "nonparticipants"),
    ("t-cohort-size", "torch", "fedavg", "bernoulli", rel.t_cohort_size, "cohort-size"),
    ("t-no-zero-grad", "torch", "fedavg", "uniform", rel.t_no_zero_grad, "no-zero-grad"),
    ("t-data-size", "torch", "fedavg", "uniform", rel.t_data_size, "data-size"),
    ("t-fedprox-sign", "torch", "fedprox", "uniform", rel.t_fedprox_sign, "prox-sign"),
    ("t-cv-unmasked", "torch", "scaffold", "bernoulli", rel.t_cv_unmasked, "nonparticipants"),
    ("w-replacement", "flower", "fedavg", "uniform", rel.w_replacement, "sampling"),
    ("w-server-twice", "flower", "fedavg", "uniform", rel.w_server_twice, "server-step-twice"),
    ("w-data-size", "flower", "fedavg", "uniform", rel.w_data_size, "data-size"),
    ("w-stale-results", "flower", "fedavg", "uniform", rel.w_stale_results, "nonparticipants"),
    ("w-local-steps", "flower", "fedavg", "uniform", rel.w_local_steps, "steps-count"),
    ("w-fedprox-sign", "flower", "fedprox", "uniform", rel.w_fedprox_sign, "prox-sign"),
    ("w-fast-not-uniform", "flower", "fast", "fast-snapshot", rel.w_fast_not_uniform, "sampling"),
    ("w-f3ast-rates-stuck", "flower", "f3ast", "static-policy", rel.w_f3ast_rates_stuck, "rates-stuck"),
]

_NEW = [  # issue 41's classes: server step, server optimisers, proximal term, control variates, accumulation, secagg
    ("fn-server-lr-twice", "function", "fedavg", "uniform", srv.fn_server_lr_twice, "server-step-twice"),
    ("t-server-lr-twice", "torch", "fedavg", "uniform", srv.t_server_lr_twice, "server-step-twice"),
    ("w-server-lr-twice", "flower", "fedavg", "uniform", srv.w_server_lr_twice, "server-step-twice"),
    ("fn-fedavgm-update-for-momentum", "function", "fedavgm", "uniform", srv.fn_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedavgm-stale-momentum", "function", "fedavgm", "uniform", srv.fn_fedavgm_stale_momentum, "momentum-for-update"),
    ("t-fedavgm-update-for-momentum", "torch", "fedavgm", "uniform", srv.t_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("w-fedavgm-update-for-momentum", "flower", "fedavgm", "uniform", srv.w_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedadam-update-for-momentum", "function", "fedadam", "uniform", srv.fn_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("t-fedadam-update-for-momentum", "torch", "fedadam", "uniform", srv.t_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("w-fedadam-update-for-momentum", "flower", "fedadam", "uniform", srv.w_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedyogi-update-for-momentum", "function", "fedyogi", "uniform", srv.fn_fedyogi_update_for_momentum,
     "momentum-for-update"),
    ("w-fedyogi-update-for-momentum", "flower", "fedyogi", "uniform", srv.w_fedyogi_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedadagrad-server-twice", "function", "fedadagrad", "uniform", srv.fn_fedadagrad_server_twice,
     "server-step-twice"),
    ("w-fedadagrad-server-twice", "flower", "fedadagrad", "uniform", srv.w_fedadagrad_server_twice, "server-step-twice"),
    ("fn-aggregate-not-reset", "function", "fedavg", "uniform", srv.fn_aggregate_not_reset, "aggregate-not-reset"),
    ("t-aggregate-not-reset", "torch", "fedavg", "uniform", srv.t_aggregate_not_reset, "aggregate-not-reset"),
    ("w-aggregate-not-reset", "flower", "fedavg", "uniform", srv.w_aggregate_not_reset, "aggregate-not-reset"),
    ("fn-secagg-saturates", "function", "fedavg", "uniform", srv.fn_secagg_saturates, "secagg-saturates"),
    ("t-secagg-saturates", "torch", "fedavg", "uniform", srv.t_secagg_saturates, "secagg-saturates"),
    ("w-secagg-saturates", "flower", "fedavg", "uniform", srv.w_secagg_saturates, "secagg-saturates"),
    ("fn-fedprox-zero-alias", "function", "fedprox", "uniform", srv.fn_fedprox_zero_alias, "prox-zero"),
    ("t-fedprox-not-detached", "torch", "fedprox", "uniform", srv.t_fedprox_not_detached, "prox-zero"),
    ("w-fedprox-mu-not-sent", "flower", "fedprox", "uniform", srv.w_fedprox_mu_not_sent, "prox-zero"),
    ("fn-fedprox-not-squared", "function", "fedprox", "uniform", srv.fn_fedprox_not_squared, "prox-not-squared"),
    ("t-fedprox-not-squared", "torch", "fedprox", "uniform", srv.t_fedprox_not_squared, "prox-not-squared"),
    ("fn-scaffold-sends-ci", "function", "scaffold", "uniform", srv.fn_scaffold_sends_ci, "cv-sends-ci"),
    ("t-scaffold-sends-ci", "torch", "scaffold", "uniform", srv.t_scaffold_sends_ci, "cv-sends-ci"),
    ("fn-scaffold-epoch-scale", "function", "scaffold", "uniform", srv.fn_scaffold_epoch_scale, "cv-epoch-scale"),
    ("fn-scaffold-random-init", "function", "scaffold", "uniform", srv.fn_scaffold_random_init, "cv-random-init"),
    ("t-scaffold-random-init", "torch", "scaffold", "uniform", srv.t_scaffold_random_init, "cv-random-init"),
]

MUTANTS: list[Mutant] = [Mutant(n, f, a, law, impl, REPORTS[rep][0], rep) for n, f, a, law, impl, rep in _OLD + _NEW]

CORRECT: list[tuple[str, str, str, str, Any]] = [
    ("fn-fedavg", "function", "fedavg", "uniform", ex.fedavg_round),
    ("fn-fedavg-bern", "function", "fedavg", "bernoulli", ex.fedavg_round),
    ("fn-fedprox", "function", "fedprox", "uniform", ex.fedavg_round),
    ("fn-scaffold", "function", "scaffold", "uniform", ex.scaffold_round),
    ("fn-scaffold-bern", "function", "scaffold", "bernoulli", ex.scaffold_round),
    ("fn-f3ast", "function", "f3ast", "static-policy", ex.f3ast_round),
    ("fn-amp-fedavg", "function", "amplified_fedavg", "cyclic", ex.amplified_fedavg_round),
    ("fn-fedavgm", "function", "fedavgm", "uniform", ex.fedavgm_round),
    ("fn-fedadam", "function", "fedadam", "uniform", ex.fedadam_round),
    ("fn-fedyogi", "function", "fedyogi", "uniform", ex.fedyogi_round),
    ("fn-fedadagrad", "function", "fedadagrad", "uniform", ex.fedadagrad_round),
    ("t-fedavg", "torch", "fedavg", "uniform", ex.fedavg_step),
    ("t-fedavg-bern", "torch", "fedavg", "bernoulli", ex.fedavg_step),
    ("t-scaffold-bern", "torch", "scaffold", "bernoulli", ex.scaffold_step),
    ("t-fedavgm", "torch", "fedavgm", "uniform", ex.fedavgm_step),
    ("t-fedadam", "torch", "fedadam", "uniform", ex.fedadam_step),
    ("w-flower-fedavg", "flower", "fedavg", "uniform", ex.fedavg_strategy),
    ("w-flower-fedprox", "flower", "fedprox", "uniform", ex.fedavg_strategy),
    ("w-flower-fedavgm", "flower", "fedavgm", "uniform", ex.fedavgm_strategy),
    ("w-flower-fedadam", "flower", "fedadam", "uniform", ex.fedadam_strategy),
    ("w-flower-fedyogi", "flower", "fedyogi", "uniform", ex.fedyogi_strategy),
    ("w-flower-fedadagrad", "flower", "fedadagrad", "uniform", ex.fedadagrad_strategy),
    ("w-fast", "flower", "fast", "fast-snapshot", ex.fast_strategy),
    ("w-f3ast", "flower", "f3ast", "static-policy", ex.f3ast_strategy),
]
