"""Replay timing: interval error and drift of `replay()`, the path `deskreel replay` takes,
side by side in the same run with a naive scheduler that sleeps the relative gaps.

A script of 320 steps over ~32 s (gaps 40-160 ms; a key press, a mouse move or a left click
in turn: half of them pointer steps) is replayed on a private Xvfb and observed by a separate
XRecord client, which timestamps the first event of every step as it arrives: a key's press,
a move's or a click's motion (each pointer step goes somewhere new).

    .venv/bin/python bench/bench_replay.py [--steps 320]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import queue
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deskreel.x11 import connect
from deskreel.xvfb import VirtualDisplay
from recorder.capture import InputCapture
from replayer import Injector, Progress, ReplayOptions, execute, replay
from storage import Action, Step, open_store

ONSETS = ("key_down", "motion")  # the first event of a key step and of a pointer step


def observe(display: str, ready, stop, out) -> None:
    """In its own process (no GIL shared with the replayer): arrival times of step onsets."""
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
    out.put([t for t, kind in zip(arrivals, kinds) if kind in ONSETS])


def script(steps: int) -> tuple[list[Action], list[float]]:
    """The actions and their times: a key, a move and a click in turn, each move and click
    to a point no step went to just before (so that each one makes a motion event)."""
    rng = random.Random(7)
    times = [0.0]
    for _ in range(steps - 1):
        times.append(times[-1] + rng.uniform(0.04, 0.16))
    actions = []
    for i in range(steps):
        point = (100 + i * 37 % 1000, 100 + i * 53 % 600)
        kind = ("key", "mouse_move", "left_click")[i % 3]
        actions.append(Action(action="key", text="x") if kind == "key"
                       else Action(action=kind, coordinate=point))
    return actions, times


def run(display: str, replayer) -> list[float]:
    """Onsets seen by the observer while `replayer()` runs."""
    ctx = multiprocessing.get_context("spawn")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    observer = ctx.Process(target=observe, args=(display, ready, stop, out))
    observer.start()
    ready.wait(20)
    replayer()
    time.sleep(0.5)
    stop.set()
    seen = out.get(timeout=30)
    observer.join()
    return seen


def with_replay(display: str, actions: list[Action], times: list[float]):
    """`replay()` of the script stored in a fresh database, as `deskreel replay` runs it
    (progress lines formatted, results stored; written to /dev/null and a temporary file)."""
    def replayer() -> None:
        with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as sink, \
                open_store(os.path.join(tmp, "bench.db")) as store:
            rec_id = store.create_recording("bench", source="script")
            store.add_steps(rec_id, [Step(step=i, action=a, t_start=t, t_end=t)
                                     for i, (a, t) in enumerate(zip(actions, times), start=1)])
            outcome = replay(store, store.recording(rec_id), options=ReplayOptions(),
                             display=display, progress=Progress(total=len(times), stream=sink))
            assert outcome.status == "passed", outcome.message
    return replayer


def with_naive_sleeps(display: str, actions: list[Action], times: list[float]):
    """The same actions through an Injector of its own, sleeping each relative gap."""
    def replayer() -> None:
        conn = connect(display, extensions=("XTEST",))
        injector = Injector(conn)
        try:
            previous = times[0]
            for action, t in zip(actions, times):
                time.sleep(t - previous)
                previous = t
                execute(action, injector)
        finally:
            injector.close()
            conn.close()
    return replayer


def errors(times: list[float], seen: list[float]) -> dict[str, float]:
    assert len(seen) == len(times), f"observed {len(seen)} step onsets of {len(times)}"
    intervals = [abs((b - a) - (tb - ta)) * 1000
                 for a, b, ta, tb in zip(seen, seen[1:], times, times[1:])]
    drift = ((seen[-1] - seen[0]) - (times[-1] - times[0])) * 1000
    ordered = sorted(intervals)
    p99 = ordered[math.ceil(len(ordered) * 0.99) - 1]  # nearest rank
    return {"median_ms": statistics.median(intervals), "p99_ms": p99, "drift_ms": drift}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=320)
    args = parser.parse_args()
    actions, times = script(args.steps)
    results = {}
    with VirtualDisplay() as vd:
        for name, replayer in (("replay()", with_replay), ("naive sleep", with_naive_sleeps)):
            results[name] = errors(times, run(vd.display, replayer(vd.display, actions, times)))
    pointer = sum(a.action != "key" for a in actions)
    print(f"script: {len(times)} steps ({pointer} pointer steps) over {times[-1]:.1f} s, "
          f"observed by XRecord")
    print(f"{'scheduler':<12} {'interval err median':>20} {'p99':>10} {'drift':>10}")
    for name, r in results.items():
        print(f"{name:<12} {r['median_ms']:>17.3f} ms {r['p99_ms']:>7.3f} ms "
              f"{r['drift_ms']:>7.2f} ms")
    d, n = results["replay()"], results["naive sleep"]
    print(f"drift ratio naive/replay(): "
          f"{abs(n['drift_ms']) / max(abs(d['drift_ms']), 1e-3):.1f}x")


if __name__ == "__main__":
    main()
