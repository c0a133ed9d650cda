"""Chromium (Debian's, headed on the Xvfb) on a local HTML form: a workshop registration with
labelled fields, radio buttons, a select, check boxes and buttons, filled in and submitted.
The page is ours; what is measured is Chromium's rendering of it and its accessibility tree
(--force-renderer-accessibility puts the page's elements on AT-SPI, named by their labels).

Chromium sets _NET_WM_PID on its window (the Debian launcher execs the browser), so the
corpus moves and sizes it with xdotool like any other; it runs as root, hence --no-sandbox.
The renamed and removed scenarios load a variant of the page: "Register" reads "Sign up"
(pointer step 8), "Save draft" is gone (pointer step 7); in "wrong effect" two controls'
handlers undo what they are pressed for (WRONG). The T-shirt size is chosen in the
select's popup, whose item under the pointer is highlighted: the recording sees "L"
highlighted, a replay meets it plain until the pointer is on it.

After submit the page shows what was registered in its status line and its title, which is
the document's AT-SPI name: `final_state`."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from realapps.catalog.app import App, Scenario, Step, by_role
from realapps.desktop import Desktop
from realapps.truth import Element, accessibles

__all__ = ["APP", "page"]

KEY = "Chromium"  # its AT-SPI application name
WINDOW = (900, 820)  # the window's size when recorded, in pixels
FONT_SCALE = 1.25
POSITION = (80, 60)  # the window's top-left when recorded

# Scenarios whose page differs from the recording's: the button text that differs, the
# button that is gone.
RENAMED = ("Register", "Sign up")
REMOVED = "Save draft"

_ROOT: Path | None = None


def _root() -> Path:
    """A folder of this process for the pages and the profiles, removed at exit."""
    global _ROOT
    if _ROOT is None:
        _ROOT = Path(tempfile.mkdtemp(prefix="deskreel-chromium-"))
        atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)
    return _ROOT


# The "wrong effect" scenario's page: handlers gone wrong. The Student ticket falls back
# to Standard and Vegetarian lunch never stays checked, so those steps (pointer steps 2
# and 5) and the two that show the form's summary (7 and 8) must fail --verify.
WRONG = """
const undo = (selector, then) => document.querySelector(selector).addEventListener(
  "click", () => setTimeout(then, 0));
undo("input[value=Student]", () => { form.ticket.value = "Standard"; });
undo("input[name=lunch]", () => { form.lunch.checked = false; });
"""


def page(variant: str = "") -> str:
    """The form's HTML; `variant` "renamed" or "removed" changes one button, "wrong" the
    handlers of two controls (WRONG)."""
    register = RENAMED[1] if variant == "renamed" else RENAMED[0]
    draft = "" if variant == "removed" else f'<button type="button" id="draft">{REMOVED}</button>'
    wrong = WRONG if variant == "wrong" else ""
    return PAGE.replace("{register}", register).replace("{draft}", draft).replace("{wrong}", wrong)


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<title>Workshop registration</title>
<style>
:root { color-scheme: light dark; --bg: #f4f5f7; --card: #ffffff; --ink: #1d2330;
        --muted: #5b6475; --line: #c9ced8; --accent: #2f6fde; --on-accent: #ffffff; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181d; --card: #23262e; --ink: #e7e9ee; --muted: #a2a9b8;
          --line: #454b58; --accent: #7aa7ff; --on-accent: #0c1a33; }
}
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 16px/1.4 "DejaVu Sans", sans-serif; }
main { max-width: 50em; margin: 1.2em auto; padding: 1.2em 1.6em; background: var(--card);
       border: 1px solid var(--line); border-radius: 8px; }
h1 { font-size: 1.5em; margin: 0 0 .2em; }
p.lead { color: var(--muted); margin: 0 0 1em; }
.row { display: flex; flex-wrap: wrap; gap: .4em 1.2em; margin: .7em 0; align-items: center; }
.row > label.field { flex: 0 0 9em; font-weight: bold; }
input[type=text], input[type=email], select { flex: 1 1 14em; font: inherit; padding: .3em .4em;
       border: 1px solid var(--line); border-radius: 4px; background: var(--bg);
       color: var(--ink); }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .9em 0; padding: .4em 1em; }
legend { font-weight: bold; padding: 0 .3em; }
fieldset label { display: inline-block; margin: .25em 1.4em .25em 0; white-space: nowrap; }
.buttons { display: flex; gap: .8em; justify-content: flex-end; margin-top: 1.2em; }
button { font: inherit; padding: .45em 1.2em; border-radius: 5px; border: 1px solid var(--line);
         background: var(--card); color: var(--ink); }
button[type=submit] { background: var(--accent); border-color: var(--accent);
                       color: var(--on-accent); }
#status { min-height: 1.4em; margin: 1em 0 0; padding: .5em .7em; border-radius: 4px;
          background: var(--bg); color: var(--muted); }
</style>
</head>
<body>
<main>
<h1>Workshop registration</h1>
<p class="lead">Linux desktop automation, a one-day workshop. Seats are limited.</p>
<form id="form" autocomplete="off">
  <div class="row">
    <label class="field" for="name">Full name</label>
    <input type="text" id="name" name="name" placeholder="First and last name">
  </div>
  <div class="row">
    <label class="field" for="email">Email</label>
    <input type="text" id="email" name="email" placeholder="you@example.org">
  </div>
  <fieldset>
    <legend>Ticket</legend>
    <label><input type="radio" name="ticket" value="Standard" checked> Standard</label>
    <label><input type="radio" name="ticket" value="Student"> Student</label>
    <label><input type="radio" name="ticket" value="Supporter"> Supporter</label>
  </fieldset>
  <div class="row">
    <label class="field" for="shirt">T-shirt size</label>
    <select id="shirt" name="shirt">
      <option>None</option><option>S</option><option>M</option><option>L</option>
      <option>XL</option>
    </select>
  </div>
  <fieldset>
    <legend>Options</legend>
    <label><input type="checkbox" name="lunch"> Vegetarian lunch</label>
    <label><input type="checkbox" name="news"> Send me the newsletter</label>
    <label><input type="checkbox" name="coc"> I accept the code of conduct</label>
  </fieldset>
  <div class="buttons">
    <button type="reset">Clear</button>
    {draft}
    <button type="submit" id="register">{register}</button>
  </div>
</form>
<p id="status" role="status" aria-live="polite">Not registered yet.</p>
</main>
<script>
const form = document.getElementById("form");
const status = document.getElementById("status");
function summary() {
  const data = new FormData(form);
  const ticks = ["lunch", "news", "coc"].filter((k) => data.get(k) === "on");
  return [data.get("name"), data.get("email"), data.get("ticket"), data.get("shirt"),
          ticks.join("+") || "-"].join(" | ");
}
const draft = document.getElementById("draft");
if (draft) draft.addEventListener("click", () => {
  status.textContent = "Draft saved: " + summary();
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = "Registered: " + summary();
  status.textContent = text;
  document.title = text;
});
{wrong}</script>
</body>
</html>
"""


