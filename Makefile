# The two commands a newcomer needs: `make play` and `make test`.
# Everything runs from a project-local virtual environment that these targets create.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The mypyc-compiled engine (see lanswitch/_native.py); without it the pure engine runs.
NATIVE := lanswitch/game.build-hash

.PHONY: play test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(NATIVE): lanswitch/game.py lanswitch/rules.py lanswitch/cards.py | $(STAMP)
	$(BIN)/python -m lanswitch._build || echo "make: the engine was not compiled; the pure Python engine will run"

play: $(STAMP) $(NATIVE)
	$(BIN)/lanswitch play

test: $(STAMP) $(NATIVE) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP) $(NATIVE)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache $(NATIVE) lanswitch/*.so lanswitch/*.pyd
