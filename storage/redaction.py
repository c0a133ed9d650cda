"""`deskreel redact`: take what a step typed out of a recording, in one transaction.

A redacted step's text becomes `{{secret:N}}` (a type step) and its key events lose their
keys; its frames and anchor go, and so does every other use of those frames (the next
step's before-frame is often the same image), and so do the screens replays of the step
stored in their results, so no picture of the secret is left.
"""

from __future__ import annotations

import json

from sqlalchemy import or_, select

from . import schema as s
from .store import RESULT_FRAME_KEYS, Store, result_frames
from .vocabulary import SECRET, Action, secret

__all__ = ["redact_steps"]

def redact_steps(store: Store, recording_id: int, steps: list[int]) -> int:
    """Redact these steps; returns how many were changed."""
    a, e = s.actions.c, s.events.c
    sqlite = store.engine.dialect.name == "sqlite"
    with store.engine.begin() as conn:
        if sqlite:  # freed pages are zeroed, not left holding the old text
            conn.exec_driver_sql("PRAGMA secure_delete=ON")
        rows = conn.execute(select(s.actions).where(a.recording_id == recording_id)).all()
        number = 1 + max((int(n) for row in rows for n in SECRET.findall(row.body)),
                         default=0)
        frames: set[str] = set()
        for row in (r for r in rows if r.step in steps):
            body = json.loads(row.body)
            if body.get("action") == "type" and not SECRET.fullmatch(body.get("text", "")):
                body = Action(action="type", text=secret(number)).to_json()
                number += 1
            frames |= {f for f in (row.before_frame, row.after_frame) if f}
            conn.execute(s.actions.update().where(a.recording_id == recording_id,
                                                  a.step == row.step)
                         .values(body=json.dumps(body), before_frame=None, after_frame=None,
                                 anchor_id=None))
            if row.anchor_id is not None:
                conn.execute(s.anchors.delete().where(s.anchors.c.id == row.anchor_id))
            if row.event_first is not None:
                conn.execute(s.events.update().where(
                    e.recording_id == recording_id, e.seq.between(row.event_first,
                                                                  row.event_last),
                    e.kind.in_(("key_down", "key_up")))
                    .values(keycode=None, keysym=None, char=None))
        frames |= _forget_run_frames(conn, recording_id, steps)
        if frames:
            _forget_frames(conn, frames)
    if sqlite:  # old page versions live on in the write-ahead log until a checkpoint
        with store.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(1 for r in rows if r.step in steps)


def _forget_run_frames(conn, recording_id: int, steps: list[int]) -> set[str]:
    """The screens replays of these steps stored (they may show the secret being typed):
    their results stop naming them; the frames are returned to be forgotten."""
    r = s.step_results.c
    runs = select(s.runs.c.id).where(s.runs.c.recording_id == recording_id)
    frames: set[str] = set()
    for run_id, step, details in conn.execute(
            select(r.run_id, r.step, r.details)
            .where(r.run_id.in_(runs), r.step.in_(steps))).all():
        body = json.loads(details or "{}")
        named = result_frames(body)
        if named:
            frames |= named
            kept = {k: v for k, v in body.items() if k not in RESULT_FRAME_KEYS}
            conn.execute(s.step_results.update().where(r.run_id == run_id, r.step == step)
                         .values(details=json.dumps(kept)))
    return frames


def _forget_frames(conn, frames: set[str]) -> None:
    """Every step stops using these frames (and their anchors); then the frames go."""
    a = s.actions.c
    users = conn.execute(select(a.recording_id, a.step, a.anchor_id, a.before_frame,
                                a.after_frame)
                         .where(or_(a.before_frame.in_(frames), a.after_frame.in_(frames))))
    for rec, step, anchor, before, after in users.all():
        values = {}
        if before in frames:
            values.update(before_frame=None, anchor_id=None)  # its anchor is a crop of it
            if anchor is not None:
                conn.execute(s.anchors.delete().where(s.anchors.c.id == anchor))
        if after in frames:
            values["after_frame"] = None
        conn.execute(s.actions.update().where(a.recording_id == rec, a.step == step)
                     .values(**values))
    conn.execute(s.frames.delete().where(s.frames.c.hash.in_(frames)))
