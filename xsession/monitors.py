"""The monitors of the X screen and the scale the desktop tells, as the X server and the
desktop's settings manager give them: RandR 1.5's monitors (each CRTC's output, or what
`xrandr --setmonitor` made), Xft.dpi (the XSETTINGS manager's Xft/DPI, which GTK follows,
else the X resources' Xft.dpi, which Qt and Xft follow) and the manager's window scale.
A server without RandR 1.5 shows the whole screen as one monitor."""

from __future__ import annotations

from typing import Any

from deskreel.storage.monitors import Layout, Monitor

from .settings import desktop_settings

__all__ = ["read_layout"]

_XSETTINGS_DPI_UNIT = 1024  # Xft/DPI is in 1024ths of a dot per inch (-1: the default)


def read_layout(conn: Any) -> Layout:
    """The monitors and scale of the display `conn` is connected to, as of now; what the
    server does not tell (an X error on the way) is left unknown."""
    from Xlib import error as xerror

    try:
        return _layout(conn)
    except xerror.XError:
        return Layout(())


def _layout(conn: Any) -> Layout:
    desktop = desktop_settings(conn)
    told = desktop.get("Xft/DPI")
    dpi = told / _XSETTINGS_DPI_UNIT if isinstance(told, int) and told > 0 else _resource_dpi(conn)
    scale = desktop.get("Gdk/WindowScalingFactor")
    unscaled = desktop.get("Gdk/UnscaledDPI")
    return Layout(
        tuple(_randr_monitors(conn) or [_whole_screen(conn)]),
        dpi,
        scale if isinstance(scale, int) and scale > 0 else None,
        unscaled / _XSETTINGS_DPI_UNIT if isinstance(unscaled, int) and unscaled > 0 else None,
    )


def _randr_monitors(conn: Any) -> list[Monitor]:
    """RandR 1.5's active monitors, left to right; [] where the server has no RandR 1.5."""
    from Xlib import error as xerror

    if not conn.has_extension("RANDR"):
        return []
    try:
        version = conn.xrandr_query_version()
        if (version.major_version, version.minor_version) < (1, 5):
            return []
        reply = conn.screen().root.xrandr_get_monitors(is_active=True)
    except (xerror.XError, AttributeError):
        return []
    monitors = [
        Monitor(
            conn.get_atom_name(m.name),
            (m.x, m.y, m.width_in_pixels, m.height_in_pixels),
            bool(m.primary),
            (m.width_in_millimeters, m.height_in_millimeters)
            if m.width_in_millimeters > 0
            else None,
        )
        for m in reply.monitors
    ]
    return sorted(monitors, key=lambda m: (m.box[0], m.box[1]))


def _whole_screen(conn: Any) -> Monitor:
    screen = conn.screen()
    mm = (screen.width_in_mms, screen.height_in_mms) if screen.width_in_mms > 0 else None
    return Monitor("screen", (0, 0, screen.width_in_pixels, screen.height_in_pixels), True, mm)


def _resource_dpi(conn: Any) -> float | None:
    """Xft.dpi of the X resources (RESOURCE_MANAGER on the first screen's root, as `xrdb`
    sets it); None where it is not set."""
    from Xlib import X, Xatom

    # the X resources are the first screen's, whichever is the default
    prop = conn.screen(0).root.get_full_property(Xatom.RESOURCE_MANAGER, X.AnyPropertyType)
    if prop is None:
        return None
    value = prop.value
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    for line in text.splitlines():
        name, _, told = line.partition(":")
        if name.strip() == "Xft.dpi":
            try:
                dpi = float(told.strip())
            except ValueError:
                return None
            return dpi if dpi > 0 else None
    return None
