"""The report's images: frames written once into img/ by hash, and figures with boxes on them.

Frames keep their stored encoding (lossless WebP or PNG; every current browser shows both),
so a report costs no re-encoding. Boxes are CSS overlays placed in percent of the image, so
they stay on their target however large the image is shown.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from deskreel.storage import NotFoundError, Store

from deskreel.xsession.files import PrivateFolder

__all__ = ["Box", "ImageDir", "Pic", "figure", "frame_figure"]

_HASH = re.compile(r"[0-9a-f]{16,128}")
_SAVED = re.compile(r"crops/[A-Za-z0-9_-]+\.png")
_SHOWN = {"PNG": "png", "WEBP": "webp", "JPEG": "jpg"}  # formats browsers show as they are
BOX_KINDS = ("anchor", "match", "expected", "found", "ok", "point")


@dataclass(frozen=True, slots=True)
class Pic:
    """An image written into the report: its path relative to index.html, and its size."""

    src: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle to draw on a picture, in its pixels; `kind` picks its colour."""

    x: int
    y: int
    w: int
    h: int
    kind: str  # one of BOX_KINDS
    label: str = ""


class ImageDir:
    """img/ next to index.html: each frame once, named by its hash; broken ones are None.
    A context manager: img/ stays open (it follows no link) until the report is written."""

    def __init__(self, store: Store, root: Path):
        self.store = store
        self.dir = root / "img"
        self.folder = PrivateFolder(self.dir)
        self._pics: dict[str, Pic | None] = {}

    def __enter__(self) -> ImageDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.folder.close()

    def frame(self, key: str | None) -> Pic | None:
        """A stored frame, or None when there is none or the database lost it."""
        if not isinstance(key, str) or not key:
            return None
        if key not in self._pics:
            try:
                data, _fmt = self.store.frame(key)
            except NotFoundError:
                self._pics[key] = None
            else:
                self._pics[key] = self._write(_stem(key), data)
        return self._pics[key]

    def saved(self, path: object) -> Pic | None:
        """A file a replay saved into the report itself (a crop, `crops/NAME.png`); None when
        it is not there (a report written elsewhere) or the name is not one of those."""
        if not isinstance(path, str) or not _SAVED.fullmatch(path):
            return None  # names come from a database that may be shared: never a path out
        file = self.dir.parent / path
        if not file.is_file() or file.is_symlink() or file.parent.is_symlink():
            return None
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(file) as image:
                return Pic(path, *image.size)
        except (UnidentifiedImageError, OSError, ValueError):
            return None

    def png(self, data: bytes) -> Pic | None:
        """An anchor crop (PNG bytes), named by the hash of its bytes."""
        key = "anchor-" + hashlib.sha256(data).hexdigest()
        if key not in self._pics:
            self._pics[key] = self._write(key, data)
        return self._pics[key]

    def _write(self, stem: str, data: bytes) -> Pic | None:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(io.BytesIO(data)) as image:  # reads the header only
                size, ext = image.size, _SHOWN.get(image.format or "")
                if ext is None:  # a format browsers may not show: convert it, once
                    buffer = io.BytesIO()
                    image.save(buffer, "PNG")
                    data, ext = buffer.getvalue(), "png"
        except (UnidentifiedImageError, OSError, ValueError):
            return None
        name = f"{stem}.{ext}"
        if not self.folder.holds(name):  # else written whole before, by its hash
            self.folder.write(name, data)
        return Pic(f"img/{name}", size[0], size[1])


def figure(
    pic: Pic | None,
    caption: str,
    boxes: Sequence[Box] = (),
    *,
    missing: str = "no frame",
    big: bool = False,
) -> str:
    """A picture that links to itself at full size, with its boxes and a caption."""
    cls = "shot big" if big else "shot"
    if pic is None:
        return (
            f'<figure class="{cls} none"><div class="empty">{escape(missing)}</div>'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )
    marks = "".join(_mark(box, pic) for box in boxes)
    src = escape(pic.src)
    return (
        f'<figure class="{cls}"><a href="{src}"><span class="frame">'
        f'<img src="{src}" alt="{escape(caption)}" width="{pic.width}" '
        f'height="{pic.height}" loading="lazy">{marks}</span></a>'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def frame_figure(
    images: ImageDir,
    key: object,
    caption: str,
    boxes: Sequence[Box] = (),
    *,
    absent: str = "no frame",
    big: bool = False,
) -> str:
    """A stored frame's figure; says whether the frame was never kept or has been lost."""
    pic = images.frame(key if isinstance(key, str) else None)
    missing = absent if not key else "frame lost or unreadable: run 'deskreel doctor'"
    return figure(pic, caption, boxes, missing=missing, big=big)


def _mark(box: Box, pic: Pic) -> str:
    kind = box.kind if box.kind in BOX_KINDS else "ok"
    x0, y0 = _pct(box.x, pic.width), _pct(box.y, pic.height)
    x1, y1 = _pct(box.x + box.w, pic.width), _pct(box.y + box.h, pic.height)
    style = f"left:{x0:.2f}%;top:{y0:.2f}%;width:{x1 - x0:.2f}%;height:{y1 - y0:.2f}%"
    label = escape(box.label)
    text = f"<i>{label}</i>" if label and kind != "point" else ""
    return f'<span class="box {kind}" style="{style}" title="{label}">{text}</span>'


def _pct(value: int, whole: int) -> float:
    return min(100.0, max(0.0, 100.0 * value / whole)) if whole > 0 else 0.0


def _stem(key: str) -> str:
    # Hashes come from a database that may be shared: never let one name a path.
    return key if _HASH.fullmatch(key) else hashlib.sha256(key.encode()).hexdigest()
