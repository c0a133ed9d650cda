"""`deskreel export`: every dialect, golden lines on a real recording, frames, files, privacy."""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from deskreel.cli import run
from deskreel.export import DIALECTS, Context, NotExpressible
from deskreel.storage import ACTIONS as ACTION_KINDS
from deskreel.storage import Action, Script, ScriptStep, script_lines
from tests.fixture_recording import ACTIONS, SCREEN, SECRET_ENV, build_recording, draw, frame_of

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DIALECT_FORMATS = ("anthropic", "normalized", "browsergym", "pyautogui")


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return build_recording(tmp_path_factory.mktemp("db") / "rec.db")


def decoded(fmt: str, action: str | None) -> Any:
    """A line's action as the goldens write it: code, one object, or a list of objects."""
    if action is None or DIALECTS[fmt].join is not None:
        return action
    calls = json.loads(action)
    return calls[0] if len(calls) == 1 else calls


def read_lines(out: Path, fmt: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    return [{**line, "action": decoded(fmt, line["action"])} for line in lines]


def export_dir(fixture, tmp_path, fmt: str, *options: object) -> list[dict[str, Any]]:
    out = tmp_path / f"out-{fmt}"
    assert deskreel("export", fixture.db, "--format", fmt, "--out", out, *options) == 0
    return read_lines(out, fmt)


# -- golden lines: the fixture recording in each dialect ------------------------------------

NULL = None
GOLDEN: dict[str, dict[int, Any]] = {
    "actions": {
        n: Action.from_json(obj).to_json()
        for n, (obj, disabled) in enumerate(ACTIONS, start=1)
        if not disabled
    },
    "anthropic": {
        1: {"action": "mouse_move", "coordinate": [100, 50]},
        2: {"action": "left_click", "coordinate": [40, 30]},
        3: {"action": "type", "text": "hello world"},
        4: {"action": "key", "text": "Return"},
        5: {"action": "key", "text": "ctrl+s"},
        6: {"action": "hold_key", "text": "Shift_L", "duration": 0.8},
        7: {"action": "left_click", "coordinate": [60, 70], "text": "shift"},
        8: {"action": "right_click", "coordinate": [200, 100]},
        9: {"action": "middle_click", "coordinate": [210, 110]},
        10: {"action": "double_click", "coordinate": [120, 80]},
        11: {"action": "triple_click", "coordinate": [130, 90]},
        12: {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [150, 120]},
        13: {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "down",
            "scroll_amount": 3,
        },
        14: {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "up",
            "scroll_amount": 2,
        },
        15: {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "left",
            "scroll_amount": 1,
        },
        16: {
            "action": "scroll",
            "coordinate": [300, 190],
            "scroll_direction": "right",
            "scroll_amount": 4,
            "text": "ctrl",
        },
        17: {"action": "wait", "duration": 1.5},
        18: [{"action": "mouse_move", "coordinate": [50, 60]}, {"action": "left_mouse_down"}],
        19: {"action": "left_mouse_up"},
        20: {"action": "screenshot"},
        21: {"action": "cursor_position"},
        22: {"action": "key", "text": "Prior"},
        23: {"action": "type", "text": "{{env:DESKREEL_TEST_SECRET}}"},
        25: {"action": "type", "text": "café ✓"},
        26: NULL,
        27: {"action": "key", "text": "Escape"},
        28: {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "right",
            "scroll_amount": 2,
        },
    },
    "normalized": {
        1: {"action": "mouse_move", "to_coordinate": [0.3125, 0.25]},
        2: {"action": "left_click", "at_coordinate": [0.125, 0.15], "with_key": None},
        3: {"action": "type", "text": "hello world", "submit": True},  # step 4 folded in
        5: {"action": "key", "text": ["ctrl", "s"], "with_duration": None},
        6: {"action": "key", "text": ["shift"], "with_duration": 0.8},
        7: {"action": "left_click", "at_coordinate": [0.1875, 0.35], "with_key": "shift"},
        8: {"action": "right_click", "at_coordinate": [0.625, 0.5], "with_key": None},
        9: {"action": "middle_click", "at_coordinate": [0.6562, 0.55], "with_key": None},
        10: {"action": "double_click", "at_coordinate": [0.375, 0.4], "with_key": None},
        11: {"action": "triple_click", "at_coordinate": [0.4062, 0.45], "with_key": None},
        12: {
            "action": "left_click_drag",
            "from_coordinate": [0.0312, 0.05],
            "to_coordinate": [0.4688, 0.6],
            "with_key": None,
        },
        13: {
            "action": "scroll",
            "at_coordinate": [0.5, 0.5],
            "scroll_direction": "down",
            "scroll_amount": 3,
        },
        14: {
            "action": "scroll",
            "at_coordinate": [0.5, 0.5],
            "scroll_direction": "up",
            "scroll_amount": 2,
        },
        15: {
            "action": "scroll",
            "at_coordinate": [0.5, 0.5],
            "scroll_direction": "left",
            "scroll_amount": 1,
        },
        16: NULL,
        17: {"action": "wait", "duration": 1.5},
        18: NULL,
        19: NULL,
        20: NULL,
        21: NULL,
        22: {"action": "key", "text": ["pageup"], "with_duration": None},
        23: {"action": "type", "text": "{{env:DESKREEL_TEST_SECRET}}", "submit": False},
        25: {"action": "type", "text": "café ✓", "submit": False},
        26: {
            "action": "left_click_drag",
            "from_coordinate": [0.0625, 0.9],
            "to_coordinate": [0.9375, 0.1],
            "with_key": "shift",
        },
        27: {"action": "key", "text": ["esc"], "with_duration": None},
        28: {
            "action": "scroll",
            "at_coordinate": [0.5, 0.5],
            "scroll_direction": "right",
            "scroll_amount": 2,
        },
    },
    "browsergym": {
        1: "mouse_move(100, 50)",
        2: "mouse_click(40, 30)",
        3: "keyboard_type('hello world')",
        4: "keyboard_press('Enter')",
        5: "keyboard_press('Control+s')",
        6: "keyboard_down('Shift')\nnoop(800)\nkeyboard_up('Shift')",
        7: "keyboard_down('Shift')\nmouse_click(60, 70)\nkeyboard_up('Shift')",
        8: "mouse_click(200, 100, button='right')",
        9: "mouse_click(210, 110, button='middle')",
        10: "mouse_dblclick(120, 80)",
        11: NULL,
        12: "mouse_drag_and_drop(10, 10, 150, 120)",
        13: "scroll_at(160, 100, 0, 300)",
        14: "scroll_at(160, 100, 0, -200)",
        15: "scroll_at(160, 100, -100, 0)",
        16: "keyboard_down('Control')\nscroll_at(300, 190, 400, 0)\nkeyboard_up('Control')",
        17: "noop(1500)",
        18: "mouse_down(50, 60)",
        19: "mouse_up(50, 60)",  # where step 18 left the pointer
        20: NULL,
        21: NULL,
        22: "keyboard_press('PageUp')",
        23: "keyboard_type('{{env:DESKREEL_TEST_SECRET}}')",
        25: "keyboard_type('café ✓')",
        26: "keyboard_down('Shift')\nmouse_drag_and_drop(20, 180, 300, 20)\nkeyboard_up('Shift')",
        27: "keyboard_press('Escape')",
        28: "scroll_at(160, 100, 200, 0)",
    },
    "pyautogui": {
        1: "pyautogui.moveTo(100, 50)",
        2: "pyautogui.click(40, 30)",
        3: "pyautogui.write('hello world')",
        4: "pyautogui.press('enter')",
        5: "pyautogui.hotkey('ctrl', 's')",
        6: "pyautogui.keyDown('shift'); time.sleep(0.8); pyautogui.keyUp('shift')",
        7: "pyautogui.keyDown('shift'); pyautogui.click(60, 70); pyautogui.keyUp('shift')",
        8: "pyautogui.click(200, 100, button='right')",
        9: "pyautogui.click(210, 110, button='middle')",
        10: "pyautogui.doubleClick(120, 80)",
        11: "pyautogui.tripleClick(130, 90)",
        12: "pyautogui.moveTo(10, 10); pyautogui.dragTo(150, 120, duration=0.5, button='left')",
        13: "pyautogui.scroll(-3, x=160, y=100)",
        14: "pyautogui.scroll(2, x=160, y=100)",
        15: "pyautogui.hscroll(-1, x=160, y=100)",
        16: "pyautogui.keyDown('ctrl'); pyautogui.hscroll(4, x=300, y=190); "
        "pyautogui.keyUp('ctrl')",
        17: "time.sleep(1.5)",
        18: "pyautogui.mouseDown(50, 60, button='left')",
        19: "pyautogui.mouseUp(button='left')",
        20: NULL,
        21: NULL,
        22: "pyautogui.press('pageup')",
        23: "pyautogui.write('{{env:DESKREEL_TEST_SECRET}}')",
        25: NULL,
        26: "pyautogui.moveTo(20, 180); pyautogui.keyDown('shift'); "
        "pyautogui.dragTo(300, 20, duration=0.5, button='left'); pyautogui.keyUp('shift')",
        27: "pyautogui.press('esc')",
        28: "pyautogui.hscroll(2, x=160, y=100)",
    },
}
UNEXPRESSED = {
    "actions": {},
    "anthropic": {26: "left_click_drag takes no modifier keys"},
    "normalized": {
        16: "scroll takes no modifier keys",
        18: "no separate button press",
        19: "no separate button release",
        20: "no screenshot action",
        21: "pointer position",
    },
    "browsergym": {11: "no triple click", 20: "no screenshot action", 21: "pointer position"},
    "pyautogui": {20: "no screenshot action", 21: "never reaches the agent", 25: "ASCII only"},
}


@pytest.mark.parametrize("fmt", GOLDEN)
def test_golden_lines(fixture, tmp_path, fmt):
    lines = export_dir(fixture, tmp_path, fmt)
    assert {line["step"]: line["action"] for line in lines} == GOLDEN[fmt]
    reasons = {line["step"]: line["unexpressed"] for line in lines if line["unexpressed"]}
    assert set(reasons) == set(UNEXPRESSED[fmt])
    for step, words in UNEXPRESSED[fmt].items():
        assert words in reasons[step]
    assert [line["step"] for line in lines] == sorted(GOLDEN[fmt])  # recorded order
    assert all(
        line["recording"] == "every-kind" and line["screen"] == list(SCREEN) for line in lines
    )


@pytest.mark.parametrize("fmt", ["browsergym", "pyautogui"])
def test_code_dialects_are_python(fixture, tmp_path, fmt):
    """Every call string parses, and calls only the dialect's own functions."""
    allowed = {
        "browsergym": {
            "mouse_move",
            "mouse_click",
            "mouse_dblclick",
            "mouse_down",
            "mouse_up",
            "mouse_drag_and_drop",
            "scroll_at",
            "keyboard_press",
            "keyboard_down",
            "keyboard_up",
            "keyboard_type",
            "noop",
        },
        "pyautogui": {"pyautogui", "time"},
    }[fmt]
    for line in export_dir(fixture, tmp_path, fmt):
        if line["action"] is None:
            continue
        tree = ast.parse(line["action"])
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.value.id
                assert name in allowed, line["action"]


# -- one action at a time: key names and the corners of each dialect -------------------------


def translate(
    fmt: str, obj: dict[str, Any], *, screen=(1000, 500), pointer=None, following=None
) -> Any:
    dialect = DIALECTS[fmt]
    ctx = Context(screen, pointer, Action.from_json(following) if following else None)
    return decoded(fmt, dialect.render(dialect.translate(Action.from_json(obj), ctx).items))


def key(text: str, **more: Any) -> dict[str, Any]:
    return {"action": "key", "text": text, **more}


def scroll(at: list[int], direction: str, amount: int = 1, **more: Any) -> dict[str, Any]:
    return {
        "action": "scroll",
        "coordinate": at,
        "scroll_direction": direction,
        "scroll_amount": amount,
        **more,
    }


TABLE = [
    ("browsergym", key("BackSpace"), "keyboard_press('Backspace')"),
    ("browsergym", key("Next"), "keyboard_press('PageDown')"),
    ("browsergym", key("Left"), "keyboard_press('ArrowLeft')"),
    ("browsergym", key("super+shift+t"), "keyboard_press('Meta+Shift+t')"),
    ("browsergym", key("alt+F4"), "keyboard_press('Alt+F4')"),
    ("browsergym", key("ctrl+plus"), "keyboard_press('Control++')"),
    ("browsergym", key("KP_0"), "keyboard_press('Numpad0')"),
    ("browsergym", key("Tab"), "keyboard_press('Tab')"),
    ("browsergym", key("space"), "keyboard_press('Space')"),
    ("browsergym", key("XF86AudioMute"), "keyboard_press('AudioVolumeMute')"),
    (
        "browsergym",
        key("ctrl+shift", duration=1.25),
        "keyboard_down('Control')\nkeyboard_down('Shift')\nnoop(1250)\nkeyboard_up('Shift')\n"
        "keyboard_up('Control')",
    ),
    (
        "browsergym",
        {"action": "type", "text": 'it\'s "quoted"\nline 2 ü'},
        "keyboard_type('it\\'s \"quoted\"\\nline 2 ü')",
    ),
    ("browsergym", {"action": "left_mouse_up"}, NotExpressible),  # pointer unknown
    ("pyautogui", key("BackSpace"), "pyautogui.press('backspace')"),
    ("pyautogui", key("Next"), "pyautogui.press('pagedown')"),
    ("pyautogui", key("super+l"), "pyautogui.hotkey('win', 'l')"),
    ("pyautogui", key("ctrl+alt+Delete"), "pyautogui.hotkey('ctrl', 'alt', 'delete')"),
    ("pyautogui", key("F5"), "pyautogui.press('f5')"),
    ("pyautogui", key("KP_7"), "pyautogui.press('num7')"),
    ("pyautogui", key("ctrl+minus"), "pyautogui.hotkey('ctrl', '-')"),
    ("pyautogui", key("udiaeresis"), NotExpressible),
    ("pyautogui", {"action": "type", "text": "a\tb\n"}, "pyautogui.write('a\\tb\\n')"),
    ("pyautogui", {"action": "left_mouse_down"}, "pyautogui.mouseDown(button='left')"),
    (
        "normalized",
        key("ctrl+shift+t"),
        {"action": "key", "text": ["ctrl", "shift", "t"], "with_duration": None},
    ),
    ("normalized", key("Return"), {"action": "key", "text": ["enter"], "with_duration": None}),
    (
        "normalized",
        key("super+Tab"),
        {"action": "key", "text": ["super", "tab"], "with_duration": None},
    ),
    (
        "normalized",
        {
            "action": "scroll",
            "coordinate": [999, 0],
            "scroll_direction": "down",
            "scroll_amount": 65,
        },
        [
            {
                "action": "scroll",
                "at_coordinate": [0.999, 0.0],
                "scroll_direction": "down",
                "scroll_amount": n,
            }
            for n in (30, 30, 5)
        ],
    ),
    # anthropic: every action kind of the vocabulary
    ("anthropic", key("alt+Tab"), {"action": "key", "text": "alt+Tab"}),
    ("anthropic", key("KP_0"), {"action": "key", "text": "KP_0"}),
    (
        "anthropic",
        key("ctrl+shift+t", duration=2),
        {"action": "hold_key", "text": "ctrl+shift+t", "duration": 2.0},
    ),
    ("anthropic", {"action": "type", "text": "ü\n"}, {"action": "type", "text": "ü\n"}),
    (
        "anthropic",
        {"action": "mouse_move", "coordinate": [1, 2]},
        {"action": "mouse_move", "coordinate": [1, 2]},
    ),
    (
        "anthropic",
        {"action": "left_click", "coordinate": [1, 2]},
        {"action": "left_click", "coordinate": [1, 2]},
    ),
    (
        "anthropic",
        {"action": "right_click", "coordinate": [1, 2], "with_key": "alt"},
        {"action": "right_click", "coordinate": [1, 2], "text": "alt"},
    ),
    (
        "anthropic",
        {"action": "middle_click", "coordinate": [1, 2]},
        {"action": "middle_click", "coordinate": [1, 2]},
    ),
    (
        "anthropic",
        {"action": "double_click", "coordinate": [5, 6], "with_key": "ctrl+shift"},
        {"action": "double_click", "coordinate": [5, 6], "text": "ctrl+shift"},
    ),
    (
        "anthropic",
        {"action": "triple_click", "coordinate": [5, 6], "with_key": "super"},
        {"action": "triple_click", "coordinate": [5, 6], "text": "super"},
    ),
    (
        "anthropic",
        {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]},
        {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]},
    ),
    (
        "anthropic",
        {
            "action": "left_click_drag",
            "start_coordinate": [1, 2],
            "coordinate": [3, 4],
            "with_key": "ctrl",
        },
        NotExpressible,
    ),
    ("anthropic", {"action": "left_mouse_down"}, {"action": "left_mouse_down"}),
    (
        "anthropic",
        {"action": "left_mouse_down", "coordinate": [7, 8]},
        [{"action": "mouse_move", "coordinate": [7, 8]}, {"action": "left_mouse_down"}],
    ),
    (
        "anthropic",
        {"action": "left_mouse_up", "coordinate": [7, 8]},
        [{"action": "mouse_move", "coordinate": [7, 8]}, {"action": "left_mouse_up"}],
    ),
    (
        "anthropic",
        scroll([9, 9], "left", 30),
        {"action": "scroll", "coordinate": [9, 9], "scroll_direction": "left", "scroll_amount": 30},
    ),
    (
        "anthropic",
        scroll([9, 9], "up", with_key="shift"),
        {
            "action": "scroll",
            "coordinate": [9, 9],
            "scroll_direction": "up",
            "scroll_amount": 1,
            "text": "shift",
        },
    ),
    ("anthropic", {"action": "wait", "duration": 0.25}, {"action": "wait", "duration": 0.25}),
    ("anthropic", {"action": "screenshot"}, {"action": "screenshot"}),
    ("anthropic", {"action": "screenshot", "region": [0, 0, 5, 5]}, {"action": "screenshot"}),
    ("anthropic", {"action": "cursor_position"}, {"action": "cursor_position"}),
]


