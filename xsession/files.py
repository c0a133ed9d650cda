"""Private files written whole: a temporary file in the same directory, then a rename; and
the folders deskreel writes many files into (a report's images, a replay's crops), which
follow no symbolic link.

Shared by what writes files beside a run (the replayer's crops) and the face (reports,
exports).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

__all__ = ["LinkedPath", "PrivateFolder", "write_private"]

_NO_FOLLOW = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


class LinkedPath(OSError):
    """A folder deskreel would write into is a symbolic link, which it does not follow: the
    files would land wherever the link points (a folder of someone else's)."""

    def __init__(self, path: Path):
        super().__init__(f"{path} is a symbolic link: deskreel writes into no link")
        self.path = path


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


class PrivateFolder:
    """A folder (0700) opened once without following links; every file is written through
    its descriptor, so that no link planted in it, before or while it is written, is
    followed. Folders it creates are 0700; an existing one is made 0700 when `own` (ours,
    as a report's img/), else keeps its mode (a person's own)."""

    def __init__(self, path: Path, *, own: bool = True):
        created = _make_dirs(path)
        self.path = path
        try:
            self.fd = os.open(path, _NO_FOLLOW)
        except OSError as err:
            if path.is_symlink():
                raise LinkedPath(path) from None
            raise err from None
        if own or created:
            os.fchmod(self.fd, 0o700)

    def __enter__(self) -> PrivateFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def write(self, name: str, data: bytes) -> Path:
        """Write `name` (0600) whole into the folder; returns its path. A link by that name
        is replaced, not followed."""
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=self.fd
        )
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=self.fd)
            raise
        return self.path / name

    def holds(self, name: str) -> bool:
        """Whether a regular file `name` is in the folder (a link is not one)."""
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return stat.S_ISREG(st.st_mode)


def _make_dirs(path: Path) -> bool:
    """Create `path` and its missing parents with mode 0700; whether `path` was created. A
    link where a folder should be is refused, never followed."""
    missing = [p for p in (path, *path.parents) if not os.path.lexists(p)]
    for p in reversed(missing):
        os.mkdir(p, 0o700)
    if path.is_symlink():
        raise LinkedPath(path)
    return path in missing
