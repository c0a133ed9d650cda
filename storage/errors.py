"""What the store raises: a database that cannot be used as asked, or lacks what was asked."""

from __future__ import annotations

from typing import Any

__all__ = ["NotFoundError", "StorageError"]


class StorageError(Exception):
    """A database that cannot be used as asked; the message says what to do."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.details = details or {}


class NotFoundError(StorageError):
    """A recording, frame or run that the database does not hold."""
