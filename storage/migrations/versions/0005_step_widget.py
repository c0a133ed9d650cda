"""Schema 5: the object each pointer step was aimed at, as its toolkit told it (the
accessible under the point: role, name, box, path and its parent's children), as JSON.

Nullable: existing steps get NULL, and replay finds their targets by pixels as before.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("widget", sa.Text))
    op.execute("UPDATE deskreel_meta SET value = '5' WHERE key = 'schema_version'")


def downgrade() -> None:
    # Not recreated (see 0004): a plain DROP COLUMN keeps the rows and their ids.
    with op.batch_alter_table("actions", recreate="never") as batch:
        batch.drop_column("widget")
    op.execute("UPDATE deskreel_meta SET value = '4' WHERE key = 'schema_version'")
