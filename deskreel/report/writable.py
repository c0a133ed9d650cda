"""Whether a report's or an export's file can be written, asked before any work is done
(the writing itself is xsession.files.write_private)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["check_writable"]


def check_writable(path: Path) -> None:
    """Refuse a file that write_private() could not write, before any work is done: create and
    remove a file beside `path`, the one test of writability that root passes only where it
    may really write."""
    from ..errors import UserError

    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise UserError(f"cannot write {path} ({err.strerror}): choose a writable file") from None
    os.close(fd)
    os.unlink(probe)
