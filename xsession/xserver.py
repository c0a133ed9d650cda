"""The X servers deskreel starts itself (Xvfb for tests and headless runs, Xephyr for a
nested session): each on a display number nobody else uses, found free and claimed with
-displayfd, and stopped with SIGTERM. A server gets what is its own (its binary, its
arguments) from a subclass; starting, retrying, cookies and stopping are here."""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from types import TracebackType
from typing import IO, ClassVar, Self

__all__ = ["XServer", "cookie_entry", "local_server_listens"]

_SOCKET_DIR = "/tmp/.X11-unix"
_FIRST_DISPLAY = 50  # well above :0/:1 and the :10+ range ssh X forwarding likes
_LAST_DISPLAY = 999
_START_ATTEMPTS = 5


class XServer:
    """An X server of ours on a free display number; a subclass names its program and gives
    its arguments (`_arguments`)."""

    program: ClassVar[str] = "X"  # the binary, found on $PATH
    package: ClassVar[str] = "xserver-xorg-core"  # the Debian package that has it
    first_display: ClassVar[int] = _FIRST_DISPLAY

    def __init__(
        self,
        *,
        width: int,
        height: int,
        start_timeout: float = 10.0,
        stop_timeout: float = 5.0,
        cookies: str | None = None,
        host_env: Mapping[str, str] | None = None,
    ) -> None:
        """`cookies`: an Xauthority file of the caller's; when given, the server accepts only
        clients with a cookie of its own, which is added there (and in env()'s XAUTHORITY).
        `host_env`: the server's own environment (a nested server's $DISPLAY), else ours."""
        self.width = width
        self.height = height
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.cookies = cookies
        self.host_env = dict(host_env) if host_env is not None else None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._number: int | None = None
        self._auth: str | None = None  # the server's own file: its cookie alone
        self._entry: bytes | None = None  # that cookie's entry

    @property
    def display(self) -> str:
        """The display name, e.g. ":57"; only valid while the server runs."""
        if self._number is None:
            raise RuntimeError(f"{type(self).__name__} is not started: call start() first")
        return f":{self._number}"

    @property
    def pid(self) -> int | None:
        """Process id of the server, or None when stopped."""
        return self._proc.pid if self._proc is not None else None

    def running(self) -> bool:
        """Whether the server was started and has not exited since."""
        return self._proc is not None and self._proc.poll() is None

    def env(self) -> dict[str, str]:
        """A copy of os.environ pointing DISPLAY at this server."""
        env = dict(os.environ)
        env["DISPLAY"] = self.display
        if self.cookies is not None:
            env["XAUTHORITY"] = self.cookies
        return env

    def start(self) -> Self:
        """Start the server and wait until it accepts connections."""
        if self._proc is not None:
            raise RuntimeError(f"{type(self).__name__} {self.display} is already running")
        binary = shutil.which(self.program)
        if binary is None:
            raise RuntimeError(
                f"{self.program} not found: install it (apt-get install {self.package})"
            )
        failures: list[str] = []
        start = self.first_display
        for _ in range(_START_ATTEMPTS):
            number = _free_display_number(start)
            error = self._try_start(binary, number)
            if error is None:
                return self
            if failures and failures[-1].endswith(error):  # it fails alike on any number
                break
            failures.append(f":{number}: {error}")
            # Another process may have raced us to this number; move past it.
            start = number + 1
        self.stop()  # what the tries left: the server's cookie file
        raise RuntimeError(f"could not start {self.program}: " + " | ".join(failures))

    def stop(self) -> None:
        """Terminate the server, killing it if it does not exit in time; idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _reap(proc, timeout=self.stop_timeout)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self._auth is not None:
            shutil.rmtree(os.path.dirname(self._auth), ignore_errors=True)
            self._auth = None
        if self.cookies is not None and self._entry is not None:
            _remove_cookie(self.cookies, self._entry)  # its number may serve another later
            self._entry = None
        self._number = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f":{self._number}" if self._number is not None else "stopped"
        return f"{type(self).__name__}({state}, {self.width}x{self.height})"

    def _arguments(self) -> list[str]:
        """The server's own arguments, after its display number."""
        return []

    def _said(self, stderr: str) -> str:
        """What the server said when it failed to start, from its stderr."""
        lines = stderr.strip().splitlines()
        return f" ({self.program} said: {lines[-1]})" if lines else ""

    def _auth_args(self, number: int) -> list[str]:
        """With `cookies`: a new cookie for display `number`, in a private file of the
        server's and appended to the caller's; the -auth option that makes the server ask it."""
        if self.cookies is None:
            return []
        if self._auth is not None:  # an earlier try on another number
            shutil.rmtree(os.path.dirname(self._auth), ignore_errors=True)
        self._entry = cookie_entry(number, os.urandom(16))
        self._auth = os.path.join(tempfile.mkdtemp(prefix="deskreel-xauth-"), "server")
        _add_cookie(self._auth, self._entry)
        return ["-auth", self._auth]

    def _try_start(self, binary: str, number: int) -> str | None:
        """Start the server on `number`; return None on success or why it failed."""
        read_fd, write_fd = os.pipe()
        # Kept open while the server runs so a failure message can quote it.
        stderr = tempfile.TemporaryFile(prefix="deskreel-xserver-")  # noqa: SIM115
        argv = [
            binary,
            f":{number}",
            *self._arguments(),
            "-noreset",
            "-nolisten",
            "tcp",
            *self._auth_args(number),
            # the server writes its display number here once it is ready for clients
            "-displayfd",
            str(write_fd),
        ]
        try:
            proc = subprocess.Popen(
                argv,
                env=self.host_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(write_fd,),
                start_new_session=True,  # a Ctrl-C meant for us must not kill X first
            )
        finally:
            os.close(write_fd)
        try:
            error = _wait_until_ready(
                proc, read_fd, number, timeout=self.start_timeout, program=self.program
            )
        except BaseException:  # Ctrl-C while it starts: no server left behind
            _reap(proc, timeout=self.stop_timeout)
            stderr.close()
            raise
        finally:
            os.close(read_fd)
        if error is not None:
            _reap(proc, timeout=self.stop_timeout)
            stderr.seek(0)
            said = self._said(stderr.read().decode(errors="replace"))
            stderr.close()
            return error + said
        self._proc, self._stderr, self._number = proc, stderr, number
        if self.cookies is not None and self._entry is not None:
            # only now, the number being the server's: a client takes the first entry for
            # a display (X's own clients) or the last (python-xlib), so there is one
            _add_cookie(self.cookies, self._entry)
        return None