@pytest.mark.parametrize("fmt,obj,expected", TABLE)
def test_translation_table(fmt, obj, expected):
    if expected is NotExpressible:
        with pytest.raises(NotExpressible):
            translate(fmt, obj)
    else:
        assert translate(fmt, obj) == expected


def test_the_anthropic_rows_hold_every_action_kind():
    assert {obj["action"] for fmt, obj, _ in TABLE if fmt == "anthropic"} == set(ACTION_KINDS)


def test_submit_folds_only_a_plain_return():
    typed = {"action": "type", "text": "q"}
    folds = DIALECTS["normalized"].translate
    assert folds(
        Action.from_json(typed), Context(SCREEN, None, Action.from_json(key("Return")))
    ).folds_next
    for following in (key("Return", duration=1), key("KP_Enter"), key("Tab"), None):
        ctx = Context(SCREEN, None, Action.from_json(following) if following else None)
        assert not folds(Action.from_json(typed), ctx).folds_next


def test_normalized_needs_a_screen_size():
    with pytest.raises(NotExpressible, match="screen size is unknown"):
        translate("normalized", {"action": "left_click", "coordinate": [1, 2]}, screen=None)


def export_script(tmp_path, fmt: str, objects: list[dict[str, Any]]) -> dict[int, Any]:
    """Import `objects` as a script, export it in `fmt`: step number -> line's action."""
    script, db, out = tmp_path / "script.jsonl", tmp_path / "script.db", tmp_path / fmt
    script.write_text("".join(json.dumps(obj) + "\n" for obj in objects))
    assert deskreel("import", script, db) == 0
    assert deskreel("export", db, "--format", fmt, "--out", out) == 0
    return {line["step"]: line["action"] for line in read_lines(out, fmt)}


