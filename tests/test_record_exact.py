"""The recorder is exact at any input speed: fast typing keeps every doubled letter, keys
typed through rebound keycodes are read through the binding, and the keyboard's and the
desktop's own settings (read from the X server, stored with the recording) decide what is
autorepeat, what is a held key and what is a double click. Real Xvfb, xdotool, XRecord."""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.storage import open_store
from deskreel.storage.grouping import InputSettings
from tests.commands import deskreel

pytestmark = pytest.mark.skipif(
    shutil.which("xdotool") is None, reason="xdotool is not installed (apt-get install xdotool)"
)


@contextmanager
def recording(display: str, db: Path, *args: str) -> Iterator[None]:
    """`deskreel record DB --no-frames` on `display` while the block runs."""
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": display, "HOME": str(db.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", str(db), "--no-frames", "--name", "r", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # "recording into ..." once RECORD runs
            if "recording into" in line:
                break
        else:
            pytest.fail(f"deskreel record never started (exit {proc.wait()})")
        yield
        time.sleep(0.3)  # the last events reach the recorder
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def xdotool(display: str, *args: str) -> None:
    subprocess.run(
        ["xdotool", *args], env={**os.environ, "DISPLAY": display}, check=True, timeout=60
    )


def recorded(db: Path) -> tuple[list[dict], InputSettings]:
    with open_store(db, create=False) as store:
        rec = store.recording("r")
        return [s.action.to_json() for s in store.steps(rec.id)], rec.input_settings


