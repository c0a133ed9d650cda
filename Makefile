# Set-up and the two everyday jobs. Safe to run twice; needs root on a fresh Debian machine
# for the apt step (it is skipped when the packages are already there).
#
# The PostgreSQL tests run against $DESKREEL_TEST_PG when it is set; otherwise `make test`
# starts the machine's own PostgreSQL if it is installed (never installing it: .ci/run does)
# and points them at it. Without either they are skipped, and pytest says why.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
APT_PACKAGES := xvfb xdotool x11-xkb-utils x11-utils xauth libxkbcommon0 python3-tk python3-venv chromium \
	dbus-daemon at-spi2-core python3-gi gir1.2-gtk-3.0 weston xwayland xserver-xorg-core \
	xserver-xorg-video-dummy xserver-xephyr x11vnc
OUT ?= out
PG_URL_FILE := $(VENV)/pg-test-url

.PHONY: demo samples test lint deps venv pg bench clean realapps-deps bench-realapps bench-long \
	bench-ocr

demo: deps venv
	$(PY) -m deskreel.demo --out $(OUT)/demo

# Records samples/demo.db, the recording `make demo` replays (committed; never edit it by hand).
samples: deps venv
	$(PY) -m samples.make_sample

test: deps venv pg lint
	DESKREEL_TEST_PG="$${DESKREEL_TEST_PG:-$$(cat $(PG_URL_FILE) 2>/dev/null)}" $(PY) -m pytest

# What the code is held to before the tests run: lint, the formatter, types, the layers
# (docs/architecture.md; the contract is pyproject's [tool.importlinter]).
lint: venv
	$(PY) -m ruff check --quiet .
	$(PY) -m ruff format --check --quiet .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports --no-logo

# Best effort: a missing or broken PostgreSQL only means its tests are skipped.
pg: venv
	@rm -f $(PG_URL_FILE)
	@if [ -n "$$DESKREEL_TEST_PG" ]; then \
	  echo "PostgreSQL tests: the server in DESKREEL_TEST_PG"; \
	elif .ci/postgres > $(PG_URL_FILE).new; then \
	  mv $(PG_URL_FILE).new $(PG_URL_FILE); \
	else \
	  rm -f $(PG_URL_FILE).new; echo "PostgreSQL tests: no local server, they will be skipped"; \
	fi

# The real applications of bench/bench_realapps.py (issue 19) and what reads their widgets:
# installed when that benchmark runs, not for `make test` (its subset is committed screens).
REALAPPS_PACKAGES := gtk-3-examples zenity mousepad x11-apps tk8.6-doc chromium dbus-daemon \
	at-spi2-core python3-gi gir1.2-atspi-2.0 qtbase5-examples qt5ct nedit

realapps-deps: deps
	@.ci/apt-install $(REALAPPS_PACKAGES)

# Builds what is missing of the corpus in /tmp/deskreel-realapps (minutes per application),
# then measures it.
bench-realapps: realapps-deps venv
	$(PY) bench/bench_realapps.py --build-missing

# Text recognition engines compared on the corpus of bench-realapps (issue 32): RapidOCR, which
# deskreel uses, and Tesseract through tesserocr, installed for this benchmark alone.
bench-ocr: realapps-deps venv
	@.ci/apt-install tesseract-ocr-eng
	$(PY) -m pip install -qq tesserocr
	$(PY) bench/bench_ocr.py

# A scripted person at a busy desktop (top in a terminal, a clock) and a quiet one, recorded
# for 10 minutes each (issue 39; MINUTES=60 for the hour).
LONG_PACKAGES := xterm x11-apps
MINUTES ?= 10

bench-long: deps venv
	@.ci/apt-install $(LONG_PACKAGES)
	$(PY) bench/bench_long_record.py --minutes $(MINUTES)

deps:
	@.ci/apt-install $(APT_PACKAGES)

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --upgrade pip
	$(PY) -m pip install -qq -e '.[test]'
	@# pyautogui asks for python3-Xlib, whose files would overwrite python-xlib's: not it
	$(PY) -m pip install -qq --no-deps pyautogui==0.9.54 mouseinfo==0.1.3
	touch $@

clean:
	rm -rf $(VENV) $(OUT) *.egg-info .pytest_cache
