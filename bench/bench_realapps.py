"""Re-anchoring and --verify on real applications (issue 19): the corpus of
bench/make_realapps_corpus.py, application by scenario, against a pyautogui-style baseline.

Every recorded pointer step is looked for on its scenario's screen as the replayer looks for
it (replayer/anchoring.py's Locator: the recorded target as `expected`, the recorder's margin
as `unique`, the recorded screen as `context`, and the scale and shift the step before was
found at as hints, steps in order). The truth is the toolkit's own geometry of the same
widget on that screen (AT-SPI or the X window tree):

- right: the point found lies inside the target widget;
- refused: no point (no input would be sent); right when the target is gone or renamed;
- wrong: a point anywhere else, or any point where the target is gone.

The baseline is pyautogui.locateOnScreen(anchor, confidence=0.9): a colour
TM_CCOEFF_NORMED over the whole screen at 1x, its maximum taken at or above 0.9.

--verify: after each step the scenario's screen is compared with the recording's after-frame
as `replay --verify` compares it, at the place the step acted; a step whose target was there
was done right (the corpus acts on the truth), so its check should pass; one whose target is
gone should fail. The table counts the verdicts that say so.

    .venv/bin/python bench/bench_realapps.py [--corpus /tmp/deskreel-realapps] [--build]
                                             [--app NAME] [--repeat 1] [--failures]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_realapps_corpus import DEFAULT_OUT
from matching import DISTINCT_MARGIN, Recorded, hints_after, locate
from matching.defaults import DEFAULT_MARGIN, DEFAULT_THRESHOLD
from replayer.verify import VerifyOptions, checks_for
from xsession.images import decode_image

CONFIDENCE = 0.9  # the baseline's acceptance, pyautogui's usual confidence=


@dataclass(frozen=True)
class Verdict:
    """One case's answers: ours, the baseline's, and --verify's."""

    app: str
    scenario: str
    step: int
    ours: str  # right, refused, wrong
    ms: float
    baseline: str
    verify: str | None  # right, wrong; None without an after-screen to compare
    detail: str


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--build", action="store_true", help="build the corpus first")
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, help="timed calls per case")
    parser.add_argument("--failures", action="store_true", help="a line per wrong or refusal")
    args = parser.parse_args()
    if args.build:
        from make_realapps_corpus import build_all

        build_all(args.corpus, args.app)
    manifests = load(args.corpus, args.app)
    if not manifests:
        print(f"no corpus in {args.corpus}: build it with --build", file=sys.stderr)
        return 2
    verdicts = [v for m in manifests for v in judge(args.corpus / m["app"], m, args.repeat)]
    report(verdicts, manifests)
    if args.failures:
        for v in verdicts:
            if v.ours != "right" or v.verify == "wrong":
                print(
                    f"  {v.app} / {v.scenario} / step {v.step}: {v.ours}, verify {v.verify}"
                    f" - {v.detail}"
                )
    return 0


def load(corpus: Path, only: Sequence[str] | None) -> list[dict[str, Any]]:
    """The manifests of the corpus, of the chosen applications."""
    manifests = [json.loads(p.read_text()) for p in sorted(corpus.glob("*/manifest.json"))]
    return [m for m in manifests if not only or m["app"] in only]


def judge(folder: Path, manifest: dict[str, Any], repeat: int) -> list[Verdict]:
    """Every case of one application, each scenario's steps in order (hints carried)."""
    steps = {s["step"]: s for s in manifest["steps"]}
    image = _images(folder)
    by_scenario: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in manifest["cases"]:
        by_scenario[case["scenario"]].append(case)
    out = []
    for scenario, cases in by_scenario.items():
        hint: tuple[float, tuple[int, int]] = (1.0, (0, 0))
        for case in sorted(cases, key=lambda c: c["step"]):
            step = steps[case["step"]]
            verdict, hint = _one(manifest["app"], scenario, step, case, image, hint, repeat)
            out.append(verdict)
    return out