@pytest.mark.parametrize("delay", ["12", "1"])
def test_xdotool_typing_at_any_delay_keeps_every_letter(xvfb, launch_app, tmp_path, delay):
    texts = ["Hello balloon 1000: aa bb ccc!", "Mississippi  committee 7788"]
    x, y = launch_app().center("entry")
    db = tmp_path / "r.db"
    with recording(xvfb.display, db):
        xdotool(xvfb.display, "mousemove", str(x), str(y), "click", "1")
        for text in texts:
            time.sleep(1.7)  # more than type-pause: one `type` per text
            xdotool(xvfb.display, "type", "--delay", delay, text)
    steps, _ = recorded(db)
    assert [s for s in steps if s["action"] == "type"] == [
        {"action": "type", "text": text} for text in texts
    ]
    # and the recording replays it exactly, into the same app started afresh
    fresh = launch_app(geometry="+0+0")
    done = deskreel("replay", db, "--speed", "4", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    typed = "".join(texts)
    fresh.wait_for(lambda e: e.get("widget") == "entry" and e.get("value") == typed)


def test_characters_the_layout_lacks_are_read_through_their_binding(xvfb, sample_app, tmp_path):
    # xdotool binds a spare keycode to each character the US layout lacks, just before
    # pressing it; the recorder must read that key through the binding of the moment
    text = "Grüße, 東京! ñ"
    db = tmp_path / "r.db"
    with recording(xvfb.display, db):
        xdotool(xvfb.display, "type", "--delay", "5", text)
    steps, _ = recorded(db)
    assert steps == [{"action": "type", "text": text}]


@pytest.fixture(scope="module")
def quick_keyboard() -> Iterator[VirtualDisplay]:
    """An X server whose keys repeat after 250 ms, every 30 ms (X's default: 660 and 40)."""
    with VirtualDisplay(
        extensions=(
            "+extension",
            "RECORD",
            "+extension",
            "XTEST",
            "-ardelay",
            "250",
            "-arinterval",
            "30",
        )
    ) as display:
        yield display


def test_the_servers_repeat_controls_are_stored_and_decide(quick_keyboard, xvfb, tmp_path):
    for display, delay, interval in (
        (quick_keyboard.display, 0.25, 0.03),
        (xvfb.display, 0.66, 0.04),
    ):
        db = tmp_path / f"r{display[1:]}.db"
        with recording(display, db):
            xdotool(display, "keydown", "a")
            time.sleep(0.45)  # repeats at 250 ms, not at 660 ms
            xdotool(display, "keyup", "a")
        steps, settings = recorded(db)
        assert (settings.repeat_delay, settings.repeat_interval) == (delay, interval)
        assert settings.sources == ("xkb",)
        assert not settings.repeat_releases  # Xvfb speaks XInput 2: repeats are presses
        assert settings.repeats(_keycode(display, "a"))
        assert not settings.repeats(_keycode(display, "Shift_L"))  # modifiers never repeat
        assert settings.repeating == _xset_repeating(display)
        if delay < 0.45:
            assert [s["action"] for s in steps] == ["key"] and steps[0]["text"] == "a"
            assert 0.43 <= steps[0]["duration"] <= 0.6
        else:  # held shorter than this keyboard's repeat delay: one character
            assert steps == [{"action": "type", "text": "a"}]


def _keycode(display: str, keysym: str) -> int:
    from Xlib import XK
    from deskreel.xsession.display import connect

    conn = connect(display)
    try:
        return conn.keysym_to_keycode(XK.string_to_keysym(keysym))
    finally:
        conn.close()


def _xset_repeating(display: str) -> frozenset[int]:
    """The per-key repeat mask as `xset q` prints it (a witness independent of ours)."""
    out = subprocess.run(
        ["xset", "q"], env={"DISPLAY": display}, capture_output=True, text=True, check=True
    ).stdout
    lines = out.split("auto repeating keys:")[1].splitlines()[:4]
    mask = bytes.fromhex("".join(line.strip() for line in lines))  # byte 0 first
    return frozenset(k for k in range(256) if mask[k // 8] >> (k % 8) & 1)


@contextmanager
def settings_manager(display: str, **values: int) -> Iterator[None]:
    """An XSETTINGS manager (as GNOME's, KDE's or Xfce's) serving integer `values`."""
    from Xlib import X
    from deskreel.xsession.display import connect

    conn = connect(display)
    try:
        window = conn.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        atom = conn.intern_atom("_XSETTINGS_SETTINGS")
        window.change_property(atom, atom, 8, _xsettings_property(values))
        window.set_selection_owner(conn.intern_atom("_XSETTINGS_S0"), X.CurrentTime)
        conn.sync()
        yield
    finally:
        conn.close()  # the selection goes with the connection


def _xsettings_property(values: dict[str, int]) -> bytes:
    out = struct.pack("<B3xII", 0, 1, len(values))
    for name, value in values.items():
        raw = name.encode()
        out += struct.pack("<BxH", 0, len(raw)) + raw + b"\0" * (-len(raw) % 4)
        out += struct.pack("<Ii", 0, value)
    return out


def test_the_desktops_double_click_time_is_stored_and_decides(xvfb, sample_app, tmp_path):
    x, y = sample_app.center("label:double")
    db = tmp_path / "r.db"
    desktop = {"Net/DoubleClickTime": 300, "Net/DoubleClickDistance": 4}
    with settings_manager(xvfb.display, **desktop), recording(xvfb.display, db):
        xdotool(
            xvfb.display,
            "mousemove",
            str(x),
            str(y),
            "click",
            "1",
            "sleep",
            "0.4",
            "click",
            "1",
            "sleep",
            "1.2",
            "click",
            "--repeat",
            "2",
            "--delay",
            "150",
            "1",
        )
    steps, settings = recorded(db)
    assert (settings.multi_click_time, settings.multi_click_distance) == (0.3, 4.0)
    assert settings.sources == ("xkb", "xsettings")
    # 400 ms apart is two clicks on this desktop (it would be a double click under Tk's
    # 500 ms, the default where no settings manager runs); 150 ms apart is a double click
    assert [s["action"] for s in steps] == ["left_click", "left_click", "double_click"]


def test_server_times_map_to_local_times_in_order_and_ties_stay_ties():
    from deskreel.recorder.capture import ClockSync

    arrivals = iter([10.004, 10.0045, 10.0012, 10.0022, 10.003, 10.101])  # latency drops
    sync = ClockSync(clock=lambda: next(arrivals))
    # a release and the server's repeat at one timestamp, then a quicker arrival
    times = [sync.local(ms) for ms in (5000, 5000, 5000, 5001, 5002, 5100)]
    assert times[0] == times[1] == times[2]  # one timestamp, one time
    tick = 0.001 - 1e-9  # a millisecond, in floating point
    assert times[3] - times[2] >= tick and times[4] - times[3] >= tick  # later: a tick on
    assert times[-1] - times[0] == pytest.approx(0.097)  # then the lower offset holds


@pytest.mark.parametrize("swapped", [False, True])
def test_keymap_changes_are_read_from_recorded_requests(swapped):
    from deskreel.recorder.capture import keymap_changes

    order = ">" if (sys.byteorder == "little") == swapped else "<"
    # ChangeKeyboardMapping: 2 keycodes from 200, 2 keysyms each; then another request
    change = struct.pack(
        f"{order}BBH BB2x 4I", 100, 2, 2 + 4, 200, 2, 0xFC, 0xFC, 0x1006771, 0x1006771
    )
    other = struct.pack(f"{order}BBH", 43, 0, 1)
    assert keymap_changes(other + change, swapped=swapped) == [
        (200, [[0xFC, 0xFC], [0x1006771, 0x1006771]])
    ]


@pytest.fixture
def russian_keyboard() -> Iterator[VirtualDisplay]:
    from deskreel.xsession.xvfb import set_keyboard_layout

    with VirtualDisplay() as display:
        set_keyboard_layout(display.display, "ru")
        yield display


def test_a_non_latin_layouts_keys_type_their_characters(russian_keyboard, tmp_path):
    # a person on a Russian layout: each key's keysym is a legacy one (Cyrillic_pe), not a
    # Unicode keysym; xdotool presses the layout's own keys for them, binding nothing
    display = russian_keyboard.display
    db = tmp_path / "r.db"
    with recording(display, db):
        xdotool(
            display,
            "key",
            "--delay",
            "20",
            "Cyrillic_pe",
            "Cyrillic_er",
            "Cyrillic_i",
            "space",
            "shift+Cyrillic_ze",
            "Cyrillic_zhe",
        )
    steps, _ = recorded(db)
    assert steps == [{"action": "type", "text": "при Зж"}]


@pytest.mark.skipif(sys.byteorder != "little", reason="the byte orders below are this host's")
def test_a_request_from_a_client_of_the_other_byte_order_and_a_bad_one():
    from deskreel.recorder.capture import keymap_changes

    big = struct.pack(">BBH BB2x 2I", 100, 1, 2 + 2, 30, 2, 0x6D0, 0x6F0)
    assert keymap_changes(big, swapped=True) == [(30, [[0x6D0, 0x6F0]])]
    # 3 keycodes of 2 keysyms claimed, 1 given: the server refuses it, we skip it
    bad = struct.pack("<BBH BB2x 2I", 100, 3, 2 + 2, 30, 2, 0x6D0, 0x6F0)
    assert keymap_changes(bad, swapped=False) == []


def test_xsettings_are_read_in_either_byte_order_past_strings_and_colours():
    from deskreel.xsession.settings import parse_xsettings

    def setting(order: str, kind: int, name: bytes, value: bytes) -> bytes:
        return (
            struct.pack(f"{order}BxH", kind, len(name))
            + name
            + b"\0" * (-len(name) % 4)
            + struct.pack(f"{order}I", 7)
            + value
        )

    for order, flag in (("<", 0), (">", 1)):
        theme = b"Adwaita"
        body = (
            setting(
                order, 1, b"Net/ThemeName", struct.pack(f"{order}I", len(theme)) + theme + b"\0"
            )
            + setting(order, 2, b"Gtk/Color", struct.pack(f"{order}4H", 1, 2, 3, 4))
            + setting(order, 0, b"Net/DoubleClickTime", struct.pack(f"{order}i", 250))
        )
        data = struct.pack(f"{order}B3xII", flag, 3, 3) + body
        assert parse_xsettings(data) == {"Net/ThemeName": "Adwaita", "Net/DoubleClickTime": 250}
        # cut short, or claiming more settings than it holds: what was read before
        assert parse_xsettings(data[:-2]) == {"Net/ThemeName": "Adwaita"}
        assert parse_xsettings(
            struct.pack(f"{order}B3xII", flag, 3, 10**6) + body
        ) == parse_xsettings(data)
