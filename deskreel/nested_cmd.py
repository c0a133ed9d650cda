"""`--nested -- COMMAND` for `deskreel record` and `deskreel replay`: the application runs
in Xephyr, shown as a window of the display (a Wayland desktop's Xwayland included), and
deskreel records or replays the Xephyr display."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from .errors import UserError

from deskreel.storage.vocabulary import MAX_COORDINATE

DEFAULT_SIZE = (1280, 800)  # a nested screen's size when neither --size nor a recording says
_SMALLEST = 64  # px: Xephyr's own floor is lower, but nothing can be recorded in less

if TYPE_CHECKING:
    from deskreel.xsession.nested import Nested


@dataclass(frozen=True, slots=True)
class NestedPlan:
    """What --nested asks: the command to run and the screen size given (if any)."""

    command: tuple[str, ...]
    size: tuple[int, int] | None

    @classmethod
    def given(
        cls, nested: bool, size: tuple[int, int] | None, command: tuple[str, ...]
    ) -> NestedPlan | None:
        """The plan of the command line, or None without --nested; a COMMAND or --size
        without --nested, --nested without a COMMAND, or a COMMAND that is not there end
        here with one line."""
        if not nested:
            if command:
                raise UserError(
                    f"{shlex.join(command)!r}: a command after -- only applies with --nested: "
                    f"add --nested, or drop it"
                )
            if size is not None:
                raise UserError("--size only applies with --nested: add --nested or drop --size")
            return None
        if not command:
            raise UserError(
                "--nested needs the application to run in it: add -- COMMAND "
                "(for example: --nested -- gnome-calculator)"
            )
        program = command[0]
        if shutil.which(program) is None and not (
            os.sep in program and os.path.isfile(program) and os.access(program, os.X_OK)
        ):
            raise UserError(
                f"--nested: cannot run {program!r}: no such program on $PATH, nor an "
                f"executable file: install it, or give its path"
            )
        return cls(command, size)


def nested_options(command: Callable[..., int]) -> Callable[..., int]:
    """--nested, --size and the COMMAND after --."""
    command = click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- COMMAND]")(
        command
    )
    command = click.option(
        "--size",
        callback=_parse_size,
        metavar="WxH",
        help="with --nested: the nested screen's size (default: the recording's when "
        f"replaying, else {DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]})",
    )(command)
    return click.option(
        "--nested",
        is_flag=True,
        help="run -- COMMAND in Xephyr, a window of the display, and record or replay "
        "there: the way in from a Wayland desktop (apt-get install xserver-xephyr)",
    )(command)


@contextlib.contextmanager
def nested_session(
    plan: NestedPlan, host: str | None, size: tuple[int, int], *, timeout: float, quiet: bool
) -> Iterator[Nested]:
    """Xephyr of `size` on the display `host`, the plan's command running in it and showing
    a window (or `timeout` s gone by); stopped, with all the application started, on the
    way out, SIGTERM included (as Ctrl-C)."""
    from deskreel.xsession.nested import Nested

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with Nested(plan.command, size=plan.size or size, host=host, timeout=timeout) as session:
            if not quiet:
                click.echo(said_nested(session), err=True)
                if not session.shown:
                    click.echo(
                        f"deskreel: {session.command[0]} showed no window within {timeout:g} "
                        f"s; going on",
                        err=True,
                    )
            yield session
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(_number: int, _frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends a nested session as Ctrl-C does: cleaned up


def said_nested(session: Nested) -> str:
    """The line that tells the person where the application runs."""
    width, height = session.size
    return (
        f"deskreel: {shlex.join(session.command)} runs in Xephyr {session.display} "
        f"({width}x{height}), a window of the display {session.host_display}"
    )


def nested_line(note: object) -> str | None:
    """`show`'s line for a recording made nested (its stored note), or None when it holds
    nothing readable."""
    if not isinstance(note, dict):
        return None
    size = note.get("size")
    shown = f" {size[0]}x{size[1]}" if isinstance(size, list) and len(size) == 2 else ""
    program = f", running {note['program']}" if isinstance(note.get("program"), str) else ""
    server = note.get("server") if isinstance(note.get("server"), str) else "a nested X server"
    return f"nested: {server}{shown}{program}; replay it with --nested -- COMMAND"


def _parse_size(
    _ctx: click.Context, _param: click.Parameter, text: str | None
) -> tuple[int, int] | None:
    if text is None:
        return None
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise click.BadParameter(f"give the size as WIDTHxHEIGHT in pixels, got {text!r}")
    size = int(width), int(height)
    if min(size) < _SMALLEST or max(size) > MAX_COORDINATE:
        raise click.BadParameter(
            f"each side must be from {_SMALLEST} to {MAX_COORDINATE} px, got {text!r}"
        )
    return size
