"""How a case of the real-applications corpus is judged: located as the replayer locates
(replayer/anchoring.py's Locator: the recorded target as `expected`, the recorder's margin as
`unique`, the recorded screen as `context`, the hints of the step before), then scored
against the toolkit's truth; beside it the pyautogui-style baseline and --verify's verdict.
Shared by bench/bench_realapps.py and the test of the committed subset."""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from deskreel.matching import (
    NO_HINTS,
    PARAMS,
    Aimed,
    Hints,
    VerifyOptions,
    by_told,
    checks_for,
    named_by_text,
    Located,
    ObjectAnswer,
    Query,
    Reader,
    Reading,
    Refusal,
    Restorable,
    Said,
    StepWindows,
    TextReader,
    hints_after,
    locate,
    said_of,
    with_looks,
)
from deskreel.replayer.anchoring import aimed_at
from deskreel.storage.told import step_told_from_json
from deskreel.storage.widgets import Widget, widget_from_json
from deskreel.xsession.images import decode_image

__all__ = ["CONFIDENCE", "Verdict", "judge", "load"]

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
    by_object: bool = False  # an object rung decided it (found or refused)
    object_ms: float | None = None  # what asking the accessibility tree cost, where asked
    window_ms: float | None = None  # what asking the X server for the window cost, where asked
    read_ms: float | None = None  # what reading the window's box took, where it was read
    # the application did another thing than recorded here: --verify is right to fail it
    wrong_effect: bool = False
    absent: bool = False  # its target is gone here (removed, renamed): to be refused
    # --verify compared what the step's object said after it: the same (True) or not
    # (False); None where it did not (nothing recorded, or no answer on this screen)
    meant: bool | None = None
    # --verify's failure named what an effect reads, then and today (compare/text.py)
    named: bool = False
    # --verify compared what the objects of the step's window told after it (compare/
    # told.py): all as recorded (True) or not (False); None where it compared none
    told: bool | None = None
    vouched: bool = False  # an effect that failed by its pixels passed by what they told


def load(corpus: Path, only: Sequence[str] | None) -> list[dict[str, Any]]:
    """The manifests of the corpus, of the chosen applications."""
    manifests = [json.loads(p.read_text()) for p in sorted(corpus.glob("*/manifest.json"))]
    return [m for m in manifests if not only or m["app"] in only]


def judge(
    folder: Path,
    manifest: dict[str, Any],
    repeat: int,
    *,
    baseline: bool = True,
    told: Mapping[str, float] | None = None,
) -> list[Verdict]:
    """Every case of one application, each scenario's steps in order (hints carried, from
    the scale `told` gives the scenario's name where it gives one, as the replay does
    where the desktop tells it)."""
    steps = {s["step"]: s for s in manifest["steps"]}
    image = _images(folder)
    by_scenario: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in manifest["cases"]:
        by_scenario[case["scenario"]].append(case)
    out = []
    for scenario, cases in by_scenario.items():
        scale = (told or {}).get(scenario)
        hint = Hints(told=scale) if scale is not None else NO_HINTS
        befores: list[Restorable] = []  # the steps before, latest first, as a replay keeps them
        for case in sorted(cases, key=lambda c: c["step"]):
            step = steps[case["step"]]
            verdict, hint = _one(
                manifest["app"], scenario, step, case, image, hint, repeat, baseline, befores
            )
            out.append(verdict)
            befores = [(image(step["before"]), image(case["screen"])), *befores][
                : PARAMS.restored_back
            ]
    return out


