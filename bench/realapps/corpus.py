"""Build the corpus of one application: record its task as a person does it, then shoot every
scenario's screens, each on a fresh start of the application, with the truth of where each
step's target is there.

Recording: a scripted person (samples/person.py: the pointer glides and rests on a target
before it presses) does the task while deskreel's Recorder runs, as `deskreel record` does.
Each pointer step keeps the widget its point hit (the truth) and the recorder's anchor and
frames.

A scenario: the application starts afresh, changed as the scenario says; the person does the
task again, step by step, aiming at each step's widget as the toolkit places it today (never
at what deskreel would find). Before each pointer step the screen is grabbed as a replay
would meet it (the pointer where the last step left it, or elsewhere), and after it the
screen once settled, for --verify.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from realapps.asked import objects_answer, said_answer, told_answer, tops_told, windows_answer
from realapps.catalog import App, Scenario, Step
from realapps.desktop import SCREEN, Desktop, settled
from realapps.truth import Element, accessibles, find_same, target_at, topmost_box, windows
from realapps.twin import check_same_screens, desktop_for
from samples.person import Person
from deskreel.storage import open_store
from deskreel.storage.widgets import widget_to_json
from deskreel.storage.told import StepTold, step_told_to_json
from deskreel.xsession.display import connect
from deskreel.xsession.xtree import WindowTree
from deskreel.xsession.xwindows import tops_shown
from deskreel.xsession.images import decode_image, encode_webp

__all__ = ["build_app", "elements_of"]

READY_TIMEOUT = 30.0
PARKED = (SCREEN[0] - 40, SCREEN[1] - 40)  # where "pointer elsewhere" rests: off every window


@dataclass(frozen=True)
class Recorded:
    """A pointer step as recorded: the widget it hit and what the recorder kept of it."""

    index: int  # in the task's steps
    point: tuple[int, int]
    truth: Element


def build_app(app: App, out: Path, *, log: Any = print) -> dict[str, Any]:
    """Record `app`'s task and shoot its scenarios into `out`; its manifest (also written)."""
    folder = out / app.name
    folder.mkdir(parents=True, exist_ok=True)
    log(f"{app.name}: recording its task")
    recorded, steps, state = record(app, folder)
    cases = []
    for scenario in app.scenarios:
        log(f"{app.name}: scenario {scenario.name}")
        cases += shoot(app, scenario, recorded, folder, steps)
    manifest: dict[str, Any] = {
        "app": app.name,
        "toolkit": app.toolkit,
        "truth": app.truth,
        "steps": steps,
        "cases": cases,
    }
    if app.final_state is not None:
        log(f"{app.name}: the task replayed whole by deskreel")
        manifest["end_to_end"] = {"recorded": state, **replay_whole(app, folder)}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def elements_of(app: App, desktop: Desktop) -> list[Element]:
    """The application's widgets on screen now, from its toolkit (or its twin's: twin.py)."""
    if app.truth == "atspi":
        return accessibles((desktop.twin or desktop).env, app.key)
    return windows(desktop.display.display, app.key)


def start(app: App, scenario: Scenario, desktop: Desktop) -> list[Element]:
    """Start the application as the scenario says (and its twin, where it has one); its
    widgets once it is ready and placed."""
    argv = app.command(scenario)
    procs = [(d, d.launch(argv, env=scenario.env, name=app.name)) for d in _desktops(desktop)]
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        time.sleep(0.5)
        for _, proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{app.name} exited with code {proc.returncode} ({scenario.name})"
                )
        elements = elements_of(app, desktop)
        if elements and app.ready(elements) and _shown(desktop, procs[0][1].pid):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"{app.name} was not ready in {READY_TIMEOUT:g} s")
    for where, proc in procs:
        place(app, scenario, where, proc.pid)
    time.sleep(app.settle)
    check_same_screens(desktop)
    return elements_of(app, desktop)


def _desktops(desktop: Desktop) -> list[Desktop]:
    return [desktop] if desktop.twin is None else [desktop, desktop.twin]


def _shown(desktop: Desktop, pid: int) -> bool:
    """Whether the application's window shows: known from its truth, but for a twin's."""
    if desktop.twin is None:
        return True
    return bool(desktop.xdotool("search", "--onlyvisible", "--pid", str(pid)).split())


def place(app: App, scenario: Scenario, desktop: Desktop, pid: int) -> None:
    """Move and size the application's top-level windows as the scenario says, and focus the
    first (there is no window manager: xdotool configures them directly)."""
    found = desktop.xdotool("search", "--onlyvisible", "--pid", str(pid)).split()
    if not found and app.truth == "xtree":
        found = desktop.xdotool("search", "--onlyvisible", "--class", app.key).split()
    x, y = scenario.position or app.position
    for window in found:
        desktop.xdotool("windowmove", window, str(x), str(y))
        if scenario.size is not None:
            desktop.xdotool("windowsize", window, *map(str, scenario.size))
    if found:
        # no window manager gives the focus: without it, it follows the pointer, and a
        # screen shot with the pointer elsewhere would show the window unfocused
        desktop.xdotool("windowfocus", found[0])


