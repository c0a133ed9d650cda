"""Exports: one recording in the dialect of each agent family, paired with its screens.

`DIALECTS` maps a format name to its `Dialect`; `write_dataset` writes the dataset
directory (trajectories, PNG frames, README.md card). Importing this needs no OpenCV.
"""

from . import actions, anthropic, browsergym, normalized, pyautogui
from .dialect import Context, Dialect, NotExpressible, Translation
from .trajectory import Report, Scale, Trajectory, enabled_actions, off_screen_step, trajectory
from .writer import ExportOptions, Summary, write_dataset

DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        actions.DIALECT,
        anthropic.DIALECT,
        normalized.DIALECT,
        browsergym.DIALECT,
        pyautogui.DIALECT,
    )
}
FORMATS = tuple(DIALECTS)
TOOL_VERSIONS = anthropic.VERSIONS
COORDS = pyautogui.COORDS


def dialect_for(fmt: str, *, tool_version: str | None = None, coords: str | None = None) -> Dialect:
    """The dialect of a format with its options; ValueError names an option it does not take."""
    if tool_version is not None and fmt != "anthropic":
        raise ValueError("--tool-version is for --format anthropic")
    if coords is not None and fmt != "pyautogui":
        raise ValueError("--coords is for --format pyautogui (normalized has fractions already)")
    if fmt == "anthropic":
        return anthropic.dialect(tool_version or anthropic.DEFAULT_VERSION)
    if fmt == "pyautogui":
        return pyautogui.dialect(coords or "pixels")
    return DIALECTS[fmt]


__all__ = [
    "COORDS",
    "DIALECTS",
    "FORMATS",
    "TOOL_VERSIONS",
    "Context",
    "Dialect",
    "ExportOptions",
    "dialect_for",
    "NotExpressible",
    "Report",
    "Scale",
    "Summary",
    "Trajectory",
    "Translation",
    "enabled_actions",
    "off_screen_step",
    "trajectory",
    "write_dataset",
]
