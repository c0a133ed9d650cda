"""Alembic migrations that bring older deskreel databases to the current schema."""
