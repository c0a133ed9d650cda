"""What the corpus knows of an application: how to start it in a scenario, where its widgets
are (AT-SPI or the X window tree), and the task a person does in it, step by step."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from realapps.desktop import Desktop
from realapps.truth import Element

__all__ = ["App", "Scenario", "Step", "by_name", "by_role"]

Pick = Callable[[Sequence[Element]], Element | None]


@dataclass(frozen=True)
class Step:
    """One step of a task: a pointer action on the widget `target` picks (at `at`, fractions
    of its box), or typing `text` (`action` "type") or pressing the chord `text` ("key")."""

    action: str  # left_click, double_click, right_click, left_click_drag, type, key
    target: Pick | None = None
    at: tuple[float, float] = (0.5, 0.5)
    text: str | None = None
    to: Pick | None = None  # a drag's end
    label: str = ""  # what the step does, for reports

    @property
    def is_pointer(self) -> bool:
        return self.target is not None


@dataclass(frozen=True)
class Scenario:
    """One way today's screen differs from the recording's."""

    name: str
    argv: tuple[str, ...] = ()  # added to the application's command line
    env: Mapping[str, str] = field(default_factory=dict)
    position: tuple[int, int] | None = None  # the window's top-left; None: the recording's
    size: tuple[int, int] | None = None  # the window's size; None: the application's own
    pointer_elsewhere: bool = False  # the pointer rests outside the window when a step begins
    # steps whose target is gone or renamed here: the step must be refused
    absent: frozenset[int] = frozenset()
    # steps (numbered as `absent`) whose effect differs from the recording's here, because
    # the application does another thing (a key enters another digit, a box stays
    # unchecked): --verify must fail them
    wrong: frozenset[int] = frozenset()
    # the scale a desktop that makes this change tells through Xft.dpi (its text scaling:
    # GNOME's "large text" sets Xft.dpi 120 for 1.25x); bench_realapps --told gives it to
    # re-anchoring as a replay on that desktop would (issue 34)
    told: float | None = None


@dataclass(frozen=True)
class App:
    """An application of the corpus."""

    name: str
    toolkit: str
    truth: Literal["atspi", "xtree"]
    key: str  # its AT-SPI application name, or the WM_CLASS of its windows
    command: Callable[[Scenario], Sequence[str]]
    steps: Sequence[Step]
    scenarios: Sequence[Scenario]
    position: tuple[int, int] = (80, 60)  # where its window is when recorded
    # False: it runs on a desktop without an accessibility bus, as Qt does on many (deskreel
    # sees pixels and X windows only); an "atspi" truth then comes from a twin (twin.py).
    accessibility: bool = True
    ready: Callable[[Sequence[Element]], bool] = lambda elements: bool(elements)
    settle: float = 0.6  # s to wait after each step, for menus and redraws
    # The end-to-end check (optional): the whole task replayed by `deskreel replay` on a
    # fresh start, then the application's final state read (a field's text, a saved file,
    # what it printed) and compared with what the recorded task left.
    final_state: Callable[[Desktop], str] | None = None


def by_role(role: str, name: str, index: int = 0) -> Pick:
    """The `index`-th showing widget of this role and name, as a person counts them: top to
    bottom, then left to right."""

    def pick(elements: Sequence[Element]) -> Element | None:
        found = sorted(
            (e for e in elements if (e.role, e.name) == (role, name)),
            key=lambda e: (e.box[1], e.box[0]),
        )
        return found[index] if len(found) > index else None

    return pick


def by_name(name: str, index: int = 0) -> Pick:
    """The `index`-th showing widget of this name, whatever its role."""

    def pick(elements: Sequence[Element]) -> Element | None:
        found = sorted(
            (e for e in elements if e.name == name and e.box[2] > 0 and e.box[3] > 0),
            key=lambda e: (e.box[1], e.box[0]),
        )
        return found[index] if len(found) > index else None

    return pick
