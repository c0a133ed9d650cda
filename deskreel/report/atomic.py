"""Private files written whole: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["check_writable", "write_private"]


def check_writable(path: Path) -> None:
    """Refuse a file that write_private() could not write, before any work is done: create and
    remove a file beside `path`, the one test of writability that root passes only where it
    may really write."""
    from ..errors import UserError

    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise UserError(f"cannot write {path} ({err.strerror}): choose a writable "
                        f"file") from None
    os.close(fd)
    os.unlink(probe)


def write_private(path: Path, data: bytes) -> None:
    """Write `path` with mode 0600; a crash leaves the old file or none, never half of one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:  # mkstemp creates it 0600
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
