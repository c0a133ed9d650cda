"""`deskreel reduce`: a recording's actions derived again from its raw events."""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import fields, replace
from typing import TYPE_CHECKING

import click

from .cli import cli, no_backup_option, open_db
from .errors import EXIT_OK, UserError
from .table import json_shown

from deskreel.storage import Step
from deskreel.storage.grouping import DEFAULT_SETTINGS, SETTING_LIMITS, Thresholds, fits

if TYPE_CHECKING:
    from deskreel.recorder.reduce import Reduced


@cli.command("reduce")
@click.argument("db")
@click.option("-r", "--recording", "ref", help="recording id or name (default: the latest)")
@click.option("--dry-run", is_flag=True, help="print the actions; change nothing")
@no_backup_option
@click.pass_context
def reduce(
    ctx: click.Context, db: str, ref: str | None, dry_run: bool, no_backup: bool, **given: float
) -> int:
    """Re-derive a recording's actions from its raw events, with other thresholds.

    The keyboard's repeat delay and the double-click time are those the recording stored
    (X's defaults for a recording made before deskreel stored them); an option overrides
    one. Every step keeps the window it was recorded in. A step whose raw events are
    unchanged keeps its frames and anchor (and its disabled flag); a step made of other
    events than before (a new hover, a double click now two clicks) has none: record
    again for those.
    """
    from deskreel.recorder.reduce import reduce_events

    chosen = _thresholds(given)
    th = Thresholds(**{k: v for k, v in chosen.items() if k in _THRESHOLDS})
    with open_db(db, readonly=dry_run, backup=not no_backup) as store:
        rec = store.recording(ref)
        settings = rec.input_settings.with_values(
            **{k: v for k, v in chosen.items() if k in _SETTINGS}
        )
        old = store.steps(rec.id)
        if any(st.action.text and "{{secret:" in st.action.text for st in old):
            raise UserError(
                f"recording {rec.id} {rec.name!r} has redacted typing, whose key "
                f"events are gone: reducing it would lose those steps; change "
                f"its steps with 'deskreel edit' instead"
            )
        steps = _carry_over(
            reduce_events(store.events(rec.id), settings=settings, thresholds=th), old
        )
        for st in steps:
            click.echo(
                f"{st.step:4d} {st.t_start:8.3f}  "
                f"{json_shown(json.dumps(st.action.to_json(), ensure_ascii=False))}"
            )
        kept = sum(st.before_frame is not None or st.anchor is not None for st in steps)
        if not dry_run:
            store.replace_steps(rec.id, steps)
        click.echo(
            f"recording {rec.id} {rec.name!r} {'would have' if dry_run else 'now has'} "
            f"{len(steps)} steps ({kept} with their recorded frames)",
            err=True,
        )
    return EXIT_OK


def _thresholds(given: Mapping[str, float | None]) -> dict[str, float]:
    """The thresholds and settings given on the command line; a value out of its range ends
    here with one line."""
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        unit = "pixels" if name.endswith("distance") else "seconds"
        option = f"--{name.replace('_', '-')}"
        if name in SETTING_LIMITS and not fits(name, value):
            low, high = SETTING_LIMITS[name]
            raise UserError(f"{option} must be {unit} from {low:g} to {high:g}, got {value:g}")
        if not math.isfinite(value) or value < 0:
            raise UserError(f"{option} must be {unit} >= 0, got {value:g}")
        out[name] = value
    return out


def _carry_over(reduced: list[Reduced], old: list[Step]) -> list[Step]:
    """The new steps, with what the old ones knew that raw events do not tell: the window
    (at each step's start), and the frames and anchor of a step whose events are the same."""
    same_events = {st.events: st for st in old if st.events is not None}
    starts = [st.t_start for st in old]
    steps = []
    for number, r in enumerate(reduced, start=1):
        events = (r.first, r.last) if r.first >= 0 else None
        same = same_events.get(events) if events is not None else None
        if same is not None:
            aimed = r.action.target == same.action.target  # else another press, elsewhere
            steps.append(
                replace(
                    same,
                    step=number,
                    action=r.action,
                    t_start=r.t_start,
                    t_end=r.t_end,
                    anchor=same.anchor if aimed else None,
                    widget=same.widget if aimed else None,
                )
            )
            continue
        window = old[max(bisect_right(starts, r.t_start) - 1, 0)] if old else None
        steps.append(
            Step(
                step=number,
                action=r.action,
                t_start=r.t_start,
                t_end=r.t_end,
                events=events,
                window_class=window.window_class if window else None,
                window_title=window.window_title if window else None,
            )
        )
    return steps


# `deskreel reduce` options: each threshold, and the input settings a person may know
# better than the recording (an old recording's repeat delay, an application's own
# double-click time).
_THRESHOLDS = {f.name: f.default for f in fields(Thresholds)}
_SETTINGS = {name: getattr(DEFAULT_SETTINGS, name) for name in SETTING_LIMITS}


def _add_threshold_options() -> None:
    helps = [(n, f"threshold {n} (default {d})") for n, d in _THRESHOLDS.items()] + [
        (n, f"{n} instead of the recording's own (without one: {d})") for n, d in _SETTINGS.items()
    ]
    for name, text in helps:
        option = click.Option([f"--{name.replace('_', '-')}"], type=float, default=None, help=text)
        reduce.params.append(option)


_add_threshold_options()
