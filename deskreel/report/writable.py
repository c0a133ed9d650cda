"""Whether a report's or an export's file can be written, asked before any work is done
(the writing itself is xsession.files.write_private)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["JUNIT_MARK", "LINES_MARK", "SUITE_JUNIT_MARK", "check_replaceable", "check_writable"]


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
# a JUnit file's suite whose properties name the run; an actions export's first step.
JUNIT_MARK = re.compile(rb'\A<\?xml[^>]*\?>\s*<testsuite .*?name="deskreel\.run_id"', re.S)
LINES_MARK = re.compile(rb'\A\{"step": 1, "t": ')
SUITE_JUNIT_MARK = re.compile(rb'\A<\?xml[^>]*\?>\s*<testsuite name="deskreel test"')


def check_replaceable(path: Path, *, mark: re.Pattern[bytes], what: str, force: bool) -> None:
    """Refuse to overwrite an existing file that deskreel did not write (whose first 4 KB
    do not begin as `mark` says) unless `force`; and anything that is not a regular file."""
    from ..errors import UserError

    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_file():
        raise UserError(f"{path} exists and is not a regular file: give a new file name")
    with path.open("rb") as f:
        ours = mark.search(f.read(4096)) is not None
    if not ours and not force:
        raise UserError(
            f"{path} exists and is no {what}: give a new file, or add --force to replace it"
        )
