"""Whether a deskreel database is the shape this deskreel writes: its tables and columns
(checked on opening: schema_gate.py refuses a file that lacks any, since no command would
work on it), its migration record and whether its stored steps read back (both reported by
`deskreel doctor`, so that healthy means every other command works on the file)."""

from __future__ import annotations

from sqlalchemy import Connection, inspect, select, text

from . import schema as s
from .rows import DamagedStep, stored_action

__all__ = ["damaged_steps", "migration_problem", "missing_columns"]


def missing_columns(conn: Connection) -> list[str]:
    """The tables and columns the schema has and the file lacks; empty when it has all."""
    have = inspect(conn)
    tables = set(have.get_table_names())
    out = []
    for table in s.metadata.sorted_tables:
        if table.name not in tables:
            out.append(f"table {table.name} is missing")
            continue
        columns = {c["name"] for c in have.get_columns(table.name)}
        lacking = [c.name for c in table.columns if c.name not in columns]
        if lacking:
            out.append(f"table {table.name} lacks column {', '.join(lacking)}")
    return out


def migration_problem(conn: Connection) -> str | None:
    """What is wrong with the file's migration record (Alembic's), which the next upgrade
    starts from; None when it names this schema's revision."""
    head = _head_revision(conn)
    said = _revision(conn) if "alembic_version" in inspect(conn).get_table_names() else None
    if said == head:
        return None
    return (
        f"its migration record says {said!r}, where schema {s.SCHEMA_VERSION} is {head!r}: "
        f"the next upgrade would fail; restore a backup"
    )


def damaged_steps(conn: Connection) -> list[tuple[int, int]]:
    """(recording, step) of each stored step whose action does not read back."""
    a = s.actions.c
    out = []
    for rec, step, body in conn.execute(
        select(a.recording_id, a.step, a.body).order_by(a.recording_id, a.step)
    ):
        try:
            stored_action(body, step)
        except DamagedStep:
            out.append((rec, step))
    return out


def _revision(conn: Connection) -> str | None:
    rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return str(rows[0]) if len(rows) == 1 else None


def _head_revision(conn: Connection) -> str | None:
    from alembic.script import ScriptDirectory

    from .schema_gate import alembic_config

    return ScriptDirectory.from_config(alembic_config(conn)).get_current_head()
