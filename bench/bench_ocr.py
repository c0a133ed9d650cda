"""Text recognition as the X-window rung's name check (issue 32), engine by engine, on the
real-applications corpus (bench/bench_realapps.py builds it).

Every pointer step's target widget is read twice: on the recorded screen (its box as the
toolkit gave it then) and on each scenario's screen (its box today, from the truth), as the
rung reads them (matching/xwindows.py: the box less its 3 px rim). Printed per engine:

- same: the share of (recorded, today) pairs the rung takes for the same name
  (matching/reading.py's same_name: the same reading, case and spaces aside, or neither
  readable), per scenario: what a theme, a bigger font or a resize do to a reading;
- renamed by mistake: the share of pairs of one widget that two confident readings tell
  apart (the rung would refuse a step that was right);
- exact: where the toolkit names the widget (AT-SPI), the share of confident readings that
  are its name, case and spaces aside;
- p50 and p95 ms per box.

Engines: RapidOCR's recogniser (what deskreel uses) and Tesseract through tesserocr (its
LSTM, one line; `make bench-ocr` installs tesserocr and Debian's English model).

    .venv/bin/python bench/bench_ocr.py [--corpus /tmp/deskreel-realapps] [--app NAME]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_realapps_corpus import DEFAULT_OUT
from realapps.judge import load

from deskreel.matching import PARAMS, Reading, TextReader
from deskreel.matching.reading import same_name
from deskreel.xsession.images import decode_image

Engine = Callable[[Any], Reading]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    args = parser.parse_args()
    pairs = list(_pairs(args.corpus, args.app))
    if not pairs:
        print(f"no corpus in {args.corpus}: build it with bench/bench_realapps.py --build")
        return 2
    engines: dict[str, Engine] = {"rapidocr": TextReader()}
    tesseract = _tesseract()
    if tesseract is not None:
        engines["tesseract"] = tesseract
    else:
        print("tesserocr is not installed (make bench-ocr installs it): RapidOCR alone")
    print(f"{len(pairs)} pairs (a widget recorded, and the same widget in a scenario)")
    for name, engine in engines.items():
        _report(name, engine, pairs)
    return 0


def _pairs(corpus: Path, only: list[str] | None) -> Any:
    """(app, scenario, the toolkit's name or "", the recorded crop, today's crop)."""
    for manifest in load(corpus, only):
        folder = corpus / manifest["app"]
        named = manifest["truth"] == "atspi"
        steps = {s["step"]: s for s in manifest["steps"]}
        for case in manifest["cases"]:
            step, today = steps[case["step"]], case["truth"]
            if today is None or step.get("before") is None:
                continue
            then = _crop(folder / step["before"], step["truth"]["box"])
            now = _crop(folder / case["screen"], today["box"])
            if then is not None and now is not None:
                label = step["truth"]["name"] if named else ""
                yield manifest["app"], case["scenario"], label, then, now


def _crop(path: Path, box: list[int]) -> Any:
    image = decode_image(path.read_bytes())
    x, y, w, h = box
    r = PARAMS.window_rim
    if min(w, h) <= 2 * r or x < 0 or y < 0:
        return None
    return image[y + r : y + h - r, x + r : x + w - r]


def _report(name: str, engine: Engine, pairs: list[Any]) -> None:
    times: list[float] = []

    def timed(crop: Any) -> Reading:
        started = time.perf_counter()
        reading = engine(crop)
        times.append((time.perf_counter() - started) * 1000)
        return reading

    timed(pairs[0][3])  # the model loads on the first reading: not timed
    times.clear()
    same: dict[str, list[bool]] = defaultdict(list)
    apart: list[bool] = []
    exact: list[bool] = []
    for _app, scenario, label, then, now in pairs:
        before, after = timed(then), timed(now)
        agree = same_name(before, after)
        same[scenario].append(bool(agree))
        apart.append(agree is False)
        for reading in (before, after):
            if label and reading.readable:
                exact.append(reading.key == "".join(label.split()).casefold())
    ordered = sorted(times)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    print(f"\n{name}: {len(times)} boxes read, p50 {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms")  # fmt: skip
    for scenario, values in sorted(same.items()):
        print(f"  same name   {scenario:<20} {100 * np.mean(values):5.1f} % of {len(values)}")
    print(f"  renamed by mistake (two confident readings differ) {100 * np.mean(apart):5.1f} %")
    if exact:
        print(f"  exact (confident readings of named widgets) {100 * np.mean(exact):5.1f} % "
              f"of {len(exact)}")  # fmt: skip


def _tesseract() -> Engine | None:
    """Tesseract's LSTM through tesserocr, a line at a time, on the crop grown 3x in grey
    levels (its models want text some 30 px tall); None when tesserocr is not installed."""
    try:
        import tesserocr
    except ImportError:
        return None
    import cv2
    from PIL import Image

    api = tesserocr.PyTessBaseAPI(psm=tesserocr.PSM.SINGLE_LINE, lang="eng")

    def read(crop: Any) -> Reading:
        gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
        big = cv2.resize(gray, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
        api.SetImage(Image.fromarray(big))
        text = api.GetUTF8Text().strip()
        return Reading(text, api.MeanTextConf() / 100 if text else 0.0)

    return read


if __name__ == "__main__":
    sys.exit(main())
