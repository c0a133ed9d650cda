"""Schema 3: a uid per recording, to know it again in another store (push and pull).

Existing recordings get one here; the column stays nullable so that a row written some
other way is still readable (`storage.transfer` gives it a uid before copying it).

Revision ID: 0003
Revises: 0002
"""

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recordings", sa.Column("uid", sa.String(32)))
    conn = op.get_bind()
    for (recording_id,) in conn.execute(sa.text("SELECT id FROM recordings")).all():
        conn.execute(
            sa.text("UPDATE recordings SET uid = :uid WHERE id = :id"),
            {"uid": uuid.uuid4().hex, "id": recording_id},
        )
    op.create_index("ix_recordings_uid", "recordings", ["uid"], unique=True)
    op.execute("UPDATE deskreel_meta SET value = '3' WHERE key = 'schema_version'")


def downgrade() -> None:
    with op.batch_alter_table("recordings") as batch:
        batch.drop_index("ix_recordings_uid")
        batch.drop_column("uid")
    op.execute("UPDATE deskreel_meta SET value = '2' WHERE key = 'schema_version'")
