"""The `actions` dialect: deskreel's own vocabulary objects, nothing left out."""

from __future__ import annotations

from deskreel.storage import Action

from .dialect import Context, Dialect, Translation, one


def translate(action: Action, ctx: Context) -> Translation:
    return one(action.to_json())


DIALECT = Dialect(
    name="actions",
    translate=translate,
    join=None,
    summary="the JSON text of a list holding deskreel's vocabulary object "
    "(`Action.to_json()`): `action` plus its fields, pixel coordinates, keys in xdotool "
    "syntax. `deskreel import` reads these lines back.",
    notes=("Every action of the vocabulary is expressible.",),
)
