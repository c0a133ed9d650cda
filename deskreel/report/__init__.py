"""Reports of recordings and runs: a static HTML page, and JUnit XML for CI systems."""

from .html import write_report
from .junit import write_junit

__all__ = ["write_junit", "write_report"]
