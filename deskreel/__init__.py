"""deskreel: record and replay desktop automation on Linux/X11.

The one import root: its layers are `deskreel.storage` (vocabulary and store),
`deskreel.matching`, `deskreel.xsession`, `deskreel.recorder` and `deskreel.replayer`; its
own modules are the command line and the glue between them (docs/architecture.md).
Importing it needs no display.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("deskreel")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
