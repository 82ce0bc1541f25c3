"""Log axes of the report's figures (``reports.figures.log_scale``): labels as plain text, and the minor ticks."""

import pytest

from reports.figures import _figure, _power, log_scale


@pytest.mark.parametrize("x, label", [(0.01, "10⁻²"), (0.02, "2×10⁻²"), (1.0, "10⁰"), (10.0, "10¹"), (300.0, "3×10²"),
                                      (1000.0, "10³"), (1e6, "10⁶"), (2.5e-7, "2.5×10⁻⁷"), (0.3, "3×10⁻¹")])
def test_a_number_is_written_as_a_power_of_ten(x, label):
    assert _power(x) == label


def test_a_log_axis_labels_its_decades_in_plain_text_and_ticks_2_and_5_between():
    fig, ax = _figure()
    ax.plot([1.0, 1e4], [1e-3, 1.0])
    log_scale(ax, "x")
    log_scale(ax, "y")
    ax.set_xlim(1.0, 1e4)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text() and 1.0 <= t.get_position()[0] <= 1e4]
    assert labels == ["10⁰", "10¹", "10²", "10³", "10⁴"]
    assert not any("$" in t.get_text() for t in ax.get_yticklabels())  # no mathtext
    minor = [v for v in ax.xaxis.get_minorticklocs() if 1.0 <= v <= 10.0]
    assert minor == pytest.approx([2.0, 5.0])
    assert ax.get_xscale() == ax.get_yscale() == "log"