def test_an_unexpressed_step_does_not_move_the_pointer(tmp_path):
    """BrowserGym never performed the triple click, so the pointer is still at (10, 10)
    when the button goes down."""
    lines = export_script(
        tmp_path,
        "browsergym",
        [
            {"action": "mouse_move", "coordinate": [10, 10]},
            {"action": "triple_click", "coordinate": [50, 50]},
            {"action": "left_mouse_down"},
            {"action": "left_mouse_up"},
        ],
    )
    assert lines == {
        1: "mouse_move(10, 10)",
        2: None,
        3: "mouse_down(10, 10)",
        4: "mouse_up(10, 10)",
    }


# -- pairing, frames and scaling ------------------------------------------------------------


def test_lines_pair_the_before_frame_with_the_action(fixture, tmp_path):
    lines = export_dir(fixture, tmp_path, "anthropic", "--with-after")
    for line in lines:
        step = line["step"]
        if ACTIONS[step - 1][0]["action"] == "wait":
            assert line["file_name"] == "" and line["image_after_file_name"] is None
            continue
        k = frame_of(step)
        assert line["file_name"] == f"frames/{fixture.frames[k]}.png"
        assert line["image_after_file_name"] == f"frames/{fixture.frames[k + 1]}.png"
    assert 24 not in {line["step"] for line in lines}  # disabled
    out = tmp_path / "out-anthropic"
    named = {line[k] for line in lines for k in ("file_name", "image_after_file_name") if line[k]}
    assert {f"frames/{p.name}" for p in (out / "frames").iterdir()} == named
    png = cv2.imread(str(out / lines[0]["file_name"]))
    assert png.shape[:2] == (SCREEN[1], SCREEN[0])
    assert np.array_equal(png, draw(0))  # lossless all the way