def record(app: App, folder: Path) -> tuple[list[Recorded], list[dict[str, Any]], str | None]:
    """The task done once while recording: the pointer steps' truth, the recorded steps, and
    the state the task left (`App.final_state`)."""
    from deskreel.recorder import RecordOptions, Recorder

    db = folder / "recording.db"
    db.unlink(missing_ok=True)
    with desktop_for(app, folder / "logs") as desktop, open_store(db) as store:
        start(app, Scenario("recording"), desktop)
        recorder = Recorder(
            store, options=RecordOptions(name=app.name), display=desktop.display.display
        )
        stop, started = threading.Event(), threading.Event()
        thread = threading.Thread(
            target=lambda: recorder.run(stop.is_set, on_start=lambda name: started.set()),
            daemon=True,
        )
        thread.start()
        if not started.wait(15):
            raise RuntimeError("the recorder did not start")
        person = Person(desktop.display.display, aim_delay=0.35, step_delay=0.8)
        try:
            recorded = [r for r in do_steps(app, desktop, person, app.steps) if r is not None]
        finally:
            person.close()
            time.sleep(2.5)  # the last step's after-frame settles
            stop.set()
            thread.join(60)
        state = app.final_state(desktop) if app.final_state is not None else None
        rec_id = store.recording(app.name).id
        steps, masks = store.steps(rec_id), store.masks(rec_id)
    pointer = [s for s in steps if s.action.is_pointer and s.action.action != "mouse_move"]
    if len(pointer) != len(recorded):
        raise RuntimeError(
            f"{app.name}: {len(recorded)} pointer steps done, {len(pointer)} recorded: "
            f"{[s.action.to_json() for s in steps]}"
        )
    return (
        recorded,
        [
            _recorded_step(folder, db, n, r, s, masks.get(s.step, []))
            for n, (r, s) in enumerate(zip(recorded, pointer))
        ],
        state,
    )


def replay_whole(app: App, folder: Path) -> dict[str, Any]:
    """The recording replayed by deskreel (re-anchoring every step, at its recorded pace) on
    a fresh start of the application: the replay's verdict, and the state it left."""
    import shutil

    from deskreel.replayer import Progress, ReplayOptions
    from deskreel.replayer.replay import replay

    db = folder / "end-to-end.db"  # a copy: the replay writes its run into it
    shutil.copyfile(folder / "recording.db", db)
    with desktop_for(app, folder / "logs" / "end-to-end") as desktop, open_store(db) as store:
        start(app, Scenario("end to end"), desktop)
        outcome = replay(
            store,
            store.recording(app.name),
            display=desktop.display.display,
            options=ReplayOptions(),
            progress=Progress(total=0, quiet=True, stream=io.StringIO()),
        )
        time.sleep(2 * app.settle)
        assert app.final_state is not None
        state = app.final_state(desktop)
    return {"replay": outcome.status, "message": outcome.message, "replayed": state}


def do_steps(
    app: App, desktop: Desktop, person: Person, steps: Sequence[Step]
) -> list[Recorded | None]:
    """Do `steps` as a person does, aiming at each widget where the toolkit places it now."""
    return [do_step(app, desktop, person, i, step) for i, step in enumerate(steps)]


def do_step(app: App, desktop: Desktop, person: Person, index: int, step: Step) -> Recorded | None:
    """One step; the widget it hit, for a pointer step."""
    if step.action == "type":
        person.type(step.text or "")
        return None
    if step.action == "key":
        person.press(step.text or "")
        return None
    assert step.target is not None
    elements = elements_of(app, desktop)
    widget = step.target(elements)
    if widget is None:
        raise RuntimeError(f"{app.name}: step {index} ({step.label}): no such widget")
    point = _point_in(widget, step.at)
    hit = target_at(elements, point, topmost_box(desktop.display.display, point)) or widget
    if step.action == "left_click_drag":
        assert step.to is not None
        end = step.to(elements)
        if end is None:
            raise RuntimeError(f"{app.name}: step {index} ({step.label}): no drag end")
        person.drag(point, _point_in(end, (0.5, 0.5)))
    else:
        count = {"double_click": 2, "triple_click": 3}.get(step.action, 1)
        button = {"right_click": 3, "middle_click": 2}.get(step.action, 1)
        person.click(*point, button=button, count=count)
    time.sleep(app.settle)
    return Recorded(index, point, hit)


