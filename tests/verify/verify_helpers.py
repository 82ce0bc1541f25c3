"""Independent numbers for the verify tests (imported by bare name, like tests/plugins/plugin_helpers.py)."""


def scalar_fedavg_second_moment(eta, a, K, m, M, sigma, u, e0, R):
    """E(x_R - x*)^2 of scalar FedAvg by its recursion, iterated in floats (independent of verify.search.closed_form)."""
    B = 1 - eta * a
    V = (M - m) / (m * (M - 1)) * sum(x * x for x in u) / M
    noise = eta**2 * sigma**2 / m * sum(B ** (2 * k) for k in range(K))
    s = e0**2
    for _ in range(R):
        s = B ** (2 * K) * s + (1 - B**K) ** 2 * V + noise
    return s
