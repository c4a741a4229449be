# The two commands a newcomer needs: `make play` and `make test`.
# Everything runs from a project-local virtual environment that these targets create:
# .venv/bin/lanswitch is the command they install (see README.md, "Installing").
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# What play needs, without the test tools: lanswitch, and mypy's mypyc to compile the engine.
PLAY_STAMP := $(VENV)/.installed-play
# The mypyc-compiled engine (see lanswitch/_native.py); without it the pure engine runs.
NATIVE := lanswitch/game.build-hash
PIP := $(BIN)/python -m pip --disable-pip-version-check

.PHONY: play test lint typecheck pytest bench clean

# Before anything runs (when make reads this file), for every target but clean: the Python
# must be 3.11 or newer, and a .venv that an unusable Python made (too old, or half made,
# without pip) is removed so that the rules below make it again.
ifneq ($(if $(MAKECMDGOALS),$(filter-out clean,$(MAKECMDGOALS)),play),)
PY_OK := $(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null)
ifneq ($(PY_OK),1)
$(error lanswitch needs Python 3.11 or newer, and '$(PYTHON)' is $(or $(shell $(PYTHON) --version 2>&1),not found). Install a newer one and run, e.g., make PYTHON=python3.12 $(MAKECMDGOALS))
endif
BAD_VENV := $(shell [ -e $(BIN)/python ] && ! $(BIN)/python -c 'import sys, pip; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 && echo yes)
ifeq ($(BAD_VENV),yes)
$(info make: $(VENV) was made by an unusable Python ($(shell $(BIN)/python --version 2>&1)); making it again)
$(shell rm -rf $(VENV))
endif
endif

# Said when pip fails: the first install downloads lanswitch's dependencies (after that,
# lanswitch runs without the internet; a table is played over the local network only).
OFFLINE := echo "make: the first install needs the Python package index (pypi.org) once, and pip could not get what it needs from it: connect to the internet (or set PIP_INDEX_URL to a mirror) and run make again"; exit 1

$(BIN)/python:
	@echo "make: creating $(VENV) with $$($(PYTHON) --version)"
	$(PYTHON) -m venv $(VENV)
	@$(PIP) install --quiet --upgrade pip || echo "make: pip was not upgraded (no package index?); going on with the one $(VENV) has"

# make test installs the test tools too (pytest, hypothesis, ruff), which play does without.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "make: installing lanswitch, what it needs and its test tools into $(VENV) (a minute or so the first time)"
	@$(PIP) install --progress-bar on -e '.[test]' || { $(OFFLINE); }
	@touch $(STAMP) $(PLAY_STAMP)
	@echo "make: installed; the command is $(BIN)/lanswitch (or: $(BIN)/python -m lanswitch)"

$(PLAY_STAMP): pyproject.toml | $(BIN)/python
	@if [ $(STAMP) -nt pyproject.toml ]; then touch $(PLAY_STAMP); else \
	  echo "make: installing lanswitch and what it needs into $(VENV) (a minute or so the first time)"; \
	  $(PIP) install --progress-bar on -e '.[build]' || { $(OFFLINE); }; \
	  touch $(PLAY_STAMP); \
	  echo "make: installed; the command is $(BIN)/lanswitch (or: $(BIN)/python -m lanswitch)"; \
	fi

$(NATIVE): lanswitch/game.py lanswitch/heuristic.py lanswitch/search.py lanswitch/cards.py $(wildcard lanswitch/rules/*.py) | $(PLAY_STAMP)
	@echo "make: compiling the rules engine and the bots' search with mypyc (about half a minute, once)"
	@$(BIN)/python -m lanswitch._build || echo "make: the engine was not compiled; the pure Python engine will run"

# ARGS: play's options, e.g. make play ARGS="--rules irish --interface 192.168.1.20"
# (lanswitch play --help lists them).
ARGS ?=
play: $(PLAY_STAMP) $(NATIVE)
	@echo "make: starting $(BIN)/lanswitch play $(ARGS) (friends join with: $(BIN)/lanswitch join, in their own clone after make)"
	$(BIN)/lanswitch play $(ARGS)

test: $(STAMP) $(NATIVE) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite runs in WORKERS processes side by side (pytest-xdist). Most tests wait (on real
# sockets, TLS handshakes, terminals, timers) rather than compute, so more workers than CI's
# two cores shortens it; tests/README.md says how to run one file alone.
WORKERS ?= 4
pytest: $(STAMP)
	$(BIN)/pytest -q -n $(WORKERS) --dist worksteal

bench: $(STAMP) $(NATIVE)
	$(PIP) install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache $(NATIVE) lanswitch/*.so lanswitch/*.pyd
