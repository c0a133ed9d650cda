"""The replay timing chain (pure)."""

import pytest

from deskreel.replayer.timing import absolute, at_speed, cap_idle, deadlines, gaps


def test_each_link():
    assert list(gaps([1.0, 1.5, 4.0, 4.0])) == [0.0, 0.5, 2.5, 0.0]
    assert list(cap_idle([0.5, 2.5, 10], 1.0)) == [0.5, 1.0, 1.0]
    assert list(cap_idle([0.5, 2.5], None)) == [0.5, 2.5]
    assert list(at_speed([1.0, 3.0], 2.0)) == [0.5, 1.5]
    assert list(absolute([0.0, 0.5, 1.5], 100.0)) == [100.0, 100.5, 102.0]
    with pytest.raises(ValueError):
        list(at_speed([1.0], 0))


def test_deadlines_are_absolute_and_do_not_drift():
    times = [i * 0.1 for i in range(10_000)]
    due = deadlines(times, start=50.0)
    assert due[0] == 50.0
    assert abs(due[-1] - (50.0 + 999.9)) < 1e-6
    fast = deadlines([0, 1, 2, 10], start=0, speed=2, max_idle=3)
    assert fast == [0.0, 0.5, 1.0, 2.5]


def test_recorded_times_out_of_order_never_go_back():
    assert deadlines([0, 2, 1, 3], start=0) == [0, 2, 2, 4]


def test_bench_p99_is_the_nearest_rank():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "bench_replay.py"
    spec = importlib.util.spec_from_file_location("bench_replay", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # 319 intervals whose errors are 1..319 ms: the 99th percentile is the 316th (ceil 315.81)
    times = [i * 1.0 for i in range(320)]
    seen = [0.0]
    for error in range(1, 320):
        seen.append(seen[-1] + 1.0 + error / 1000)
    assert bench.errors(times, seen)["p99_ms"] == pytest.approx(316)
