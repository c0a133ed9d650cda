"""The dataset card: README.md of an export, saying what each file and field holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..table import format_duration

if TYPE_CHECKING:
    from .writer import Summary

__all__ = ["CARD_TITLE", "dataset_card"]

CARD_TITLE = "# deskreel export"  # the first line of every card; --force looks for it


def dataset_card(summary: Summary) -> str:
    """The whole card as Markdown."""
    sections = [
        _header(summary),
        _files(),
        _recordings(summary),
        _lines(summary),
        _pairing(summary),
        _format(summary),
        _kinds(summary),
        _lost(summary),
    ]
    return "\n\n".join(sections) + "\n"


def _header(summary: Summary) -> str:
    from .. import __version__

    n, steps = len(summary.recordings), sum(e.lines for e in summary.recordings)
    return (
        f"{CARD_TITLE}: {summary.dialect.name}\n\n"
        f"Exported by deskreel {__version__} on "
        f"{summary.created.strftime('%Y-%m-%d %H:%M UTC')}: {n} recording{'s' * (n != 1)}, "
        f"{steps} lines, {summary.frames} frames, in the `{summary.dialect.name}` dialect."
    )


def _files() -> str:
    return (
        "## Files\n\n"
        "- `<recording>.jsonl`: one trajectory per recording, one JSON object per line.\n"
        "- `frames/<hash>.png`: the screens, each stored once, named by the SHA-256 of the "
        "recorded pixels.\n"
        "- `README.md`: this card."
    )


def _recordings(summary: Summary) -> str:
    rows = [
        [
            e.recording.name,
            str(e.recording.id),
            e.recording.source,
            f"`{e.file}`",
            str(e.lines),
            _size(e.recording.screen),
            _size(e.screen),
            format_duration(e.recording.duration),
        ]
        for e in summary.recordings
    ]
    header = [
        "recording",
        "id",
        "source",
        "file",
        "lines",
        "recorded screen",
        "exported screen",
        "duration",
    ]
    return "## Recordings\n\n" + _markdown(header, rows)


def _lines(summary: Summary) -> str:
    after = (
        "- `image_after`: the screen once the step's effects settled (null when not captured).\n"
        if summary.options.with_after
        else ""
    )
    return (
        "## Lines\n\n"
        "- `recording`: the recording's name.\n"
        "- `step`: its number in `deskreel show`; disabled steps are left out, so "
        "numbers may skip.\n"
        "- `t`: seconds from the start of the recording.\n"
        "- `screen`: `[width, height]` of the exported screen in pixels (null when "
        "unknown).\n"
        "- `image`: the screen before the action (null for steps without frames, such "
        "as imported scripts).\n"
        f"{after}"
        f"- `action`: {summary.dialect.summary} Null when the dialect cannot express "
        "the step.\n"
        "- `unexpressed`: only on lines whose `action` is null: why."
    )


def _pairing(summary: Summary) -> str:
    scale = summary.options.scale_to
    resized = (
        f" Frames were resized to {scale[0]}x{scale[1]} with OpenCV's INTER_AREA, and "
        f"coordinates scaled per axis (x * {scale[0]} / recorded width, likewise for "
        f"y) and rounded half up."
        if scale
        else ""
    )
    return (
        "## Pairing rule\n\n"
        "Each line pairs the state the person saw with what they did: `image` is the "
        "step's before-frame, the last visually distinct frame captured before the "
        "action began. Steps follow each other in recorded order. Typed text that came "
        "from a `{{env:NAME}}` placeholder stays a placeholder: values are never "
        "exported." + resized
    )


def _format(summary: Summary) -> str:
    notes = "\n".join(f"- {note}" for note in summary.dialect.notes)
    return f"## Format: `{summary.dialect.name}`\n\n{notes}"


def _kinds(summary: Summary) -> str:
    rows = [[f"`{kind}`", str(n)] for kind, n in sorted(summary.kinds.items())]
    return "## Steps per action\n\n" + _markdown(["action", "steps"], rows)


def _lost(summary: Summary) -> str:
    lines = summary.report.lines(summary.dialect.name)
    body = (
        "\n".join(f"- {line}" for line in lines)
        if lines
        else "Nothing: every exported step is expressed in full."
    )
    return "## What could not be expressed\n\n" + body


def _size(screen: tuple[int, int] | None) -> str:
    return f"{screen[0]}x{screen[1]}" if screen else "unknown"


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out)
