"""``quadratics.exact.moments.one_torch_thread``: one intra-op thread inside, the caller's setting after."""

import pytest
import torch

from quadratics.exact.moments import one_torch_thread


def test_one_thread_inside_and_the_callers_setting_after_even_on_an_error():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with one_torch_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), one_torch_thread():
            raise RuntimeError("inside")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
