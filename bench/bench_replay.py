"""Replay timing: interval error and drift of `replay()`, the path `deskreel replay` takes,
side by side in the same run with a naive scheduler that sleeps the relative gaps.

A script of 320 steps over ~32 s (gaps 40-160 ms; a key press, a mouse move or a left click
in turn: half of them pointer steps) is replayed on a private Xvfb and observed by a separate
XRecord client, which timestamps the first event of every step as it arrives: a key's press,
a move's or a click's motion (each pointer step goes somewhere new).

Each run also prints the CPU time the hypervisor took from this VM while it ran ("steal",
from /proc/stat): a millisecond-scale benchmark means little on a machine whose virtual CPUs
stop for milliseconds, and "on an idle machine" means steal 0. For replay() it prints the
lateness its own clock measured (each step's `late_ms`: from the deadline to the step's
start), which the observer's process and the X server do not blur.

    .venv/bin/python bench/bench_replay.py [--steps 320] [--rounds 1]
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

from deskreel.xsession.display import connect
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.recorder.capture import InputCapture
from deskreel.replayer import Injector, Progress, ReplayOptions
from deskreel.replayer.execute import execute
from deskreel.replayer.replay import replay
from deskreel.storage import Action, Step, open_store

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

    capture._on_reply = on_reply  # type: ignore[method-assign]  # timing each arrival
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
        actions.append(
            Action(action="key", text="x")
            if kind == "key"
            else Action(action=kind, coordinate=point)
        )
    return actions, times


def steal_ms() -> float:
    """CPU time stolen from this VM by its hypervisor so far, summed over its CPUs."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
        return int(fields[8]) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return math.nan  # not Linux, or no steal column: unknown


def run(display: str, replayer) -> tuple[list[float], float]:
    """Onsets seen by the observer while `replayer()` runs, and the ms stolen meanwhile."""
    ctx = multiprocessing.get_context("spawn")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    observer = ctx.Process(target=observe, args=(display, ready, stop, out))
    observer.start()
    ready.wait(20)
    stolen = steal_ms()
    replayer()
    stolen = steal_ms() - stolen
    time.sleep(0.5)
    stop.set()
    seen = out.get(timeout=30)
    observer.join()
    return seen, stolen


def with_replay(display: str, actions: list[Action], times: list[float], late: list[float]):
    """`replay()` of the script stored in a fresh database, as `deskreel replay` runs it
    (progress lines formatted, results stored; written to /dev/null and a temporary file).
    Each step's lateness by the replay's own clock goes into `late` (ms)."""

    def replayer() -> None:
        with (
            tempfile.TemporaryDirectory() as tmp,
            open(os.devnull, "w") as sink,
            open_store(os.path.join(tmp, "bench.db")) as store,
        ):
            rec_id = store.create_recording("bench", source="script")
            store.add_steps(
                rec_id,
                [
                    Step(step=i, action=a, t_start=t, t_end=t)
                    for i, (a, t) in enumerate(zip(actions, times), start=1)
                ],
            )
            outcome = replay(
                store,
                store.recording(rec_id),
                options=ReplayOptions(),
                display=display,
                progress=Progress(total=len(times), stream=sink),
            )
            assert outcome.status == "passed", outcome.message
            late.extend(r.details["late_ms"] for r in outcome.results)

    return replayer


def with_naive_sleeps(display: str, actions: list[Action], times: list[float], late=None):
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
    intervals = [
        abs((b - a) - (tb - ta)) * 1000 for a, b, ta, tb in zip(seen, seen[1:], times, times[1:])
    ]
    drift = ((seen[-1] - seen[0]) - (times[-1] - times[0])) * 1000
    return {"median_ms": statistics.median(intervals), "p99_ms": p99(intervals), "drift_ms": drift}


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(len(ordered) * 0.99) - 1]  # nearest rank


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=320)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run both schedulers this many times, one line per run",
    )
    args = parser.parse_args()
    actions, times = script(args.steps)
    pointer = sum(a.action != "key" for a in actions)
    print(
        f"script: {len(times)} steps ({pointer} pointer steps) over {times[-1]:.1f} s, "
        f"observed by XRecord"
    )
    print(
        f"{'round':<6}{'scheduler':<12} {'interval err median':>20} {'p99':>10} "
        f"{'drift':>10} {'steal':>9}   own lateness median / p99"
    )
    with VirtualDisplay() as vd:
        for round_ in range(1, args.rounds + 1):
            results = {}
            for name, replayer in (("replay()", with_replay), ("naive sleep", with_naive_sleeps)):
                late: list[float] = []
                seen, stolen = run(vd.display, replayer(vd.display, actions, times, late))
                r = results[name] = errors(times, seen)
                own = f"   {statistics.median(late):.3f} / {p99(late):.3f} ms" if late else ""
                print(
                    f"{round_:<6}{name:<12} {r['median_ms']:>17.3f} ms {r['p99_ms']:>7.3f} "
                    f"ms {r['drift_ms']:>7.2f} ms {stolen:>6.0f} ms{own}",
                    flush=True,
                )
            d, n = results["replay()"], results["naive sleep"]
            print(
                f"{'':<6}drift ratio naive/replay(): "
                f"{abs(n['drift_ms']) / max(abs(d['drift_ms']), 1e-3):.1f}x"
            )


if __name__ == "__main__":
    main()
