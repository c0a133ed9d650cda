"""The round trip at scale: N scripts generated over the whole vocabulary are each imported,
replayed into the sample app at every speed while a recorder runs, and the recording is
compared with the script (tests/roundtrip.py says what equal means).

It prints, per speed, how many scripts came back exact and the mismatches per action kind,
then the highest speed at which every script was exact and, per kind, the highest speed
with no mismatch of that kind. Side by side, on the very same raw events: the baseline,
deskreel's reduction before issue 17 (a re-press within 20 ms of the release taken for
autorepeat, a fixed 0.5 s hold for `duration`, keys read through the keymap of the start).

    .venv/bin/python bench/bench_roundtrip.py [--scripts 200] [--speeds 1,4,20,fastest]
                                              [--seed 17] [--max-actions 8] [--failures]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings

import deskreel.recorder.keyboard as keyboard_pass
import deskreel.recorder.reduce as reduction
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.storage import RawEvent
from tests.roundtrip import FASTEST, Outcome, canonical, mismatches
from tests.roundtrip import round_trip, scripts
from tests.roundtrip import speed_label as label

SAMPLE_APP = Path(__file__).resolve().parent.parent / "samples" / "app.py"
KINDS = (
    "type",
    "key",
    "left_click",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "left_click_drag",
    "scroll",
    "mouse_move",
    "wait",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripts", type=int, default=200)
    parser.add_argument("--speeds", default="1,4,20,fastest")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--max-actions", type=int, default=8)
    parser.add_argument("--failures", action="store_true", help="print every mismatch")
    args = parser.parse_args()
    speeds = [FASTEST if s == "fastest" else float(s) for s in args.speeds.split(",")]
    results: dict[float, list[Outcome]] = defaultdict(list)
    baseline: dict[float, list[Counter[str]]] = defaultdict(list)
    began = time.monotonic()
    with session() as (display, folder, keymap):

        @seed(args.seed)
        @settings(
            max_examples=args.scripts,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(scripts(max_actions=args.max_actions))
        def run(script: list[dict[str, Any]]) -> None:
            for speed in speeds:
                outcome = round_trip(script, speed=speed, display=display, folder=folder)
                results[speed].append(outcome)
                baseline[speed].append(
                    mismatches(outcome.expected, old_reduction(outcome.events, keymap))
                )
                if args.failures and not outcome.exact:
                    print(outcome.describe(), flush=True)

        run()
    report(results, baseline, speeds, time.monotonic() - began)


@contextlib.contextmanager
def session() -> Iterator[tuple[str, Path, dict[int, list[int]]]]:
    """A private Xvfb with the sample app; its display, a folder, and its keymap now."""
    from Xlib.display import Display

    with VirtualDisplay() as xvfb, tempfile.TemporaryDirectory() as tmp:
        conn = Display(xvfb.display)
        info = conn.display.info
        rows = conn.get_keyboard_mapping(info.min_keycode, info.max_keycode - info.min_keycode + 1)
        keymap = {info.min_keycode + i: list(row) for i, row in enumerate(rows)}
        conn.close()
        app = subprocess.Popen(
            [sys.executable, str(SAMPLE_APP), "--log", f"{tmp}/app.jsonl"],
            env=xvfb.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_ready(Path(tmp) / "app.jsonl")
            yield xvfb.display, Path(tmp), keymap
        finally:
            app.terminate()
            app.wait()


def _wait_for_ready(log: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if log.exists() and '"ready"' in log.read_text():
            return
        time.sleep(0.05)
    raise SystemExit("the sample app did not start")


def old_reduction(events: list[RawEvent], keymap: dict[int, list[int]]) -> list[dict]:
    """The raw events reduced as deskreel did before issue 17, in the normal form."""
    seen = [
        replace(e, keysym=None, char="")
        if e.kind.startswith("key") and e.keycode is not None and not any(keymap.get(e.keycode, []))
        else e
        for e in events
    ]
    new_repeats = keyboard_pass._repeats
    keyboard_pass._repeats = _old_repeats
    try:
        old = reduction.reduce_events(
            seen, settings=replace(reduction.DEFAULT_SETTINGS, repeat_delay=0.5)
        )
    finally:
        keyboard_pass._repeats = new_repeats
    return canonical([r.action for r in old])


def _old_repeats(press: Any, down: RawEvent, events: Any, settings: Any) -> bool:
    return press.up is None or down.t - events[press.up].t <= 0.02


def report(
    results: dict[float, list[Outcome]],
    baseline: dict[float, list[Counter[str]]],
    speeds: list[float],
    took: float,
) -> None:
    n = len(results[speeds[0]])
    expected = Counter(a["action"] for o in results[speeds[0]] for a in o.expected)
    print(
        f"{n} scripts ({sum(expected.values())} actions: "
        + ", ".join(f"{expected[k]} {k}" for k in KINDS if expected[k])
        + f") at speeds {', '.join(map(label, speeds))}; {took / 60:.1f} min"
    )
    header = f"{'speed':<9}{'exact':>14}{'baseline':>14}  mismatches per kind (baseline)"
    print(header)
    for speed in speeds:
        outcomes = results[speed]
        ours = sum((o.mismatches for o in outcomes), Counter())
        theirs = sum(baseline[speed], Counter())
        exact = sum(o.exact for o in outcomes)
        base_exact = sum(not c for c in baseline[speed])
        kinds = (
            ", ".join(f"{k} {ours[k]} ({theirs[k]})" for k in KINDS if ours[k] or theirs[k])
            or "none"
        )
        print(
            f"{label(speed):<9}{exact:>6}/{n:<4} {pct(exact, n):>4}{base_exact:>6}/{n:<4}  {kinds}"
        )
    print(f"highest speed with every script exact: {highest(results, speeds, None)}")
    print(
        "highest exact speed per kind: "
        + ", ".join(f"{k} {highest(results, speeds, k)}" for k in KINDS if expected[k])
    )
    times = [len(o.recorded) for o in results[speeds[0]]]
    print(f"actions recorded per script: median {statistics.median(times):g}")


def highest(results: dict[float, list[Outcome]], speeds: list[float], kind: str | None) -> str:
    best = "none"
    for speed in sorted(speeds):
        bad = sum(o.mismatches[kind] if kind else (not o.exact) for o in results[speed])
        if bad:
            break
        best = label(speed)
    return best


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


if __name__ == "__main__":
    main()