def test_without_after_frames_only_before_frames_are_written(fixture, tmp_path):
    lines = export_dir(fixture, tmp_path, "actions")
    assert all("image_after_file_name" not in line for line in lines)
    frames = {p.name for p in (tmp_path / "out-actions" / "frames").iterdir()}
    assert frames == {Path(line["file_name"]).name for line in lines if line["file_name"]}


def test_folded_submit_pairs_with_the_screen_after_the_return(fixture, tmp_path):
    lines = export_dir(fixture, tmp_path, "normalized", "--with-after")
    typed = next(line for line in lines if line["step"] == 3)
    assert typed["file_name"] == f"frames/{fixture.frames[frame_of(3)]}.png"
    assert typed["image_after_file_name"] == f"frames/{fixture.frames[frame_of(4) + 1]}.png"


def test_scale_to_resizes_frames_and_coordinates_per_axis(fixture, tmp_path):
    lines = export_dir(fixture, tmp_path, "anthropic", "--scale-to", "160x160")
    by_step = {line["step"]: line["action"] for line in lines}
    assert by_step[2] == {"action": "left_click", "coordinate": [20, 24]}  # x/2, y*0.8
    assert by_step[12]["start_coordinate"] == [5, 8]
    assert by_step[16]["coordinate"] == [150, 152]
    assert all(line["screen"] == [160, 160] for line in lines)
    for png in (tmp_path / "out-anthropic" / "frames").iterdir():
        assert cv2.imread(str(png)).shape[:2] == (160, 160)
    card = (tmp_path / "out-anthropic" / "README.md").read_text()
    assert "160x160" in card and "INTER_AREA" in card
    scaled = export_dir(fixture, tmp_path, "actions", "--scale-to", "160x160")
    region = next(line["action"] for line in scaled if line["step"] == 20)["region"]
    assert region == [0, 0, 80, 80]


