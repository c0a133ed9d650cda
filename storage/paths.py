"""Whether a path is one the file system can hold, asked before anything is done with it:
a name longer than the file system takes, or one that is no name in any encoding (half a
character), would otherwise fail deep inside whatever first touched it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["unusable_path"]

_PATH_MAX = 4095  # bytes of a whole path the kernel takes (PATH_MAX, its final NUL aside)


def unusable_path(path: str | os.PathLike[str]) -> str | None:
    """Why `path` cannot name a file here, or None: a name in it longer than its file system
    takes (the system says how long: pathconf's NAME_MAX), a path longer than the kernel
    takes, or text that no file name can hold."""
    try:
        raw = os.fsencode(path)
    except UnicodeError:
        return "it holds half a character, which no file name can"
    if b"\0" in raw:
        return "it holds a NUL character, which no file name can"
    if len(raw) > _PATH_MAX:
        return f"it is {len(raw)} bytes long, and a path may have {_PATH_MAX}"
    longest = max(raw.split(b"/"), key=len)
    most = _name_max(Path(os.fsdecode(raw)))
    if len(longest) > most:
        return f"a name in it is {len(longest)} bytes long, and its file system takes {most}"
    return None


def _name_max(path: Path) -> int:
    """NAME_MAX of the file system the path's nearest existing folder is on (255 if none)."""
    for folder in (path.parent, *path.parent.parents):
        try:
            if folder.is_dir():
                return os.pathconf(folder, "PC_NAME_MAX")
        except OSError:
            continue
    return 255
