"""The command line's file and folder parameters: click's Path, refusing a path the file
system cannot hold (storage/paths.py) in one line, before any work is done."""

from __future__ import annotations

from typing import Any

import click

from deskreel.storage.paths import unusable_path

__all__ = ["FilePath"]


class FilePath(click.Path):
    """click.Path, and a name the file system can hold."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        why = unusable_path(value) if isinstance(value, str) else None
        if why is not None:
            self.fail(f"{value!r} cannot name a file: {why}", param, ctx)
        return super().convert(value, param, ctx)
