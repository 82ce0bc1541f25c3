"""verify.search: looking for the instance that breaks a result, and what is learned from it.

**Setting**: a :class:`verify.scenario.Scenario` (an instance space whose ends come from the result's hypotheses
and domains) scored by the one scoring path, :func:`verify.scenario.evaluate_point`.
**Contents**: what a search is asked (``search_options``), what an optimiser proposes and the ask/tell protocol
(``proposal``: points with their strata as objects), the optimisers' one registry (``optimisers``; plugins add
theirs) with ``stratified`` and ``random`` (``stratified``) and the searchers that wrap them (``corners``, ``climb``,
``covering``, ``rays``, ``ray_bases``, ``ray_seed``), the per-point cost model and the projection of a proposal
into the per-point budget (``cost``), the search itself (``falsify``) and its record (``search_record``, ``saved``), and the
analyses of a find: fresh-seed confirmation (``confirmation``), shrinking (``shrink``), closed forms
(``closed_form``) and asymptotic orders along rays (``orders``).

Submodules are imported by name; this package imports none of them, so importing one search module does not load
the rest (``convbound --help`` stays free of torch).
"""