def _one(
    app: str,
    scenario: str,
    step: dict[str, Any],
    case: dict[str, Any],
    image: Callable[[str | None], Any],
    hint: Hints,
    repeat: int,
    baseline: bool,
    befores: Sequence[Restorable] = (),
) -> tuple[Verdict, Hints]:
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
    before = image(step["before"])
    widget = widget_from_json(step.get("widget"))
    answer, object_ms = _object_stage(widget, case.get("objects"))
    query = with_looks(
        Query(
            anchor,
            tuple(step["anchor_offset"]),
            target,
            margin is not None and margin >= PARAMS.distinct_margin,
            twins=step.get("anchor_twins"),
            widget=widget,
            moving=tuple(tuple(m) for m in step.get("masks") or ()),
        ),
        image(step.get("anchor_hovered")),
        tuple(step["anchor_box"]),
        None if before is None else lambda: before,
    )

    windows, window_ms = _window_stage(case.get("windows"))
    reader = _Timed(READER)

    # what a replay asks more of an object whose content decides, blank when recorded
    shown_today = widget_from_json((case.get("objects") or {}).get("shown"))
    shown_asked: list[bool] = []

    def shown(_: Widget) -> Widget | None:
        shown_asked.append(True)
        return shown_today

    def call() -> Located:
        ask = None if answer is None else lambda _: answer
        return locate(screen, query, hint, ask=ask, windows=windows, read=reader,
                      shown=None if answer is None else shown)  # fmt: skip

    times: list[float] = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        found = call()
        took = (time.perf_counter() - started) * 1000
        if shown_asked:
            object_ms += float(case["objects"].get("shown_ms", 0.0)) if not times else 0.0
        times.append(took + object_ms + (window_ms or 0.0))
    hint = hints_after(found, hint)
    point = found.point if found.found else None
    ours = _score(point, truth)
    base = (
        _score(_baseline(screen, anchor, tuple(step["anchor_offset"])), truth)
        if baseline
        else "not run"
    )
    said = _said(case, widget)
    verify, named, told, vouched = _verify(step, case, image, truth, found, widget, said, befores)
    detail = f"{found.searched} x{found.scale:g} score {found.score:.3f}: {found.reason}"
    asked = case.get("objects") is not None and widget is not None
    return Verdict(
        app,
        scenario,
        case["step"],
        ours,
        statistics.median(times),
        base,
        verify,
        detail,
        by_object=found.by_object,
        object_ms=object_ms if asked else None,
        window_ms=window_ms,
        read_ms=reader.ms / max(1, repeat) if reader.reads else None,
        wrong_effect=bool(case.get("wrong_effect")),
        absent=truth is None,
        meant=None if said is None or verify is None else said.today == said.recorded,
        named=named,
        told=told,
        vouched=vouched,
    ), hint


def _object_stage(
    widget: Widget | None, objects: dict[str, Any] | None
) -> tuple[ObjectAnswer | None, float]:
    """The object stage's answer on the scenario's screen, as the corpus asked it live
    (corpus._objects: replayer/objects.py's ask_tree), and what asking cost (ms). None where
    the step has no object."""
    if widget is None or objects is None:
        return None, 0.0
    refusal = objects["refusal"]
    answer = ObjectAnswer(
        widget_from_json(objects["widget"]),
        None if refusal is None else Refusal(refusal[0], refusal[1], refusal[2]),
        objects["why"] if "why" in objects else _why_of(str(objects.get("reason", ""))),
    )
    return answer, float(objects["ms"])


# What a corpus built before the object rung gave its reasons as keys (2851b52) said, by the
# words each began with: the key of trail.WHY that says it now
_SAID_BEFORE = {
    "a point in a": "content",
    "no accessibility tree of": "no-tree",
    "no accessibility bus": "no-bus",
    "the accessibility tree failed": "tree-failed",
    "gone or renamed": "gone",
    "no unnamed": "no-unnamed",
    "twins in the same": "twins",
    "its place among its siblings": "moved",
    "same role, name and place": "same-place",
    "the only one of its role": "only-one",
    "at its recorded place": "at-place",
    "insensitive": "insensitive",
    "covered or hidden": "covered",
}


def _why_of(reason: str) -> str:
    """The key of an older corpus's reason, in words."""
    return next(key for words, key in _SAID_BEFORE.items() if reason.startswith(words))


def _window_stage(
    windows: dict[str, Any] | None,
) -> tuple[Callable[[Widget], list[Widget]] | None, float | None]:
    """The X-window rung's question on the scenario's screen, answered as the corpus asked
    it live (corpus._windows: xsession/xwindows.py's windows_at), and what asking cost (ms).
    None where the step kept no window."""
    if windows is None:
        return None, None
    found = [w for w in map(widget_from_json, windows["found"]) if w is not None]
    return (lambda _: found), float(windows["ms"])


READER = TextReader()  # one recogniser for every case, loaded on the first box read


