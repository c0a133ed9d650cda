"""JUnit XML of one run, for CI systems (Jenkins, GitLab, GitHub): one test case per step.

Failed steps are failures; skipped, aborted and never-reached steps are skipped, each with
its reason. The file is written whole (temporary file, then rename) with mode 0600.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from deskreel.storage import Recording, Run, Step, StepResult, utc

from deskreel.xsession.files import write_private
from .outcome import (
    aimed_at,
    Outcome,
    anchoring_facts,
    check_line,
    checks_of,
    counts,
    outcomes,
    run_duration,
    step_label,
    step_width,
    timing_facts,
)

from .trail import trail_of, trail_rows

__all__ = ["write_junit"]

# Characters XML 1.0 cannot hold at all, not even escaped.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_junit(
    path: str | os.PathLike[str],
    recording: Recording,
    run: Run,
    steps: Sequence[Step],
    results: Sequence[StepResult],
) -> Path:
    """Write the run's JUnit XML to `path`: one <testsuite>, one <testcase> per step."""
    items = outcomes(steps, results, run)
    tally = counts(items)
    suite = ET.Element(
        "testsuite",
        {
            "name": _text(recording.name),
            "tests": str(len(items)),
            "failures": str(tally["failed"]),
            "errors": "0",
            "skipped": str(tally["skipped"]),
            "time": f"{run_duration(run, results):.3f}",
            "timestamp": utc(run.started).strftime("%Y-%m-%dT%H:%M:%S"),
        },
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("recording_id", recording.id),
        ("run_id", run.id),
        ("mode", run.mode),
        ("status", run.status),
    ):
        ET.SubElement(properties, "property", name=f"deskreel.{name}", value=_text(value))
    width = step_width(steps)
    for item in items:
        _testcase(suite, item, f"deskreel.{_text(recording.name)}", width)
    ET.indent(suite)
    out = Path(path)
    write_private(out, ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n")
    return out


def _testcase(suite: ET.Element, item: Outcome, classname: str, width: int) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        classname=classname,
        name=_text(step_label(item.step, width)),
        time=f"{item.seconds:.3f}",
    )
    if item.status == "failed":
        kind = "VerificationFailed" if checks_of(item.result) else "StepFailed"
        failure = ET.SubElement(case, "failure", message=_text(item.message), type=kind)
        failure.text = _text(_failure_text(item))
    elif item.status != "passed":
        message = item.message or item.status
        if item.status == "aborted" and not message.startswith("aborted"):
            message = f"aborted: {message}"
        ET.SubElement(case, "skipped", message=_text(message))


def _failure_text(item: Outcome) -> str:
    """Everything a reader needs about a failed step, in plain text."""
    lines = [item.message, f"action: {json.dumps(item.step.action.to_json(), ensure_ascii=False)}"]
    if item.step.window_title or item.step.window_class:
        lines.append(f"window: {item.step.window_title or ''} ({item.step.window_class or ''})")
    if item.step.widget is not None:
        lines.append(aimed_at(item.step.widget))
    if item.result is not None:
        for title, facts in (
            ("re-anchoring", anchoring_facts(item.result)),
            ("timing", timing_facts(item.result)),
        ):
            if facts:
                lines.append(f"{title}: " + ", ".join(f"{k} {v}" for k, v in facts))
    checks = checks_of(item.result)
    if checks:
        lines.append("checks:")
        lines += [f"  {check_line(c)}" for c in checks]
    trail = trail_of(item.result)
    if trail:
        lines.append("trail:")
        lines += ["  " + " | ".join(cell for cell in row if cell) for row in trail_rows(trail)]
    return "\n".join(lines) + "\n"


def _text(value: object) -> str:
    return _NOT_XML.sub("\ufffd", str(value))
