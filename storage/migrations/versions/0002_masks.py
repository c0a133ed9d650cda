"""Schema 2: masks, regions that verification ignores.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "masks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "recording_id",
            sa.Integer,
            sa.ForeignKey("recordings.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("step", sa.Integer),
        sa.Column("x", sa.Integer, nullable=False),
        sa.Column("y", sa.Integer, nullable=False),
        sa.Column("w", sa.Integer, nullable=False),
        sa.Column("h", sa.Integer, nullable=False),
    )
    op.execute("UPDATE deskreel_meta SET value = '2' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("masks")
    op.execute("UPDATE deskreel_meta SET value = '1' WHERE key = 'schema_version'")
