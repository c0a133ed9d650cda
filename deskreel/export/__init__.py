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

__all__ = [
    "DIALECTS",
    "FORMATS",
    "Context",
    "Dialect",
    "ExportOptions",
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
