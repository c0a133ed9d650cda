"""Long recordings (issue 39): a scripted person at a busy or a quiet desktop, recorded for 10
minutes (60 with --minutes 60) by a Recorder in this process, on a private 1280x800 Xvfb.

- busy: `top -d 0.5` in one terminal and `xclock -update 1`, besides the terminal the
  person types into: the screen changes several times a second whatever the person does;
- quiet: only the person's terminal: the screen changes when the person acts.

The person (a separate process, through XTest and xdotool) moves the pointer about, clicks
somewhere in its terminal, types a shell command and presses Return, every few seconds,
until the time is up; then presses the stop chord. Printed per minute: the recorder's RSS,
the finisher's lag (the age of the oldest job waiting for it: p95 and worst), its CPU share
and the database's growth. At the end: how long the stop took, the steps against the
person's actions, and what was shed.

    .venv/bin/python bench/bench_long_record.py [--minutes 10] [--desktop busy|quiet|both]
                                                [--profile FILE]

Needs xterm and xclock (`make bench-long` installs them).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deskreel.storage import open_store  # noqa: E402
from deskreel.xsession.xvfb import VirtualDisplay  # noqa: E402

TERMINAL = (20, 440, 620, 340)  # x, y, width, height of the person's terminal
STOP_CHORD = "ctrl+alt+End"


@dataclass
class Minute:
    rss_mb: float
    cpu: float  # share of one core
    lags: list[float]
    db_mb: float


@dataclass
class Run:
    desktop: str
    minutes: list[Minute] = field(default_factory=list)
    stop_s: float = 0.0
    actions: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    shed: dict[str, int] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)
    duration: float = 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--desktop", choices=("busy", "quiet", "both"), default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", type=Path, help="cProfile the finisher's thread into FILE")
    args = parser.parse_args()
    for tool in ("xterm", "xclock", "xdotool"):
        if shutil.which(tool) is None:
            print(f"{tool} is missing: `make bench-long` installs it", file=sys.stderr)
            return 2
    desktops = ("busy", "quiet") if args.desktop == "both" else (args.desktop,)
    runs = [record(d, args.minutes, seed=args.seed, profile=args.profile) for d in desktops]
    for run in runs:
        report(run)
    return 0


def record(desktop: str, minutes: float, *, seed: int, profile: Path | None) -> Run:
    from deskreel.recorder import Recorder, RecordOptions

    run = Run(desktop)
    with tempfile.TemporaryDirectory() as tmp, VirtualDisplay(width=1280, height=800) as x:
        apps = start_desktop(x, desktop)
        try:
            db = Path(tmp) / "long.db"
            store = open_store(db)
            recorder = Recorder(
                store, options=RecordOptions(name="long"), display=x.display, say=run.said.append
            )
            if profile is not None:
                profiled(recorder, profile)
            result: dict[str, Any] = {}
            thread = threading.Thread(target=lambda: result.update(s=recorder.run(lambda: False)))
            thread.start()
            time.sleep(1.0)
            spawn = multiprocessing.get_context("spawn")  # not a fork of a threaded process
            actions: Any = spawn.Queue()
            person = spawn.Process(target=act, args=(x.display, minutes * 60, seed, actions))
            person.start()
            run.minutes = watch(recorder, db, person, minutes)
            run.actions, chord_at = actions.get(timeout=60)
            person.join()
            thread.join()
            run.stop_s = time.monotonic() - chord_at
            summary = result["s"]
            run.duration = summary.duration
            recording = store.recording("long")
            run.steps = [s.action.action for s in store.steps(recording.id)]
            run.shed = dict(getattr(summary, "shed", {}) or {})
            store.close()
        finally:
            for app in apps:
                app.terminate()
                app.wait(5)
    return run


def start_desktop(x: VirtualDisplay, desktop: str) -> list[subprocess.Popen[bytes]]:
    env = x.env()
    w, h = TERMINAL[2] // 6, TERMINAL[3] // 13
    quiet = subprocess.DEVNULL
    apps = [
        subprocess.Popen(
            ["xterm", "-geometry", f"{w}x{h}+{TERMINAL[0]}+{TERMINAL[1]}", "-e", "bash", "--norc"],
            env=env | {"PS1": "$ "},
            stdout=quiet,
            stderr=quiet,
        )
    ]
    if desktop == "busy":
        apps += [
            subprocess.Popen(
                ["xterm", "-geometry", "100x28+20+20", "-e", "top", "-d", "0.5"],
                env=env,
                stdout=quiet,
                stderr=quiet,
            ),
            subprocess.Popen(
                ["xclock", "-update", "1", "-geometry", "220x220+1000+40"],
                env=env,
                stdout=quiet,
                stderr=quiet,
            ),
        ]
    time.sleep(2.0)
    return apps


def act(display: str, seconds: float, seed: int, out: Any) -> None:
    """The person: moves the pointer about while thinking, clicks into the terminal, types a
    command and presses Return; the stop chord at the end. The pointer glides (a motion
    event every 20 ms), so the person is rarely still for long."""
    from Xlib import X
    from Xlib.ext import xtest

    from deskreel.xsession.display import connect

    rnd = random.Random(seed)
    env = dict(os.environ, DISPLAY=display)
    conn = connect(display, extensions=("XTEST",))
    where = [TERMINAL[0] + TERMINAL[2] // 2, TERMINAL[1] + TERMINAL[3] // 2]

    def glide(x: int, y: int, seconds: float) -> None:
        steps = max(1, int(seconds / 0.02))
        x0, y0 = where
        for i in range(1, steps + 1):
            xtest.fake_input(
                conn,
                X.MotionNotify,
                x=round(x0 + (x - x0) * i / steps),
                y=round(y0 + (y - y0) * i / steps),
            )
            conn.flush()
            time.sleep(0.02)
        where[:] = [x, y]

    def xdotool(*args: str) -> None:
        subprocess.run(["xdotool", *args], env=env, check=True)

    def somewhere_in_terminal() -> tuple[int, int]:
        return (
            TERMINAL[0] + rnd.randrange(40, TERMINAL[2] - 40),
            TERMINAL[1] + rnd.randrange(30, TERMINAL[3] - 30),
        )

    done: list[str] = []
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        for _ in range(rnd.randrange(1, 4)):  # thinking, the pointer wandering
            glide(rnd.randrange(40, 1240), rnd.randrange(40, 760), rnd.uniform(0.4, 1.2))
        glide(*somewhere_in_terminal(), 0.5)
        xdotool("click", "1")
        done.append("left_click")
        time.sleep(0.3)
        xdotool("type", "--delay", "40", f"echo {n}")
        done.append("type")
        time.sleep(0.3)
        xdotool("key", "Return")
        done.append("key")
        time.sleep(rnd.uniform(0.3, 1.5))
    chord_at = time.monotonic()
    xdotool("key", STOP_CHORD)
    conn.close()
    out.put((done, chord_at))


def watch(recorder: Any, db: Path, person: Any, minutes: float) -> list[Minute]:
    """Sample every second while the person acts; one row per minute."""
    rows: list[Minute] = []
    lags: list[float] = []
    started = last = time.monotonic()
    cpu_last = _cpu()
    while person.is_alive():
        time.sleep(1.0)
        lags.append(_lag(recorder))
        now = time.monotonic()
        if now - last >= 60 or not person.is_alive():
            cpu = _cpu()
            rows.append(Minute(_rss_mb(), (cpu - cpu_last) / (now - last), lags, _db_mb(db)))
            print(f"  {recorder_minute(rows, started, now)}", flush=True)
            cpu_last, last, lags = cpu, now, []
    return rows


def recorder_minute(rows: list[Minute], started: float, now: float) -> str:
    row = rows[-1]
    return (
        f"minute {len(rows):3d} ({(now - started) / 60:5.1f}): RSS {row.rss_mb:6.1f} MB, "
        f"lag p95 {_p95(row.lags):5.2f} s (worst {max(row.lags, default=0):5.2f}), "
        f"CPU {100 * row.cpu:5.1f} %, database {row.db_mb:6.1f} MB"
    )


def report(run: Run) -> None:
    rows = run.minutes
    first = rows[0].rss_mb if rows else 0.0
    lags = [lag for row in rows for lag in row.lags]
    persons = [a for a in run.actions]
    steps = [s for s in run.steps if s != "wait"]
    print(f"\n{run.desktop} desktop, {len(rows)} minutes (the last one ends at the stop chord)")
    head = ("minute", 6), ("RSS MB", 8), ("lag p95 s", 10), ("worst s", 8), ("CPU %", 6)
    print("  " + " ".join(f"{name:>{width}}" for name, width in head) + "   DB MB  +DB MB")
    db_before = 0.0
    for i, row in enumerate(rows, 1):
        print(
            f"  {i:6d} {row.rss_mb:8.1f} {_p95(row.lags):10.2f} {max(row.lags, default=0):8.2f} "
            f"{100 * row.cpu:6.1f} {row.db_mb:7.1f} {row.db_mb - db_before:+7.2f}"
        )
        db_before = row.db_mb
    print(
        f"  RSS growth after the first minute: {max(r.rss_mb for r in rows) - first:+.1f} MB "
        f"at most ({rows[-1].rss_mb - first:+.1f} MB at the end); "
        f"lag p95 {_p95(lags):.2f} s, worst {max(lags, default=0):.2f} s; "
        f"CPU mean {100 * statistics.fmean(r.cpu for r in rows):.1f} % of a core"
    )
    print(
        f"  stop: {run.stop_s:.1f} s from the chord to the recorder's end; "
        f"the recording lasts {run.duration / 60:.1f} min"
    )
    kinds_match = steps == persons
    print(
        f"  steps (waits left out): {len(steps)} for the person's {len(persons)} actions"
        f" ({'the same kinds in the same order' if kinds_match else 'NOT the same sequence'})"
    )
    print(f"  shed: {run.shed or 'nothing'}")
    for line in run.said:
        print(f"  said: {line}")


def profiled(recorder: Any, path: Path) -> None:
    """Run the finisher's thread under cProfile, written to `path` when it ends."""
    import cProfile

    from deskreel.recorder import finisher

    original = finisher.Finisher._run

    def run(self: Any) -> None:
        profile = cProfile.Profile()
        profile.enable()
        try:
            original(self)
        finally:
            profile.disable()
            profile.dump_stats(str(path))

    finisher.Finisher._run = run  # type: ignore[method-assign]


def _lag(recorder: Any) -> float:
    progress = getattr(recorder, "progress", None)
    return progress().oldest_wait if progress is not None else float("nan")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _db_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


if __name__ == "__main__":
    sys.exit(main())
