"""generator.forked: half the work in a forked process, its result (or its failure) back in the first."""

from __future__ import annotations

import os

import pytest

from generator import forked

pytestmark = pytest.mark.skipif(not forked.available(), reason="no second core or no fork here")


def test_the_second_process_sees_what_the_first_loaded_and_gives_its_result_back():
    loaded = {"patterns": list(range(1000))}  # made before the fork, never pickled on the way in
    rest = forked.start(lambda: (os.getpid(), sum(loaded["patterns"])))
    pid, total = rest()
    assert pid != os.getpid() and total == 499500


def test_a_failure_in_the_second_process_is_raised_in_the_first():
    rest = forked.start(lambda: 1 / 0)
    with pytest.raises(RuntimeError, match="the second process failed: ZeroDivisionError"):
        rest()
