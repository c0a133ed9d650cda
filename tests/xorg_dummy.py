"""An X server with several monitors for the tests: Xorg with the dummy video driver
(xserver-xorg-video-dummy 0.4, whose RandR shows up to 16 outputs, DUMMY0 to DUMMY15), each
head a monitor of its own, side by side. Xvfb has one CRTC and cannot show two.

Xorg runs as root here (as `make test` does on CI) without a VT or input devices; XTEST and
RECORD are on by default. It is started, like Xvfb, on a free display number with
-displayfd, and stopped with SIGTERM (which removes its lock file)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Self

from deskreel.xsession.xserver import XServer

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


def config(
    heads: int, size: tuple[int, int] = (1280, 800), order: tuple[int, ...] | None = None
) -> str:
    """An xorg.conf of `heads` monitors of 1280x800 side by side, DUMMY0 leftmost, or in
    `order` from the left (head numbers)."""
    order = order or tuple(range(heads))
    left_of = dict(zip(order[1:], order))  # a head, and the one it is right of
    monitors = []
    for n in range(heads):
        place = '    Option "Enable" "true"\n' if n else ""  # the first is on by itself
        place += f'    Option "RightOf" "mon{left_of[n]}"\n' if n in left_of else ""
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


class DummyXorg(XServer):
    """Xorg on the dummy driver with `heads` monitors of 1280x800 side by side."""

    program = "Xorg"
    package = "xserver-xorg-core xserver-xorg-video-dummy"
    first_display = 90

    def __init__(
        self, heads: int = 2, *, order: tuple[int, ...] | None = None, start_timeout: float = 15.0
    ):
        super().__init__(
            width=1280 * heads, height=800, start_timeout=start_timeout, stop_timeout=10.0
        )
        self.heads, self.order = heads, order
        self._folder = Path(tempfile.mkdtemp(prefix="deskreel-xorg-"))

    def start(self) -> Self:
        try:
            conf = self._folder / "xorg.conf"
            conf.write_text(config(self.heads, order=self.order))
            (self._folder / "conf.d").mkdir()  # none of the machine's xorg.conf.d snippets
            return super().start()
        except BaseException:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self._folder, ignore_errors=True)

    def _arguments(self) -> list[str]:
        folder = self._folder
        return ["-config", str(folder / "xorg.conf"), "-configdir", str(folder / "conf.d"),
                "-logfile", str(folder / "xorg.log")]  # fmt: skip

    def _said(self, stderr: str) -> str:
        log = self._folder / "xorg.log"
        said = log.read_text(errors="replace").splitlines()[-5:] if log.exists() else []
        return f": {' | '.join(said)}" if said else super()._said(stderr)
