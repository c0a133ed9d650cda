"""The vocabulary: every action's valid and invalid forms, and the JSON round trip."""

import json

import pytest

from deskreel.storage import ACTIONS, Action, ActionError

VALID = [
    {"action": "key", "text": "ctrl+s"},
    {"action": "key", "text": "Return", "duration": 1.5},
    {"action": "key", "text": "super+shift+Left"},
    {"action": "key", "text": "KP_0"},
    {"action": "type", "text": "Grüße, 東京! ~@#\n"},
    {"action": "mouse_move", "coordinate": [0, 0]},
    {"action": "left_click", "coordinate": [10, 20]},
    {"action": "right_click", "coordinate": [10, 20], "with_key": "shift"},
    {"action": "middle_click", "coordinate": [10, 20]},
    {"action": "double_click", "coordinate": [10, 20], "with_key": "ctrl+shift"},
    {"action": "triple_click", "coordinate": [1279, 799]},
    {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [300, 400]},
    {
        "action": "left_click_drag",
        "start_coordinate": [1, 2],
        "coordinate": [3, 4],
        "with_key": "alt",
    },
    {"action": "left_mouse_down"},
    {"action": "left_mouse_down", "coordinate": [5, 5]},
    {"action": "left_mouse_up", "coordinate": [6, 6]},
    {"action": "scroll", "coordinate": [5, 5], "scroll_direction": "down", "scroll_amount": 5},
    {
        "action": "scroll",
        "coordinate": [5, 5],
        "scroll_direction": "left",
        "scroll_amount": 1,
        "with_key": "shift",
    },
    {"action": "wait", "duration": 0},
    {"action": "wait", "duration": 2.5},
    {"action": "screenshot"},
    {"action": "screenshot", "region": [0, 0, 100, 50]},
    {"action": "cursor_position"},
]

INVALID = [
    ({"action": "teleport"}, "unknown action 'teleport'"),
    ({"text": "a"}, "the field 'action' is missing"),
    ({"action": "key"}, "text is required"),
    ({"action": "key", "text": ""}, "text must be a non-empty string"),
    ({"action": "key", "text": "ctrl+nosuchkey"}, "'nosuchkey' is not an X key name"),
    ({"action": "key", "text": "ctrl+"}, "empty key"),
    ({"action": "key", "text": "a", "duration": -1}, "duration must be seconds"),
    ({"action": "key", "text": "a", "duration": 61}, "duration must be seconds from 0 to 60"),
    ({"action": "type", "text": 5}, "text must be a non-empty string, got 5"),
    ({"action": "type", "text": "x", "coordinate": [1, 2]}, "coordinate is not a field of type"),
    ({"action": "mouse_move"}, "coordinate is required"),
    ({"action": "mouse_move", "coordinate": [12]}, "coordinate must be two integers, got [12]"),
    ({"action": "left_click", "coordinate": [1.5, 2]}, "coordinate must be two integers"),
    ({"action": "left_click", "coordinate": [True, 2]}, "coordinate must be two integers"),
    ({"action": "left_click", "coordinate": [-1, 2]}, "coordinate must be on the screen"),
    ({"action": "left_click", "coordinate": [1, 2], "with_key": "a"}, "with_key must name mod"),
    ({"action": "left_click", "coordinate": [1, 2], "colour": "red"}, "unknown field 'colour'"),
    ({"action": "double_click", "coordinate": "1,2"}, "coordinate must be two integers"),
    ({"action": "right_click"}, "coordinate is required"),
    (
        {"action": "middle_click", "coordinate": [1, 2], "with_key": "shift+x"},
        "with_key must name mod",
    ),
    ({"action": "triple_click", "coordinate": [1, 70000]}, "coordinate must be on the screen"),
    ({"action": "left_mouse_down", "coordinate": [1]}, "coordinate must be two integers"),
    (
        {"action": "left_mouse_up", "coordinate": [1, 2], "with_key": "shift"},
        "with_key is not a field of left_mouse_up",
    ),
    ({"action": "left_click_drag", "coordinate": [1, 2]}, "start_coordinate is required"),
    (
        {"action": "left_click_drag", "start_coordinate": [1], "coordinate": [1, 2]},
        "start_coordinate must be two integers",
    ),
    (
        {
            "action": "scroll",
            "coordinate": [1, 2],
            "scroll_direction": "sideways",
            "scroll_amount": 1,
        },
        "scroll_direction must be one of up, down, left, right",
    ),
    (
        {"action": "scroll", "coordinate": [1, 2], "scroll_direction": "up", "scroll_amount": 0},
        "scroll_amount must be an integer from 1",
    ),
    (
        {"action": "scroll", "coordinate": [1, 2], "scroll_direction": "up"},
        "scroll_amount is required",
    ),
    ({"action": "wait"}, "duration is required"),
    ({"action": "wait", "duration": "1"}, "duration must be seconds"),
    ({"action": "wait", "duration": float("nan")}, "duration must be seconds"),
    ({"action": "screenshot", "region": [0, 0, 0, 5]}, "region must be on the screen"),
    ({"action": "screenshot", "region": [0, 0, 5]}, "region must be four integers"),
    ({"action": "cursor_position", "coordinate": [1, 1]}, "not a field of cursor_position"),
    ([1, 2], "an action must be a JSON object"),
]


