"""Running deskreel from tests: in this process (`run_cli`) or as a real subprocess
(`deskreel`), the way a user or CI runs it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping


def deskreel(*args: object, env: Mapping[str, str] | None = None,
             timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m deskreel ARGS` with its exit code, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "deskreel", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout)