def test_scale_to_keeps_normalised_coordinates(fixture, tmp_path):
    plain = export_dir(fixture, tmp_path, "normalized")
    (tmp_path / "scaled").mkdir()
    # x * 2, y * 3: coordinates that were not scaled per axis would not normalise back
    scaled = export_dir(fixture, tmp_path / "scaled", "normalized", "--scale-to", "640x600")
    assert all(line["screen"] == [640, 600] for line in scaled)
    assert [line["action"] for line in scaled] == [line["action"] for line in plain]


def test_off_screen_coordinates_are_reported_not_clamped(tmp_path, capsys):
    """Steps stored before `edit` checked inserted coordinates may lie off the screen: no
    dialect pairs them with it, normalises them beyond 1 or scales them onto its edge."""
    from deskreel.storage import Step, open_store

    OFF = len(ACTIONS) + 1  # the first step added here
    db = build_recording(tmp_path / "rec.db").db
    off = [
        Action.from_json({"action": "left_click", "coordinate": [640, 400]}),
        Action.from_json(
            {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [10, 200]}
        ),
        Action.from_json({"action": "screenshot", "region": [300, 0, 40, 10]}),
        Action.from_json({"action": "left_click", "coordinate": [319, 199]}),
    ]  # on it
    with open_store(db) as store:
        store.add_steps(
            1,
            [
                Step(step=OFF + i, action=a, t_start=40.0 + i, t_end=40.0 + i)
                for i, a in enumerate(off)
            ],
        )
    capsys.readouterr()
    for fmt, options in (("normalized", ()), ("anthropic", ("--scale-to", "160x100"))):
        out = tmp_path / fmt
        assert deskreel("export", db, "--format", fmt, "--out", out, *options) == 0
        lines = {line["step"]: line for line in read_lines(out, fmt)}
        assert [lines[OFF + i]["action"] for i in range(3)] == [None, None, None]
        assert lines[OFF]["unexpressed"] == (
            "its coordinate [640, 400] is off the 320x200 screen of the recording"
        )
        assert "coordinate [10, 200] is off" in lines[OFF + 1]["unexpressed"]
        assert "region [300, 0, 40, 10] is off" in lines[OFF + 2]["unexpressed"]
        err = capsys.readouterr().err
        assert (
            f"{fmt} cannot express 1 left_click step: its coordinate [640, 400] is off "
            f"the 320x200 screen of the recording (action null)"
        ) in err
        assert "1 left_click step: its coordinate [640, 400]" in (out / "README.md").read_text()
    assert lines[OFF + 3]["action"] == {"action": "left_click", "coordinate": [159, 99]}
    assert deskreel("export", db, "--out", tmp_path / "plain.jsonl", "--scale-to", "160x100") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"deskreel: step {OFF} cannot be scaled: its coordinate [640, 400] is off the "
        "320x200 screen of the recording; fix it with 'deskreel edit' or export "
        "without --scale-to"
    ]
    assert not (tmp_path / "plain.jsonl").exists()
    assert deskreel("export", db, "--out", tmp_path / "plain.jsonl") == 0  # as it was recorded
    assert '"coordinate":[640,400]' in (tmp_path / "plain.jsonl").read_text().replace(" ", "")


