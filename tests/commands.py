"""Running deskreel from tests: in this process (`run_cli`) or as a real subprocess
(`deskreel`), the way a user or CI runs it."""

from __future__ import annotations

import json
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
