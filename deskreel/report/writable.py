"""Whether a report's or an export's file can be written, asked before any work is done
(the writing itself is xsession.files.write_private)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["JUNIT_MARK", "LINES_MARK", "check_replaceable", "check_writable"]


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


# How deskreel's own files begin, so that writing one again replaces only what it wrote:
# a JUnit file's properties name the run; an actions export's first line is a step.
JUNIT_MARK = b'name="deskreel.run_id"'
LINES_MARK = b'{"step": '


def check_replaceable(path: Path, *, mark: bytes, what: str, force: bool) -> None:
    """Refuse to overwrite an existing file that deskreel did not write (whose first 4 KB
    hold no `mark`) unless `force`; and anything that is not a regular file."""
    from ..errors import UserError

    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_file():
        raise UserError(f"{path} exists and is not a regular file: give a new file name")
    with path.open("rb") as f:
        ours = mark in f.read(4096)
    if not ours and not force:
        raise UserError(
            f"{path} exists and is no {what}: give a new file, or add --force to replace it"
        )
