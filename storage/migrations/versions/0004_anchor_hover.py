"""Schema 4: an anchor's second look, the same box cut from the frame where the pointer
hovered the target just before the press (`png` is the target before the pointer came near);
and in how many places the object under the target was drawn on the recorded screen.

Nullable: existing anchors get NULL (unknown), as do those that looked the same hovered.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("anchors", sa.Column("hover_png", sa.LargeBinary))
    op.add_column("anchors", sa.Column("twins", sa.Integer))
    op.execute("UPDATE deskreel_meta SET value = '4' WHERE key = 'schema_version'")


def downgrade() -> None:
    # Not recreated (SQLite's batch default): dropping the old anchors table would, with
    # foreign keys on, set every step's anchor_id to NULL. A plain ALTER TABLE ... DROP
    # COLUMN (SQLite 3.35 or later) keeps the rows and their ids.
    with op.batch_alter_table("anchors", recreate="never") as batch:
        batch.drop_column("twins")
        batch.drop_column("hover_png")
    op.execute("UPDATE deskreel_meta SET value = '3' WHERE key = 'schema_version'")
