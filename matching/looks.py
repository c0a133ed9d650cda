"""An anchor in more than one look: the target at rest (the pointer elsewhere, as a replay
finds it) and hovered (as it looked just before the press). Each look is located in turn,
with the recorded screen as it looked then, and the first found answers; when none is, the
first look's refusal does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .located import Located
from .stages import locate
from .recording import Recorded
from .search import Box, Image

__all__ = ["Look", "locate_looks", "looks_of", "pasted"]


@dataclass(frozen=True, slots=True)
class Look:
    """One look of an anchor: its image, whether it had no look-alike on the screen it was
    chosen on, the recorded screen as it looked then (for the checks), and its name."""

    image: Image
    unique: bool
    context: Recorded | None
    name: str = ""


def locate_looks(
    screen: Image, looks: Sequence[Look], offset: tuple[int, int], **kw: Any
) -> Located:
    """locate() each of `looks` on `screen` in turn (`kw` as locate takes them); the first
    found, its stages ending in the look's name; else the first look's answer."""
    first: Located | None = None
    for look in looks:
        found = locate(screen, look.image, offset, unique=look.unique, context=look.context, **kw)
        if found.found:
            return replace(found, searched=f"{found.searched}+{look.name}") if look.name else found
        first = first or found
    assert first is not None, "locate_looks wants one look at least"
    return first


def pasted(frame: Callable[[], Image | None], crop: Image, box: Box) -> Callable[[], Image | None]:
    """A function returning `frame()` with `crop` over `box`: the recorded screen as it
    looked when the crop was (the target at rest, where the stored frame shows it hovered)."""

    def fetch() -> Image | None:
        shown = frame()
        if shown is None:
            return None
        x, y, w, h = box
        if crop.shape[:2] != (h, w) or y + h > shown.shape[0] or x + w > shown.shape[1]:
            return shown
        shown = shown.copy()
        shown[y : y + h, x : x + w] = crop
        return shown

    return fetch


def looks_of(
    at_rest: Image,
    hovered: Image | None,
    box: Box,
    unique: bool,
    recorded: Callable[[], Image | None] | None,
) -> list[Look]:
    """An anchor's looks, in the order to try them: at rest (`unique` as the recorder
    judged it), then hovered where it was kept, whose look-alikes nobody judged. `recorded`
    returns the step's stored before-frame (it shows the target hovered), or None."""
    if hovered is None:
        return [Look(at_rest, unique, None if recorded is None else Recorded(recorded))]
    if recorded is None:
        return [Look(at_rest, unique, None), Look(hovered, False, None, "hovered")]
    return [
        Look(at_rest, unique, Recorded(pasted(recorded, at_rest, box))),
        Look(hovered, False, Recorded(recorded), "hovered"),
    ]
