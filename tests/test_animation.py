"""What moves while nobody touches anything (recorder/animation.py): a blinking caret is
masked for the steps around it; a step's effect, which stays, is not."""

from __future__ import annotations

import zlib

import numpy as np

from deskreel.recorder.animation import StepFrames, animated_masks, toggled
from deskreel.recorder.pieces import Job
from deskreel.recorder.reduced import Reduced
from deskreel.recorder.screen import FrameTimeline
from deskreel.storage.vocabulary import Action
from tests.commands import deskreel, imported

W, H = 160, 100
CARET = (40, 20, 2, 16)  # x, y, w, h
DIALOG = (90, 50, 50, 30)


def screen(*, caret: bool, dialog: bool = False) -> np.ndarray:
    rgb = np.full((H, W, 3), 230, np.uint8)
    if caret:
        x, y, w, h = CARET
        rgb[y : y + h, x : x + w] = 0
    if dialog:
        x, y, w, h = DIALOG
        rgb[y : y + h, x : x + w] = 120
    return rgb


def timeline(*shots: tuple[float, np.ndarray]) -> FrameTimeline:
    out = FrameTimeline()
    for t, rgb in shots:
        bgra = np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)])
        raw = np.ascontiguousarray(bgra).tobytes()
        out.add(t, zlib.crc32(raw), W, H, raw)
    return out


def chosen(shots: FrameTimeline, press: float, following: float, now: float):
    """A click's before- and after-frame at `press` (released 0.1 s later), as the finisher
    chooses them (settle 0.3 s, cap 2 s, bounded by the `following` step), and whether the
    after-frame settled."""
    end = press + 0.1
    limit = min(end + 2.0, following)
    after = shots.settled_after(end, settle=0.3, limit=limit, now=max(now, limit))
    return StepFrames(shots.before(press), after, after is not None and after.settled(end, 0.3))


def click(t: float) -> Reduced:
    return Reduced(Action(action="left_click", coordinate=(100, 60)), t, t + 0.1, 0, 1)


def test_a_change_that_comes_back_is_animated_and_one_that_stays_is_not() -> None:
    on, off = screen(caret=True), screen(caret=False)
    blink = toggled([on, off, on])
    assert blink is not None and blink.any()
    ys, xs = np.nonzero(blink)
    assert (xs.min(), ys.min(), xs.max() + 1 - xs.min(), ys.max() + 1 - ys.min()) == CARET
    stays = toggled([off, screen(caret=False, dialog=True), screen(caret=False, dialog=True)])
    assert stays is not None and not stays.any()
    assert toggled([on, off]) is None  # two frames cannot say


def test_the_caret_blinking_around_a_step_is_masked_for_it_and_its_effect_is_not() -> None:
    on, off = screen(caret=True), screen(caret=False)
    dialog_on = screen(caret=True, dialog=True)
    shots = timeline(
        (0.0, on), (0.5, off), (0.9, on),  # idle before step 1: the caret blinks
        (1.3, dialog_on), (1.6, dialog_on),  # step 1's effect: a dialog, which stays
        (3.5, dialog_on), (3.7, dialog_on),  # step 2 (3.0) and after: nothing moves
    )  # fmt: skip
    job = Job([(1, click(1.0)), (2, click(3.0))], 0, shots, t0=0.0, now=4.0, final=True)
    frames = {1: chosen(shots, 1.0, 3.0, 4.0), 2: chosen(shots, 3.0, 4.0, 4.0)}
    masks = animated_masks(job, settled=2.0, frames=frames)
    assert list(masks) == [1], masks
    (x, y, w, h), *_ = masks[1]
    cx, cy, cw, ch = CARET
    assert x <= cx and y <= cy and x + w >= cx + cw and y + h >= cy + ch
    dx, dy, _, _ = DIALOG
    assert not (x <= dx < x + w and y <= dy < y + h)  # the dialog stays checked


