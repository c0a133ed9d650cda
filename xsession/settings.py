"""What the X server and the desktop say about input: XKB's key repeat controls and the
XSETTINGS manager's double-click time and distance.

python-xlib has no XKB module, so the two XKB requests we need (UseExtension, GetControls)
are declared here from the XKB protocol's wire layout. Each source is read only where the
server (or a settings manager) has it; what none tells keeps `InputSettings`' default, and
`sources` says which told us.
"""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any

from deskreel.storage.grouping import DEFAULT_SETTINGS, InputSettings, fits

__all__ = ["cursor_blink", "desktop_settings", "read_input_settings", "parse_xsettings"]

_USE_CORE_KEYBOARD = 0x0100  # XkbUseCoreKbd
_REPEAT_KEYS = 1 << 0  # XkbRepeatKeysMask, in the enabled controls
_XSETTINGS = {
    "Net/DoubleClickTime": ("multi_click_time", 0.001),
    "Net/DoubleClickDistance": ("multi_click_distance", 1.0),
}


def read_input_settings(conn: Any) -> InputSettings:
    """The input settings of the display `conn` is connected to, as of now."""
    settings = _keyboard(conn)
    desktop = _xsettings(conn)
    values = {
        name: value * unit
        for key, (name, unit) in _XSETTINGS.items()
        if isinstance(value := desktop.get(key), int) and fits(name, value * unit)
    }
    if values:
        settings = replace(settings.with_values(**values), sources=(*settings.sources, "xsettings"))
    return settings


BLINK_LONGEST = 3.0  # s: a longer blink time is no caret's (GTK allows up to 10 s)


def cursor_blink(conn: Any) -> float | None:
    """The seconds of one blink of a text caret (on and off) where the desktop's settings
    manager tells it (Net/CursorBlinkTime, in ms, at most BLINK_LONGEST), 0.0 where it says
    carets do not blink (Net/CursorBlink 0); None where none runs or it tells neither."""
    desktop = _xsettings(conn)
    if desktop.get("Net/CursorBlink") == 0:
        return 0.0
    told = desktop.get("Net/CursorBlinkTime")
    return min(told / 1000, BLINK_LONGEST) if isinstance(told, int) and told > 0 else None


def _keyboard(conn: Any) -> InputSettings:
    """XKB's repeat delay, interval, RepeatKeys and per-key mask; without XKB, the core
    protocol's global switch and per-key mask (the delay and interval keep X's defaults).
    And how repeats arrive: presses alone on a server with XInput 2, else each after a
    release of its own."""
    from Xlib import error as xerror

    base = replace(DEFAULT_SETTINGS, repeat_releases=not _has_xinput2(conn))
    try:
        controls = _xkb_controls(conn)
    except xerror.XError:
        controls = None
    if controls is not None:
        return (
            replace(base, repeat=bool(controls.enabled_controls & _REPEAT_KEYS), sources=("xkb",))
            .with_values(
                repeat_delay=controls.repeat_delay / 1000,
                repeat_interval=controls.repeat_interval / 1000,
            )
            .with_mask(bytes(controls.per_key_repeat))
        )
    core = conn.get_keyboard_control()
    return replace(base, repeat=bool(core.global_auto_repeat), sources=("core",)).with_mask(
        bytes(core.auto_repeats)
    )


def _has_xinput2(conn: Any) -> bool:
    """Whether the server speaks XInput 2: X.Org's input rework that came with it (1.7,
    2009) sends a held key's repeats as presses alone, with no release between."""
    from Xlib import error as xerror

    if not conn.has_extension("XInputExtension"):
        return False
    try:
        return conn.xinput_query_version().major_version >= 2
    except (xerror.XError, AttributeError):  # an XI 1 server: no XIQueryVersion
        return False


