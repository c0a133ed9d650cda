"""The xdotool key-syntax parser, checked against X keysym names (pure, no display)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskreel.storage.keys import (
    KeyNameError,
    char_keysym,
    keysym_char,
    keysym_name,
    keysym_of,
    parse_chord,
)

CHORDS = [
    ("a", ("a",), "a"),
    ("A", ("A",), "A"),
    ("Return", ("Return",), "Return"),
    ("ctrl+s", ("Control_L", "s"), "ctrl+s"),
    ("alt+Tab", ("Alt_L", "Tab"), "alt+Tab"),
    ("KP_0", ("KP_0",), "KP_0"),
    ("super+shift+Left", ("Super_L", "Shift_L", "Left"), "super+shift+Left"),
    ("Control_R+c", ("Control_R", "c"), "ctrl+c"),
    ("ctrl++", ("Control_L", "plus"), "ctrl+plus"),
    ("+", ("plus",), "plus"),
    ("enter", ("Return",), "Return"),
    ("esc", ("Escape",), "Escape"),
    ("F5", ("F5",), "F5"),
    ("ü", ("udiaeresis",), "udiaeresis"),
    ("東", ("U6771",), "U6771"),
    ("XF86AudioMute", ("XF86AudioMute",), "XF86AudioMute"),
    ("ISO_Level3_Shift", ("ISO_Level3_Shift",), "ISO_Level3_Shift"),
]


@pytest.mark.parametrize("text,keys,canonical", CHORDS, ids=[c[0] for c in CHORDS])
def test_parse_chord(text, keys, canonical):
    chord = parse_chord(text)
    assert chord.keys == keys
    assert chord.text == canonical
    assert all(k != 0 for k in chord.keysyms)
    assert parse_chord(chord.text).text == chord.text


@pytest.mark.parametrize("text", ["", "  ", "ctrl+", "+a+", "nosuchkey", "ctrl+Retrun", "F99x"])
def test_bad_chords_are_refused(text):
    with pytest.raises(KeyNameError):
        parse_chord(text)


def test_case_hint():
    with pytest.raises(KeyNameError, match="did you mean KP_Enter"):
        parse_chord("KP_ENTER")


def test_keysym_numbers_and_names():
    assert keysym_of("Return") == 0xFF0D
    assert keysym_of("a") == ord("a")
    assert keysym_of("U6771") == 0x01006771
    assert char_keysym("ß") == 0xDF and char_keysym("€") == 0x010020AC
    assert keysym_name(0xFF0D) == "Return"
    assert keysym_name(0x01006771) == "U6771"
    assert keysym_name(0x1008FF12) == "XF86AudioMute"


def test_keysym_char_is_the_character_a_keysym_types():
    assert keysym_char(keysym_of("plus")) == "+"
    assert keysym_char(0xFC) == "ü"  # Latin-1 keysyms are their code points
    assert keysym_char(0x010020AC) == "€"  # Unicode keysyms carry theirs
    for key in ("Return", "Shift_L", "XF86AudioMute", "nosuchkey"):
        assert keysym_char(keysym_of(key)) == "", key
    assert keysym_char(0x1F) == "" and keysym_char(0x7F) == ""
    # the legacy keysyms that Cyrillic, Greek, Arabic... layouts still produce
    assert [
        keysym_char(keysym_of(k))
        for k in ("Cyrillic_pe", "Greek_OMEGA", "EuroSign", "abreve", "Arabic_alef")
    ] == list("пΩ€ăا")
    for key in ("KP_1", "KP_Enter", "dead_acute", "Escape", "emspace"):
        assert keysym_char(keysym_of(key)) == "", key  # keys, not characters typed


@given(st.characters())
def test_keysym_char_inverts_char_keysym(char):
    assert keysym_char(char_keysym(char)) == char


# chords as people write them: real names and modifiers, misspelt ones, odd separators
CHORD_PARTS = st.lists(
    st.sampled_from(
        [
            "ctrl",
            "shift",
            "alt",
            "super",
            "Control_R",
            "a",
            "A",
            "Return",
            "F13",
            "KP_0",
            "plus",
            "+",
            "ü",
            "",
            "Retrun",
            "ctl",
            " ",
            "XF86AudioMute",
        ]
    )
    | st.text(max_size=6),
    min_size=1,
    max_size=4,
)


@given(st.text(min_size=1, max_size=30) | CHORD_PARTS.map("+".join))
def test_parser_never_raises_anything_but_key_name_error(text):
    try:
        chord = parse_chord(text)
    except KeyNameError as err:
        message = str(err)
        assert message and "\n" not in message, message  # one line, for the command line
        return
    assert parse_chord(chord.text).text == chord.text
    assert all(k != 0 for k in chord.keysyms)
