"""The HTML report of a real `replay --verify` run, opened in a real headless Chromium
(Debian's `chromium`): no console errors (a script, a blocked load, a CSP violation), every
image decodes, one row per step."""

from __future__ import annotations

import re
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from deskreel.storage import open_store
from tests.commands import deskreel
from tests.test_verify import recorded

# The page is opened through file://, as a reader opens a CI artifact. Chromium logs
# what the page's console says (errors, CSP violations) as "INFO:CONSOLE:LINE]" (older
# versions "INFO:CONSOLE(LINE)]"); the rest of its stderr is its own noise (D-Bus, GPU).
_CONSOLE = re.compile(r":CONSOLE[:(].*")
_ROW = re.compile(r'<article class="step[ "]')

# Scripts cannot run inside the report (its policy forbids them), so a page next to it
# loads it in a frame and writes what it finds into its own DOM for --dump-dom to print.
_PROBE = """<!doctype html><html><body><iframe id="r" src="{src}"></iframe><pre id="out">
pending</pre><script>
const shown = (img) => new Promise((done) => {{
  const check = () => done((img.naturalWidth > 0 ? "ok " : "broken ") + img.getAttribute("src"));
  if (img.complete) {{ check(); return; }}
  img.addEventListener("load", check);
  img.addEventListener("error", check);
}});
document.getElementById("r").addEventListener("load", async (event) => {{
  const doc = event.target.contentDocument;
  const images = [...doc.images];
  images.forEach((img) => {{ img.loading = "eager"; }});
  const lines = await Promise.all(images.map(shown));
  lines.push("rows " + doc.querySelectorAll("article.step").length);
  document.getElementById("out").textContent = lines.join("\\n");
}});
</script></body></html>
"""


@dataclass
class Opened:
    dom: str  # the report's DOM once loaded
    console: list[str]  # what its console said
    images: list[str]  # "ok SRC" or "broken SRC" (it did not load or decode), one per <img>
    rows: int  # article.step elements, counted by the browser


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("DESKREEL_REQUIRE_X"):  # CI: make test installs it; never skip
            pytest.fail("chromium is not installed and DESKREEL_REQUIRE_X is set")
        pytest.skip(
            "chromium is not installed (apt-get install chromium): the HTML report "
            "was not opened in a real browser"
        )
    return path


def open_report(index: Path, profile: Path) -> Opened:
    """Open `index` in headless Chromium: its DOM and console, then its images."""
    browser = chromium()

    def dump(url: str, *extra: str) -> tuple[str, str]:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=5000",
                *extra,
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout, done.stderr

    dom, log = dump(index.as_uri())
    probe = index.parent.parent / f"{index.parent.name}-probe.html"
    probe.write_text(_PROBE.format(src=f"{index.parent.name}/{index.name}"))
    shown, probe_log = dump(probe.as_uri(), "--allow-file-access-from-files")
    found = re.search(r'<pre id="out">(.*?)</pre>', shown, re.S)
    assert found, shown[-2000:]
    lines = found.group(1).strip().splitlines()
    assert lines and lines[-1].startswith("rows "), lines
    console = _CONSOLE.findall(log) + _CONSOLE.findall(probe_log)
    return Opened(dom, console, lines[:-1], int(lines[-1].split()[1]))


def assert_opens_cleanly(index: Path, profile: Path, steps: int) -> Opened:
    opened = open_report(index, profile)
    assert opened.console == [], opened.console
    assert opened.images and all(i.startswith("ok ") for i in opened.images), opened.images
    assert opened.rows == steps and len(_ROW.findall(opened.dom)) == steps
    return opened


def test_a_failed_verify_report_opens_in_chromium(launch_app, run_deskreel, xvfb, tmp_path):
    chromium()  # skip before recording anything
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    # OK shows other text (step 2 fails its check), Save is gone (step 3: not found)
    launch_app(effect="changed", layout="removed")
    report = tmp_path / "report"
    done = deskreel(
        "replay",
        db,
        "--verify",
        "--keep-going",
        "--timeout",
        "1",
        "--report",
        report,
        env=xvfb.env(),
    )
    assert done.returncode == 1, done.stderr
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
        steps = len(store.steps(run.recording_id))
        statuses = [r.status for r in store.step_results(run.id)]
    assert statuses == ["passed", "failed", "failed"], done.stderr
    opened = assert_opens_cleanly(report / "index.html", tmp_path / "profile", steps)
    assert opened.dom.index('id="failure"') < opened.dom.index('id="step-1"')
    assert "ok crops/step0003-best-match.png" in opened.images
