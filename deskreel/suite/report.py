"""A suite's report folder: results.json (the outcomes, as data), junit.xml (one testcase
per recording) and index.html (each test with its attempts, linking each attempt's
per-step report). `merge` makes one report of the folders of several shards.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from deskreel.xsession.files import write_private

from ..errors import UserError
from ..report.style import CSS
from .results import Attempt, Outcome

__all__ = ["RESULTS", "Results", "check_report_folder", "merge", "read_results", "write_report"]

RESULTS = "results.json"
_KIND = "deskreel test"  # results.json's "kind": what marks a folder as a suite report


class Results:
    """What a suite run (or a merge of shards) found, as results.json holds it."""

    def __init__(self, outcomes: Sequence[Outcome], *, seconds: float, workers: int, shards: str):
        self.outcomes = list(outcomes)
        self.seconds = seconds
        self.workers = workers
        self.shards = shards  # "1/2", or "all"

    def counts(self) -> Counter[str]:
        return Counter(o.verdict for o in self.outcomes)

    def tally(self) -> str:
        """`3 passed, 1 flaky, 1 failed` (the verdicts there are)."""
        counts = self.counts()
        return ", ".join(f"{counts[v]} {v}" for v in ("passed", "flaky", "failed") if counts[v])

    def failing(self, *, allow_flaky: bool) -> bool:
        """Whether the run fails: a test failed, or was flaky when that is not allowed."""
        counts = self.counts()
        return bool(counts["failed"] or (counts["flaky"] and not allow_flaky))

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": _KIND,
            "seconds": round(self.seconds, 3),
            "workers": self.workers,
            "shards": self.shards,
            "tests": [
                {"name": o.name, "verdict": o.verdict, "attempts": [asdict(a) for a in o.attempts]}
                for o in self.outcomes
            ],
        }


MARK = ".deskreel-test"  # written first into a report folder: it is a suite's, even half-done
_OURS = (MARK, RESULTS, "junit.xml", "index.html", "tests")  # all a report folder may hold


def check_report_folder(out: Path) -> None:
    """Refuse a report folder whose clearing could take anything but an earlier report:
    this folder or one above it, a link, a file, or a folder that holds what a suite run
    did not write."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UserError(f"{out} is not a folder: give a folder for the suite's report")
    here = Path.cwd().resolve()
    if out.resolve() == here or out.resolve() in here.parents:
        raise UserError(f"{out} is this folder or one above it: give the report its own folder")
    if not out.is_dir():
        return
    entries = {p.name for p in out.iterdir()}
    if entries and MARK not in entries:
        raise UserError(
            f"{out} is not empty and holds no deskreel test report: choose a new folder"
        )
    if others := sorted(entries - set(_OURS)):
        raise UserError(
            f"{out} holds {others[0]!r}, which deskreel test did not write: move it, or "
            f"choose a new folder"
        )


def clear_report_folder(out: Path) -> None:
    """An earlier report in `out` goes (only what a suite run writes), and the folder is
    marked as a report's before anything else is written into it."""
    check_report_folder(out)
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name in _OURS:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    write_private(out / MARK, f"{_KIND}\n".encode())


def write_report(out: Path, results: Results, *, allow_flaky: bool, junit: Path | None) -> None:
    """results.json, junit.xml (and a copy at `junit`, when given) and index.html."""
    write_private(out / RESULTS, json.dumps(results.to_json(), indent=1).encode("utf-8"))
    xml = _junit(results, allow_flaky=allow_flaky)
    write_private(out / "junit.xml", xml)
    if junit is not None:
        write_private(junit, xml)
    write_private(out / "index.html", _index(results, allow_flaky=allow_flaky).encode("utf-8"))