def test_every_action_has_valid_examples():
    assert {v["action"] for v in VALID} == set(ACTIONS)


@pytest.mark.parametrize("obj", VALID, ids=lambda o: o["action"])
def test_valid_actions_round_trip(obj):
    action = Action.from_json(obj)
    again = Action.from_json(json.loads(json.dumps(action.to_json())))
    assert again == action
    assert again.to_json() == action.to_json()


@pytest.mark.parametrize("obj,message", INVALID, ids=[m for _, m in INVALID])
def test_invalid_actions_name_step_and_field(obj, message):
    with pytest.raises(ActionError) as info:
        Action.from_json(obj, step=4)
    text = str(info.value)
    assert message in text
    assert text.startswith("step 4")


def test_message_names_step_action_and_field_exactly():
    with pytest.raises(ActionError) as info:
        Action.from_json({"action": "left_click", "coordinate": [12]}, step=4)
    assert str(info.value) == "step 4 (left_click): coordinate must be two integers, got [12]"
    assert info.value.field == "coordinate" and info.value.step == 4


def test_key_text_and_with_key_are_canonical():
    assert Action.from_json({"action": "key", "text": "Ctrl+Shift+s"}).text == "ctrl+shift+s"
    assert Action.from_json({"action": "key", "text": "control+Return"}).text == "ctrl+Return"
    click = Action.from_json(
        {"action": "left_click", "coordinate": [1, 2], "with_key": "Shift_L+Control_L"}
    )
    assert click.with_key == "shift+ctrl"
    assert Action(action="key", text="a", duration=0) == Action(action="key", text="a")


def test_actions_are_frozen_values():
    action = Action(action="left_click", coordinate=(1, 2))
    with pytest.raises(AttributeError):
        action.coordinate = (3, 4)
    assert {action, Action(action="left_click", coordinate=(1, 2))} == {action}
    assert action.is_pointer and action.target == (1, 2)
    drag = Action(action="left_click_drag", start_coordinate=(1, 2), coordinate=(5, 6))
    assert drag.target == (1, 2)
    assert not Action(action="type", text="x").is_pointer


@pytest.mark.parametrize(
    "step", [{"action": "\n"}, {"action": "\x1b]52;c;aGk=\x07", "x": 1}, {"action": "\n", "x": 1}]
)
def test_an_unknown_actions_name_never_breaks_the_message_line(step):
    from deskreel.storage.script import ScriptError, parse_script

    with pytest.raises(ScriptError) as err:
        parse_script(json.dumps([step]))
    message = str(err.value)
    assert message.startswith("step 1: ") and message.isprintable(), message