# -- files: plain lines, the dataset directory, atomicity ------------------------------------


def plain_lines(fixture) -> str:
    enabled = [st for st in fixture.steps if not st.disabled]
    steps = tuple(ScriptStep(st.action, st.t_start, st.note) for st in enabled)
    return script_lines(Script(steps, screen=SCREEN))


def test_plain_lines_are_the_import_format_and_round_trip(fixture, tmp_path, capsys):
    capsys.readouterr()
    assert deskreel("export", fixture.db, "-r", fixture.name) == 0
    text, err = capsys.readouterr()
    assert text == plain_lines(fixture)
    left_out = sum(st.disabled for st in fixture.steps)
    assert left_out and f"{left_out} disabled step" in err  # said, not silently dropped
    out = tmp_path / "steps.jsonl"
    assert deskreel("export", fixture.db, "-r", fixture.name, "--out", out) == 0
    assert out.read_text() == text
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    db = tmp_path / "again.db"
    assert deskreel("import", out, db, "--name", "again") == 0
    capsys.readouterr()
    assert deskreel("export", db, "-r", "again") == 0
    assert capsys.readouterr().out == text


def test_an_actions_dataset_imports_too(fixture, tmp_path, capsys):
    """The lines of an `actions` dataset directory import as the plain lines do: the same
    steps and times back, the frames they were paired with left behind."""
    export_dir(fixture, tmp_path, "actions", "--with-after")
    db = tmp_path / "again.db"
    assert deskreel("import", tmp_path / "out-actions" / "metadata.jsonl", db) == 0
    capsys.readouterr()
    assert deskreel("export", db) == 0
    assert capsys.readouterr().out == plain_lines(fixture)


