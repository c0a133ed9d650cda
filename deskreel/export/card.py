"""The dataset card: README.md of an export, saying what each file and field holds.

It begins with the YAML front matter the Hugging Face Hub reads. It declares no `configs`:
the folder's own layout (frames and a `metadata.jsonl` naming them) is what `load_dataset(DIR)`
builds `Image` features from, and only then does `datasets` key its cache on the data files
themselves, their place and their times. With `configs` it keys the cache on the card alone,
and a re-export, or an export into another folder of the same name, loads the old rows and
the old folder's paths (huggingface/datasets issue 2956).
The YAML is written by hand (JSON strings are YAML strings): no YAML library is needed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from deskreel.storage.monitors import MONITORS, Layout

from ..table import format_duration

if TYPE_CHECKING:
    from .writer import Summary

__all__ = ["CARD_TITLE", "dataset_card", "is_card"]

CARD_TITLE = "# deskreel export"  # the first line after the front matter; --force looks for it
_FENCE = "---"
# What we cannot mend from our side, measured on these exports: before 4.8.5, `imagefolder`
# fails on a line without a frame (an imported script's, a wait's); before 3.4 it also puts
# the lines out of order and fails on a frame that several lines show
OLDEST_DATASETS = "4.8.5"
OLD_DATASETS = (
    f"With `datasets` older than {OLDEST_DATASETS}, whose `imagefolder` fails on a line "
    "without a frame, load the lines alone: "
    '`load_dataset("json", data_files="path/to/this/directory/metadata.jsonl", split="train")`.'
)
# The Hub's size_categories: the upper bounds of each, in lines
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (10**6, "100K<n<1M"))


def dataset_card(summary: Summary) -> str:
    """The whole card: YAML front matter, then Markdown."""
    sections = [
        _header(summary),
        _loading(summary),
        _files(),
        _recordings(summary),
        _lines(summary),
        _pairing(summary),
        _format(summary),
        _kinds(summary),
        _lost(summary),
    ]
    return front_matter(summary) + "\n" + "\n\n".join(sections) + "\n"


def front_matter(summary: Summary) -> str:
    """The card's YAML block: what the Hub lists (no `configs`: see above)."""
    name = summary.dialect.name
    lines = sum(e.lines for e in summary.recordings)
    size = next((label for bound, label in _SIZES if lines < bound), "1M<n<10M")
    out = [
        _FENCE,
        f"pretty_name: {json.dumps(f'deskreel export ({name})')}",
        "license: other",
        "license_name: unspecified",
        "task_categories:",
        "- image-to-text",
        "tags:",
        *(f"- {tag}" for tag in ("computer-use", "gui-agent", "deskreel", name)),
        "size_categories:",
        f"- {size}",
        _FENCE,
    ]
    return "\n".join(out) + "\n"


def is_card(text: str) -> bool:
    """Whether `text` begins as a card deskreel wrote: front matter, then its title (or the
    title alone, as cards before the front matter began)."""
    if text.startswith(CARD_TITLE):
        return True
    head, fence, body = text.partition(f"\n{_FENCE}\n")
    return head.startswith(f"{_FENCE}\n") and bool(fence) and body.lstrip().startswith(CARD_TITLE)


def _header(summary: Summary) -> str:
    from .. import __version__

    n, steps = len(summary.recordings), sum(e.lines for e in summary.recordings)
    return (
        f"{CARD_TITLE}: {summary.dialect.name}\n\n"
        f"Exported by deskreel {__version__} on "
        f"{summary.created.strftime('%Y-%m-%d %H:%M UTC')}: {n} recording{'s' * (n != 1)}, "
        f"{steps} lines, {summary.frames} frames, in the `{summary.dialect.name}` dialect"
        f"{_variant(summary)}. The license is unspecified: set `license` above before "
        "publishing it."
    )


def _variant(summary: Summary) -> str:
    return f" ({summary.dialect.variant})" if summary.dialect.variant else ""


