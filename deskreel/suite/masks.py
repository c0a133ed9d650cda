"""`deskreel test --update-masks`: accept today's screen where a test's screens differed.

As Playwright's --update-snapshots accepts today's screenshots, this masks, in the suite's
own database, the regions whose screen checks failed in a test's last attempt (that
attempt replays with --keep-going, so every failed step is seen at once). Only a failed
screen comparison (an effect, a change the recording did not show, or a checkpoint) is
masked: a target not found or an object
gone is a failure a mask would hide, and stays one. Review the masks (`deskreel show`)
before committing the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import TestSpec
from .results import Outcome

__all__ = ["MASKABLE", "MaskUpdate", "update_masks"]

MASKABLE = ("effect", "unrecorded", "checkpoint")  # the check kinds that compare screens only


@dataclass(frozen=True, slots=True)
class MaskUpdate:
    """What --update-masks did for one test: the regions it masked, the steps it left."""

    test: str
    masked: tuple[tuple[int, tuple[int, int, int, int]], ...]  # (step, x, y, w, h)
    left: tuple[tuple[int, str], ...]  # (step, why it is not masked)


def update_masks(tests: list[TestSpec], outcomes: list[Outcome], out: Path) -> list[MaskUpdate]:
    """Mask the failed screen checks of each failed test in its suite database."""
    from deskreel.storage import open_store

    by_name = {t.name: t for t in tests}
    updates = []
    for outcome in outcomes:
        attempt = outcome.attempts[-1]
        if attempt.verdict != "failed":
            continue
        test = by_name[outcome.name]
        masked, left = _failed_regions(out / attempt.folder / "run.db")
        if masked:
            with open_store(test.database, create=False) as store:
                rec = store.recording(test.recording)
                for step, box in masked:
                    store.add_mask(rec.id, box, step=step)
        updates.append(MaskUpdate(outcome.name, tuple(masked), tuple(left)))
    return updates


def _failed_regions(
    run_db: Path,
) -> tuple[list[tuple[int, tuple[int, int, int, int]]], list[tuple[int, str]]]:
    """The boxes (recorded coordinates) of the failed screen checks of the run's failed
    steps, and the failed steps that have another failure."""
    from deskreel.storage import open_store

    from ..report.outcome import check_line, checks_of

    masked: list[tuple[int, tuple[int, int, int, int]]] = []
    left: list[tuple[int, str]] = []
    with open_store(run_db, create=False, readonly=True) as store:
        run = store.runs()[-1]
        results = store.step_results(run.id)
    for result in results:
        if result.status != "failed":
            continue
        failed = [c for c in checks_of(result) if not c.get("passed", True)]
        other = [c for c in failed if c.get("kind") not in MASKABLE]
        if not failed or other:
            left.append((result.step, check_line(other[0]) if other else result.message))
            continue
        for check in failed:
            box = check.get("box")
            if isinstance(box, list) and len(box) == 4 and all(isinstance(v, int) for v in box):
                masked.append((result.step, (box[0], box[1], box[2], box[3])))
    return masked, left