def test_dataset_directory_is_private_and_complete(fixture, tmp_path):
    export_dir(fixture, tmp_path, "pyautogui", "--with-after")
    out = tmp_path / "out-pyautogui"
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert stat.S_IMODE((out / "frames").stat().st_mode) == 0o700
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"README.md", "metadata.jsonl"}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    assert [p.name for p in tmp_path.iterdir()] == ["out-pyautogui"]  # no temporary left


def test_dataset_card_says_what_is_inside(fixture, tmp_path, capsys):
    capsys.readouterr()
    export_dir(fixture, tmp_path, "pyautogui")
    err = capsys.readouterr().err
    card = (tmp_path / "out-pyautogui" / "README.md").read_text()
    assert card.startswith("---\n") and "\n---\n\n# deskreel export: pyautogui" in card
    for words in (
        "| every-kind | ",
        "320x200",
        "## Pairing rule",
        "before-frame",
        "| `scroll` | 5 |",
        "| `key` | 5 |",
        "`x, y` in pixels: `pyautogui.click`",
    ):
        assert words in card, words
    for lost in (
        "pyautogui cannot express 1 type step: pyautogui.write types ASCII only",
        "pyautogui cannot express 1 screenshot step",
        "pyautogui cannot express 1 cursor_position step",
    ):
        assert lost in card and lost in err
    assert "wrote 1 recording (27 lines, 26 frames) as pyautogui" in err


def test_lossy_steps_are_reported_too(fixture, tmp_path, capsys):
    capsys.readouterr()
    export_dir(fixture, tmp_path, "anthropic")
    err = capsys.readouterr().err
    assert "anthropic expressed 1 screenshot step without: the region" in err
    assert "anthropic cannot express 1 left_click_drag step" in err
    card = (tmp_path / "out-anthropic/README.md").read_text()
    assert "Nothing: every exported step" not in card
    assert "(computer_20250124)" in card and "Tool version `computer_20250124`" in card


