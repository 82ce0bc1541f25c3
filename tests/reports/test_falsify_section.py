"""The falsify report section renders a search record's numbers, point and trace."""

from reports.falsify_section import falsify_sections, render_html, render_markdown, trace_png


def _record():
    trace = [{"evaluation": 1, "ratio": 0.05, "admissible": True, "best": 0.05},
             {"evaluation": 2, "ratio": None, "admissible": False, "best": 0.05},
             {"evaluation": 3, "ratio": 2.5, "admissible": True, "best": 2.5}]
    return {"id": "FAST.T2@corrected", "result": "FAST.T2@corrected", "optimiser": "random", "seed": 0,
            "evaluations": 3, "admissible": 2, "stopped_by": "budget", "trace": trace, "notes": ["a note"],
            "default": {"point": {"M": 4}, "estimate": {"ratio": 0.05}},
            "best": {"point": {"M": 2, "het": 0.135}, "estimate": {"ratio": 2.5}},
            "confirmation": {"verdict": "violated", "lhs": 2.0e-4, "ci": [1.5e-4, 2.5e-4], "rhs": 1.0e-4,
                             "ratio": 2.0, "ratio_ci": [1.5, 2.5], "trials": 4096, "seeds": [7]}}


def test_section_numbers_come_from_the_record():
    (s,) = falsify_sections([_record()])
    assert s["hand_picked_ratio"] == 0.05 and s["searched_ratio"] == 2.0
    assert s["gain"] == 2.0 / 0.05 and s["verdict"] == "violated" and s["point"] == {"M": 2, "het": 0.135}
    # the shipped check's ratio wins over the search's first evaluation when given
    (t,) = falsify_sections([_record()], [{"id": "FAST.T2@corrected", "ratio": 0.0577}])
    assert t["hand_picked_ratio"] == 0.0577 and t["hand_picked_source"] == "verify record"


def test_renderings_carry_ratio_interval_point_and_figure():
    secs = falsify_sections([_record()])
    md = render_markdown(secs)
    assert "violated" in md and "[1.5, 2.5]" in md and "het = 0.135" in md and "4096 fresh trials" in md
    page = render_html(secs)
    assert 'src="data:image/png;base64,' in page and "FAST.T2@corrected" in page
    assert trace_png(secs[0])[:4] == b"\x89PNG"


def _shrunk_record():
    rec = _record()
    rec["shrunk"] = {"scenario": "FAST.T2@corrected", "original": {"M": 2, "het": 0.135},
                     "shrunk": {"M": 2, "het": 0.1},
                     "confirmation": {"verdict": "violated", "lhs": 3.0e-3, "rhs": 1.0e-3, "ratio": 3.0},
                     "closed_form": {"derived": True, "setting": "scalar FedAvg", "lhs_of_R": "0.5 + 0.25**R",
                                     "rhs_of_R": "1/R", "lhs_closed_form": 0.5, "lhs_exact_path": 0.5,
                                     "violated_for_R": [[3, 1000]]}}
    return rec


def test_a_confirmed_finding_heads_the_report_with_its_minimal_counterexample_and_closed_form():
    from reports.document import alerts

    (note,) = [a for a in alerts({"searches": [{"source": "saved", "record": _shrunk_record()}]})
               if "Finding" in a.message]
    assert "Minimal counterexample: M = 2, het = 0.1: LHS 0.003 vs RHS 0.001 (LHS/RHS 3, violated)" in note.message
    assert "LHS(R) = 0.5 + 0.25**R against RHS(R) = 1/R" in note.message and "R in [3, 1000]" in note.message
    (s,) = falsify_sections([_shrunk_record()])
    assert "minimal counterexample</th><td>M = 2, het = 0.1" in render_html([s], figures=False)
    assert "- closed form: LHS(R) = 0.5 + 0.25**R" in render_markdown([s])
    # a search that confirmed nothing shrinks nothing: no such line
    (plain,) = falsify_sections([_record()])
    assert "minimal counterexample" not in render_markdown([plain]) and plain["closed_form"] is None
