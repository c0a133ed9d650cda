"""What keeping what a window's objects tell costs (issue 33's effects by meaning): for each
AT-SPI application of the real-applications corpus,

- stored: the bytes per step of the recording (`told` beside the step, schema 8), how many
  steps know what their window told before and after them, objects per reading, readings
  cut short;
- time: one reading of the window (xsession/atspi_told.py's told_at, as the recorder's
  thread and a replay's --verify read it) at each recorded pointer step's point, on a fresh
  start of the application, `--repeat` times each; beside it, the baseline: the question a
  replay already asks there after a step (replayer/objects.py's shown_at, one hit test).

    .venv/bin/python bench/bench_told.py [--corpus /tmp/deskreel-realapps] [--app NAME]
                                         [--repeat 10]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_realapps_corpus import DEFAULT_OUT
from realapps.catalog import Scenario, apps
from realapps.corpus import start
from realapps.desktop import Desktop
from realapps.judge import load
from deskreel.replayer.objects import QUESTION_BUDGET, shown_at, told_on_top
from deskreel.storage import open_store
from deskreel.storage.widgets import widget_from_json
from deskreel.xsession.display import connect


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    manifests = [m for m in load(args.corpus, args.app) if m["truth"] == "atspi"]
    if not manifests:
        print(f"no AT-SPI application in {args.corpus}", file=sys.stderr)
        return 2
    print(
        f"{'application':<16}{'steps':>6}{'known':>7}{'B/step':>8}{'objects':>8}{'cut':>4}"
        f"{'read p50':>10}{'p95 ms':>8}{'hit p50':>9}{'p95 ms':>8}{'ratio':>7}"
    )
    for manifest in manifests:
        stored = _stored(args.corpus / manifest["app"] / "recording.db")
        read, hit = _timed(args.corpus, manifest, args.repeat)
        ratio = statistics.median(read) / max(statistics.median(hit), 1e-6)
        print(
            f"{manifest['app']:<16}{stored[0]:>6}{stored[1]:>7}{stored[2]:>8.0f}{stored[3]:>8.1f}"
            f"{stored[4]:>4}{statistics.median(read):>10.1f}{_p95(read):>8.1f}"
            f"{statistics.median(hit):>9.1f}{_p95(hit):>8.1f}{ratio:>6.1f}x"
        )
    return 0


def _stored(db: Path) -> tuple[int, int, float, float, int]:
    """Steps, steps that know both readings, mean bytes of `told` per step, mean objects
    per reading, readings cut short."""
    from deskreel.storage.told import step_told_to_json

    with open_store(db, create=False) as store:
        steps = store.steps(store.recording().id)
    told = [s.told for s in steps]
    readings = [r for t in told if t is not None for r in (t.before, t.after) if r is not None]
    size = sum(len((step_told_to_json(t) or "").encode()) for t in told)
    known = sum(t is not None and t.before is not None and t.after is not None for t in told)
    objects = statistics.mean(len(r.objects) for r in readings) if readings else 0.0
    return len(steps), known, size / max(len(steps), 1), objects, sum(bool(r.cut) for r in readings)


def _timed(corpus: Path, manifest: dict, repeat: int) -> tuple[list[float], list[float]]:
    """ms of a reading of the window, and of the hit test a replay asks, at each recorded
    pointer step's point on a fresh start where a window of the application is there."""
    app = apps()[manifest["app"]]
    kept = [(tuple(s["point"]), widget_from_json(s.get("widget"))) for s in manifest["steps"]]
    read: list[float] = []
    hit: list[float] = []
    with Desktop(logs=corpus / app.name / "logs" / "bench-told") as desktop:
        start(app, Scenario("bench told"), desktop)
        tree, display = desktop.accessibility(), connect(desktop.display.display)
        assert tree is not None, "no accessibility bus"
        for point, widget in kept:  # where the start shows a window there (not a popup's item)
            if widget is None:
                continue
            with tree.bus.budget(QUESTION_BUDGET):
                if told_on_top(tree, display, point) is None:
                    continue
            read += _times(tree, repeat, functools.partial(told_on_top, tree, display, point))
            hit += _times(tree, repeat, functools.partial(shown_at, tree, display, widget, point))
        tree.close()
        display.close()
    return read, hit


def _times(tree: Any, repeat: int, question: Callable[[], object]) -> list[float]:
    out = []
    for _ in range(repeat):
        began = time.perf_counter()
        with tree.bus.budget(QUESTION_BUDGET):
            question()
        out.append((time.perf_counter() - began) * 1000)
    return out


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


if __name__ == "__main__":
    sys.exit(main())
