"""Baseline: schema version 1.

New databases are created from storage.schema at the current version and stamped with the
head revision, so this baseline has nothing to do; later revisions alter version-1 files.

Revision ID: 0001
Revises:
"""

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