def test_a_non_empty_directory_is_refused_unless_a_previous_export(fixture, tmp_path, capsys):
    out = tmp_path / "data"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for extra in ((), ("--force",)):
        assert deskreel("export", fixture.db, "--format", "normalized", "--out", out, *extra) == 2
        assert (out / "notes.txt").read_text() == "mine"
    err = capsys.readouterr().err
    assert "is not empty: choose a new directory, or add --force" in err
    assert "is not a deskreel export, so --force will not replace it" in err

    done = tmp_path / "done"
    export_dir(fixture, tmp_path, "actions")
    (tmp_path / "out-actions").rename(done)
    assert deskreel("export", fixture.db, "--format", "normalized", "--out", done) == 2
    assert deskreel("export", fixture.db, "--format", "normalized", "--out", done, "--force") == 0
    assert "\n# deskreel export: normalized" in (done / "README.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "done"]


def test_an_empty_directory_is_used(fixture, tmp_path):
    (tmp_path / "out-browsergym").mkdir(mode=0o755)
    assert export_dir(fixture, tmp_path, "browsergym")
    assert stat.S_IMODE((tmp_path / "out-browsergym").stat().st_mode) == 0o700


def test_a_failed_export_leaves_nothing(fixture, tmp_path, monkeypatch, capsys):
    from deskreel.export import writer

    calls = []

    def broken(data, fmt, size):
        calls.append(1)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        return data

    monkeypatch.setattr(writer, "png_frame", broken)
    capsys.readouterr()
    assert deskreel("export", fixture.db, "--format", "anthropic", "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "nothing was written" in err
    assert len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_all_recordings_with_a_progress_bar(fixture, tmp_path, capsys):
    db = tmp_path / "two.db"
    build_recording(db, name="first")
    assert (
        deskreel("import", SAMPLES / "scripts" / "every-action.json", db, "--name", "a/script") == 0
    )
    capsys.readouterr()
    out = tmp_path / "all"
    assert deskreel("export", db, "--all", "--format", "browsergym", "--out", out) == 0
    captured = capsys.readouterr()
    assert "exporting" in captured.err and captured.out == ""
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["metadata.jsonl"]
    lines = read_lines(out, "browsergym")
    assert [line["recording"] for line in lines] == ["first"] * 27 + ["a/script"] * 20
    script = lines[27:]
    assert all(line["file_name"] == "" and line["screen"] == [] for line in script)
    assert script[0]["action"] == "mouse_move(200, 150)"
    card = (out / "README.md").read_text()
    # recording | id | source | lines | recorded screen | exported screen | monitors | duration
    assert "| a/script | 2 | script | 20 | unknown | unknown | unknown |" in card
    assert "| first | 1 | recorder | 27 | 320x200 | 320x200 |" in card
    assert 'HighLevelActionSet(subsets=["coord"], multiaction=True)' in card


def test_the_progress_bar_moves_on_a_terminal(tmp_path):
    """click draws the bar only on a terminal: it fills as each recording is done."""
    db = tmp_path / "two.db"
    for name in ("first", "second"):
        build_recording(db, name=name)
    screen = on_a_terminal(
        "export", db, "--all", "--format", "browsergym", "--out", tmp_path / "all"
    )
    states = [part.strip() for part in screen.split("\r") if "exporting" in part]
    assert [state.split("]")[-1].split() for state in states] == [
        ["0%"],
        ["50%", "first"],
        ["100%", "second"],
    ], screen
    assert "wrote 2 recordings" in screen


def on_a_terminal(*args: object) -> str:
    """What `python -m deskreel ARGS` shows on a terminal's stderr."""
    main, terminal = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", *map(str, args)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # EIO: the process closed the terminal
            break
        if not data:
            break
        shown += data
    os.close(main)
    assert proc.wait(timeout=60) == 0, shown
    return re.sub(r"\x1b\[[?0-9;]*[A-Za-z]", "", shown.decode())  # without cursor codes


# -- usage ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,message",
    [
        (["-r", "1", "--all", "--out", "{tmp}/x"], "give -r/--recording or --all, not both"),
        (["--format", "anthropic"], "--format anthropic writes a dataset directory"),
        (["--format", "anthropic", "--out", "{tmp}/x.jsonl"], "give it with --out DIR"),
        (["--all"], "--all writes a dataset directory"),
        (["--with-after"], "--with-after pairs frames"),
        (["--scale-to", "12by3", "--out", "{tmp}/x"], "write WIDTHxHEIGHT"),
        (["--scale-to", "\u00b2x100", "--out", "{tmp}/x"], "write WIDTHxHEIGHT"),  # superscript 2
        (["--scale-to", "\u0661\u0662x100", "--out", "{tmp}/x"], "write WIDTHxHEIGHT"),  # Arabic 12
        (["--scale-to", "0x100", "--out", "{tmp}/x"], "write WIDTHxHEIGHT"),
        (["--format", "pyautogui", "--out", "{tmp}/no/such/dir"], "does not exist"),
        (["-r", "nope", "--out", "{tmp}/x"], "has no recording 'nope'"),
    ],
)
def test_usage_errors_are_one_line(fixture, tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert deskreel("export", fixture.db, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    if err[0].startswith("Usage:"):  # click's own report of a bad option value
        assert err[-1].startswith("Error: Invalid value for '--scale-to'"), err
    else:
        assert len(err) == 1, err
    assert message in err[-1]
    assert list(tmp_path.iterdir()) == []  # neither x nor x.jsonl nor a temporary


@pytest.mark.parametrize(
    "target",
    [
        "/proc/deskreel-export",
        "{tmp}/file/out",
        "/proc/deskreel-export.jsonl",
        "{tmp}/file/out.jsonl",
    ],
)
def test_an_unwritable_target_is_one_line_and_leaves_nothing(fixture, tmp_path, capsys, target):
    (tmp_path / "file").write_text("a regular file, not a directory")
    out = Path(target.replace("{tmp}", str(tmp_path)))
    fmt = "actions" if out.suffix == ".jsonl" else "anthropic"
    capsys.readouterr()
    assert deskreel("export", fixture.db, "--format", fmt, "--out", out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"deskreel: cannot write {out}"), err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["file"]
    assert not [p for p in Path("/proc").iterdir() if p.name.startswith(".deskreel-export")]


def test_scale_to_needs_a_screen_size(tmp_path, capsys):
    db = tmp_path / "rec.db"
    deskreel("import", SAMPLES / "scripts" / "every-action.json", db)
    capsys.readouterr()
    for out in (tmp_path / "x", tmp_path / "x.jsonl"):
        assert deskreel("export", db, "--scale-to", "100x100", "--out", out) == 2
        assert "has no screen size" in capsys.readouterr().err
        assert not out.exists()


# -- privacy --------------------------------------------------------------------------------


def test_no_export_ever_holds_an_env_value(fixture, tmp_path, monkeypatch, capsys):
    secret = "hunter2-Z9q-secret-value"
    monkeypatch.setenv(SECRET_ENV, secret)
    written: list[Path] = []
    for fmt in DIALECTS:
        out = tmp_path / fmt
        assert deskreel("export", fixture.db, "--format", fmt, "--out", out, "--with-after") == 0
        written += [p for p in out.rglob("*") if p.is_file()]
    assert deskreel("export", fixture.db, "--out", tmp_path / "plain.jsonl") == 0
    written.append(tmp_path / "plain.jsonl")
    assert deskreel("export", fixture.db) == 0
    printed = capsys.readouterr()
    placeholder = ("{{env:" + SECRET_ENV + "}}").encode()
    for path in written:
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in printed.out + printed.err
    assert placeholder in printed.out.encode()
    holding = {p.parent.name for p in written if placeholder in p.read_bytes()}
    assert holding == {*DIALECTS, tmp_path.name}
    assert os.environ[SECRET_ENV] == secret
