"""--verify where a step opens a window (matching/compare/windows.py): the window manager,
not the pressed window, decides where a dialog goes, so with the application's window moved
the dialog opens where it did. The X server's word on which windows appeared lets the
effect be judged where the window is. Pure, on synthetic screens with the X server's answer
given; and live, on a real Xvfb with a Tk dialog that opens at the screen's corner."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from deskreel.matching import Aimed, StepWindows, VerifyOptions, checks_for
from samples.person import Person
from tests.commands import deskreel
from tests.test_record import record
from tests.tk_buttons import shown, stopped

DIALOG_APP = Path(__file__).resolve().parent / "dialog_buttons.py"

W, H = 480, 320
MAIN = (80, 60)  # the main window's size: a button at its (20, 20)
DIALOG = (120, 90)


def _texture(seed: int, size: tuple[int, int]) -> np.ndarray:
    """A window's face: blocks of grey, like text and borders, told apart by `seed`."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, (size[1] // 6 + 1, size[0] // 6 + 1), dtype=np.uint8)
    grey = np.kron(blocks, np.ones((6, 6), np.uint8))[: size[1], : size[0]]
    return np.dstack([grey] * 3)


def _screen(main_at: tuple[int, int], dialog_at: tuple[int, int] | None, dialog: int = 7):
    s = np.full((H, W, 3), 40, np.uint8)
    x, y = main_at
    s[y : y + MAIN[1], x : x + MAIN[0]] = _texture(1, MAIN)
    if dialog_at is not None:
        dx, dy = dialog_at
        s[dy : dy + DIALOG[1], dx : dx + DIALOG[0]] = _texture(dialog, DIALOG)
    return s


def _checks(
    before, after, today_before, today_after, moved: tuple[int, int], windows=None,
    target: tuple[int, int] = (125 + 20, 40 + 20),  # the main window's button, as recorded
):  # fmt: skip
    x, y = target
    button = (x - 10, y - 10, 20, 20)
    today = (button[0] + moved[0], button[1] + moved[1], 20, 20)
    return checks_for(
        action="left_click",
        before=before,
        after=after,
        screen=today_after,
        target=target,
        located=(target[0] + moved[0], target[1] + moved[1]),
        scale=1.0,
        region=None,
        masks=[],
        options=VerifyOptions(),
        earlier=today_before,
        aimed=Aimed("push button 'Go'", button, today),
        windows=windows,
    )


def _failed(checks) -> list[str]:
    return [c.describe() for c in checks if not c.passed]


def test_a_dialog_opened_where_it_opened_passes_with_the_window_moved() -> None:
    # recorded: the dialog opens at the screen's corner, beside the main window
    before, after = _screen((125, 40), None), _screen((125, 40), (0, 0))
    moved = (150, 60)  # today the main window, and the button pressed, are elsewhere
    today_before = _screen((275, 100), None)
    today_after = _screen((275, 100), (0, 0))
    told = StepWindows(opened=((0, 0, *DIALOG),))
    assert _failed(_checks(before, after, today_before, today_after, moved)), "the bite"
    assert _failed(_checks(before, after, today_before, today_after, moved, told)) == []
    # a dialog that says another thing fails where it is
    other = _screen((275, 100), (0, 0), dialog=8)
    assert _failed(_checks(before, after, today_before, other, moved, told))
    # no dialog at all: the X server told of none, and the effect is nowhere
    assert _failed(_checks(before, after, today_before, today_before, moved, StepWindows()))


def test_a_change_beside_the_dialog_is_not_left_unchecked() -> None:
    """The step also ticked a mark 2 px below where the dialog opens (one effect with it):
    today the dialog opens but no tick shows, and the step fails."""
    before, after = _screen((125, 40), None), _screen((125, 40), (0, 0))
    after[92:97, 50:55] = 255  # the tick: 25 px, beside the dialog
    today_before = _screen((125, 40), None)
    today_after = _screen((125, 40), (0, 0))
    told = StepWindows(opened=((0, 0, *DIALOG),))
    assert _failed(_checks(before, after, today_before, today_after, (0, 0), told))
    today_after[92:97, 50:55] = 255
    assert _failed(_checks(before, after, today_before, today_after, (0, 0), told)) == []


def test_a_replay_with_the_window_moved_verifies_the_dialog_it_opened(
    run_deskreel: Any, xvfb: Any, tmp_path: Path
) -> None:
    """Recorded with the dialog beside the main window; replayed with the main window
    elsewhere, the dialog opens at the corner as before. A dialog that says another thing
    fails."""
    app, places = shown(xvfb, DIALOG_APP, 1)
    db = tmp_path / "dialog.db"

    def drive(person: Person) -> None:
        person.move_to(700, 500)
        time.sleep(0.5)
        person.click(*places["Settings"])
        time.sleep(1.5)
        person.move_to(700, 500)
        time.sleep(0.5)

    record(run_deskreel, xvfb, db, drive, "--name", "dialog")
    assert stopped(app, "pressed") == ["pressed Settings"]

    app, _ = shown(xvfb, DIALOG_APP, 1, "--geometry", "+520+380")
    done = deskreel("replay", db, "--verify", "--timeout", "3", env=xvfb.env())
    assert stopped(app, "pressed") == ["pressed Settings"]
    assert done.returncode == 0, done.stderr

    app, _ = shown(xvfb, DIALOG_APP, 1, "--geometry", "+520+380", "--wrong")
    done = deskreel("replay", db, "--verify", "--timeout", "3", env=xvfb.env())
    stopped(app, "pressed")
    assert done.returncode == 1, done.stderr
    assert "differs from the recording" in done.stderr
