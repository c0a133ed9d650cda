"""Running deskreel from tests: in this process (`run_cli`) or as a real subprocess
(`deskreel`), the way a user or CI runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def deskreel(
    *args: object, env: Mapping[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`python -m deskreel ARGS` with its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "deskreel", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def imported(tmp_path: Path, name: str, actions: list[dict[str, Any]]) -> Path:
    """A database holding the script `actions`, imported by `deskreel import` as `name`."""
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps(actions))
    db = tmp_path / f"{name}.db"
    done = deskreel("import", script, db)
    assert done.returncode == 0, done.stderr
    return db


def screen_differs(text: str, step: int, action: str = "left_click") -> bool:
    """Whether `text` says --verify failed `step` on its screen: `step 2 (left_click): the
    screen differs from the recording`, with the object it was aimed at named where the
    recording kept one (`step 2 (left_click) on X window 0/4 of 'Deskreelsample': ...`)."""
    aimed = r"(?: on [^\n]+?)?"  # the object, where one was kept
    said = rf"step {step} \({re.escape(action)}\){aimed}: the screen differs from the recording"
    return re.search(said, text) is not None
