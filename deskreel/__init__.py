"""deskreel: record and replay desktop automation on Linux/X11.

The packages: `storage` (vocabulary and store), `recorder`, `replayer`; this package holds
the command line and the glue between them. Importing it needs no display.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("deskreel")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