def shoot(
    app: App,
    scenario: Scenario,
    recorded: Sequence[Recorded],
    folder: Path,
    steps: Sequence[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The scenario's screen before and after each pointer step, with the truth of where its
    target is (None where it is gone: the step must be refused, and the task stops there)."""
    out = folder / "scenarios" / scenario.name
    out.mkdir(parents=True, exist_ok=True)
    cases = []
    with desktop_for(app, folder / "logs" / scenario.name) as desktop:
        start(app, scenario, desktop)
        grabber = desktop.grabber()
        tree = desktop.accessibility()
        display = connect(desktop.display.display)
        x_conn = connect(desktop.display.display)  # the X-window rung's own, as in a replay
        x_tree = WindowTree.of(x_conn, kept=True)
        person = Person(desktop.display.display, aim_delay=0.2, step_delay=0.4)
        by_index = {r.index: (n, r) for n, r in enumerate(recorded)}
        try:
            for index, step in enumerate(app.steps):
                if index not in by_index:
                    do_step(app, desktop, person, index, step)
                    continue
                number, done = by_index[index]
                if scenario.pointer_elsewhere:
                    person.move_to(*PARKED)
                    time.sleep(app.settle)
                before = settled(grabber)
                tops = tops_shown(x_tree)
                today = find_same(elements_of(app, desktop), done.truth)
                if number in scenario.absent:
                    today = None
                case = {
                    "step": number,
                    "screen": _save(out / f"{number:02d}-before.png", before, folder),
                    "truth": today.to_json() if today is not None else None,
                    "after": None,
                    "objects": objects_answer(tree, display, steps[number].get("widget")),
                    "windows": windows_answer(x_tree, steps[number].get("widget")),
                    **({"wrong_effect": True} if number in scenario.wrong else {}),
                }
                cases.append(case)
                if today is None:
                    break  # nothing to click: the rest of the task cannot be done
                kept = steps[number].get("told")
                told = told_answer(tree, display, kept, _point_in(today, step.at))
                pressed = do_step(app, desktop, person, index, _aimed_at(step, today))
                case["after"] = _save(out / f"{number:02d}-after.png", settled(grabber), folder)
                case["tops"] = tops_told(tops, tops_shown(x_tree))
                if pressed is not None:
                    widget = steps[number].get("widget")
                    case["said"] = said_answer(tree, display, widget, pressed.point)
                    after = told_answer(tree, display, kept, pressed.point)
                    case["told"] = step_told_to_json(StepTold(told, after))
        finally:
            person.close()
            grabber.close()
            if tree is not None:
                tree.close()
            display.close()
            x_conn.close()
    for case in cases:
        case["scenario"] = scenario.name
    return cases


def _aimed_at(step: Step, widget: Element) -> Step:
    """`step`, aimed at this widget (found by the truth, whatever the step's own picker
    would choose today)."""
    from dataclasses import replace

    return replace(step, target=lambda elements: widget)


def _point_in(widget: Element, at: tuple[float, float]) -> tuple[int, int]:
    x, y, w, h = widget.box
    return round(x + w * at[0]), round(y + h * at[1])


def _recorded_step(
    folder: Path, db: Path, number: int, done: Recorded, step: Any, masks: list[Any]
) -> dict[str, Any]:
    """A recorded pointer step as the manifest keeps it: its action, truth, anchor, frames
    (files beside the manifest) and the regions the recorder masked for its verification."""
    with open_store(db, create=False) as store:
        frames = {
            side: store.frame(key)[0] if key else None
            for side, key in (("before", step.before_frame), ("after", step.after_frame))
        }
    anchor = step.anchor
    names = {}
    for side, data in frames.items():
        if data is not None:
            names[side] = _save(
                folder / "recorded" / f"{number:02d}-{side}.png", decode_image(data), folder
            )
    anchor_file = hover_file = None
    if anchor is not None:
        anchor_file = f"recorded/{number:02d}-anchor.png"
        (folder / anchor_file).write_bytes(anchor.png)
        if anchor.hover_png is not None:
            hover_file = f"recorded/{number:02d}-anchor-hovered.png"
            (folder / hover_file).write_bytes(anchor.hover_png)
    return {
        "step": number,
        "task_step": done.index,
        "action": step.action.to_json(),
        "point": list(done.point),
        "truth": done.truth.to_json(),
        "anchor": anchor_file,
        "anchor_hovered": hover_file,
        "anchor_box": list(anchor.box) if anchor else None,
        "anchor_offset": list(anchor.offset) if anchor else None,
        "anchor_margin": anchor.margin if anchor else None,
        "anchor_twins": anchor.twins if anchor else None,
        "widget": widget_to_json(step.widget),
        "told": step_told_to_json(step.told),
        "before": names.get("before"),
        "after": names.get("after"),
        "masks": [list(box) for box in masks],
    }


def _save(path: Path, rgb: Any, folder: Path) -> str:
    """Write a screen as lossless WebP (a seventh of the PNG's size, the same pixels)."""
    path = path.with_suffix(".webp")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_webp(rgb))
    return path.relative_to(folder).as_posix()