def read_results(folder: Path) -> Results:
    """The results a suite run left in `folder`; UserError when there are none."""
    try:
        data = json.loads((folder / RESULTS).read_text(encoding="utf-8"))
        if data.get("kind") != _KIND:
            raise ValueError
        outcomes = [
            Outcome(t["name"], tuple(Attempt(**a) for a in t["attempts"])) for t in data["tests"]
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise UserError(
            f"{folder} holds no deskreel test report ({RESULTS}): give the --report folders "
            f"of `deskreel test` runs"
        ) from None
    return Results(
        outcomes, seconds=data.get("seconds", 0.0), workers=data.get("workers", 1), shards="?"
    )


def merge(folders: Sequence[Path], out: Path, *, allow_flaky: bool, junit: Path | None) -> Results:
    """One report in `out` of the reports in `folders` (the shards of one suite): their
    tests' evidence copied in, their outcomes together."""
    parts = [read_results(folder) for folder in folders]
    names: dict[str, Path] = {}
    for folder, part in zip(folders, parts, strict=True):
        for outcome in part.outcomes:
            if outcome.name in names:
                raise UserError(
                    f"test {outcome.name!r} is in both {names[outcome.name]} and {folder}: "
                    f"merge the reports of one suite's shards"
                )
            names[outcome.name] = folder
    clear_report_folder(out)
    for folder in folders:
        if (folder / "tests").is_dir():
            shutil.copytree(folder / "tests", out / "tests", dirs_exist_ok=True)
    outcomes = [o for part in parts for o in part.outcomes]
    results = Results(
        sorted(outcomes, key=lambda o: o.name),
        seconds=max((p.seconds for p in parts), default=0.0),
        workers=sum(p.workers for p in parts),
        shards=f"{len(parts)} merged",
    )
    write_report(out, results, allow_flaky=allow_flaky, junit=junit)
    return results


def failure_line(outcome: Outcome) -> str:
    """What failed, in one line: the step and the check of each failed attempt."""
    failed = [a for a in outcome.attempts if a.verdict != "passed"]
    parts = [f"attempt {a.number}: {attempt_line(a)}" for a in failed]
    if outcome.verdict == "flaky":
        parts.append(f"passed on attempt {len(outcome.attempts)}")
    return "; ".join(parts)


def attempt_line(attempt: Attempt) -> str:
    if attempt.step is not None:
        return f"step {attempt.step}: {attempt.check}"
    return attempt.check or attempt.verdict


# -- JUnit ---------------------------------------------------------------------------------


def _junit(results: Results, *, allow_flaky: bool) -> bytes:
    tally = results.counts()
    failing = tally["failed"] + (0 if allow_flaky else tally["flaky"])
    suite = ET.Element(
        "testsuite",
        {
            "name": "deskreel test",
            "tests": str(len(results.outcomes)),
            "failures": str(failing),
            "errors": "0",
            "skipped": "0",
            "time": f"{results.seconds:.3f}",
            "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
        },
    )
    for outcome in results.outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            {"name": outcome.name, "classname": "deskreel", "time": f"{outcome.seconds:.3f}"},
        )
        if outcome.verdict == "failed" or (outcome.verdict == "flaky" and not allow_flaky):
            word = "flaky" if outcome.verdict == "flaky" else "failed"
            failure = ET.SubElement(
                case, "failure", {"message": f"{word}: {failure_line(outcome)}", "type": word}
            )
            failure.text = _evidence(outcome)
        elif outcome.verdict == "flaky":  # allowed: surefire's rerun format
            for attempt in outcome.attempts[:-1]:
                flaky = ET.SubElement(case, "flakyFailure", {"message": attempt_line(attempt)})
                flaky.text = f"evidence: {attempt.folder}"
    ET.indent(suite)
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n"


def _evidence(outcome: Outcome) -> str:
    return "\n".join(
        f"attempt {a.number} {a.verdict}: {attempt_line(a)} ({a.folder}/report/index.html)"
        for a in outcome.attempts
    )


# -- index.html ----------------------------------------------------------------------------


def _index(results: Results, *, allow_flaky: bool) -> str:
    tally = results.counts()
    failed = tally["failed"] + (0 if allow_flaky else tally["flaky"])
    verdict = "failed" if failed else "passed"
    rows = "\n".join(_row(o) for o in results.outcomes)
    summary = results.tally()
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="deskreel test">
<title>deskreel test: {verdict}</title><style>{CSS}</style></head>
<body><header class="verdict {verdict}"><h1>deskreel test: {verdict}</h1>
<p>{len(results.outcomes)} tests: {escape(summary)} in {results.seconds:.1f} s
({results.workers} worker{"s" * (results.workers != 1)}, shards: {escape(results.shards)})</p>
</header><main>
<table class="summary"><tr><th>test</th><th>verdict</th><th>time</th><th>attempts</th></tr>
{rows}
</table></main></body></html>
"""


def _row(outcome: Outcome) -> str:
    badge = {"passed": "passed", "flaky": "aborted", "failed": "failed"}[outcome.verdict]
    attempts = "<br>".join(_attempt_cell(a) for a in outcome.attempts)
    return (
        f"<tr><td>{escape(outcome.name)}</td>"
        f'<td><span class="badge {badge}">{outcome.verdict}</span></td>'
        f"<td>{outcome.seconds:.1f} s</td><td>{attempts}</td></tr>"
    )


def _attempt_cell(attempt: Attempt) -> str:
    folder = escape(attempt.folder, quote=True)
    links = [
        f'<a href="{folder}/{name}">{label}</a>'
        for name, label in (
            ("report/index.html", "steps"),
            ("replay.log", "replay log"),
            ("app.log", "app log"),
        )
    ]
    what = "" if attempt.verdict == "passed" else f": {escape(attempt_line(attempt))}"
    return (
        f"attempt {attempt.number} {attempt.verdict}{what} ({attempt.seconds:.1f} s, "
        f"{escape(attempt.display)}) " + " · ".join(links)
    )
