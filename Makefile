# errdex: `make serve` to set up, validate, build and serve the site; `make test` for the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup validate build serve test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip==25.3
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

validate: setup
	$(BIN)/errdex validate --strict

build: setup
	$(BIN)/errdex build --out site

serve: build
	$(BIN)/errdex serve --dir site --port 8000

test: setup
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python -m bench.validate

clean:
	rm -rf site build .pytest_cache
