"""Typed text hidden in later frames: xsession.hiding on synthetic screens (pure), and
`redact_steps` painting it out of a real SQLite recording's later frames and anchors."""

import cv2
import numpy as np

from deskreel.xsession.hiding import hide_in_stored_frames, hide_typed_text, typed_regions
from deskreel.xsession.images import decode_image, encode_png, encode_webp, pixel_hash
from deskreel.storage import Action, Anchor, Step, open_store
from deskreel.storage.health import examine
from deskreel.storage.redaction import redact_steps

ENTRY = (20, 20, 160, 24)  # x, y, width, height
STATUS = (20, 70, 160, 20)


def screen(text="", *, status="Ready", caret=True, clock=None):
    """A window with an entry showing `text` (and its caret) and a status line."""
    img = np.full((110, 240, 3), 200, np.uint8)
    x, y, w, h = ENTRY
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (60, 60, 60), 1)
    cv2.putText(img, text, (x + 4, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    if caret:
        left = x + 5 + cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)[0][0]
        cv2.line(img, (left, y + 4), (left, y + h - 4), (0, 0, 0), 1)
    sx, sy = STATUS[:2]
    cv2.putText(img, status, (sx, sy + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    if clock:
        cv2.putText(img, clock, (190, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    return img


def crop(img, box):
    x, y, w, h = box
    return img[y : y + h, x : x + w]


BEFORE, AFTER = screen(), screen("hunter2-Zebra")


def test_text_still_shown_later_is_painted_back_to_the_empty_entry():
    later = screen("hunter2-Zebra", status="Save clicked")
    hidden = hide_typed_text(BEFORE, AFTER, later)
    assert np.array_equal(crop(hidden, ENTRY), crop(BEFORE, ENTRY))
    assert np.array_equal(crop(hidden, STATUS), crop(later, STATUS))  # not the typing's
    assert np.array_equal(crop(later, ENTRY), crop(AFTER, ENTRY))  # the input is untouched


def test_text_shown_without_its_caret_is_hidden_too():
    hidden = hide_typed_text(BEFORE, AFTER, screen("hunter2-Zebra", caret=False))
    assert np.array_equal(crop(hidden, ENTRY), crop(BEFORE, ENTRY))


def test_text_half_typed_when_grabbed_is_hidden_too():
    hidden = hide_typed_text(BEFORE, AFTER, screen("hunter"))
    assert np.array_equal(crop(hidden, ENTRY), crop(BEFORE, ENTRY))


def test_a_cleared_field_or_another_screen_is_left_as_it_is():
    cleared = screen("", status="Cleared")
    assert hide_typed_text(BEFORE, AFTER, cleared) is cleared
    other = np.full_like(AFTER, 90)
    assert hide_typed_text(BEFORE, AFTER, other) is other
    dark = np.full_like(AFTER, 10)  # black text on white: black is only half of it
    assert hide_typed_text(BEFORE, AFTER, dark) is dark
    smaller = AFTER[:50]
    assert hide_typed_text(BEFORE, AFTER, smaller) is smaller
    assert hide_typed_text(BEFORE, BEFORE.copy(), AFTER) is AFTER  # nothing was typed


def test_typing_that_changed_the_whole_screen_is_hidden_while_it_shows():
    before, after = np.zeros((8, 8, 3), np.uint8), np.full((8, 8, 3), 200, np.uint8)
    assert hide_typed_text(before, after, after.copy()).tolist() == before.tolist()
    assert hide_typed_text(before, after, before) is before


def test_only_the_regions_still_showing_are_painted():
    """A clock ticked while typing: its region is the typing's too, but a later frame
    with another time keeps its clock; the entry is hidden."""
    before, after = screen(clock="10:41"), screen("hunter2-Zebra", clock="10:42")
    later = screen("hunter2-Zebra", clock="10:43")
    assert len(typed_regions(before, after)) == 2
    hidden = hide_typed_text(before, after, later)
    assert np.array_equal(crop(hidden, ENTRY), crop(before, ENTRY))
    assert np.array_equal(hidden[90:, 180:], later[90:, 180:])


def test_regions_cover_the_typed_text_with_a_margin():
    ((x, y, w, h),) = typed_regions(BEFORE, AFTER)
    ys, xs = np.nonzero((BEFORE != AFTER).any(axis=2))
    assert x < xs.min() and y < ys.min() and x + w > xs.max() + 1 and y + h > ys.max() + 1
    assert w < 160 and h < 40  # the text, not the window
    assert typed_regions(BEFORE, BEFORE.copy()) == []


def test_stored_frames_come_back_encoded_with_their_content_address():
    before, after = encode_webp(BEFORE), encode_webp(AFTER)
    hidden = hide_in_stored_frames(
        before, after, encode_webp(screen("hunter2-Zebra", status="Saved"))
    )
    pixels = decode_image(hidden.data)
    assert hidden.fmt == "webp" and hidden.pixel_hash == pixel_hash(pixels)
    assert np.array_equal(crop(pixels, ENTRY), crop(BEFORE, ENTRY))
    assert decode_image(hidden.crop_png(ENTRY)).tolist() == crop(BEFORE, ENTRY).tolist()
    assert hide_in_stored_frames(before, after, encode_webp(screen())) is None


def put(store, rgb):
    return store.put_frame(
        encode_webp(rgb),
        width=rgb.shape[1],
        height=rgb.shape[0],
        fmt="webp",
        pixel_hash=pixel_hash(rgb),
    )


def test_redact_steps_hides_the_typed_text_in_later_frames_and_anchors(tmp_path):
    """Click the entry, type, click Save (its anchor takes in the entry), click Save again,
    clear the field, click: the two Save clicks' frames and anchors are hidden; what comes
    after the clearing is kept as it was."""
    screens = [
        screen(caret=False),
        BEFORE,
        AFTER,
        screen("hunter2-Zebra", status="Saved"),
        screen("hunter2-Zebra", status="Saved again"),
        screen(status="Cleared"),
        screen(status="Done"),
    ]
    with open_store(tmp_path / "rec.db") as store:
        rec = store.create_recording("private", source="recorder", screen=(240, 110))
        keys = [put(store, rgb) for rgb in screens]
        box = (10, 10, 200, 70)
        anchor = Anchor(
            png=encode_png(crop(screens[3], box)), box=box, offset=(100, 60), score=1.0, margin=0.3
        )
        actions = ["left_click", "type", "left_click", "left_click", "key", "left_click"]
        store.add_steps(
            rec,
            [
                Step(
                    step=n,
                    action=Action.from_json(
                        {"action": kind, "coordinate": [100, 70]}
                        if kind == "left_click"
                        else {
                            "action": kind,
                            "text": "hunter2-Zebra" if kind == "type" else "ctrl+u",
                        }
                    ),
                    before_frame=keys[n - 1],
                    after_frame=keys[n],
                    anchor=anchor if n == 3 else None,
                )
                for n, kind in enumerate(actions, start=1)
            ],
        )

        assert redact_steps(store, rec, [2], hide=hide_in_stored_frames) == 1

        steps = store.steps(rec)
        frames = {
            k: decode_image(store.frame(k)[0])
            for st in steps
            for k in (st.before_frame, st.after_frame)
            if k
        }
        health = examine(store)
    assert steps[1].action.text == "{{secret:1}}"
    assert steps[1].before_frame is None and steps[1].after_frame is None
    for st in steps[2:5]:  # up to the clearing: the entry is empty, the status line theirs
        for key, shown in (
            (st.before_frame, screens[st.step - 1]),
            (st.after_frame, screens[st.step]),
        ):
            if st.step == 5 and key == st.after_frame:
                continue
            assert np.array_equal(crop(frames[key], ENTRY), crop(BEFORE, ENTRY))
            assert np.array_equal(crop(frames[key], STATUS), crop(shown, STATUS))
    assert np.array_equal(
        decode_image(steps[2].anchor.png), crop(frames[steps[2].before_frame], box)
    )
    assert steps[4].after_frame == keys[5] and steps[5].after_frame == keys[6]  # cleared
    assert not set(keys[2:5]) & set(frames)  # the frames showing the text are gone
    assert health.problems == []
    with open_store(tmp_path / "rec.db") as store, store.engine.connect() as conn:
        stored = {row[0] for row in conn.exec_driver_sql("select hash from frames")}
    assert not set(keys[2:5]) & stored


def test_redact_steps_without_hide_keeps_later_frames(tmp_path):
    """The storage layer alone does not judge images: later frames are left as they were."""
    with open_store(tmp_path / "rec.db") as store:
        rec = store.create_recording("private", source="recorder", screen=(240, 110))
        keys = [put(store, rgb) for rgb in (BEFORE, AFTER, screen("hunter2-Zebra", status="Saved"))]
        store.add_steps(
            rec,
            [
                Step(
                    step=1,
                    action=Action(action="type", text="x"),
                    before_frame=keys[0],
                    after_frame=keys[1],
                ),
                Step(
                    step=2,
                    action=Action.from_json({"action": "left_click", "coordinate": [1, 1]}),
                    before_frame=keys[1],
                    after_frame=keys[2],
                ),
            ],
        )
        redact_steps(store, rec, [1])
        assert store.steps(rec)[1].after_frame == keys[2]
