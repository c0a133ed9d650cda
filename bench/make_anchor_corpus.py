"""Build the fixed re-anchoring corpus of issue 5: anchors recorded on the sample app, and the
screens of the same app moved, reordered, rescaled, with a widget removed and with one renamed.

On a private 1920x1080 Xvfb, samples/app.py is shown in its normal layout at two base
positions; for 5 points inside each of its 14 widgets (the centre and one in each quadrant)
choose_anchor() picks the anchor exactly as the recorder does (recorder/session.py _anchor).
Then the app is started again for each scene, and the screen grabbed. The expected answer of
a target in a scene is the same point relative to the same widget, multiplied by the scene's
scale, from the app's own "ready" map; "refuse" when the widget is gone or the point lies
outside it. Same run, same corpus: the screens are grabbed only once they stop changing, with
the pointer parked in a corner.

    .venv/bin/python bench/make_anchor_corpus.py [--out /tmp/deskreel-corpus] [--rechoose]

The default output is outside the repository on purpose (the corpus is ~2.5 MB of PNGs that
anyone can rebuild); bench/bench_anchor.py reads it from there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deskreel.xsession.grab import Grabber  # noqa: E402
from deskreel.xsession.images import decode_image, encode_png  # noqa: E402
from deskreel.matching import choose_anchor  # noqa: E402
from deskreel.xsession.xvfb import VirtualDisplay  # noqa: E402

DEFAULT_OUT = Path("/tmp/deskreel-corpus")
SCREEN = (1920, 1080)
# 2: list rows in the widgets map, the expected point of a row follows the row; 3: a scene
# with the Save button renamed
VERSION = 3
SAMPLE_APP = ROOT / "samples" / "app.py"
READY_TIMEOUT = 20.0
PARKED_POINTER = (SCREEN[0] - 1, SCREEN[1] - 1)  # a hovered button is drawn lighter
# Window top-left of the recording, per base.
BASES = {"A": (120, 90), "B": (700, 300)}
# Where inside a widget the recorded clicks land, as fractions of its width and height.
POINTS = ((0.5, 0.5), (0.2, 0.3), (0.8, 0.3), (0.2, 0.75), (0.8, 0.75))
SHIFTS = ((24, 16), (-40, 48))  # both within 64 px of the recorded place
MOVES = {"A": (980, 410), "B": (60, 40)}  # window top-left after a large move


@dataclass(frozen=True, slots=True)
class Scene:
    """One screen to replay on: the app at `position` with these options."""

    name: str  # e.g. "A-shift-1"
    scenario: str  # the row of the report, e.g. "shift"
    base: str
    position: tuple[int, int]
    layout: str = "normal"
    banner: bool = False
    scale: float = 1.0


def scenes(base: str) -> list[Scene]:
    """The screens that the anchors recorded at `base` are looked for on."""
    x, y = BASES[base]
    return [
        Scene(f"{base}-unchanged", "unchanged", base, (x, y)),
        *(
            Scene(f"{base}-shift-{i}", "shift", base, (x + dx, y + dy))
            for i, (dx, dy) in enumerate(SHIFTS, 1)
        ),
        Scene(f"{base}-move", "move", base, MOVES[base]),
        Scene(f"{base}-reorder", "reorder", base, (x, y), layout="reordered"),
        Scene(f"{base}-banner", "banner", base, (x, y), banner=True),
        *(
            Scene(f"{base}-scale-{s:g}", f"scale {s:g}", base, (x, y), scale=s)
            for s in (0.8, 1.1, 1.25)
        ),
        Scene(f"{base}-removed", "removed", base, (x, y), layout="removed"),
        Scene(f"{base}-renamed", "renamed", base, (x, y), layout="renamed"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"folder for the corpus (default {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--rechoose",
        action="store_true",
        help="only choose the anchors again on the recorded screens of a built "
        "corpus (after a change to choose_anchor), without grabbing",
    )
    args = parser.parse_args()
    out = args.out
    manifest = rechoose(out) if args.rechoose else build(out, log=print)
    counts: dict[str, int] = {}
    for case in manifest["cases"]:
        counts[case["scenario"]] = counts.get(case["scenario"], 0) + 1
    print(
        f"{len(manifest['anchors'])} anchors, {len(manifest['cases'])} cases in {out}: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
    )
    return 0


def build(out: Path, *, log: Any = print) -> dict[str, Any]:
    """Grab every screen, choose every anchor, and write the corpus under `out`."""
    (out / "screens").mkdir(parents=True, exist_ok=True)
    (out / "anchors").mkdir(exist_ok=True)
    manifest: dict[str, Any] = {
        "version": VERSION,
        "screen": list(SCREEN),
        "bases": {},
        "screens": {},
        "anchors": [],
        "cases": [],
    }
    with (
        VirtualDisplay(width=SCREEN[0], height=SCREEN[1]) as display,
        tempfile.TemporaryDirectory(prefix="deskreel-corpus-") as tmp,
    ):
        park_pointer(display.display)
        grabber = Grabber(display.display)
        try:
            for base, position in BASES.items():
                started = time.perf_counter()
                frame, widgets = shoot(
                    display,
                    grabber,
                    Path(tmp),
                    Scene(f"{base}-recorded", "recorded", base, position),
                )
                manifest["screens"][f"{base}-recorded"] = save_screen(
                    out, f"{base}-recorded", frame, widgets, 1.0
                )
                anchors = record_anchors(out, base, frame, widgets, len(manifest["anchors"]))
                manifest["anchors"] += anchors
                log(
                    f"base {base} at {position}: {len(anchors)} anchors "
                    f"in {time.perf_counter() - started:.1f}s"
                )
                for scene in scenes(base):
                    frame, seen = shoot(display, grabber, Path(tmp), scene)
                    manifest["screens"][scene.name] = save_screen(
                        out, scene.name, frame, seen, scene.scale
                    )
                    manifest["cases"] += [case(anchor, scene, seen, widgets) for anchor in anchors]
                    log(f"  {scene.name}: grabbed")
        finally:
            grabber.close()
    write_atomically(out / "manifest.json", json.dumps(manifest, indent=1).encode())
    return manifest


def record_anchors(
    out: Path, base: str, frame: Any, widgets: dict[str, list[int]], first: int
) -> list[dict[str, Any]]:
    """An anchor per point of every widget, chosen and cropped as the recorder does."""
    anchors: list[dict[str, Any]] = []
    for widget, box in sorted(widgets.items()):
        if widget.startswith("rows:"):  # a list's rows, not a widget
            continue
        x, y, w, h = box
        for fx, fy in POINTS:
            rel = (int(w * fx), int(h * fy))
            target = (x + rel[0], y + rel[1])
            choice = choose_anchor(frame, target)
            bx, by, bw, bh = choice.box
            number = first + len(anchors) + 1
            path = f"anchors/{number:04d}.png"
            write_atomically(out / path, encode_png(frame[by : by + bh, bx : bx + bw]))
            anchors.append(
                {
                    "id": number,
                    "base": base,
                    "widget": widget,
                    "rel": list(rel),
                    "target": list(target),
                    "box": list(choice.box),
                    "offset": list(choice.offset),
                    "margin": choice.margin,
                    "distinctive": choice.distinctive,
                    "twins": choice.twins,
                    "png": path,
                }
            )
    return anchors


def rechoose(out: Path) -> dict[str, Any]:
    """Choose every anchor of the corpus in `out` again, on its recorded screen; the cases,
    which depend on the targets and widgets only, stay as they are."""
    manifest, screens, _ = load(out)
    for base in BASES:
        name = f"{base}-recorded"
        mine = [a for a in manifest["anchors"] if a["base"] == base]
        widgets = manifest["screens"][name]["widgets"]
        fresh = record_anchors(out, base, screens[name], widgets, mine[0]["id"] - 1)
        if [(a["id"], a["target"]) for a in fresh] != [(a["id"], a["target"]) for a in mine]:
            raise ValueError(
                f"the anchors of base {base} in {out} are not the ones this script "
                "records: rebuild the corpus"
            )
        manifest["anchors"] = [a for a in manifest["anchors"] if a["base"] != base] + fresh
    manifest["anchors"].sort(key=lambda a: a["id"])
    write_atomically(out / "manifest.json", json.dumps(manifest, indent=1).encode())
    return manifest


def case(
    anchor: dict[str, Any], scene: Scene, widgets: dict[str, Any], recorded: dict[str, Any]
) -> dict[str, Any]:
    """What replaying `anchor` on `scene` should give: a point, or None for "refuse"."""
    return {
        "anchor": anchor["id"],
        "scenario": scene.scenario,
        "screen": scene.name,
        "expected": expected_point(anchor["widget"], anchor["rel"], scene.scale, widgets, recorded),
    }


def expected_point(
    widget: str, rel: list[int], scale: float, widgets: dict[str, Any], recorded: dict[str, Any]
) -> list[int] | None:
    """The same point of the same widget, scaled; None when it is not on this screen.

    A list's rows follow its font, which does not scale like the widget (the app picks the
    nearest pixel size): a point on a row goes to the same point of the same row, its height
    in the row scaled by the rows' heights. Elsewhere `widgets` and `recorded` (the recorded
    screen's) hold widget boxes only.
    """
    if widget not in widgets:
        return None
    x, y, w, h = widgets[widget]
    dx, dy = (math.floor(r * scale + 0.5) for r in rel)  # halves up, like the app's scaled()
    then, now = recorded.get(f"rows:{widget}") or [], widgets.get(f"rows:{widget}") or []
    top = recorded[widget][1] + rel[1]  # the point's height on the recorded screen
    for index, row in enumerate(then):
        if (
            row is not None
            and row[1] <= top < row[1] + row[3]
            and index < len(now)
            and now[index] is not None
        ):
            dy = now[index][1] - y + math.floor((top - row[1]) * now[index][3] / row[3] + 0.5)
            break
    if not (0 <= dx < w and 0 <= dy < h):
        return None
    point = [x + dx, y + dy]
    return point if 0 <= point[0] < SCREEN[0] and 0 <= point[1] < SCREEN[1] else None


def shoot(
    display: VirtualDisplay, grabber: Grabber, tmp: Path, scene: Scene
) -> tuple[Any, dict[str, list[int]]]:
    """The screen with the app showing `scene`, and its widgets' screen boxes."""
    log = tmp / f"{scene.name}.jsonl"
    argv = [
        sys.executable,
        str(SAMPLE_APP),
        "--log",
        str(log),
        "--geometry",
        f"+{scene.position[0]}+{scene.position[1]}",
        "--layout",
        scene.layout,
    ]
    if scene.banner:
        argv.append("--banner")
    if scene.scale != 1.0:
        argv += ["--scale", f"{scene.scale:g}"]
    app = subprocess.Popen(
        argv,
        env=display.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        ready = wait_ready(app, log)
        frame = settled(grabber)
    finally:
        app.terminate()
        try:
            app.wait(timeout=5)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
    return frame, {
        **ready["widgets"],
        **{f"rows:{name}": rows for name, rows in ready.get("rows", {}).items()},
    }


def wait_ready(app: subprocess.Popen[bytes], log: Path) -> dict[str, Any]:
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        if text.endswith("\n"):
            return json.loads(text.splitlines()[0])
        if app.poll() is not None:
            said = app.stderr.read().decode(errors="replace") if app.stderr else ""
            raise RuntimeError(f"samples/app.py exited with code {app.returncode}: {said}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"samples/app.py was not ready within {READY_TIMEOUT:g}s")
        time.sleep(0.02)


def settled(grabber: Grabber, *, pause: float = 0.15, tries: int = 40) -> Any:
    """A grab equal to the one before it: the app has finished drawing."""
    import numpy as np

    last = grabber.rgb()
    for _ in range(tries):
        time.sleep(pause)
        frame = grabber.rgb()
        if np.array_equal(frame, last):
            return frame
        last = frame
    raise RuntimeError(f"the screen kept changing for {pause * tries:g}s")


def park_pointer(display_name: str) -> None:
    from Xlib.display import Display

    connection = Display(display_name)
    try:
        connection.screen().root.warp_pointer(*PARKED_POINTER)
        connection.sync()
    finally:
        connection.close()


def save_screen(
    out: Path, name: str, frame: Any, widgets: dict[str, list[int]], scale: float
) -> dict[str, Any]:
    path = f"screens/{name}.png"
    data = encode_png(frame)
    write_atomically(out / path, data)
    return {
        "png": path,
        "scale": scale,
        "widgets": widgets,
        "sha256": hashlib.sha256(frame.tobytes()).hexdigest(),
    }


def write_atomically(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    os.replace(partial, path)


def load(folder: Path) -> tuple[dict[str, Any], dict[str, Any], dict[int, Any]]:
    """The manifest, screen name -> RGB pixels, anchor id -> RGB pixels, of a built corpus."""
    manifest_path = folder / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(
            f"no corpus in {folder}: run bench/make_anchor_corpus.py "
            f"--out {folder} (or bench/bench_anchor.py --build)"
        )
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("version") != VERSION:
        raise ValueError(
            f"corpus {folder} is version {manifest.get('version')}, this script "
            f"reads {VERSION}: rebuild it with --build"
        )
    screens = {
        name: decode_image((folder / s["png"]).read_bytes())
        for name, s in manifest["screens"].items()
    }
    anchors = {a["id"]: decode_image((folder / a["png"]).read_bytes()) for a in manifest["anchors"]}
    return manifest, screens, anchors


if __name__ == "__main__":
    sys.exit(main())