def command(scenario: Scenario) -> list[str]:
    """Chromium on a fresh profile, showing the scenario's page as an app window."""
    variant = {"renamed": "renamed", "removed": "removed", "wrong effect": "wrong"}.get(
        scenario.name, ""
    )
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=_root()))
    form = folder / "form.html"
    form.write_text(page(variant))
    return [
        "chromium",
        "--no-sandbox",
        "--test-type",  # no infobar about --no-sandbox over the page
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--user-data-dir={folder / 'profile'}",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
        "--password-store=basic",
        "--force-renderer-accessibility",
        f"--window-position={POSITION[0]},{POSITION[1]}",
        _size(1.0),
        *scenario.argv,
        f"--app={form.as_uri()}",
    ]


def _size(scale: float) -> str:
    """--window-size for a window of WINDOW pixels: Chromium counts it in its own (scaled)
    pixels, and takes the last --window-size given."""
    return f"--window-size={round(WINDOW[0] / scale)},{round(WINDOW[1] / scale)}"


def _ready(elements: Sequence[Element]) -> bool:
    return any(e.role == "push button" and e.name == "Clear" for e in elements)


def final_state(desktop: Desktop) -> str:
    """What the page shows after the task: its status line, as the document's title."""
    docs = [e for e in accessibles(desktop.env, KEY) if e.role == "document web"]
    return docs[0].name if docs else ""


APP = App(
    name="chromium-form",
    toolkit="Chromium (Blink)",
    truth="atspi",
    key=KEY,
    command=command,
    position=POSITION,
    ready=_ready,
    settle=0.8,
    steps=(
        Step("left_click", by_role("entry", "Full name"), label="the Full name field"),
        Step("type", text="Ada Lovelace"),
        Step("left_click", by_role("entry", "Email"), label="the Email field"),
        Step("type", text="ada@example.org"),
        Step("left_click", by_role("radio button", "Student"), label="the Student ticket"),
        Step("left_click", by_role("combo box", "T-shirt size"), label="open the T-shirt sizes"),
        Step("left_click", by_role("menu item", "L"), label="choose L"),
        Step("left_click", by_role("check box", "Vegetarian lunch"), label="vegetarian lunch"),
        Step("left_click", by_role("check box", "I accept the code of conduct"), label="the CoC"),
        Step("left_click", by_role("push button", REMOVED), label="save a draft"),
        Step("left_click", by_role("push button", RENAMED[0]), label="register"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 200)),
        Scenario("resized", size=(1300, 900)),
        # Everything 1.25x bigger in a window of the same size on the screen: the page's
        # viewport shrinks in CSS pixels and the form reflows (fields narrow, a check box
        # wraps to the next line). AT-SPI gives the frame's box unscaled then, the page's
        # elements in screen pixels.
        Scenario(
            "font 1.25x",
            argv=(f"--force-device-scale-factor={FONT_SCALE}", _size(FONT_SCALE)),
            told=FONT_SCALE,
        ),
        Scenario("theme", argv=("--force-dark-mode",)),  # the page follows prefers-color-scheme
        Scenario("renamed", absent=frozenset({8})),
        Scenario("removed", absent=frozenset({7})),
        Scenario("wrong effect", wrong=frozenset({2, 5, 7, 8})),
    ),
    final_state=final_state,
)
