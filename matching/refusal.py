"""A refusal as a value: which rule refused a place, what it measured there, what it needed,
and where. The CLI and the report render it; nothing parses it."""

from __future__ import annotations

from dataclasses import dataclass

from .search import Point

__all__ = ["RULES", "Refusal"]

# Each rule's words, written once: what the measure is.
RULES = {
    # Objects (objects.py): the toolkit's own account of the recorded object.
    "object-gone": "accessibles of its role and name in its application today:",
    "object-insensitive": "its object takes input (sensitive) today:",
    "object-covered": "its object is what the screen shows at its point:",
    # Twins (twins.py): the object is drawn elsewhere too; its row, twins painted out, decides.
    "twin-row": "its row holds nothing but twins: grey-level spread",
    "twin-match": "its row, twins painted out, matches the recorded row only",
    "twin-margin": "its row, twins painted out, beats a twin's row only by",
    "twin-many": "its object is drawn in more places than twins are told apart in:",
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """`rule` (a key of RULES) measured `measured` at `where`, and needed `needed`."""

    rule: str
    measured: float
    needed: float
    where: Point | None = None

    def text(self) -> str:
        place = "" if self.where is None else f" at {self.where[0]},{self.where[1]}"
        return f"{RULES[self.rule]} {self.measured:.4g}{place}, needs {self.needed:.4g}"
