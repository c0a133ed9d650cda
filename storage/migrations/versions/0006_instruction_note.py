"""Schema 6: what a demonstration was for and why each step was taken, as people wrote them:
the task instruction of a recording, and a note per step.

Nullable: existing recordings have no instruction and their steps no note.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recordings", sa.Column("instruction", sa.Text))
    op.add_column("actions", sa.Column("note", sa.Text))
    op.execute("UPDATE deskreel_meta SET value = '6' WHERE key = 'schema_version'")


def downgrade() -> None:
    # Not recreated (see 0004): a plain DROP COLUMN keeps the rows and their ids.
    with op.batch_alter_table("actions", recreate="never") as batch:
        batch.drop_column("note")
    with op.batch_alter_table("recordings", recreate="never") as batch:
        batch.drop_column("instruction")
    op.execute("UPDATE deskreel_meta SET value = '5' WHERE key = 'schema_version'")
