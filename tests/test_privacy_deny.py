"""The deny-list on a real Xvfb, by window class: the defaults (pinentry, polkit agents),
`--deny class:GLOB`, and `--no-default-deny`."""

import time
from contextlib import contextmanager

import pytest

from deskreel.storage import open_store
from tests.test_privacy import SECRET, all_bytes, record


@contextmanager
def prompt(display, wm_class, title="Authenticate"):
    """A bare window of this WM_CLASS (instance, class) holding the keyboard focus."""
    from Xlib import X

    from deskreel.xsession.display import connect

    conn = connect(display)
    screen = conn.screen()
    window = screen.root.create_window(
        300,
        200,
        320,
        120,
        0,
        screen.root_depth,
        background_pixel=screen.white_pixel,
        event_mask=X.KeyPressMask,
    )
    window.set_wm_class(*wm_class)
    window.set_wm_name(title)
    window.map()
    conn.sync()
    time.sleep(0.2)
    window.set_input_focus(X.RevertToPointerRoot, X.CurrentTime)
    conn.sync()
    try:
        yield
    finally:
        window.destroy()
        conn.sync()
        conn.close()


def typed_into_prompt(run_deskreel, xvfb, db, wm_class, *extra):
    def drive(person):
        with prompt(xvfb.display, wm_class):
            time.sleep(0.3)  # one window poll at least: the recorder sees the prompt
            person.type(SECRET)

    recorder = record(run_deskreel, xvfb, db, drive, *extra)
    with open_store(db, create=False) as store:
        events = store.events(store.recording("private").id)
    return recorder.stderr, events


@pytest.mark.parametrize(
    "wm_class, pattern",
    [
        (("pinentry-gtk-2", "Pinentry-gtk-2"), "class:pinentry*"),
        (
            ("polkit-gnome-authentication-agent-1", "Polkit-gnome-authentication-agent-1"),
            "class:*polkit*",
        ),
    ],
)
def test_password_prompts_are_denied_by_default(run_deskreel, xvfb, tmp_path, wm_class, pattern):
    stderr, events = typed_into_prompt(run_deskreel, xvfb, tmp_path / "rec.db", wm_class)
    assert (
        f"paused while a private window is active (class {wm_class[1]!r} matches "
        f"{pattern})" in stderr
    )
    assert [e for e in events if e.kind.startswith("key")] == []
    assert SECRET.encode() not in all_bytes(tmp_path)


def test_no_default_deny_records_a_prompt(run_deskreel, xvfb, tmp_path):
    from deskreel.recorder.reduce import reduce_events

    stderr, events = typed_into_prompt(
        run_deskreel,
        xvfb,
        tmp_path / "rec.db",
        ("pinentry-gtk-2", "Pinentry-gtk-2"),
        "--no-default-deny",
    )
    assert "paused" not in stderr
    assert [r.action.text for r in reduce_events(events)] == [SECRET]


def test_deny_by_class_pattern_from_the_command_line(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("entry"))
        person.type(SECRET)

    recorder = record(run_deskreel, xvfb, db, drive, "--deny", "class:deskreel*")
    assert (
        "paused while a private window is active (class 'Deskreelsample' matches "
        "class:deskreel*)" in recorder.stderr
    )  # Tk's spelling of className="DeskreelSample"
    with open_store(db, create=False) as store:
        assert store.events(store.recording("private").id) == []
    assert app.events("text_changed")[-1]["value"] == SECRET  # the app did get the input
