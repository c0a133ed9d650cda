"""The applications of the corpus, one module each, each defining `APP`: how to start it in
each scenario, how to read its widgets, and the task a person does in it."""

from __future__ import annotations

import importlib
import pkgutil

from .app import App, Scenario, Step, by_name, by_role

__all__ = ["App", "Scenario", "Step", "apps", "by_name", "by_role"]


def apps() -> dict[str, App]:
    """Every application of the catalog, by name."""
    found = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name == "app":
            continue
        app = importlib.import_module(f"{__name__}.{module.name}").APP
        found[app.name] = app
    return found
