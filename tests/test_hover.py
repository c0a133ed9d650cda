"""Hover states: a control drawn otherwise while the pointer is on it is anchored in two
looks, at rest (the frame from when the pointer came into it) and hovered (just before the
press), and a replay that starts with the pointer elsewhere finds it at rest."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from recorder.rest import calm_since, pointer_path
from samples.person import Person
from storage import RawEvent, open_store
from tests.commands import deskreel
from tests.test_record import record
from xsession.images import decode_image

BUTTONS = Path(__file__).resolve().parent / "hover_buttons.py"


def motion(t: float, x: int, y: int) -> RawEvent:
    return RawEvent(t, "motion", x=x, y=y)


def test_only_the_pointer_moved_from_the_last_other_event_to_the_press() -> None:
    press = RawEvent(1.0, "button_down", x=140, y=115, button=1)
    glide = [motion(0.1, 20, 20), motion(0.2, 90, 110), motion(0.5, 140, 115)]
    key = RawEvent(0.15, "key_down", keycode=38)
    assert calm_since([*glide, press], 3, 3) == (0.1, 1.0)
    assert calm_since([glide[0], key, *glide[1:], press], 4, 4) == (0.15, 1.0)
    assert calm_since([press], 0, 0) is None  # warped onto it with the press
    assert pointer_path([*glide, press], 0.3, 0.9) == [(90, 110), (140, 115)]


def buttons(xvfb) -> tuple[subprocess.Popen[str], dict[str, tuple[int, int]]]:
    proc = subprocess.Popen(
        [sys.executable, str(BUTTONS)], env=xvfb.env(), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    places: dict[str, tuple[int, int]] = {}
    while len(places) < 3:
        line = proc.stdout.readline()
        assert line, "the buttons never became ready"
        _, name, x, y = line.split()
        places[name] = (int(x), int(y))
    time.sleep(0.3)
    return proc, places


def stopped(proc: subprocess.Popen[str]) -> list[str]:
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    return [line for line in out.splitlines() if line.startswith("pressed")]


def test_a_hovered_button_is_anchored_at_rest_and_found_so(run_deskreel, xvfb, tmp_path):
    app, places = buttons(xvfb)
    db = tmp_path / "hover.db"

    def drive(person: Person) -> None:
        person.move_to(5, 5)
        time.sleep(0.3)
        person.move_to(*places["Open"])
        time.sleep(0.4)  # resting on it, as a person aims: the hovered look is grabbed
        person.click(*places["Open"])
        time.sleep(0.3)
        person.move_to(5, 5)

    record(run_deskreel, xvfb, db, drive, "--name", "hover")
    assert stopped(app) == ["pressed Open"]
    with open_store(db, create=False) as store:
        (step,) = [s for s in store.steps(store.recording("hover").id) if s.anchor]
    anchor = step.anchor
    assert anchor is not None and anchor.hover_png is not None
    at_rest, hovered = decode_image(anchor.png), decode_image(anchor.hover_png)
    assert at_rest.shape == hovered.shape and (at_rest != hovered).any()

    app, _ = buttons(xvfb)  # a fresh start, the pointer in the corner: nothing hovered
    done = deskreel("replay", db, "--timeout", "2", env=xvfb.env())
    assert stopped(app) == ["pressed Open"], done.stderr
    assert done.returncode == 0, done.stderr