def _xkb_controls(conn: Any) -> Any:
    """XKB GetControls' reply, or None when the server has no XKEYBOARD extension."""
    info = conn.query_extension("XKEYBOARD")
    if info is None or not info.present:
        return None
    requests = _requests()
    use = requests["UseExtension"](
        display=conn.display, opcode=info.major_opcode, wanted_major=1, wanted_minor=0
    )
    if not use.supported:
        return None
    return requests["GetControls"](
        display=conn.display, opcode=info.major_opcode, device_spec=_USE_CORE_KEYBOARD
    )


def _requests() -> dict[str, Any]:
    """The XKB requests, as python-xlib request classes (built on first use: Xlib is
    imported lazily)."""
    from Xlib.protocol import rq

    class UseExtension(rq.ReplyRequest):
        _request = rq.Struct(
            rq.Card8("opcode"),
            rq.Opcode(0),
            rq.RequestLength(),
            rq.Card16("wanted_major"),
            rq.Card16("wanted_minor"),
        )
        _reply = rq.Struct(
            rq.ReplyCode(),
            rq.Bool("supported"),
            rq.Card16("sequence_number"),
            rq.ReplyLength(),
            rq.Card16("server_major"),
            rq.Card16("server_minor"),
            rq.Pad(20),
        )

    class GetControls(rq.ReplyRequest):
        # xkbGetControlsReply: 92 bytes; the fields we do not read are padding here
        _request = rq.Struct(
            rq.Card8("opcode"),
            rq.Opcode(6),
            rq.RequestLength(),
            rq.Card16("device_spec"),
            rq.Pad(2),
        )
        _reply = rq.Struct(
            rq.ReplyCode(),
            rq.Card8("device_id"),
            rq.Card16("sequence_number"),
            rq.ReplyLength(),
            rq.Pad(12),
            rq.Card16("repeat_delay"),
            rq.Card16("repeat_interval"),
            rq.Pad(32),
            rq.Card32("enabled_controls"),
            rq.FixedList("per_key_repeat", 32, rq.Card8Obj),
        )

    return {"UseExtension": UseExtension, "GetControls": GetControls}


def desktop_settings(conn: Any) -> dict[str, int | str]:
    """The integer and string settings of the screen's XSETTINGS manager; {} where none."""
    return _xsettings(conn)


def _xsettings(conn: Any) -> dict[str, int | str]:
    """The settings of the screen's XSETTINGS manager (GNOME, KDE, Xfce each run one);
    {} when none runs or its property cannot be read."""
    from Xlib import X
    from Xlib import error as xerror

    selection = conn.intern_atom(f"_XSETTINGS_S{conn.get_default_screen()}")
    try:
        owner = conn.get_selection_owner(selection)
        if owner in (X.NONE, 0) or owner is None:
            return {}
        prop = owner.get_full_property(conn.intern_atom("_XSETTINGS_SETTINGS"), X.AnyPropertyType)
    except xerror.XError:  # the manager went away meanwhile
        return {}
    return parse_xsettings(bytes(prop.value)) if prop is not None else {}


def parse_xsettings(data: bytes) -> dict[str, int | str]:
    """The integer and string settings of an _XSETTINGS_SETTINGS property (colours are
    skipped); a damaged property yields what was read before the damage."""
    if len(data) < 12:
        return {}
    order = ">" if data[0] else "<"  # MSBFirst is 1
    (count,) = struct.unpack_from(order + "I", data, 8)
    out: dict[str, int | str] = {}
    at = 12
    try:
        for _ in range(count):
            kind, length = data[at], struct.unpack_from(order + "H", data, at + 2)[0]
            name = data[at + 4 : at + 4 + length].decode("utf-8", "replace")
            at += 4 + _padded(length) + 4  # the name, then its last-change serial
            if kind == 0:
                out[name] = struct.unpack_from(order + "i", data, at)[0]
                at += 4
            elif kind == 1:
                size = struct.unpack_from(order + "I", data, at)[0]
                out[name] = data[at + 4 : at + 4 + size].decode("utf-8", "replace")
                at += 4 + _padded(size)
            elif kind == 2:
                at += 8
            else:
                break
    except (struct.error, IndexError):
        pass
    return out


def _padded(n: int) -> int:
    return (n + 3) & ~3
