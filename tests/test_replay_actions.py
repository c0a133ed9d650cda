"""What each action sends, seen from outside the replay: the sample app's log and a separate
XRecord client (recorder.capture) that sees every device event the server gets, the motion
during a drag and the wheel buttons included."""

import queue

from deskreel.recorder.capture import InputCapture
from tests.commands import deskreel, imported
from tests.test_replay import held_state


class Observer:
    """An XRecord client on the test display: (t, kind, x, y, button, keysym) per event,
    in the order the server got them."""

    def __init__(self, display_name):
        self.queue = queue.SimpleQueue()
        self.capture = InputCapture(display_name, self.queue)

    def __enter__(self):
        self.capture.start()
        assert self.capture.ready.wait(5)
        return self

    def __exit__(self, *exc):
        self.capture.stop()
        self.capture.join()

    def events(self):
        seen = []
        while not self.queue.empty():
            t, kind, x, y, button, _keycode, keysym, _char = self.queue.get()
            seen.append((t, kind, x, y, button, keysym))
        return seen


def test_every_gesture_sends_what_it_says(sample_app, xvfb, tmp_path):
    app = sample_app
    rect = app.center("canvas:rect")
    drag_end = (rect[0] + 120, rect[1] + 30)
    listbox = app.center("listbox")
    steps = [
        {"action": "double_click", "coordinate": app.center("label:double")},
        {"action": "triple_click", "coordinate": app.center("label:triple")},
        {
            "action": "scroll",
            "coordinate": listbox,
            "scroll_direction": "right",
            "scroll_amount": 3,
        },
        {"action": "scroll", "coordinate": listbox, "scroll_direction": "left", "scroll_amount": 1},
        {
            "action": "scroll",
            "coordinate": listbox,
            "scroll_direction": "down",
            "scroll_amount": 2,
            "with_key": "ctrl",
        },
        {"action": "left_click_drag", "start_coordinate": rect, "coordinate": drag_end},
        {"action": "left_click", "coordinate": app.center("entry")},
        {"action": "key", "text": "a", "duration": 0.5},
        {"action": "key", "text": "b"},
    ]
    for i, step in enumerate(steps):
        step["t"] = float(i)  # a second apart; at --speed 10, 0.1 s
    db = imported(tmp_path, "gestures", steps)
    with Observer(xvfb.display) as observer:
        # gestures keep their own timing: a multi-click stays one at any --speed
        done = deskreel("replay", db, "--speed", "10", "--no-anchor", env=xvfb.env())
        assert done.returncode == 0, done.stderr
        app.wait_for({"event": "key_release", "keysym": "b"})
    seen = observer.events()
    assert held_state(xvfb.display) == ([], 0)

    assert len(app.events("double_click")) == 1 and len(app.events("triple_click")) == 1

    # wheel clicks: buttons 7 and 6 scroll sideways, ctrl held around the last two
    # (in the order the server got them: its timestamps are whole milliseconds)
    wheel = [i for i, e in enumerate(seen) if e[1] in ("button_down", "button_up") and e[4] >= 4]
    assert [seen[i][4] for i in wheel if seen[i][1] == "button_down"] == [7, 7, 7, 6, 5, 5]
    scrolls = [(e["axis"], e["delta"]) for e in app.events("scroll")]
    assert scrolls == [("x", 1)] * 3 + [("x", -1), ("y", 1), ("y", 1)]
    ctrl = [i for i, e in enumerate(seen) if e[5] == "Control_L"]
    assert len(ctrl) == 2 and wheel[-5] < ctrl[0] < wheel[-4] and wheel[-1] < ctrl[1], (
        "ctrl was not held around the last two wheel clicks only"
    )
    presses = [e for e in app.events("button_press") if e["widget"] == "listbox"]
    assert [p["modifiers"] for p in presses[-2:]] == [["ctrl"], ["ctrl"]]

    # the drag: button 1 down on the box, motion through the way between, up at the end
    down = next(
        i
        for i, e in enumerate(seen)
        if e[1] == "button_down" and e[4] == 1 and (e[2], e[3]) == rect
    )
    up = next(i for i, e in enumerate(seen) if i > down and e[1] == "button_up")
    between = [e[2] for e in seen[down:up] if e[1] == "motion"]
    assert len(between) >= 6, f"only {len(between)} motion events during the drag"
    inner = [x for x in between if rect[0] < x < drag_end[0]]
    assert len(inner) >= 5 and inner == sorted(inner), between
    assert (seen[up][2], seen[up][3]) == drag_end
    [end] = app.events("drag_end")
    start = app.events("drag_start")[0]["item_pos"]
    assert end["item_pos"] == [start[0] + 120, start[1] + 30]

    # `key` with a duration holds the key that long (and --speed does not shorten it)
    pressed = app.wait_for({"event": "key", "keysym": "a"})["t"]
    released = app.wait_for({"event": "key_release", "keysym": "a"})["t"]
    assert 0.45 <= released - pressed <= 1.0, released - pressed
    quick = (
        app.wait_for({"event": "key_release", "keysym": "b"})["t"]
        - app.wait_for({"event": "key", "keysym": "b"})["t"]
    )
    assert quick < 0.1


def test_separate_clicks_and_hovers_keep_their_meaning_at_any_speed(sample_app, xvfb, tmp_path):
    # every step due at once: the fastest the replayer goes. Two separate clicks on one
    # label must not become the double click nobody made, and the hover must rest long
    # enough to be one.
    app = sample_app
    label, entry = app.center("label:double"), app.center("entry")
    steps = [
        {"action": "left_click", "coordinate": label},
        {"action": "left_click", "coordinate": label},
        {"action": "mouse_move", "coordinate": app.center("button:Open")},
        {"action": "left_click", "coordinate": entry},
    ]
    db = imported(tmp_path, "spaced", steps)
    with Observer(xvfb.display) as observer:
        done = deskreel("replay", db, "--no-anchor", env=xvfb.env())
        assert done.returncode == 0, done.stderr
        app.wait_for({"event": "button_release", "widget": "entry"})
    seen = observer.events()
    presses = [e for e in app.events("button_press") if e["widget"] == "label:double"]
    assert len(presses) == 2 and app.events("double_click") == []
    downs = [t for t, kind, *_ in seen if kind == "button_down"]
    assert downs[1] - downs[0] > 0.5  # Tk's (and the default) multi-click time
    hover = next(
        t for t, kind, x, y, *_ in seen if (kind, (x, y)) == ("motion", app.center("button:Open"))
    )
    after = next(t for t, kind, *_ in seen if t > hover and kind == "motion")
    assert after - hover >= 1.0  # the reducer's hover time
