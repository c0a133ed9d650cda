"""An X server with several monitors for the tests: Xorg with the dummy video driver
(xserver-xorg-video-dummy 0.4, whose RandR shows up to 16 outputs, DUMMY0 to DUMMY15), each
head a monitor of its own, side by side. Xvfb has one CRTC and cannot show two.

Xorg runs as root here (as `make test` does on CI) without a VT or input devices; XTEST and
RECORD are on by default. It is started, like Xvfb, on a free display number with
-displayfd, and stopped with SIGTERM (which removes its lock file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Self

from deskreel.xsession.xvfb import _free_display_number, _reap, _wait_until_ready

__all__ = ["DummyXorg", "dummy_xorg_missing"]

DRIVER = Path("/usr/lib/xorg/modules/drivers/dummy_drv.so")
# 1280x800 at 60 Hz (cvt): the one mode each head shows
MODELINE = '"1280x800" 83.50 1280 1352 1480 1680 800 803 809 831 -hsync +vsync'


def dummy_xorg_missing() -> str | None:
    """Why a DummyXorg cannot start here; None when it can."""
    if shutil.which("Xorg") is None or not DRIVER.exists():
        return (
            "Xorg with the dummy driver is not installed (apt-get install xserver-xorg-core "
            "xserver-xorg-video-dummy)"
        )
    if os.geteuid() != 0:
        return "Xorg with the dummy driver needs root"
    return None


def config(heads: int, size: tuple[int, int] = (1280, 800)) -> str:
    """An xorg.conf of `heads` monitors of 1280x800, each right of the one before."""
    monitors = []
    for n in range(heads):
        place = f'    Option "Enable" "true"\n    Option "RightOf" "mon{n - 1}"\n' if n else ""
        monitors.append(
            f'Section "Monitor"\n    Identifier "mon{n}"\n    HorizSync 5.0-1000.0\n'
            f"    VertRefresh 5.0-200.0\n    Modeline {MODELINE}\n"
            f'    Option "PreferredMode" "1280x800"\n{place}EndSection\n'
        )
    outputs = "".join(f'    Option "Monitor-DUMMY{n}" "mon{n}"\n' for n in range(heads))
    return (
        'Section "ServerFlags"\n    Option "AutoAddDevices" "false"\n'
        '    Option "AutoEnableDevices" "false"\n    Option "AutoAddGPU" "false"\n'
        '    Option "DontVTSwitch" "true"\nEndSection\n'
        f'Section "Device"\n    Identifier "dummy"\n    Driver "dummy"\n    VideoRam 65536\n'
        f"{outputs}EndSection\n"
        + "".join(monitors)
        + 'Section "Screen"\n    Identifier "screen0"\n    Device "dummy"\n    Monitor "mon0"\n'
        '    DefaultDepth 24\n    SubSection "Display"\n        Depth 24\n'
        f"        Virtual {size[0] * heads} {size[1]}\n    EndSubSection\nEndSection\n"
    )


class DummyXorg:
    """Xorg on the dummy driver with `heads` monitors of 1280x800 side by side."""

    def __init__(self, heads: int = 2, *, start_timeout: float = 15.0):
        self.heads, self.start_timeout = heads, start_timeout
        self.width, self.height = 1280 * heads, 800
        self._folder = Path(tempfile.mkdtemp(prefix="deskreel-xorg-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self._number: int | None = None

    @property
    def display(self) -> str:
        if self._number is None:
            raise RuntimeError("DummyXorg is not started")
        return f":{self._number}"

    def env(self) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display}

    def start(self) -> Self:
        try:
            return self._start()
        except BaseException:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise

    def _start(self) -> Self:
        conf = self._folder / "xorg.conf"
        conf.write_text(config(self.heads))
        (self._folder / "conf.d").mkdir()  # none of the machine's xorg.conf.d snippets
        error = "no free display number"
        for _ in range(5):  # another server may take the number first
            number = _free_display_number(90)
            error = self._try(conf, number) or ""
            if not error:
                return self
        raise RuntimeError(f"Xorg (dummy) did not start: {error}")

    def _try(self, conf: Path, number: int) -> str | None:
        read_fd, write_fd = os.pipe()
        argv = [
            "Xorg", f":{number}", "-config", str(conf), "-configdir", str(conf.parent / "conf.d"),
            "-noreset", "-nolisten", "tcp",
            "-logfile", str(self._folder / "xorg.log"), "-displayfd", str(write_fd),
        ]  # fmt: skip
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_fd,),
                start_new_session=True,
            )
        finally:
            os.close(write_fd)
        try:
            error = _wait_until_ready(proc, read_fd, number, timeout=self.start_timeout)
        finally:
            os.close(read_fd)
        if error is not None:
            _reap(proc, timeout=5.0)
            log = self._folder / "xorg.log"
            said = log.read_text(errors="replace").splitlines()[-5:] if log.exists() else []
            return f":{number}: {error.replace('Xvfb', 'Xorg')}: {' | '.join(said)}"
        self._proc, self._number = proc, number
        return None

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            _reap(proc, timeout=10.0)
        self._number = None
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
