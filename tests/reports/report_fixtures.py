"""A small report document built from hand-written Verification-shaped dicts (no torch, no verify)."""

from __future__ import annotations

import copy

R = [10, 30, 100, 300, 1000]

CHECKS = [
    {
        "id": "FAST.T1.cert", "title": "FAST Theorem 1 on a heterogeneous quadratic", "verdict": "holds",
        "expected": "holds", "lhs": 0.021, "ci": [0.019, 0.023], "rhs": 0.177, "ratio": 0.1186,
        "instance": {"problem": "quadratic", "d": 4, "M": 10}, "control": False, "kind": "certificate",
        "trials": 64, "seed": 0, "variant": "published",
        "conditions": [{"name": "step size cap 1/(8LK)", "relation": "eta_c <= 1/(8*K*L)", "holds": True, "lhs": 0.005,
                        "rhs": 0.025, "margin": 0.02, "reason": ""},
                       {"name": "q >= q_min(G1,G2,G3)", "relation": "", "holds": None, "lhs": None, "rhs": None,
                        "margin": None, "reason": "unverified: needs G1, G2, G3"}],
        "series": {"x": list(range(1001)), "lhs": [1.0 / (1 + r) for r in range(1001)]},
        "notes": ["eta_c at the cap", "64 seeded trials"], "versions": {"torch": "2.13"}, "device": "cpu", "elapsed_s": 1.2,
    },
    {
        "id": "FAST.T1.rate", "title": "FAST Theorem 1: rate in R", "verdict": "inconclusive", "expected": "holds",
        "lhs": -0.93, "ci": [-1.2, -0.7], "rhs": -1.0, "ratio": None, "instance": {}, "control": False,
        "kind": "rate", "trials": 32, "seed": 1, "variant": "published", "conditions": [], "notes": ["few rounds"],
        "series": {"x": R, "lhs": [0.2, 0.07, 0.021, 0.007, 0.0021], "ci_low": [0.18, 0.06, 0.019, 0.006, 0.0019],
                   "ci_high": [0.22, 0.08, 0.023, 0.008, 0.0023], "rhs": [1.6, 0.53, 0.177, 0.06, 0.018],
                   "fit_slope": -1.0, "fit_ci": [-1.05, -0.95], "fit_intercept": 0.7, "predicted_slope": -1.0},
        "versions": {}, "device": "cpu", "elapsed_s": 0.4,
    },
    {
        "id": "FAST.T1.control", "title": "Negative control: bound divided by 100", "verdict": "violated",
        "expected": "violated", "lhs": 0.021, "ci": [0.019, 0.023], "rhs": 0.00177, "ratio": 11.86,
        "instance": {"problem": "quadratic"}, "control": True, "kind": "control", "trials": 64, "seed": 0,
        "variant": "published/100", "conditions": {}, "notes": "must be violated", "versions": {},
        "device": "cpu", "elapsed_s": 1.1,
    },
]

RESULT = {
    "id": "FAST.T1", "key": "FAST.T1", "variant": "published", "title": "Non-convex convergence of FAST",
    "paper": "FAST", "kind": "upper", "lhs": "(1/R) sum E||grad F(x_r)||^2",
    "lhs_latex": r"\frac{1}{R}\sum_{r=1}^{R}\mathbb{E}\|\nabla F(\mathbf{x}_r)\|^2",
    "terms": [
        {"name": "optimization", "expr": "4*zeta/(K*R*eta_c)", "latex": r"\frac{4 \zeta}{K R \eta_{c}}", "meaning": ""},
        {"name": "statistical", "expr": "...", "latex": r"\frac{4 L \eta_{c} \sigma^{2}}{m n}", "meaning": ""},
    ],
    "conclusion_latex": r"\frac{1}{R}\sum_{r=1}^{R}\mathbb{E}\|\nabla F\|^2 \le \underbrace{\frac{4 \zeta}{K R \eta_{c}}}_{\text{optimization}} + \underbrace{\frac{4 L \eta_{c} \sigma^{2}}{m n}}_{\text{statistical}}",
    "hypotheses": [
        {"name": "step size cap", "relation": "eta_c <= 1/(8*K*L)", "latex": r"\eta_{c} \leq \frac{1}{8 K L}", "meaning": ""},
        {"name": "q-threshold", "relation": "q >= q_min", "latex": r"q \geq q_{\min}", "meaning": ""},
    ],
    "symbols": [], "aggregates": [], "provenance": {"seed": "000", "locator": "Theorem 1", "equation": "", "spec": ""},
    "status": ["PUBLISHED", "FLAG"], "flags": ["q-threshold needs G1..G3"], "reconstructed": False,
    "rate": {"R": "-1"}, "prescribed": {}, "notes": "",
    "example": {"source": "spec worked example", "values": {"L": 1, "K": 5, "R": 1000},
                "check": {"id": "FAST.T1", "value": 0.163, "terms": {"optimization": 0.16, "statistical": 0.003},
                          "conditions": [
                              {"name": "step size cap", "relation": "", "holds": True, "lhs": 0.005, "rhs": 0.025,
                               "margin": 0.02, "reason": ""},
                              {"name": "q-threshold", "relation": "", "holds": None, "lhs": None, "rhs": None,
                               "margin": None, "reason": "unverified: needs G1"}],
                          "holds": None}},
    "sweep": {"var": "R", "x": [10, 100, 1000, 10000], "example": 1000,
              "terms": {"optimization": [16, 1.6, 0.16, 0.016], "statistical": [0.003] * 4}},
}

STATEMENT_ONLY = {**copy.deepcopy(RESULT), "id": "FAST.T2", "key": "FAST.T2", "title": "Strongly convex",
                  "example": None, "sweep": None}

DOC = {
    "schema": "convbound.report/1", "title": "convbound verification report (fixture)", "quick": True,
    "environment": {"created": "2026-11-21T23:00:00Z", "python": "3.11", "platform": "linux", "machine": "x86_64",
                    "device": "cpu", "seed": 0, "packages": {"numpy": "2"}, "git": {"commit": "0" * 40, "dirty": False},
                    "command": "convbound report --quick"},
    "results": [RESULT, STATEMENT_ONLY],
    "region": {"title": "Table I region", "vertices": [[0, 0], [0.375, 0], [0.375, 0.5], [0.075, 0.8], [0, 0.8]],
               "points": {"r^a": [0.375, 0], "r^b": [0.375, 0.5], "naive": [0.225, 0.65], "r*": [0.375, 0.5]},
               "table": {"columns": ["point", "r_1", "r_2", "H"], "rows": [["r*", 0.375, 0.5, 7 / 6]]}},
    "large_n": {"N": 100, "H(r*)": 1.5},
    "sampler": {"t": list(range(1, 51)), "r": [[0.375 - 0.3 / t, 0.5 + 0.3 / t] for t in range(1, 51)],
                "r_star": [0.375, 0.5]},
    "participation": {"name": "cyclic", "weights": [[1.0 if (r // 2) % 2 == i % 2 else 0.0 for r in range(12)]
                                                    for i in range(6)]},
    "verifications": CHECKS,
    "expected_controls": ["FAST.T1.control"],
    "sections_failed": {},
}


def fixture_doc(*, violated: bool = False, drop_control: bool = False, control_passes: bool = False) -> dict:
    doc = copy.deepcopy(DOC)
    if violated:
        doc["verifications"][0]["verdict"] = "violated"
    if drop_control:
        doc["verifications"] = [v for v in doc["verifications"] if not v["control"]]
    if control_passes:
        doc["verifications"][2]["verdict"] = "holds"
    return doc