_COOKIES = threading.Lock()  # servers of one process share their clients' file


def _add_cookie(path: str, entry: bytes) -> None:
    with _COOKIES:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as f:
            f.write(entry)


def _remove_cookie(path: str, entry: bytes) -> None:
    with _COOKIES:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f:
            f.write(data.replace(entry, b"", 1))  # its random cookie makes it unique


def cookie_entry(number: int, cookie: bytes) -> bytes:
    """One Xauthority entry: an MIT-MAGIC-COOKIE-1 for display `number` on this host's
    local sockets, as xauth writes it (each field length-prefixed, big-endian)."""

    def field(data: bytes) -> bytes:
        return len(data).to_bytes(2, "big") + data

    family_local = 256
    return (
        family_local.to_bytes(2, "big")
        + field(socket.gethostname().encode())
        + field(str(number).encode())
        + field(b"MIT-MAGIC-COOKIE-1")
        + field(cookie)
    )


def _free_display_number(start: int) -> int:
    """The first display number >= start that no server claims."""
    taken = _display_number(os.environ.get("DISPLAY", ""))
    for number in range(start, _LAST_DISPLAY + 1):
        if number != taken and not _display_in_use(number):
            return number
    raise RuntimeError(f"no free X display number between :{start} and :{_LAST_DISPLAY}")


def _display_in_use(number: int) -> bool:
    if os.path.exists(f"/tmp/.X{number}-lock"):
        return True
    if os.path.exists(f"{_SOCKET_DIR}/X{number}"):
        return True
    # Servers in other mount namespaces are only visible through the abstract socket.
    return _accepts_connections(f"\0{_SOCKET_DIR}/X{number}")


def local_server_listens(name: str) -> bool | None:
    """Whether an X server listens on the local display `name` (":0", "unix:0"), asked of
    its socket alone; None for a display on another host, which only connecting tells."""
    host = name.rpartition(":")[0]
    number = _display_number(name)
    if host not in ("", "unix") or number is None:
        return None
    path = f"{_SOCKET_DIR}/X{number}"
    return _accepts_connections(path) or _accepts_connections("\0" + path)


def _display_number(name: str) -> int | None:
    """The number in a DISPLAY value like ":1" or "localhost:10.0", if any."""
    _, _, rest = name.rpartition(":")
    digits = rest.split(".")[0]
    return int(digits) if digits.isdigit() else None


def _wait_until_ready(
    proc: subprocess.Popen[bytes], read_fd: int, number: int, *, timeout: float, program: str
) -> str | None:
    """Wait for the server's -displayfd report and a working socket; an error or None."""
    deadline = time.monotonic() + timeout
    reported = b""
    while not reported.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return f"{program} did not become ready within {timeout:g}s"
        ready, _, _ = select.select([read_fd], [], [], min(remaining, 0.1))
        if ready:
            chunk = os.read(read_fd, 64)
            if not chunk:  # write end closed: the server exited before it was ready
                break
            reported += chunk
        elif proc.poll() is not None:
            break
    if proc.poll() is not None:
        return f"{program} exited with code {proc.returncode} before accepting connections"
    if reported.strip() != str(number).encode():
        return f"{program} reported display {reported.strip()!r}, expected {number}"
    while not _accepts_connections(f"{_SOCKET_DIR}/X{number}"):
        if time.monotonic() > deadline:
            socket_path = f"{_SOCKET_DIR}/X{number}"
            return f"{program} did not accept connections on {socket_path} in {timeout:g}s"
        time.sleep(0.02)
    return None


def _accepts_connections(address: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(address)
        except OSError:
            return False
    return True


def _reap(proc: subprocess.Popen[bytes], *, timeout: float) -> None:
    """Terminate `proc`, escalate to SIGKILL after `timeout`, and always wait (no zombies)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
    proc.wait()
