"""Plain-text tables and human-readable sizes and durations for the command line, and text
made safe for a terminal."""

from __future__ import annotations

import re

# What a terminal would act on rather than show: C0 and C1 controls (ESC starts the
# sequences that set a window title or write the clipboard, OSC 52), DEL, and the
# invisible marks that reorder text shown after them.
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# What JSON leaves as it is (it escapes C0 controls itself) and a terminal would act on.
_UNSHOWN_IN_JSON = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_shown(text: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) as a terminal may show it: DEL, C1
    controls and the marks that reorder text as \\u escapes, which leave it the same JSON."""
    return _UNSHOWN_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def printable(text: str, *, lines: bool = False) -> str:
    """`text` as a terminal may show it: each control character as its escape (`\\x1b`);
    with `lines`, newlines and tabs kept. Everything deskreel prints that a recording, an
    X client or a server wrote goes through it (names, titles, typed text, error text)."""

    def escaped(match: re.Match[str]) -> str:
        char = match.group()
        if lines and char in "\n\t":
            return char
        return char.encode("unicode_escape").decode("ascii")

    return _UNSHOWN.sub(escaped, text)


def render_table(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell; numbers need no special alignment here."""
    cells = [[printable(str(c)) for c in row] for row in [header, *rows]]
    widths = [max(len(c) for c in col) for col in zip(*cells)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def format_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"
