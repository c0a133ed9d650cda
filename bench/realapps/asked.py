"""What a replay's object rungs answer on a scenario's screen, asked live while the corpus is
shot (bench/realapps/corpus.py), with what asking cost: the judge (judge.py) replays those
answers, so that a case is judged as the replayer would have judged it on that screen."""

from __future__ import annotations

import time
from typing import Any

from deskreel.matching.objects import ObjectAnswer
from deskreel.storage.widgets import widget_from_json, widget_to_json

__all__ = ["objects_answer", "said_answer", "told_answer", "tops_told", "windows_answer"]


def objects_answer(tree: Any, display: Any, recorded: str | None) -> dict[str, Any] | None:
    """What a replay's object stage answers on this screen (replayer/objects.py's ask_tree,
    live), and what asking cost. None where nothing was recorded to ask."""
    from deskreel.replayer.objects import QUESTION_BUDGET, ask_tree

    widget = widget_from_json(recorded)
    if tree is None or widget is None:
        return None
    started = time.perf_counter()
    try:
        with tree.bus.budget(QUESTION_BUDGET):
            answer = ask_tree(tree, display, widget)
    except Exception as err:  # as ObjectFinder.find: the pixels decide
        answer = ObjectAnswer(None, None, "tree-failed", str(err))
    refusal = answer.refusal
    said = {
        "widget": widget_to_json(answer.widget),
        "refusal": None if refusal is None else [refusal.rule, refusal.measured, refusal.needed],
        "why": answer.why,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }
    if answer.why == "content":  # what a replay asks more where it was blank when recorded
        started = time.perf_counter()
        said["shown"] = _shown(tree, display, widget)
        said["shown_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return said


def _shown(tree: Any, display: Any, widget: Any) -> str | None:
    """What a replay asks of an object whose content decides, where it was blank when
    recorded (replayer/objects.py's shown_in_place, live); the judge decides blankness."""
    from deskreel.replayer.objects import QUESTION_BUDGET, shown_in_place

    try:
        with tree.bus.budget(QUESTION_BUDGET):
            return widget_to_json(shown_in_place(tree, display, widget))
    except Exception:  # as ObjectFinder.shown: nothing known
        return None


def windows_answer(tree: Any, recorded: str | None) -> dict[str, Any] | None:
    """What a replay's X-window rung is given on this screen (xsession/xwindows.py's
    windows_at, live: today's windows at the recorded path, on `tree`, kept between steps
    as a replay keeps it), and what asking cost. None where the step kept no X window."""
    from deskreel.storage.widgets import XWINDOW
    from deskreel.xsession.xwindows import windows_at

    widget = widget_from_json(recorded)
    if widget is None or widget.source != XWINDOW:
        return None
    started = time.perf_counter()
    found = windows_at(tree, widget)
    return {
        "found": [widget_to_json(w) for w in found],
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }


def said_answer(
    tree: Any, display: Any, recorded: str | None, point: tuple[int, int]
) -> dict[str, Any] | None:
    """What --verify asks after a step (replayer/anchoring.py's Locator.said, live): the
    object the screen shows at the point the step pressed, once the step settled. None
    where the step's object recorded nothing of itself after the step."""
    from deskreel.replayer.objects import QUESTION_BUDGET, shown_at

    widget = widget_from_json(recorded)
    if tree is None or widget is None or widget.after is None:
        return None
    try:
        with tree.bus.budget(QUESTION_BUDGET):
            today = shown_at(tree, display, widget, point)
    except Exception:  # as ObjectFinder.at: nothing known, the pixels decide
        return {"answered": False, "widget": None}
    return {"answered": True, "widget": widget_to_json(today)}


def tops_told(before: dict[int, Any], after: dict[int, Any]) -> dict[str, list[Any]]:
    """The top-level windows a step opened on this screen, as a replay's verify is told them
    (xsession/xwindows.py's tops_shown before and after the step, live)."""
    from deskreel.matching import StepWindows

    return {"opened": [list(b) for b in StepWindows.between(before, after).opened]}


def told_answer(tree: Any, display: Any, recorded: str | None, point: tuple[int, int]) -> Any:
    """What a replay's --verify asks of the window on top at `point`, before a step and once
    it settled (replayer/objects.py's told_on_top, live): what its objects tell. None where the
    step changed nothing its window's objects told when recorded, or no answer."""
    from deskreel.replayer.objects import QUESTION_BUDGET, told_on_top
    from deskreel.storage.told import step_told_from_json

    kept = step_told_from_json(recorded)
    if tree is None or kept is None or not kept.changes():
        return None
    try:
        with tree.bus.budget(QUESTION_BUDGET):
            return told_on_top(tree, display, point)
    except Exception:  # as ObjectFinder.told: nothing known, the pixels decide
        return None
