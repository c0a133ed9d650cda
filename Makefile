# Set-up and the two everyday jobs. Safe to run twice; needs root on a fresh Debian machine
# for the apt step (it is skipped when the packages are already there).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
APT_PACKAGES := xvfb xdotool x11-xkb-utils x11-utils xauth python3-tk python3-venv
OUT ?= out

.PHONY: demo test deps venv bench clean

demo: deps venv
	$(PY) -m deskreel.demo --out $(OUT)/demo

test: deps venv
	$(PY) -m pytest

deps:
	@if dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
	  echo "system packages present: $(APT_PACKAGES)"; \
	else \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); \
	fi

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) $(OUT) *.egg-info .pytest_cache
