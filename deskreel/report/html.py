"""The static HTML report of a recording, or of one run of it: index.html plus img/.

The page works offline and from a CI artifact: no network, no scripts (its Content Security
Policy forbids both), CSS inline. When the run failed, the failed step comes first: its
message, the recorded screen against today's, the diff and the failed checks. Directories
are 0700 and files 0600 (the frames show what people typed); index.html is written last,
whole, so that a crash never leaves half a page.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from deskreel.storage import Evidence, Recording, Run, Step, StepResult, Store

from ..errors import UserError
from ..table import format_duration
from deskreel.xsession.files import LinkedPath, PrivateFolder, write_private

from .writable import check_writable
from .figures import ImageDir, Pic, frame_figure
from .outcome import (
    Outcome,
    checks_of,
    counts,
    outcomes,
    run_duration,
    step_label,
    step_width,
    utc_text,
)
from .steps import (
    anchor_boxes,
    anchor_figures,
    badge,
    check_boxes,
    checks_table,
    crop_figures,
    match_box,
    step_article,
)
from .style import CSS

__all__ = ["check_report_dir", "write_report"]

MARKER = "<!-- deskreel report -->"
_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"


def write_report(
    store: Store,
    recording: Recording,
    out_dir: str | os.PathLike[str],
    *,
    run: Run | None = None,
    steps: Sequence[Step] | None = None,
    results: Sequence[StepResult] | None = None,
) -> Path:
    """Write the report of `recording` (with `run`'s results when given); return index.html.

    `steps` and `results` are read from `store` unless the caller has them already.
    """
    out = Path(out_dir)
    if run is not None and run.recording_id != recording.id:
        raise ValueError(f"run {run.id} is not a run of recording {recording.id}")
    _prepare(out)
    if steps is None:
        steps = store.steps(recording.id)
    if results is None:
        results = store.step_results(run.id) if run is not None else []
    with ImageDir(store, out) as images:
        page = _page(recording, run, steps, results, images)
    index = out / "index.html"
    write_private(index, page.encode("utf-8"))
    return index


def check_report_dir(out: Path) -> None:
    """Refuse a report directory that write_report() would refuse or could not create: a
    file, a directory that holds something else, a place nobody may write."""
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} is a file: give a directory for the report")
    linked = [p for p in (out, out / "img", out / "crops") if p.is_symlink()]
    if linked:
        raise UserError(f"{linked[0]} is a symbolic link: deskreel writes into no link; remove it")
    if out.is_dir() and not _is_report(out):
        raise UserError(f"{out} is not empty and holds no deskreel report: choose a new directory")
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise UserError(f"cannot create {out}: {existing} is not a directory")
    check_writable(existing / "index.html")


def _prepare(out: Path) -> None:
    """Refuse to write into a directory that holds something else; make it private."""
    check_report_dir(out)
    try:
        PrivateFolder(out).close()
    except LinkedPath as err:
        raise UserError(f"{err}: give the directory it points to") from None
    except OSError as err:
        raise UserError(f"cannot create {out} ({err.strerror}): choose a writable place") from None


def _is_report(out: Path) -> bool:
    index = out / "index.html"
    if index.is_file():
        with index.open("rb") as f:
            return MARKER.encode() in f.read(200)
    # empty, what a crashed earlier report left (images, temporary files), or the crops
    # that `replay --report` saved for targets it did not find
    return all(
        p.name in ("img", "crops") or p.name.startswith(".index.html.") for p in out.iterdir()
    )


def _page(
    recording: Recording,
    run: Run | None,
    steps: Sequence[Step],
    results: Sequence[StepResult],
    images: ImageDir,
) -> str:
    items = outcomes(steps, results, run) if run is not None else None
    tally = counts(items or [])
    verdict = run.status if run is not None else "recording"
    title = f"{recording.name}: {verdict}"
    width = step_width(steps)
    parts = [
        f'<!doctype html>\n{MARKER}\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)} - deskreel</title><style>{CSS}</style></head><body>",
        _header(recording, run, items, tally),
        "<main>",
        _summary(recording, run, items, tally, results, images),
    ]
    failed = [o for o in items or [] if o.status == "failed"]
    if failed:
        parts.append(_failure(failed[0], failed[1:], images, width))
    parts.append(_strip(steps, items, width))
    parts.append('<section id="steps"><h2>Steps</h2>')
    by_step = {o.step.step: o for o in items or []}
    parts += [step_article(s, by_step.get(s.step), images, width) for s in steps]
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    parts.append(
        f"</section><footer>deskreel report written {now}. Images in img/ are the "
        f"stored frames (lossless WebP or PNG), named by hash; click one for its "
        f"full size.</footer></main></body></html>\n"
    )
    return "\n".join(parts)


def _header(
    recording: Recording, run: Run | None, items: list[Outcome] | None, tally: Counter[str]
) -> str:
    if run is None or items is None:
        return (
            f'<header class="verdict recording"><h1>{escape(recording.name)}</h1>'
            f"<p>recording {recording.id}: {recording.steps} steps, no run shown</p></header>"
        )
    return (
        f'<header class="verdict {escape(run.status)}"><h1>{escape(recording.name)}: '
        f"{escape(run.status.upper())}</h1><p>run {run.id} ({escape(run.mode)}): "
        f"{_steps_text(tally, len(items))} steps</p></header>"
    )


def _steps_text(tally: Counter[str], total: int) -> str:
    """The steps by status, the same words in the header and the summary."""
    not_run, aborted = tally["not run"], tally["aborted"]
    return (
        f"{tally['passed']} passed, {tally['failed']} failed, "
        f"{tally['skipped'] - not_run - aborted} skipped, {aborted} aborted, "
        f"{not_run} not run, of {total}"
    )


def _summary(
    recording: Recording,
    run: Run | None,
    items: list[Outcome] | None,
    tally: Counter[str],
    results: Sequence[StepResult],
    images: ImageDir,
) -> str:
    screen = f"{recording.screen[0]}x{recording.screen[1]}" if recording.screen else "unknown"
    rows = [("recording", f"{recording.name} (id {recording.id}, {recording.source})")]
    if run is not None and items is not None:
        rows += [
            ("verdict", badge(run.status)),
            ("steps", _steps_text(tally, len(items))),
            ("duration", format_duration(run_duration(run, results))),
            ("run", f"{run.id} ({run.mode})"),
            ("started", utc_text(run.started)),
            ("screen", f"{screen} recorded; {_replay_screen(results, images)} replayed"),
        ]
        blind = [o.step.step for o in items if o.result is not None and o.step.after_frame is None]
        if run.mode == "verify" and blind:
            rows.append(
                (
                    "not compared",
                    f"{len(blind)} steps ran without a recorded frame to "
                    f"compare the screen with (steps {', '.join(map(str, blind))}): "
                    f"only their targets were checked",
                )
            )
    else:
        rows += [
            ("steps", str(recording.steps)),
            ("duration", format_duration(recording.duration)),
            ("recorded", utc_text(recording.created)),
            ("screen", screen),
            ("host", recording.host or "unknown"),
            ("keyboard layout", recording.keyboard_layout or "unknown"),
        ]
    cells = "".join(
        f"<tr><th>{escape(k)}</th><td>{v if k == 'verdict' else escape(v)}</td></tr>"
        for k, v in rows
    )
    return f'<table class="summary">{cells}</table>'


def _failure(first: Outcome, others: Sequence[Outcome], images: ImageDir, width: int) -> str:
    """The first failed step, shown so that a reader sees why in seconds."""
    step, result = first.step, first.result
    checks = checks_of(result)
    figures = (
        _differing_figures(step, result, checks, images)
        if checks
        else _not_found_figures(step, result, images)
    )
    action = json.dumps(step.action.to_json(), ensure_ascii=False)
    label = escape(step_label(step, width))
    parts = [
        f'<section class="failure" id="failure"><h2>Failed at <a href="#step-{step.step}">'
        f"{label}</a></h2>",
        f'<pre class="message">{escape(first.message)}</pre>',
        f'<pre class="action">{escape(action)}</pre>',
        f'<div class="compare">{"".join(figures)}</div>',
    ]
    if checks:
        parts.append(checks_table(checks))
    if others:
        links = ", ".join(f'<a href="#step-{o.step.step}">{o.step.step}</a>' for o in others)
        parts.append(f"<p>Also failed: steps {links}.</p>")
    return "\n".join(parts) + "</section>"


def _differing_figures(
    step: Step, result: StepResult | None, checks: list[dict[str, Any]], images: ImageDir
) -> list[str]:
    """A step whose screen differed: the recorded and today's after-screens, and the diff."""
    d = result.details if result else {}
    figures = [
        frame_figure(
            images,
            step.after_frame,
            "recorded after (yellow: expected)",
            check_boxes(checks, today=False, failed_only=True),
            big=True,
        ),
        frame_figure(
            images,
            d.get(Evidence.AFTER),
            "replay after (red: compared, yellow: expected)",
            check_boxes(checks, today=True, failed_only=True),
            big=True,
            absent="not kept",
        ),
    ]
    if d.get(Evidence.DIFF):
        figures.append(
            frame_figure(
                images,
                d.get(Evidence.DIFF),
                "diff (red: compared today, yellow: expected place)",
                big=True,
            )
        )
    return figures


def _not_found_figures(step: Step, result: StepResult | None, images: ImageDir) -> list[str]:
    """A step whose target was not found: the recorded screen with its anchor, today's with
    the refused best match, the anchor and its crops."""
    d = result.details if result else {}
    figures = [
        frame_figure(
            images,
            step.before_frame,
            "recorded before (blue: anchor)",
            anchor_boxes(step),
            big=True,
        ),
        frame_figure(
            images,
            d.get(Evidence.BEFORE),
            "replay before (red: best match)",
            match_box(step, result),
            big=True,
            absent="not kept",
        ),
    ]
    return figures + anchor_figures(step, images) + crop_figures(result, images)


def _strip(steps: Sequence[Step], items: list[Outcome] | None, width: int) -> str:
    """Every step as a coloured chip that jumps to it."""
    status = {o.step.step: o.status for o in items or []}
    chips = []
    for s in steps:
        state = status.get(s.step) or ("disabled" if s.disabled else "recorded")
        css = state.replace(" ", "-")
        chips.append(
            f'<a class="{escape(css)}" href="#step-{s.step}" '
            f'title="{escape(step_label(s, width))}: {escape(state)}">{s.step}</a>'
        )
    return f'<nav class="strip">{"".join(chips)}</nav>'


def _replay_screen(results: Sequence[StepResult], images: ImageDir) -> str:
    for r in results:
        pic: Pic | None = images.frame(r.details.get(Evidence.AFTER))
        if pic is not None:
            return f"{pic.width}x{pic.height}"
    return "unknown"
