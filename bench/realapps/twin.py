"""The truth of an application run without accessibility (`App.accessibility` False, truth
"atspi"), from a twin.

Qt 5 draws all of a window's widgets in one X window, so the X window tree cannot say where
a button is. Its AT-SPI tree can, but only where an accessibility bus runs, and there deskreel
would read it too. So the application runs twice, started and placed alike: on a Desktop
without the bus, where the person works, deskreel records and the scenarios' screens are
shot; and on a twin Desktop of the same size with the bus, whose AT-SPI tree is the truth.

The twin is not driven: its tree is the one it started with. So a task may press only
widgets that stay where they are (a calculator's keys), and the two screens must be the same
pixels once the application is started and placed, or the corpus is not built.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from realapps.catalog.app import App
from realapps.desktop import Desktop, settled

__all__ = ["check_same_screens", "desktop_for"]


@contextmanager
def desktop_for(app: App, logs: Path) -> Iterator[Desktop]:
    """A Desktop for `app`: with an accessibility bus, or without one as the application
    says; then, where its truth is AT-SPI, with a twin that has one."""
    if app.accessibility or app.truth != "atspi":
        with Desktop(logs=logs, accessibility=app.accessibility) as desktop:
            yield desktop
        return
    with (
        Desktop(logs=logs / "twin") as twin,
        Desktop(logs=logs, accessibility=False, twin=twin) as desktop,
    ):
        yield desktop


def check_same_screens(desktop: Desktop) -> None:
    """Raise unless the desktop's screen and its twin's are the same pixels (each once
    settled): where they differ, the twin's tree is not the truth of this screen."""
    if desktop.twin is None:
        return
    here, there = _settled_screen(desktop), _settled_screen(desktop.twin)
    differ = np.any(here != there, axis=2)
    if differ.any():
        ys, xs = np.nonzero(differ)
        box = (
            int(xs.min()),
            int(ys.min()),
            int(xs.max() - xs.min() + 1),
            int(ys.max() - ys.min() + 1),
        )
        raise RuntimeError(
            f"the twin's screen differs from the application's in {int(differ.sum())} pixels "
            f"(within {box}): its accessibility tree would not be this screen's truth"
        )


def _settled_screen(desktop: Desktop) -> np.ndarray:
    grabber = desktop.grabber()
    try:
        return np.asarray(settled(grabber))
    finally:
        grabber.close()
