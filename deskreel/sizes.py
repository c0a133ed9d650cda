"""`WxH` screen sizes on the command line (export --scale-to, import --screen)."""

from __future__ import annotations

import re

import click

from deskreel.storage.script import MAX_SCREEN

__all__ = ["screen_size"]


def screen_size(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    """A click callback: `1280x800` as (1280, 800); None when the option is not given."""
    if value is None:
        return None
    size = re.fullmatch(r"(\d+)x(\d+)", value.lower(), re.ASCII)
    if size is None or not all(0 < int(n) <= MAX_SCREEN for n in size.groups()):
        raise click.BadParameter(
            f"write WIDTHxHEIGHT in pixels (1 to {MAX_SCREEN}), such as 1280x800; got {value!r}"
        )
    return int(size[1]), int(size[2])
