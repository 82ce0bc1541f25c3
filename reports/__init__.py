"""Presentation: a verification report as one self-contained HTML page, a PDF and results.json.

>>> from reports.suite import collect          # run the default suite -> report document (plain dicts)
>>> from reports.build import write_report     # document -> DIR/{index.html, report.pdf, results.json}
>>> write_report(collect(quick=True), "convbound-report")  # doctest: +SKIP

Modules: ``document`` (the JSON contract, verdict table, top-of-report alerts), ``suite`` (collects
bounds / rate_region / quadratics / verify evidence), ``figures`` (matplotlib, Agg), ``formulas``
(LaTeX via mathtext, offline), ``html`` (jinja2 templates in ``templates/``), ``pdf`` (reportlab),
``environment`` (versions, device, seed, git commit), ``build`` (atomic report directory).
Rendering reads plain dicts only: a saved results.json renders without torch.
"""
