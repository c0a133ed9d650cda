"""The tables of a deskreel database, at the current schema version.

Migrations in `storage/migrations/versions` bring older files to this shape; this module
is what the code reads and writes through.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

SCHEMA_VERSION = 8
NAME_MAX = 200  # characters of a recording's name
TEXT_MAX = 20_000  # characters of an instruction or a step's note

metadata = MetaData()

meta = Table(
    "deskreel_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

recordings = Table(
    "recordings",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(NAME_MAX), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("source", String(16), nullable=False),
    Column("screen_width", Integer),
    Column("screen_height", Integer),
    Column("dpi", Float),
    Column("keyboard_layout", String(200)),
    Column("host", String(200)),
    Column("deskreel_version", String(40)),
    Column("extra", Text, nullable=False, default="{}"),
    # schema 3: who a recording is in every store it is pushed to or pulled from (uuid4 hex)
    Column("uid", String(32), unique=True, index=True),
    # schema 6: the task the person was demonstrating, as they wrote it
    Column("instruction", Text),
)

events = Table(
    "events",
    metadata,
    Column(
        "recording_id", Integer, ForeignKey("recordings.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("seq", Integer, primary_key=True),
    Column("t", Float, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("x", Integer),
    Column("y", Integer),
    Column("button", Integer),
    Column("keycode", Integer),
    Column("keysym", String(64)),
    Column("char", String(16)),
)

frames = Table(
    "frames",
    metadata,
    Column("hash", String(64), primary_key=True),  # sha256 of the decoded RGB pixels
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("format", String(8), nullable=False),  # png or webp, both lossless
    Column("data", LargeBinary, nullable=False),
)

anchors = Table(
    "anchors",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "recording_id",
        Integer,
        ForeignKey("recordings.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("png", LargeBinary, nullable=False),  # the target before the pointer came near
    Column("box_x", Integer, nullable=False),
    Column("box_y", Integer, nullable=False),
    Column("box_w", Integer, nullable=False),
    Column("box_h", Integer, nullable=False),
    Column("offset_x", Integer, nullable=False),
    Column("offset_y", Integer, nullable=False),
    Column("score", Float),
    Column("margin", Float),
    # schema 4: the same box cut from the frame where the pointer hovered the target, just
    # before the press (None: it looked the same, or it is unknown)
    Column("hover_png", LargeBinary),
    # schema 4: places the object under the target was drawn on the recorded screen (its own
    # included; 0: no outline around the target; NULL: not known)
    Column("twins", Integer),
)

actions = Table(
    "actions",
    metadata,
    Column(
        "recording_id", Integer, ForeignKey("recordings.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("step", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("body", Text, nullable=False),  # the vocabulary object as JSON
    Column("t_start", Float, nullable=False),
    Column("t_end", Float, nullable=False),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("event_first", Integer),
    Column("event_last", Integer),
    Column("before_frame", String(64), ForeignKey("frames.hash")),
    Column("after_frame", String(64), ForeignKey("frames.hash")),
    Column("anchor_id", Integer, ForeignKey("anchors.id", ondelete="SET NULL")),
    Column("window_class", String(200)),
    Column("window_title", Text),
    # schema 5: the object the step was aimed at, as its toolkit told it (storage/widgets.py)
    Column("widget", Text),
    # schema 6: a person's note on the step (their reasoning), as they wrote it
    Column("note", Text),
    # schema 7: whether the after-frame was seen to settle (False: the next step began, or
    # the recording ended, while the screen still changed; None: not known)
    Column("after_settled", Boolean),
    # schema 8: what the objects of the step's window told before the step and after it
    # (storage/told.py), as JSON
    Column("told", Text),
)

masks = Table(  # schema 2: regions that verification ignores (a clock, a blinking cursor)
    "masks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "recording_id",
        Integer,
        ForeignKey("recordings.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("step", Integer),  # None: every step of the recording
    Column("x", Integer, nullable=False),
    Column("y", Integer, nullable=False),
    Column("w", Integer, nullable=False),
    Column("h", Integer, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "recording_id",
        Integer,
        ForeignKey("recordings.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("started", DateTime(timezone=True), nullable=False),
    Column("ended", DateTime(timezone=True)),
    Column("status", String(16), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("host", String(200)),
    Column("options", Text, nullable=False, default="{}"),
)

step_results = Table(
    "step_results",
    metadata,
    Column("run_id", Integer, primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("status", String(16), nullable=False),
    Column("message", Text, nullable=False, default=""),
    Column("t_start", Float, nullable=False),
    Column("t_end", Float, nullable=False),
    Column("score", Float),
    Column("margin", Float),
    Column("scale", Float),
    Column("shift_x", Integer),
    Column("shift_y", Integer),
    Column("details", Text, nullable=False, default="{}"),
    ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE"),
)
