"""Every threshold of the matching engine lives in one frozen object (matching/params.py),
is named there once, and is used: no module keeps a number of its own, and no field is dead."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from deskreel.matching.params import PARAMS, Params

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "matching"
# the engine's modules, verify's comparison (matching/compare) among them, and verify itself:
# their thresholds are all in the same object
MODULES = [*sorted(ENGINE.rglob("*.py")), ROOT / "replayer" / "verify.py"]


def _numeric(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    return False


def _module_numbers(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text()).body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if value is not None and _numeric(value):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_engine_module_keeps_a_threshold_of_its_own() -> None:
    found = [
        where for path in MODULES if path.name != "params.py" for where in _module_numbers(path)
    ]
    assert found == [], f"thresholds outside matching/params.py: {found}"


def test_every_parameter_is_read_by_the_engine() -> None:
    users = [*MODULES, ROOT / "replayer" / "anchoring.py"]
    code = "\n".join(p.read_text() for p in users if p.name != "params.py")
    dead = [
        f.name
        for f in dataclasses.fields(Params)
        if not re.search(rf"\b(P|PARAMS)\.{f.name}\b", code)
    ]
    assert dead == []


def test_the_parameters_cannot_be_changed_in_place() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PARAMS.threshold = 0.5  # type: ignore[misc]
    assert dataclasses.replace(PARAMS, window=96).window == 96 and PARAMS.window == 64
