"""What the object stage costs (issue 20): each recorded object of the real-applications
corpus asked for on a fresh start of its application, as a replay asks
(replayer/objects.py's ask_tree: the object at its recorded place, else every object of its
role and name, then what the screen shows at its point), `--repeat` times each.

Prints, per application, the median and p95 of one question in ms, and how the questions
were answered. The baseline is the pixel stage's own figure from bench_realapps (about 1 ms
where the target is near its place at 1x).

    .venv/bin/python bench/bench_atspi.py [--corpus /tmp/deskreel-realapps] [--app NAME]
                                          [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_realapps_corpus import DEFAULT_OUT
from realapps.catalog import Scenario, apps
from realapps.corpus import start
from realapps.desktop import Desktop
from realapps.judge import load
from deskreel.replayer.objects import QUESTION_BUDGET, ask_tree
from deskreel.storage.widgets import widget_from_json
from deskreel.xsession.display import connect


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    manifests = [m for m in load(args.corpus, args.app) if m["truth"] == "atspi"]
    if not manifests:
        print(f"no AT-SPI application in {args.corpus}", file=sys.stderr)
        return 2
    print(f"{'application':<18}{'objects':>8}{'asked':>7}{'p50 ms':>8}{'p95 ms':>8}  answers")
    for manifest in manifests:
        app = apps()[manifest["app"]]
        widgets = [w for s in manifest["steps"] if (w := widget_from_json(s.get("widget")))]
        if not widgets:
            continue
        with Desktop(logs=args.corpus / app.name / "logs" / "bench-atspi") as desktop:
            start(app, Scenario("bench atspi"), desktop)
            tree, display = desktop.accessibility(), connect(desktop.display.display)
            assert tree is not None, "no accessibility bus"
            times, answers = [], Counter[str]()
            for widget in widgets:
                for _ in range(args.repeat):
                    began = time.perf_counter()
                    with tree.bus.budget(QUESTION_BUDGET):
                        answer = ask_tree(tree, display, widget)
                    times.append((time.perf_counter() - began) * 1000)
                answers[_kind(answer)] += 1
            tree.close()
            display.close()
        times.sort()
        p95 = times[max(0, round(0.95 * len(times)) - 1)]
        said = ", ".join(f"{k} {n}" for k, n in sorted(answers.items()))
        print(
            f"{app.name:<18}{len(widgets):>8}{len(times):>7}{statistics.median(times):>8.1f}"
            f"{p95:>8.1f}  {said}"
        )
    return 0


def _kind(answer: object) -> str:
    widget, refusal = getattr(answer, "widget", None), getattr(answer, "refusal", None)
    if widget is not None:
        return "found"
    return f"refused ({refusal.rule})" if refusal is not None else "left to the pixels"


if __name__ == "__main__":
    sys.exit(main())