def test_a_region_the_step_changed_is_not_masked_where_a_grab_caught_it_half_drawn() -> None:
    # a calculator's display redrawn: a grab caught it cleared half way, then whole again
    plain, drawn = screen(caret=False), screen(caret=False, dialog=True)
    half = drawn.copy()
    x, y, w, h = DIALOG
    half[y : y + h, x : x + w // 2] = 230
    shots = timeline(
        (0.0, plain), (0.6, plain),  # idle before step 1
        (1.2, drawn), (1.25, half), (1.3, drawn), (2.5, drawn),  # step 1's effect
        (3.5, drawn),  # step 2 (3.0) changes nothing
    )  # fmt: skip
    job = Job([(1, click(1.0)), (2, click(3.0))], 0, shots, t0=0.0, now=4.0, final=True)
    frames = {1: chosen(shots, 1.0, 3.0, 4.0), 2: chosen(shots, 3.0, 4.0, 4.0)}

    def over_dialog(boxes: list[tuple[int, int, int, int]]) -> bool:
        return any(bx <= x + 2 < bx + bw and by <= y + 2 < by + bh for bx, by, bw, bh in boxes)

    assert over_dialog(animated_masks(job, settled=2.0)[1]), "it came back: a blink, unless told"
    masks = animated_masks(job, settled=2.0, frames=frames)
    assert not over_dialog(masks.get(1, [])), "step 1 drew it: its effect stays checked"
    assert over_dialog(masks.get(2, [])), "step 2 did not change it"


def test_a_spinner_the_steps_never_touch_stays_masked_though_their_frames_differ() -> None:
    # four phases, 0.1 s each, through idle times shorter than the settle cap: every step's
    # before- and after-frame catch it in different phases, and it goes on turning
    phases = []
    for k in range(4):
        rgb = screen(caret=False)
        rgb[10:14, 120 + 6 * k : 126 + 6 * k] = 40
        phases.append(rgb)
    shots = timeline(*((0.05 + 0.1 * i, phases[i % 4]) for i in range(30)))
    job = Job([(1, click(1.0)), (2, click(2.0))], 0, shots, t0=0.0, now=3.0, final=True)
    frames = {1: chosen(shots, 1.0, 2.0, 3.0), 2: chosen(shots, 2.0, 3.0, 3.0)}
    assert all((b.packed() != a.packed()).any() for b, a, _ in frames.values())
    masks = animated_masks(job, settled=2.0, frames=frames)
    for number in (1, 2):
        assert any(x <= 125 < x + w and y <= 11 < y + h for x, y, w, h in masks[number]), masks


def test_a_caret_blinking_beside_the_glyph_a_step_typed_stays_masked() -> None:
    # the step types a glyph; the caret, 1 px to its right, blinks on after it
    x, y, w, h = CARET
    typed = screen(caret=False)
    typed[y : y + h, x - 9 : x - 1] = 60  # the glyph, ending 1 px before the caret
    on, off = typed.copy(), typed
    on[y : y + h, x : x + w] = 0
    shots = timeline(
        (0.0, screen(caret=False)), (0.5, screen(caret=False)),
        (1.2, on), (1.6, on), (1.8, off), (2.2, off), (2.4, on), (2.8, on), (3.0, off),
        (3.4, off), (3.6, on),
    )  # fmt: skip
    job = Job([(1, click(1.0)), (2, click(3.9))], 0, shots, t0=0.0, now=4.5, final=True)
    frames = {1: chosen(shots, 1.0, 3.9, 4.5)}
    assert frames[1][2], "the after-frame settled"
    # (a settle cap past the idle time: only its coming back masks it)
    boxes = animated_masks(job, settled=5.0, frames=frames).get(1, [])
    assert any(bx <= x < bx + bw and by <= y < by + bh for bx, by, bw, bh in boxes), boxes


def test_show_lists_the_masks_of_a_recording(tmp_path) -> None:
    db = imported(tmp_path, "masked", [{"action": "key", "text": "Return"}])
    for args in (("--step", "1", "40,20,2,16"), ("5,6,7,8",)):
        assert deskreel("mask", db, "-r", "1", *args).returncode == 0
    shown = deskreel("show", db).stdout
    assert "masked for every step: 5,6,7,8" in shown and "masked for step 1: 40,20,2,16" in shown


def test_what_still_moves_once_the_screen_should_have_settled_is_animated() -> None:
    # a pulsing progress bar never comes back exactly to an earlier frame
    bar = [screen(caret=False) for _ in range(5)]
    for i, rgb in enumerate(bar):
        rgb[80:84, 10 + 7 * i : 30 + 7 * i] = 40
    shots = timeline(*((0.5 + 0.6 * i, rgb) for i, rgb in enumerate(bar)))
    job = Job([(1, click(0.0))], 0, shots, t0=0.0, now=3.5, final=True)
    boxes = animated_masks(job, settled=2.0)[1]
    masked = np.zeros((H, W), bool)
    for x, y, w, h in boxes:
        masked[y : y + h, x : x + w] = True
    moved_late = (bar[3] != bar[4]).any(axis=2)  # shown at 2.3 s and 2.9 s
    moved_early = (bar[0] != bar[1]).any(axis=2)  # at 0.5 s and 1.1 s, where nothing
    moved_early[:, 25:] = False  # moved late (a few px around what did are masked with it)
    assert masked[moved_late].all() and not masked[moved_early].any()
    # before the screen should have settled, motion that did not come back is the step's
    # effect: the bar's leading edge (where it went) stays checked
    boxes = animated_masks(job, settled=5.0).get(1, [])
    assert not any(x <= 55 < x + w and y <= 81 < y + h for x, y, w, h in boxes), boxes


def test_what_moves_when_an_unsettled_after_frame_is_taken_is_animated() -> None:
    # a bar pulsing every 40 ms through a 2.9 s idle time: 75 frames, more than are compared;
    # the after-frame is the one on screen 2 s after the step, and the bar's place then is
    # masked, not only where it was at the end of the idle time
    bars = []
    for i in range(75):
        rgb = screen(caret=False)
        x = 5 + (2 * i) % 140
        rgb[80:84, x : x + 12] = 40
        bars.append((0.04 * i, rgb))
    job = Job([(1, click(0.0)), (2, click(3.0))], 0, timeline(*bars), t0=0.0, now=3.2, final=False)
    boxes = animated_masks(job, settled=2.0)[1]
    masked = np.zeros((H, W), bool)
    for x, y, w, h in boxes:
        masked[y : y + h, x : x + w] = True
    at_two = next(rgb for t, rgb in reversed(bars) if t <= 2.1)  # the after-frame's bar
    assert masked[(at_two != screen(caret=False)).any(axis=2)].all(), boxes


def test_what_blinks_at_the_end_of_a_long_idle_time_is_masked_for_the_next_step() -> None:
    # 75 frames; a caret blinks only in the last ones, just before the next step
    shots = []
    for i in range(75):
        rgb = screen(caret=i >= 69 and i % 2 == 1)
        rgb[90, i] = 0  # a pixel that moves, so that each frame is a new one
        shots.append((0.04 * i, rgb))
    job = Job([(1, click(0.0)), (2, click(3.0))], 0, timeline(*shots), t0=0.0, now=3.2, final=False)
    boxes = animated_masks(job, settled=2.0)[2]
    x, y, w, h = CARET
    assert any(bx <= x and by <= y and x + w <= bx + bw and y + h <= by + bh
               for bx, by, bw, bh in boxes), boxes  # fmt: skip


def test_the_finisher_keeps_checked_what_a_click_drew_though_a_grab_caught_it_half_drawn() -> None:
    # a click at 2 s draws the dialog region; a grab at 2.3 s catches it half drawn; it stays
    from deskreel.recorder.reduce import reduce_events
    from deskreel.storage import RawEvent
    from tests.test_retention import SECONDS, stored

    events = [
        RawEvent(2.0, "button_down", x=100, y=60, button=1),
        RawEvent(2.08, "button_up", x=100, y=60, button=1),
        RawEvent(5.0, "button_down", x=20, y=90, button=1),
        RawEvent(5.08, "button_up", x=20, y=90, button=1),
    ]
    plain, drawn = screen(caret=False), screen(caret=False, dialog=True)
    half = drawn.copy()
    x, y, w, h = DIALOG
    half[y : y + h, x : x + w // 2] = 230
    shots = timeline(
        *((0.1 * i, plain) for i in range(21)),
        (2.2, drawn), (2.3, half),
        *((2.4 + 0.1 * i, drawn) for i in range(30)),
    )  # fmt: skip
    store = stored(shots, events)
    click = next(s.step for s in store.steps if s.action.action == "left_click")

    def over(boxes: list[tuple[int, int, int, int]]) -> bool:
        return any(bx <= x + 2 < bx + bw and by <= y + 2 < by + bh for bx, by, bw, bh in boxes)

    assert not over([box for step, box in store.masks if step == click]), store.masks
    # told no step's frames, the same idle time masks it: it came back
    job = Job(list(enumerate(reduce_events(events), 1)), 0, shots, 0.0, SECONDS, False, events)
    assert over(animated_masks(job, settled=2.0).get(click, []))
