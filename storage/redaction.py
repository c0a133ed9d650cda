"""`deskreel redact`: take what a step typed out of a recording, in one transaction.

A redacted step's text becomes `{{secret:N}}` (a type step) and its key events lose their
keys; its frames and anchor go, and so does every other use of those frames, and so do the
screens replays of the step stored in their results. What the typing left on screen (the
entry still reads the secret when the next click is taken) is painted over in the frames of
the following steps, until a frame no longer shows it, by the `hide` function the caller
passes in (images are not storage's business). Not covered: replays' screens of later steps.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sqlalchemy import Connection, Row, or_, select

from . import schema as s
from .bulk import insert_ignore
from .store import Store
from .unused_frames import result_frames
from .values import RESULT_FRAME_KEYS
from .vocabulary import SECRET, Action, ActionError, secret, types_text

__all__ = ["HiddenFrame", "HideTyping", "redact_steps"]


class HiddenFrame(Protocol):
    """A frame with typed text painted over, encoded anew (xsession.hiding makes them)."""

    # read-only: a frozen dataclass (xsession's) is one of these
    @property
    def data(self) -> bytes: ...
    @property
    def fmt(self) -> str: ...
    @property
    def pixel_hash(self) -> str: ...

    def crop_png(self, box: tuple[int, int, int, int]) -> bytes: ...


# (typing step's before-frame, its after-frame, a later frame), all stored bytes -> the
# later frame with the typed text hidden, or None when it no longer shows it
HideTyping = Callable[[bytes, bytes, bytes], HiddenFrame | None]


def redact_steps(
    store: Store, recording_id: int, steps: list[int], *, hide: HideTyping | None = None
) -> int:
    """Redact these steps; returns how many were changed. Without `hide` the frames of
    later steps are kept as they are, even where they show what was typed."""
    a, e = s.actions.c, s.events.c
    sqlite = store.engine.dialect.name == "sqlite"
    with store.engine.begin() as conn:
        if sqlite:  # freed pages are zeroed, not left holding the old text
            conn.exec_driver_sql("PRAGMA secure_delete=ON")
        rows = conn.execute(select(s.actions).where(a.recording_id == recording_id)).all()
        number = 1 + max((int(n) for row in rows for n in SECRET.findall(row.body)), default=0)
        frames: set[str] = set()
        kept: set[str] = set()  # hidden frames: one may be a redacted step's before-frame
        if hide is not None:
            frames, kept = _hide_typing(conn, sorted(rows, key=lambda r: r.step), set(steps), hide)
        for row in (r for r in rows if r.step in steps):
            body = json.loads(row.body)
            if _typed_in_clear(body):
                body = Action(action="type", text=secret(number)).to_json()
                number += 1
            frames |= {f for f in (row.before_frame, row.after_frame) if f}
            conn.execute(
                s.actions.update()
                .where(a.recording_id == recording_id, a.step == row.step)
                .values(body=json.dumps(body), before_frame=None, after_frame=None, anchor_id=None)
            )
            if row.anchor_id is not None:
                conn.execute(s.anchors.delete().where(s.anchors.c.id == row.anchor_id))
            if row.event_first is not None:
                conn.execute(
                    s.events.update()
                    .where(
                        e.recording_id == recording_id,
                        e.seq.between(row.event_first, row.event_last),
                        e.kind.in_(("key_down", "key_up")),
                    )
                    .values(keycode=None, keysym=None, char=None)
                )
        if steps:  # what a toolkit named from then on may be what was typed
            conn.execute(
                s.actions.update()
                .where(a.recording_id == recording_id, a.step >= min(steps))
                .values(widget=None, told=None)
            )
        frames |= _forget_run_frames(conn, recording_id, steps)
        frames -= kept
        if frames:
            _forget_frames(conn, frames)
    if sqlite:  # old page versions live on in the write-ahead log until a checkpoint
        with store.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(1 for r in rows if r.step in steps)


def _hide_typing(
    conn: Connection, rows: Sequence[Row[Any]], steps: set[int], hide: HideTyping
) -> tuple[set[str], set[str]]:
    """Paint what each redacted step typed out of the frames of the steps after it, until
    a frame no longer shows it; returns (the frames replaced, the frames replacing them)."""
    shown = {r.step: [r.before_frame, r.after_frame] for r in rows}  # as they become
    replaced: dict[str, str] = {}
    for row in (r for r in rows if r.step in steps):
        before, after = (_frame_data(conn, k) if k else None for k in shown[row.step])
        if before is None or after is None:
            continue
        done: dict[str, str] = {}  # this typing's: old -> hidden
        for key in [
            k for r in rows if r.step > row.step and r.step not in steps for k in shown[r.step] if k
        ]:
            if key in done:
                continue
            data = _frame_data(conn, key)
            hidden = None if data is None else hide(before, after, data)
            if hidden is None:
                break
            done[key] = _replace_frame(conn, key, hidden)
        for keys in shown.values():
            keys[:] = [done.get(k, k) for k in keys]
        replaced.update(done)
    return set(replaced), set(replaced.values()) - set(replaced)


def _frame_data(conn: Connection, key: str) -> bytes | None:
    data = conn.scalar(select(s.frames.c.data).where(s.frames.c.hash == key))
    return None if data is None else bytes(data)


def _replace_frame(conn: Connection, old: str, hidden: HiddenFrame) -> str:
    """Store `hidden` and make every step use it instead of `old`, anchors cut anew from it;
    returns its key (`old` is left to be forgotten)."""
    a, f, an = s.actions.c, s.frames.c, s.anchors.c
    width, height = conn.execute(select(f.width, f.height).where(f.hash == old)).one()
    conn.execute(
        insert_ignore(conn, s.frames).values(
            hash=hidden.pixel_hash, width=width, height=height, format=hidden.fmt, data=hidden.data
        )
    )
    for anchor, x, y, w, h in conn.execute(
        select(an.id, an.box_x, an.box_y, an.box_w, an.box_h)
        .join(s.actions, a.anchor_id == an.id)
        .where(a.before_frame == old)
    ).all():
        # The look at rest came from a frame that is not stored, so it cannot be cleaned:
        # the anchor keeps one look, cut anew from the cleaned frame.
        conn.execute(
            s.anchors.update()
            .where(an.id == anchor)
            .values(png=hidden.crop_png((x, y, w, h)), hover_png=None)
        )
    for column in ("before_frame", "after_frame"):
        conn.execute(
            s.actions.update().where(getattr(a, column) == old).values({column: hidden.pixel_hash})
        )
    return hidden.pixel_hash


def _forget_run_frames(conn: Connection, recording_id: int, steps: list[int]) -> set[str]:
    """The screens replays of these steps stored (they may show the secret being typed):
    their results stop naming them; the frames are returned to be forgotten."""
    r = s.step_results.c
    runs = select(s.runs.c.id).where(s.runs.c.recording_id == recording_id)
    frames: set[str] = set()
    for run_id, step, details in conn.execute(
        select(r.run_id, r.step, r.details).where(r.run_id.in_(runs), r.step.in_(steps))
    ).all():
        body = json.loads(details or "{}")
        named = result_frames(body)
        if named:
            frames |= named
            kept = {k: v for k, v in body.items() if k not in RESULT_FRAME_KEYS}
            conn.execute(
                s.step_results.update()
                .where(r.run_id == run_id, r.step == step)
                .values(details=json.dumps(kept))
            )
    return frames


def _forget_frames(conn: Connection, frames: set[str]) -> None:
    """Every step stops using these frames (and their anchors); then the frames go."""
    a = s.actions.c
    users = conn.execute(
        select(a.recording_id, a.step, a.anchor_id, a.before_frame, a.after_frame).where(
            or_(a.before_frame.in_(frames), a.after_frame.in_(frames))
        )
    )
    for rec, step, anchor, before, after in users.all():
        values: dict[str, Any] = {}
        if before in frames:
            values.update(before_frame=None, anchor_id=None)  # its anchor is a crop of it
            if anchor is not None:
                conn.execute(s.anchors.delete().where(s.anchors.c.id == anchor))
        if after in frames:
            values["after_frame"] = None
        conn.execute(
            s.actions.update().where(a.recording_id == rec, a.step == step).values(**values)
        )
    conn.execute(s.frames.delete().where(s.frames.c.hash.in_(frames)))


def _typed_in_clear(body: dict[str, Any]) -> bool:
    """Whether a stored step types characters that are not a {{secret:N}} yet: typed text,
    or a key that types one. A body that is no valid step counts, if it says it types."""
    if body.get("action") not in ("type", "key"):
        return False
    text = body.get("text")
    if body.get("action") == "type" and isinstance(text, str) and SECRET.fullmatch(text):
        return False
    try:
        return types_text(Action.from_json(body))
    except ActionError:
        return True