class _Timed:
    """A reader that counts its readings and the time they took."""

    def __init__(self, read: Reader) -> None:
        self._read, self.reads, self.ms = read, 0, 0.0

    def __call__(self, box: Any) -> Reading:
        started = time.perf_counter()
        try:
            return self._read(box)
        finally:
            self.reads += 1
            self.ms += (time.perf_counter() - started) * 1000


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
    found: Located,
    widget: Widget | None,
    said: Said | None,
    befores: Sequence[Restorable] = (),
) -> tuple[str | None, bool, bool | None, bool]:
    """Whether `replay --verify` judges the step right: passed where the target was there
    (the step was done right), failed where it was gone or the application did another
    thing (a wrong-effect case). The step is judged where the scenario's person pressed (the
    recorded press moved into the target's box today), at the scale ours found it at (1
    where ours refused it). Its object check is what ours found (replayer/anchoring.py's
    aimed_at), taken as found where ours refused it: the person pressed it anyway. Beside
    it, whether a failed effect named what it reads, then and today; whether the objects of
    the step's window told as recorded (None: none compared), as the corpus asked them live
    (asked.py's told_answer); and whether that passed an effect its pixels failed."""
    if truth is None:  # not found: the replay's verdict is a failure, as it should be
        return "right", False, None, False
    after = image(case["after"])
    if after is None or step["after"] is None:
        return None, False, None, False
    masks = [tuple(box) for box in step.get("masks", ())]
    recorded = image(step["after"])
    pixels = checks_for(
        action=step["action"]["action"],
        before=image(step["before"]),
        after=recorded,
        screen=after,
        target=tuple(step["point"]),
        located=_pressed(step, truth),
        scale=found.scale if found.found else 1.0,
        region=None,
        masks=masks,
        options=VerifyOptions(),
        earlier=image(case["screen"]),
        aimed=_aimed(step, truth, found, widget),
        said=said,
        windows=_tops(case),
        restorable=befores,
    )
    recorded_told, today = (
        step_told_from_json(step.get("told")),
        step_told_from_json(case.get("told")),
    )
    checks = by_told(pixels, recorded_told, today, masks, VerifyOptions())
    told = [c.passed for c in checks[len(pixels) :]]  # by_told adds its checks last
    vouched = any(b.passed and not a.passed for a, b in zip(pixels, checks))
    passed = all(c.passed for c in checks)
    if not passed:  # as the replay does once a step's verdict is final
        checks = named_by_text(checks, recorded, masks, after, READER)
    verdict = "right" if passed != bool(case.get("wrong_effect")) else "wrong"
    named = any(c.kind == "effect" and bool(c.said) for c in checks)
    return verdict, named, all(told) if told else None, vouched


def _tops(case: dict[str, Any]) -> StepWindows | None:
    """The windows the step opened on the scenario's screen, as the corpus asked the X
    server live (asked.py's tops_told); None in a corpus built before it asked."""
    tops = case.get("tops")
    if tops is None:
        return None
    return StepWindows(tuple(tuple(b) for b in tops["opened"]))


def _said(case: dict[str, Any], widget: Widget | None) -> Said | None:
    """What the step's object said after it, then and on the scenario's screen, as the
    corpus asked it live (asked.py's said_answer); None where not asked or not answered."""
    asked = case.get("said")
    if widget is None or not asked or not asked.get("answered"):
        return None
    return said_of(widget, widget_from_json(asked.get("widget")))


def _aimed(
    step: dict[str, Any], truth: dict[str, Any], found: Located, widget: Widget | None
) -> Aimed | None:
    anchor = tuple(step["anchor_box"]) if step.get("anchor_box") else None
    if not found.found:  # the person pressed the target where ours refused it
        found = replace(found, found=True, box=tuple(truth["box"]))
    return aimed_at(found, widget, anchor)


def _pressed(step: dict[str, Any], truth: dict[str, Any]) -> tuple[int, int]:
    """Where the scenario's person pressed: the recorded press at the same fraction of its
    target's box today (corpus._point_in)."""
    (px, py), (rx, ry, rw, rh) = step["point"], step["truth"]["box"]
    x, y, w, h = truth["box"]
    return (x + round((px - rx) / max(rw, 1) * w), y + round((py - ry) / max(rh, 1) * h))


def _images(folder: Path) -> Callable[[str | None], Any]:
    cache: dict[str, Any] = {}

    def image(name: str | None) -> Any:
        if name is None:
            return None
        if name not in cache:
            cache[name] = np.ascontiguousarray(decode_image((folder / name).read_bytes()))
        return cache[name]

    return image
