"""generator.forked: half the work in a forked process, its result (or its failure) back in the first; tasks shared
between the two as each comes free."""

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


def test_shared_tasks_come_back_in_order_done_once_each_by_both_processes():
    import time

    def work(i: int) -> tuple[int, int]:
        time.sleep(0.005)
        return i, os.getpid()

    done = forked.shared(60, work)
    assert [i for i, _ in done] == list(range(60))
    by = {pid for _, pid in done}
    assert os.getpid() in by and len(by) == 2  # both took some


def test_a_process_busy_first_takes_fewer_tasks_and_each_takes_its_own_in_order():
    import time

    ran: list[str] = []

    def work(i: int) -> tuple[int, float]:
        time.sleep(0.01)
        return os.getpid(), time.monotonic()

    done = forked.shared(20, work, first=lambda: (ran.append("first"), time.sleep(0.2)))
    mine = [at for pid, at in done if pid == os.getpid()]
    theirs = [at for pid, at in done if pid != os.getpid()]
    assert ran == ["first"] and len(mine) < len(theirs) and mine == sorted(mine) and theirs == sorted(theirs)


def test_a_failed_shared_task_is_raised_and_a_count_out_of_range_refused():
    with pytest.raises(RuntimeError, match="the second process failed: ZeroDivisionError|division by zero"):
        forked.shared(4, lambda i: 1 / 0)
    for count in (0, forked.MAX_SHARES + 1):
        with pytest.raises(ValueError, match="count must be"):
            forked.shared(count, lambda i: i)


def test_nothing_is_left_frozen_after_shared_work_whatever_happens():
    import gc

    before = gc.get_freeze_count()
    assert forked.shared(3, lambda i: gc.get_freeze_count() > 0) == [True, True, True]  # frozen while they work
    with pytest.raises(RuntimeError):
        forked.shared(2, lambda i: 1 / 0)
    assert gc.get_freeze_count() == before == 0
