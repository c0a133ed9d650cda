"""One step of the timeline: its action, status, timings, re-anchoring, frames and checks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from deskreel.matching import Check, Difference
from deskreel.storage import Evidence, Step, StepResult

from .figures import Box, ImageDir, figure, frame_figure
from .outcome import Outcome, aimed_at, anchoring_facts, checks_of, step_label, timing_facts
from .trail import trail_of, trail_table

__all__ = [
    "anchor_boxes",
    "badge",
    "check_boxes",
    "checks_table",
    "crop_figures",
    "match_box",
    "step_article",
]


def step_article(step: Step, outcome: Outcome | None, images: ImageDir, width: int) -> str:
    """A timeline entry; without an outcome it shows the recording alone."""
    if outcome is None:
        status = "disabled" if step.disabled else "recorded"
    else:
        status = outcome.status
    action = json.dumps(step.action.to_json(), ensure_ascii=False)
    parts = [
        f'<article class="step {_css(status)}" id="step-{step.step}">',
        f'<h3><a href="#step-{step.step}">{escape(step_label(step, width))}</a> '
        f"{badge(status)}</h3>",
        f'<pre class="action">{escape(action)}</pre>',
        _window(step),
    ]
    parts.append(_facts("recorded", _recorded_facts(step)))
    result = outcome.result if outcome else None
    checks = checks_of(result)
    if outcome is not None and outcome.message:
        parts.append(f'<p class="message">{escape(outcome.message)}</p>')
    if result is not None:
        parts.append(_facts("timing", timing_facts(result)))
        parts.append(_facts("re-anchoring", anchoring_facts(result)))
        parts.append(trail_table(trail_of(result)))
    parts.append(
        '<div class="frames">' + "".join(_figures(step, result, checks, images)) + "</div>"
    )
    if checks:
        parts.append(checks_table(checks))
    parts.append("</article>")
    return "\n".join(p for p in parts if p)


def badge(status: str) -> str:
    return f'<span class="badge {_css(status)}">{escape(status)}</span>'


def checks_table(checks: Sequence[dict[str, Any]]) -> str:
    rows = []
    for c in checks:
        changed = c.get("changed")
        differ = f"{changed * 100:.1f}%" if isinstance(changed, int | float) else "?"
        score = c.get("score")
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{escape(str(v))}</td>"
                for v in (
                    c.get("kind", "?"),
                    _box_text(c.get("box")),
                    _box_text(c.get("expected"), ""),
                    _found_text(c),
                    f"{score:.3f}" if isinstance(score, int | float) else "?",
                    differ,
                    _why(c),
                )
            )
            + f"<td>{badge('passed' if c.get('passed') else 'failed')}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "check",
            "recorded box",
            "expected today",
            "found at today",
            "score",
            "pixels differing",
            "why it failed",
            "verdict",
        )
    )
    return f'<table class="checks"><tr>{head}</tr>{"".join(rows)}</table>'


def _why(check: dict[str, Any]) -> str:
    """Why a check failed: its difference in words, and where it compared what an object
    or a region says (meaning, text), what it said when recorded and today."""
    why = _difference(check.get("difference"))
    read = Check.from_json(check)
    if read is None or read.passed or not read.said:
        return why
    return f"{why} ({read.said_words()})"


def _difference(data: object) -> str:
    """A failed check's difference in words ("" for a check that passed, or an older run's)."""
    difference = Difference.from_json(data)
    return "" if difference is None else f"{difference.rule}: {difference.text()}"


def check_boxes(
    checks: Sequence[dict[str, Any]], *, today: bool, failed_only: bool = False
) -> list[Box]:
    """Check boxes: recorded places (on recorded frames) or where each was found today."""
    boxes = []
    for c in checks:
        if failed_only and c.get("passed"):
            continue
        box = _rect(c.get("found_at") if today else c.get("box"))
        label = str(c.get("kind", "check"))
        if today and not c.get("passed"):
            # where it should be today (older runs: where the recording had it), so the eye
            # knows where to look
            expected = _rect(c.get("expected")) or _rect(c.get("box"))
            if expected is not None and (box is None or c.get("match") == "none"):
                boxes.append(
                    Box(
                        *expected,
                        kind="expected",
                        label=f"{label}: expected" if box else f"{label}: nowhere",
                    )
                )
        if box is None:
            continue
        if today:
            kind = "ok" if c.get("passed") else "found"
            changed = c.get("changed")
            if isinstance(changed, int | float):
                label += f" {changed * 100:.0f}% differ"
        else:
            kind = "ok" if c.get("passed") else "expected"
        boxes.append(Box(*box, kind=kind, label=label))
    return boxes


def anchor_boxes(step: Step) -> list[Box]:
    """The anchor's box and the target point, on the recorded before-frame."""
    boxes = []
    if step.anchor is not None:
        boxes.append(Box(*step.anchor.box, kind="anchor", label="anchor"))
    target = step.action.target
    if target is not None:
        boxes.append(Box(target[0], target[1], 0, 0, kind="point", label="target"))
    return boxes


