"""A small fixed subset of the corpus, committed under tests/data/realapps/ so that
`make test` measures re-anchoring on real applications without starting them: a fixed
selection of cases per application, with the files they need (the screen, the anchor, the
recorded screen it was cut from) and the figures they gave when the subset was written."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from realapps.judge import judge

__all__ = ["SUBSET", "write_subset"]

# application -> how many of its cases, taken evenly over its scenarios and steps
SUBSET = {"widget-factory": 25, "tk-demo": 25}


def write_subset(corpus: Path, out: Path) -> dict[str, int]:
    """Copy the subset of `corpus` into `out`; the figures it gives (also written)."""
    if out.exists():
        shutil.rmtree(out)
    counts: Counter[str] = Counter()
    for app, size in SUBSET.items():
        manifest = json.loads((corpus / app / "manifest.json").read_text())
        chosen = _evenly([c for c in manifest["cases"] if c["truth"] is not None], size)
        steps = sorted({c["step"] for c in chosen})
        small = {
            **{k: v for k, v in manifest.items() if k not in ("cases", "steps", "end_to_end")},
            "steps": [_needed(s) for s in manifest["steps"] if s["step"] in steps],
            "cases": [{**c, "after": None} for c in chosen],
        }
        for name in _files(small):
            target = out / app / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(corpus / app / name, target)
        (out / app / "manifest.json").write_text(json.dumps(small, indent=1))
        counts.update(v.ours for v in judge(out / app, small, 1, baseline=False))
    figures = {k: counts[k] for k in ("right", "refused", "wrong")}
    (out / "expected.json").write_text(json.dumps(figures, indent=1) + "\n")
    return figures


def _evenly(cases: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    ordered = sorted(cases, key=lambda c: (c["scenario"], c["step"]))
    if len(ordered) <= size:
        return ordered
    return [ordered[round(i * len(ordered) / size)] for i in range(size)]


def _needed(step: dict[str, Any]) -> dict[str, Any]:
    """A recorded step without its after-frame (the subset measures locating only)."""
    return {**step, "after": None}


def _files(manifest: dict[str, Any]) -> set[str]:
    names = {c["screen"] for c in manifest["cases"]}
    for step in manifest["steps"]:
        names |= {n for n in (step["anchor"], step.get("anchor_hovered"), step["before"]) if n}
    return names
