"""Schema 8: what the objects of each step's window told of themselves (their texts, values
and the states a step sets) before the step and once its effect was drawn, as JSON
(storage/told.py): a replay's --verify compares an effect by what it means.

Nullable: existing steps get NULL, and their effects are judged by their pixels as before.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("told", sa.Text))
    op.execute("UPDATE deskreel_meta SET value = '8' WHERE key = 'schema_version'")


def downgrade() -> None:
    # Not recreated (see 0004): a plain DROP COLUMN keeps the rows and their ids.
    with op.batch_alter_table("actions", recreate="never") as batch:
        batch.drop_column("told")
    op.execute("UPDATE deskreel_meta SET value = '7' WHERE key = 'schema_version'")
