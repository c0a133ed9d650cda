"""Schema 7: whether each step's after-frame was seen to settle.

The recorder takes a step's after-frame once the screen stays still, but never later than
the next step's start: a person who types on within a frame or two may leave an
after-frame that shows the step's effect half drawn. A step that fails verification says
so.

Nullable: existing recordings do not know.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("after_settled", sa.Boolean))
    op.execute("UPDATE deskreel_meta SET value = '7' WHERE key = 'schema_version'")


def downgrade() -> None:
    # Not recreated (see 0004): a plain DROP COLUMN keeps the rows and their ids.
    with op.batch_alter_table("actions", recreate="never") as batch:
        batch.drop_column("after_settled")
    op.execute("UPDATE deskreel_meta SET value = '6' WHERE key = 'schema_version'")
