"""Which frames a recording or a run uses, and deleting those nothing uses any more.

Frames are shared by content between recordings and runs, so a frame goes only when no
step and no step result names it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, or_, select

from . import schema as s
from .bulk import chunks
from .values import RESULT_FRAME_KEYS

__all__ = ["delete_unused_frames", "details_frames", "recording_frames", "result_frames"]

_HASH_RUN = re.compile(r"(?=([0-9a-f]{64}))")  # overlapping: any 64 hex digits in a row


def recording_frames(conn: Connection, recording_id: int) -> set[str]:
    """The frames a recording's steps use."""
    a = s.actions.c
    keys: set[str] = set()
    for before, after in conn.execute(
        select(a.before_frame, a.after_frame).where(a.recording_id == recording_id)
    ):
        keys.update(k for k in (before, after) if k is not None)
    return keys


def result_frames(details: dict[str, Any]) -> set[str]:
    """The frames a step result's details name."""
    return {details[k] for k in RESULT_FRAME_KEYS if isinstance(details.get(k), str)}


def details_frames(details: str | None) -> set[str]:
    """The frames a step result's stored details text names; of damaged (unparsable) text,
    every 64-hex-digit run in it (candidates only: what else uses a frame still keeps it)."""
    try:
        parsed = json.loads(details or "{}")
    except ValueError:
        return set(_HASH_RUN.findall(details or ""))
    return result_frames(parsed) if isinstance(parsed, dict) else set()


def delete_unused_frames(conn: Connection, keys: Iterable[str]) -> int:
    """Delete those of these frames that no step and no step result uses; how many went."""
    a, sr, f = s.actions.c, s.step_results.c, s.frames.c
    gone = 0
    for chunk in chunks(sorted(set(keys))):
        used: set[str] = set()
        for before, after in conn.execute(
            select(a.before_frame, a.after_frame).where(
                or_(a.before_frame.in_(chunk), a.after_frame.in_(chunk))
            )
        ):
            used.update((before, after))
        left = [k for k in chunk if k not in used]
        if left:  # a hash is 64 hex digits: a substring match finds the details naming it;
            # not parsed, so damaged JSON cannot stop an edit (a stray match only keeps a frame)
            named = or_(*(sr.details.contains(k, autoescape=True) for k in left))
            texts = list(conn.scalars(select(sr.details).where(named)))
            left = [k for k in left if not any(k in text for text in texts if text)]
        if left:
            gone += conn.execute(s.frames.delete().where(f.hash.in_(left))).rowcount
    return gone
