"""A refusal as a value: which rule refused a place, what it measured there, what it needed,
and where. The CLI and the report render it; nothing parses it.

Each rule is written once, here: the words for its measure, and whether the measure must
reach what is needed (at least) or stay within it (at most).
"""

from __future__ import annotations

from dataclasses import dataclass

from .search import Point

__all__ = ["AT_MOST", "RULES", "Refusal", "rule_text"]

AT_MOST = "at most"  # the measure must stay within what is needed; else it must reach it

RULES: dict[str, tuple[str, str]] = {
    # Objects (objects.py): the toolkit's own account of the recorded object.
    "object-gone": ("accessibles of its role and name in its application today:", ""),
    "object-insensitive": ("its object takes input (sensitive) today:", ""),
    "object-covered": ("its object is what the screen shows at its point:", ""),
    # A step with no anchor whose object left it to the pixels is pressed at its recorded
    # place (replayer/anchoring.py), unless that place holds something else today.
    "off-screen": ("its recorded place lies off today's screen by, in px,", AT_MOST),
    "monitor-moved": ("the monitor of its recorded place stands elsewhere today, by px", AT_MOST),
    # The X-window rung (xwindows.py): the window at its path reads another name today.
    "renamed": ("its box reads the name it read when recorded:", ""),
    # The anchor itself (locating.py).
    "anchor-larger": ("the anchor's size against the screen's:", AT_MOST),
    "anchor-flat": ("the anchor's grey-level spread:", ""),
    # A match of the whole crop (ranking.py, locating.py, doubts.py, checks.py).
    "nowhere": ("places on the screen to compare the anchor with:", ""),
    "score": ("the best match scores", ""),
    "margin": ("the best match beats the runner-up by", ""),
    "other-scale": ("the match fits another scale better, by", AT_MOST),
    "parts-scaled": ("its parts put the scale off 1x by", AT_MOST),
    "context": ("the wider context of the recording scores", ""),
    "context-lead": ("the wider context fits here ahead of the runner-up by", ""),
    "context-margins": ("the match's lead and the context's lead together:", ""),
    "inner": ("the pixels right around the target score", ""),
    "back": ("what was found looks like the recorded target, ahead of the look-alike, by", ""),
    # Other scales, part by part (other_scales.py, located.py, checks.py).
    "parts-nowhere": ("places where its parts fit at other scales:", ""),
    "parts-fit": ("of its parts fit there:", ""),
    "parts-lead": ("its parts fit there ahead of anywhere else by", ""),
    "parts-pinned": ("its parts pin the target down along both axes:", ""),
    "back-parts": ("its parts fit the recorded target ahead of the look-alike by", ""),
    "unscaled": ("it was found at a scale off 1x by", ""),
    # The edges look (looks.py): a theme recolours the target's surroundings too.
    "recoloured-alone": ("of the target's surroundings, changed from the recording:", ""),
    # Twins (twins.py): the object is drawn elsewhere too; its row, twins painted out, decides.
    "twin-row": ("its row holds nothing but twins: grey-level spread", ""),
    "twin-match": ("its row, twins painted out, matches the recorded row only", ""),
    "twin-margin": ("its row, twins painted out, beats a twin's row only by", ""),
    "twin-many": ("its object is drawn in more places than twins are told apart in:", AT_MOST),
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """`rule` (a key of RULES) measured `measured` at `where`, and needed `needed`."""

    rule: str
    measured: float
    needed: float
    where: Point | None = None

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"no such rule: {self.rule!r}")

    def text(self) -> str:
        place = "" if self.where is None else f" at {self.where[0]},{self.where[1]}"
        return rule_text(RULES[self.rule], self.measured, self.needed, place)


def rule_text(rule: tuple[str, str], measured: float, needed: float, place: str = "") -> str:
    """A rule of a table such as RULES (its words and sense) as it held for one place: what
    it measured there, and what it needs (at least) or allows (at most)."""
    words, sense = rule
    need = f"allows {AT_MOST}" if sense == AT_MOST else "needs"
    return f"{words} {measured:.4g}{place}, {need} {needed:.4g}"
