"""A user's FedAvg round, to check with ``convbound conform`` (the worked example of docs/conformance.md).

Run:  convbound conform docs/examples/my_fedavg.py:my_fedavg --algorithm fedavg --law uniform --out record.json
"""
import numpy as np


def my_fedavg(x, cohort, K, rng, state):
    """One FedAvg round: K local SGD steps per participant from x, then the server step towards their average."""
    s = cohort.setting
    if len(cohort) == 0:  # under Bernoulli participation a round can be empty
        return x
    models = []
    for client in cohort:
        y = x.copy()
        for _ in range(K):
            y = y - s.eta * client.grad(y)
        models.append(y)
    return x + s.eta_g * (np.mean(models, axis=0) - x)  # server step eta_g