def _one(
    app: str,
    scenario: str,
    step: dict[str, Any],
    case: dict[str, Any],
    image: Callable[[str | None], Any],
    hint: tuple[float, tuple[int, int]],
    repeat: int,
) -> tuple[Verdict, tuple[float, tuple[int, int]]]:
    screen, anchor = image(case["screen"]), image(step["anchor"])
    truth = case["truth"]
    target = tuple(step["action"].get("start_coordinate") or step["action"]["coordinate"])
    if anchor is None:
        return Verdict(
            app,
            scenario,
            case["step"],
            "refused",
            0.0,
            "refused",
            None,
            "the recorder kept no anchor",
        ), hint
    margin = step["anchor_margin"]
    recorded = Recorded(image(step["before"]))

    def call() -> Any:
        return locate(
            screen,
            anchor,
            tuple(step["anchor_offset"]),
            expected=target,
            threshold=DEFAULT_THRESHOLD,
            margin=DEFAULT_MARGIN,
            unique=margin is not None and margin >= DISTINCT_MARGIN,
            context=recorded,
            scale_hint=hint[0],
            shift_hint=hint[1],
        )

    times = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        found = call()
        times.append((time.perf_counter() - started) * 1000)
    if found.found and found.point is not None:
        hint = hints_after(found.point, found.scale, target)
    point = found.point if found.found else None
    ours = _score(point, truth)
    base = _score(_baseline(screen, anchor, tuple(step["anchor_offset"])), truth)
    verify = _verify(step, case, image, truth)
    detail = f"{found.searched} x{found.scale:g} score {found.score:.3f}: {found.reason}"
    return Verdict(
        app, scenario, case["step"], ours, statistics.median(times), base, verify, detail
    ), hint


def _score(point: tuple[int, int] | None, truth: dict[str, Any] | None) -> str:
    if point is None:
        return "refused"
    if truth is None:
        return "wrong"
    x, y, w, h = truth["box"]
    return "right" if x <= point[0] < x + w and y <= point[1] < y + h else "wrong"


def _baseline(screen: Any, anchor: Any, offset: tuple[int, int]) -> tuple[int, int] | None:
    scores = cv2.matchTemplate(screen, anchor, cv2.TM_CCOEFF_NORMED)
    _, best, _, (x, y) = cv2.minMaxLoc(scores)
    return (x + offset[0], y + offset[1]) if best >= CONFIDENCE else None


def _verify(
    step: dict[str, Any],
    case: dict[str, Any],
    image: Callable[[str | None], Any],
    truth: dict[str, Any] | None,
) -> str | None:
    """Whether `replay --verify` judges the step right: passed where the target was there
    (the step was done right), failed where it was gone."""
    if truth is None:
        return "right"  # not found: the replay's verdict is a failure, as it should be
    after = image(case["after"])
    if after is None or step["after"] is None:
        return None
    x, y, w, h = truth["box"]
    checks = checks_for(
        action=step["action"]["action"],
        before=image(step["before"]),
        after=image(step["after"]),
        screen=after,
        target=tuple(step["point"]),
        located=(x + w // 2, y + h // 2),
        scale=1.0,
        region=None,
        masks=(),
        options=VerifyOptions(),
        earlier=image(case["screen"]),
    )
    return "right" if all(c.passed for c in checks) else "wrong"


def _images(folder: Path) -> Callable[[str | None], Any]:
    cache: dict[str, Any] = {}

    def image(name: str | None) -> Any:
        if name is None:
            return None
        if name not in cache:
            cache[name] = np.ascontiguousarray(decode_image((folder / name).read_bytes()))
        return cache[name]

    return image


def report(verdicts: Sequence[Verdict], manifests: Sequence[dict[str, Any]]) -> None:
    toolkits = {m["app"]: m["toolkit"] for m in manifests}
    print(
        f"{len(verdicts)} cases from {len(manifests)} applications; ours: locate() as the "
        f"replayer calls it; baseline: colour matchTemplate at 1x, maximum >= {CONFIDENCE}"
    )
    header = (
        f"{'application':<22}{'scenario':<19}{'cases':>6}{'right':>7}{'refused':>9}"
        f"{'wrong':>7}{'p50 ms':>8}{'p95 ms':>8}  {'baseline r/ref/w':>16}  verify ok"
    )
    print(header)
    groups: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[(v.app, v.scenario)].append(v)
    for (app, scenario), group in groups.items():
        print(_row(f"{app} ({toolkits[app]})"[:21], scenario, group))
    print(_row("all", "", list(verdicts)))


def _row(app: str, scenario: str, group: Sequence[Verdict]) -> str:
    count = {k: sum(v.ours == k for v in group) for k in ("right", "refused", "wrong")}
    base = {k: sum(v.baseline == k for v in group) for k in ("right", "refused", "wrong")}
    ms = sorted(v.ms for v in group)
    p95 = ms[max(0, round(0.95 * len(ms)) - 1)]
    judged = [v for v in group if v.verify is not None]
    verified = sum(v.verify == "right" for v in judged)
    return (
        f"{app:<22}{scenario:<19}{len(group):>6}{count['right']:>7}{count['refused']:>9}"
        f"{count['wrong']:>7}{statistics.median(ms):>8.1f}{p95:>8.1f}  "
        f"{base['right']:>6}/{base['refused']}/{base['wrong']:<5}  "
        f"{verified}/{len(judged)}"
    )


if __name__ == "__main__":
    sys.exit(main())
