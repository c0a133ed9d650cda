"""Process groups: a program started in a group of its own is stopped with everything it
started, even when it ignores SIGTERM or its children outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import time

__all__ = ["STOP_GRACE", "group_alive", "stop_group"]

STOP_GRACE = 5.0  # s between SIGTERM and SIGKILL for a process group that will not end
_POLL = 0.05  # s between looks at the group


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group, SIGKILL to what is left of it after STOP_GRACE, and
    reap the leader. A member that never ends (a zombie nobody reaps) is waited for no
    longer than twice STOP_GRACE."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break  # the whole group has ended
        deadline = time.monotonic() + STOP_GRACE
        while time.monotonic() < deadline:
            proc.poll()  # reap the leader, so that it no longer counts
            if not group_alive(proc.pid):
                break
            time.sleep(_POLL)
        else:
            continue
        break
    proc.wait()


def group_alive(pgid: int) -> bool:
    """Whether any process of the group `pgid` is left (a zombie counts until reaped)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
