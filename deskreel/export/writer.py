"""The dataset directory: trajectories, frames as PNG and the dataset card, written atomically.

`metadata.jsonl` holds every line of every recording, with `file_name` naming its frame:
`datasets` loads the directory as is (`load_dataset(DIR)` by its layout, or `imagefolder`),
with the frames as `Image` features, and pyarrow reads the file.

Everything goes into a private temporary directory next to the target, which is renamed
into place at the end: an export that fails leaves nothing behind, and an export that
succeeds is complete. Directories are 0700 and files 0600: they hold what people typed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from deskreel.storage import Recording, Store

from ..errors import UserError
from .card import dataset_card, is_card
from .dialect import Dialect
from .trajectory import Report, trajectory

__all__ = [
    "METADATA",
    "ExportOptions",
    "Exported",
    "Summary",
    "check_target",
    "png_frame",
    "write_dataset",
]

METADATA = "metadata.jsonl"  # the name imagefolder looks for


@dataclass(frozen=True, slots=True)
class ExportOptions:
    scale_to: tuple[int, int] | None = None
    with_after: bool = False
    force: bool = False


@dataclass(frozen=True, slots=True)
class Exported:
    """One recording's part of the dataset, as the card lists it."""

    recording: Recording
    lines: int
    screen: tuple[int, int] | None


@dataclass
class Summary:
    """What the export wrote, for the card and the closing message."""

    dialect: Dialect
    options: ExportOptions
    created: datetime
    recordings: list[Exported] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    frames: int = 0
    report: Report = field(default_factory=Report)


def write_dataset(
    store: Store,
    recordings: Iterable[Recording],
    out: Path,
    dialect: Dialect,
    *,
    options: ExportOptions,
    each: Callable[[Recording], None] = lambda r: None,
) -> Summary:
    """Export `recordings` into the directory `out`; `each` is told as each one is done."""
    replace = check_target(out, force=options.force)
    summary = Summary(dialect, options, datetime.now(UTC))
    tmp: Path | None = None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))  # mode 0700
        (tmp / "frames").mkdir(mode=0o700)
        written: set[str] = set()
        fd = os.open(tmp / METADATA, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as metadata:
            for rec in recordings:
                _write_recording(store, rec, tmp, metadata, summary, written)
                each(rec)
        summary.frames = len(written)
        _write_file(tmp / "README.md", dataset_card(summary).encode("utf-8"))
        _publish(tmp, out, replace=replace)
    except BaseException as err:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, OSError):
            raise UserError(
                f"cannot write {out} ({err.strerror or err}): nothing was "
                f"written; free some space or choose another place"
            ) from None
        raise
    return summary


def check_target(out: Path, *, force: bool) -> bool:
    """Refuse what must not be overwritten; True when a previous export will be replaced."""
    if not out.parent.is_dir():
        why = "is not a directory" if out.parent.exists() else "does not exist"
        raise UserError(f"cannot write {out}: {out.parent} {why}")
    if out.exists() and not out.is_dir():
        raise UserError(
            f"{out} is a file: give a directory for the dataset (or a .jsonl "
            f"file with --format actions)"
        )
    if not out.exists() or not any(out.iterdir()):
        return False
    if not force:
        raise UserError(
            f"{out} is not empty: choose a new directory, or add --force to "
            f"replace a previous export"
        )
    if not _is_export(out):
        raise UserError(
            f"{out} is not empty and is not a deskreel export, so --force will "
            f"not replace it: choose a new directory"
        )
    return True


def _write_recording(
    store: Store, rec: Recording, tmp: Path, metadata: TextIO, summary: Summary, written: set[str]
) -> None:
    opts = summary.options
    tr = trajectory(
        rec,
        store.steps(rec.id),
        summary.dialect,
        scale_to=opts.scale_to,
        with_after=opts.with_after,
        report=summary.report,
    )
    metadata.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in tr.lines)
    for key in tr.frames:
        if key not in written:
            data, fmt = store.frame(key)
            _write_file(tmp / "frames" / f"{key}.png", png_frame(data, fmt, opts.scale_to))
            written.add(key)
    summary.recordings.append(Exported(rec, len(tr.lines), tr.screen))
    summary.kinds.update(tr.kinds)


def png_frame(data: bytes, fmt: str, size: tuple[int, int] | None) -> bytes:
    """A stored frame as PNG, resized with INTER_AREA when a size is given."""
    if fmt == "png" and size is None:
        return data
    import cv2
    import numpy as np

    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if pixels is None:
        raise UserError(f"a stored {fmt} frame cannot be decoded: run 'deskreel doctor'")
    if size is not None and (pixels.shape[1], pixels.shape[0]) != size:
        pixels = cv2.resize(pixels, size, interpolation=cv2.INTER_AREA)
    ok, png = cv2.imencode(".png", pixels)
    if not ok:
        raise UserError("PNG encoding failed for a frame")
    return png.tobytes()


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _publish(tmp: Path, out: Path, *, replace: bool) -> None:
    if not replace:
        try:
            os.rename(tmp, out)  # replaces an empty directory too
        except OSError as err:
            raise UserError(
                f"cannot create {out} ({err.strerror}): was it created meanwhile? "
                f"choose a new directory"
            ) from None
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    os.rename(out, old / out.name)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old / out.name, out)  # put the previous export back
        os.rmdir(old)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _is_export(out: Path) -> bool:
    try:
        with (out / "README.md").open(encoding="utf-8") as f:
            return is_card(f.read(_CARD_HEAD))
    except (OSError, UnicodeDecodeError):
        return False


_CARD_HEAD = 64 << 10  # characters of a card read to find its title