def match_box(step: Step, result: StepResult | None) -> list[Box]:
    """Where the anchor matched today: its box moved by the shift, grown by the scale."""
    if result is None:
        return []
    anchor, target = step.anchor, step.action.target
    label = f"match {result.score:.3f}" if result.score is not None else "match"
    if anchor is not None and result.shift is not None:
        scale = result.scale or 1.0
        ox, oy = anchor.offset
        tx, ty = target or (anchor.box[0] + ox, anchor.box[1] + oy)
        lx, ly = tx + result.shift[0], ty + result.shift[1]
        return [
            Box(
                round(lx - ox * scale),
                round(ly - oy * scale),
                round(anchor.box[2] * scale),
                round(anchor.box[3] * scale),
                "match",
                label,
            ),
            Box(lx, ly, 0, 0, "point", "target today"),
        ]
    best = _rect(result.details.get(Evidence.BEST_MATCH))
    if best is not None:  # the target was not found: where the best (refused) match was
        boxes = [Box(*best, kind="found", label=f"{label} (refused)")]
        if anchor is not None:
            boxes.append(Box(*anchor.box, kind="expected", label="recorded place"))
        return boxes
    # the object check (verify v2), or the target check of a run by an older deskreel
    targets = [c for c in checks_of(result) if c.get("kind") in ("object", "target")]
    found = _rect(targets[0].get("found_at")) if targets else None
    return [Box(*found, kind="match", label=label)] if found else []


def crop_figures(result: StepResult | None, images: ImageDir) -> list[str]:
    """The crops a replay saved in the report for a target it did not find: the best match
    shown (the anchor is shown from the recording), and a link to each."""
    paths = result.details.get(Evidence.CROPS) if result is not None else None
    pics = [p for p in map(images.saved, paths if isinstance(paths, list) else []) if p]
    out = [
        figure(p, f"best match today (refused): {p.src}")
        for p in pics
        if p.src.endswith("-best-match.png")
    ]
    if pics:
        links = ", ".join(f'<a href="{escape(p.src)}">{escape(p.src)}</a>' for p in pics)
        out.append(f'<p class="crops">saved crops: {links}</p>')
    return out


def _figures(
    step: Step, result: StepResult | None, checks: Sequence[dict[str, Any]], images: ImageDir
) -> list[str]:
    out = [
        frame_figure(images, step.before_frame, "recorded before", anchor_boxes(step)),
        frame_figure(images, step.after_frame, "recorded after", check_boxes(checks, today=False)),
    ]
    if result is not None:
        d = result.details
        out.append(
            frame_figure(
                images,
                d.get(Evidence.BEFORE),
                "replay before",
                match_box(step, result),
                absent="not kept",
            )
        )
        out.append(
            frame_figure(
                images,
                d.get(Evidence.AFTER),
                "replay after",
                check_boxes(checks, today=True),
                absent="not kept",
            )
        )
        if d.get(Evidence.DIFF):
            out.append(frame_figure(images, d.get(Evidence.DIFF), "diff"))
    return out + anchor_figures(step, images) + crop_figures(result, images)


def anchor_figures(step: Step, images: ImageDir) -> list[str]:
    """The step's anchor: one crop, or its two looks (at rest, and hovered)."""
    anchor = step.anchor
    if anchor is None:
        return []
    if anchor.hover_png is None:
        return [figure(images.png(anchor.png), "anchor crop")]
    return [
        figure(images.png(anchor.png), "anchor crop, at rest"),
        figure(images.png(anchor.hover_png), "anchor crop, hovered"),
    ]


def _recorded_facts(step: Step) -> list[tuple[str, str]]:
    """When the step happened in the recording, and how distinct its anchor was there."""
    facts = [("at", f"{step.t_start:.3f} s"), ("took", f"{step.t_end - step.t_start:.3f} s")]
    anchor = step.anchor
    if anchor is not None:
        facts += [
            (name, f"{value:.3f}")
            for name, value in (("anchor score", anchor.score), ("anchor margin", anchor.margin))
            if value is not None
        ]
    if step.disabled:
        facts.append(("disabled", "yes: replays skip it"))
    return facts


def _window(step: Step) -> str:
    out = ""
    if step.window_title or step.window_class:
        out = (
            f'<p class="window">window: <b>{escape(step.window_title or "")}</b> '
            f"{escape(step.window_class or '')}</p>"
        )
    if step.widget is not None:
        out += f'<p class="window">{escape(aimed_at(step.widget))}</p>'
    return out


def _facts(title: str, facts: list[tuple[str, str]]) -> str:
    if not facts:
        return ""
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts)
    return f'<div class="facts"><b>{escape(title)}</b><dl>{items}</dl></div>'


def _rect(value: object) -> tuple[int, int, int, int] | None:
    if (
        isinstance(value, list | tuple)
        and len(value) == 4
        and all(isinstance(v, int | float) for v in value)
    ):
        x, y, w, h = (round(v) for v in value)
        return x, y, w, h
    return None


def _box_text(value: object, none: str = "nowhere") -> str:
    box = _rect(value)
    return none if value is None else str(list(box)) if box else str(value)


def _found_text(check: dict[str, Any]) -> str:
    found = _box_text(check.get("found_at"))
    match = check.get("match")
    if check.get("kind") == "object":
        label = check.get("label") or "its anchor's pixels"
        return f"{label} at {found}" if check.get("found_at") else f"{label}: not found"
    if match == "none" and check.get("found_at") is not None:
        return f"not found; compared at {found}"
    return {
        "far": f"{found} (appeared there)",
        "recoloured": f"{found} (in other colours)",
        "before": f"{found} (shown there before the step too)",
    }.get(str(match), found)


def _css(status: str) -> str:
    return status.replace(" ", "-") if status.replace(" ", "").isalpha() else "other"
