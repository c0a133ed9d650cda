"""Replay timing: interval error and drift of deskreel's deadline scheduler, side by side in
the same run with a naive scheduler that sleeps the relative gaps.

A script of 320 key presses over ~32 s (gaps 40-160 ms) is replayed on a private Xvfb and
observed by a separate XRecord client, which timestamps every key press as it arrives.

    .venv/bin/python bench/bench_replay.py [--steps 320]
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deskreel.x11 import connect
from deskreel.xvfb import VirtualDisplay
from recorder.capture import InputCapture
from replayer import AbortSwitch, Injector, execute
from replayer.timing import deadlines
from storage import Action


def observe(display: str, ready, stop, out) -> None:
    """In its own process (no GIL shared with the replayer): arrival times of key presses."""
    arrivals: list[float] = []
    events: queue.SimpleQueue = queue.SimpleQueue()
    capture = InputCapture(display, events)
    original = capture._on_reply

    def on_reply(reply):
        now = time.monotonic()
        before = events.qsize()
        original(reply)
        arrivals.extend([now] * (events.qsize() - before))

    capture._on_reply = on_reply
    capture.start()
    capture.ready.wait(5)
    time.sleep(0.3)
    ready.set()
    stop.wait()
    capture.stop()
    capture.join()
    kinds = []
    while not events.empty():
        kinds.append(events.get()[1])
    out.put([t for t, kind in zip(arrivals, kinds) if kind == "key_down"])


def run(injector: Injector, display: str, times: list[float], *, naive: bool) -> list[float]:
    ctx = multiprocessing.get_context("spawn")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    observer = ctx.Process(target=observe, args=(display, ready, stop, out))
    observer.start()
    ready.wait(20)
    action = Action(action="key", text="x")
    switch = AbortSwitch()
    if naive:
        previous = times[0]
        for t in times:
            time.sleep(t - previous)
            previous = t
            execute(action, injector)
    else:
        for deadline in deadlines(times, start=time.monotonic()):
            switch.pause_until(deadline, time.monotonic)
            execute(action, injector)
    time.sleep(0.5)
    stop.set()
    seen = out.get(timeout=30)
    observer.join()
    return seen


def errors(times: list[float], seen: list[float]) -> dict[str, float]:
    assert len(seen) == len(times), f"observed {len(seen)} presses of {len(times)}"
    intervals = [abs((b - a) - (tb - ta)) * 1000
                 for a, b, ta, tb in zip(seen, seen[1:], times, times[1:])]
    drift = ((seen[-1] - seen[0]) - (times[-1] - times[0])) * 1000
    ordered = sorted(intervals)
    return {"median_ms": statistics.median(intervals),
            "p99_ms": ordered[int(len(ordered) * 0.99) - 1], "drift_ms": drift}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=320)
    args = parser.parse_args()
    rng = random.Random(7)
    times = [0.0]
    for _ in range(args.steps - 1):
        times.append(times[-1] + rng.uniform(0.04, 0.16))
    with VirtualDisplay() as vd:
        conn = connect(vd.display, extensions=("XTEST",))
        injector = Injector(conn)
        results = {}
        for name, naive in (("deadlines", False), ("naive sleep", True)):
            results[name] = errors(times, run(injector, vd.display, times, naive=naive))
        injector.close()
    print(f"script: {len(times)} key presses over {times[-1]:.1f} s, observed by XRecord")
    print(f"{'scheduler':<12} {'interval err median':>20} {'p99':>10} {'drift':>10}")
    for name, r in results.items():
        print(f"{name:<12} {r['median_ms']:>17.3f} ms {r['p99_ms']:>7.3f} ms "
              f"{r['drift_ms']:>7.2f} ms")
    d, n = results["deadlines"], results["naive sleep"]
    print(f"drift ratio naive/deadlines: {abs(n['drift_ms']) / max(abs(d['drift_ms']), 1e-3):.1f}x")


if __name__ == "__main__":
    main()