def _loading(summary: Summary) -> str:
    images = (
        "`image` (and `image_after`) are `Image` features"
        if summary.frames
        else "no step has a frame, so there are no images"
    )
    return (
        "## Loading\n\n"
        "```python\n"
        "import json\n"
        "from datasets import load_dataset\n\n"
        'ds = load_dataset("path/to/this/directory", split="train")  # or imagefolder:\n'
        'ds = load_dataset("imagefolder", data_dir="path/to/this/directory", split="train")\n'
        'calls = ds[0]["action"]  # '
        + (
            "Python code"
            if summary.dialect.join is not None
            else "JSON text: json.loads(calls) is a list of objects"
        )
        + "\n```\n\n"
        f"Either way {images}, from any working directory, as the folder is now: a re-export "
        "into it loads anew. "
        '`pyarrow.json.read_json("metadata.jsonl")` reads the lines as one table.\n\n'
        f"{OLD_DATASETS}"
    )


def _files() -> str:
    return (
        "## Files\n\n"
        "- `metadata.jsonl`: every recording's trajectory, one JSON object per step, "
        "in recorded order.\n"
        "- `frames/<hash>.png`: the screens, each stored once however many lines show it, "
        "named by the SHA-256 of the recorded pixels.\n"
        "- `README.md`: this card."
    )


def _recordings(summary: Summary) -> str:
    rows = [
        [
            e.recording.name,
            str(e.recording.id),
            e.recording.source,
            str(e.lines),
            _size(e.recording.screen),
            _size(e.screen),
            _monitors(e.recording.extra),
            format_duration(e.recording.duration),
        ]
        for e in summary.recordings
    ]
    header = [
        "recording",
        "id",
        "source",
        "lines",
        "recorded screen",
        "exported screen",
        "monitors",
        "duration",
    ]
    tasks = [
        f"- {_cell(e.recording.name)}: {_cell(e.recording.instruction)}"
        for e in summary.recordings
        if e.recording.instruction
    ]
    told = "\n\nTask instructions:\n\n" + "\n".join(tasks) if tasks else ""
    return "## Recordings\n\n" + _markdown(header, rows) + told


def _lines(summary: Summary) -> str:
    after = (
        "- `image_after_file_name`: the screen once the step's effects settled (`image_after` "
        "in `datasets`; null when not captured).\n"
        if summary.options.with_after
        else ""
    )
    return (
        "## Lines\n\n"
        "Every line has every key. Text and lists that are absent are empty, not null: "
        "Arrow needs one type per column, and `datasets` and pyarrow infer it from the "
        "first lines. Only `action` (unexpressed) and a missing after-frame are null.\n\n"
        "- `recording`: the recording's name.\n"
        "- `step`: its number in `deskreel show`; disabled steps are left out, so "
        "numbers may skip.\n"
        "- `t`: seconds from the start of the recording.\n"
        "- `screen`: `[width, height]` of the exported screen in pixels (`[]` when "
        "unknown).\n"
        "- `instruction`: the task the recording demonstrates, as its author wrote it "
        "(`deskreel record --instruction`, `deskreel edit --instruction`).\n"
        "- `note`: the author's note on the step, such as their reasoning (`deskreel edit "
        "--note`).\n"
        "- `file_name`: the screen before the action, `image` in `datasets` when the export "
        "has frames (empty for steps without frames, such as imported scripts).\n"
        f"{after}"
        f"- `action`: {summary.dialect.summary} Null when the dialect cannot express "
        "the step.\n"
        "- `unexpressed`: why `action` is null; empty on the other lines."
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
        "Each line pairs the state the person saw with what they did: `file_name` is the "
        "step's before-frame, the last visually distinct frame captured before the "
        "action began. Steps follow each other in recorded order. Typed text that came "
        "from a `{{env:NAME}}` placeholder stays a placeholder: values are never "
        "exported." + resized
    )


def _format(summary: Summary) -> str:
    notes = "\n".join(f"- {note}" for note in summary.dialect.notes)
    return f"## Format: `{summary.dialect.name}`{_variant(summary)}\n\n{notes}"


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


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _monitors(extra: object) -> str:
    """The recording's monitors and scale (storage/monitors.py), "unknown" where it has none
    stored (recorded before they were, or imported)."""
    layout = Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None
    return _cell(layout.describe().removeprefix("monitors: ")) if layout is not None else "unknown"


def _size(screen: tuple[int, int] | None) -> str:
    return f"{screen[0]}x{screen[1]}" if screen else "unknown"


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out)
