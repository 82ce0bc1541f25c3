"""`falsify` refuses what cannot be searched before its progress bar, and that check builds the optimiser: the
search then uses the one built (the `corners` pool probes hundreds of points, tens of CPU seconds on FAST.T1)."""

import verify.search.optimisers as optimisers


def test_the_command_builds_the_optimiser_once(convbound, recorded_calls):
    built = recorded_calls(optimisers, "make_optimiser")
    run = convbound("falsify", "FAST.T2@corrected", "--budget", "2", "--seed", "0", "--optimiser", "random",
                   "--confirm-trials", "64", "--no-shrink", "--no-store")
    assert run.code == 0, run.err
    assert built == ["random"]
