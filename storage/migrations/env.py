"""Alembic environment: runs on the connection that storage.schema_gate hands it."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)  # batch: SQLite ALTERs
with context.begin_transaction():
    context.run_migrations()
