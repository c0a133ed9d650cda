"""The names of AT-SPI's roles and states, by number (at-spi2-core's AtspiRole and
AtspiStateType, which only ever grow at their ends): D-Bus gives numbers, people read names.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["role_name", "role_number", "state_names"]

ROLES = (
    "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
    "check box", "check menu item", "color chooser", "column header", "combo box", "date editor",
    "desktop icon", "desktop frame", "dial", "dialog", "directory pane", "drawing area",
    "file chooser", "filler", "focus traversable", "font chooser", "frame", "glass pane",
    "html container", "icon", "image", "internal frame", "label", "layered pane", "list",
    "list item", "menu", "menu bar", "menu item", "option pane", "page tab", "page tab list",
    "panel", "password text", "popup menu", "progress bar", "push button", "radio button",
    "radio menu item", "root pane", "row header", "scroll bar", "scroll pane", "separator",
    "slider", "spin button", "split pane", "status bar", "table", "table cell",
    "table column header", "table row header", "tearoff menu item", "terminal", "text",
    "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown", "viewport",
    "window", "extended", "header", "footer", "paragraph", "ruler", "application", "autocomplete",
    "editbar", "embedded", "entry", "chart", "caption", "document frame", "heading", "page",
    "section", "redundant object", "form", "link", "input method window", "table row",
    "tree item", "document spreadsheet", "document presentation", "document text", "document web",
    "document email", "comment", "list box", "grouping", "image map", "notification", "info bar",
    "level bar", "title bar", "block quote", "audio", "video", "definition", "article",
    "landmark", "log", "marquee", "math", "rating", "timer", "static", "math fraction",
    "math root", "subscript", "superscript", "description list", "description term",
    "description value", "footnote", "content deletion", "content insertion", "mark",
    "suggestion", "push button menu",
)  # fmt: skip

STATES = (
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
    "enabled", "expandable", "expanded", "focusable", "focused", "has-tooltip", "horizontal",
    "iconified", "modal", "multi-line", "multiselectable", "opaque", "pressed", "resizable",
    "selectable", "selected", "sensitive", "showing", "single-line", "stale", "transient",
    "vertical", "visible", "manages-descendants", "indeterminate", "required", "truncated",
    "animated", "invalid-entry", "supports-autocompletion", "selectable-text", "is-default",
    "visited", "checkable", "has-popup", "read-only",
)  # fmt: skip


def role_name(number: int) -> str:
    """The role's name; a role newer than this table is `role N`."""
    return ROLES[number] if 0 <= number < len(ROLES) else f"role {number}"


def role_number(name: str) -> int | None:
    """The number of the role `role_name` calls `name`; None for one it does not know."""
    if name.startswith("role ") and name[5:].isdigit():
        return int(name[5:])
    return ROLES.index(name) if name in ROLES else None


def state_names(bits: Sequence[int]) -> tuple[str, ...]:
    """The states set in AT-SPI's state set (32-bit words, lowest first), by name."""
    out = []
    for word, value in enumerate(bits):
        for bit in range(32):
            if int(value) >> bit & 1:
                n = word * 32 + bit
                out.append(STATES[n] if n < len(STATES) else f"state {n}")
    return tuple(out)
