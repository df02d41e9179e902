# errdex: `make serve` to set up, validate, build and serve the site; `make test` for the test suite, `make test-data` for the checks of the full data.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup validate build serve test test-data bench harvest wheel screenshots clean

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

# The quick loop: the import contracts (lint-imports, pyproject.toml), then every test but those of the repository's
# full data (pytest -m data), two workers.
test: setup
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest -q -m "not data" -n 2 --dist worksteal

# The checks of the repository's own records and catalog: their validation, their built site, download budgets.
test-data: setup
	$(BIN)/pytest -q -m data

# A wheel that works outside any checkout: it ships the compiled match data of data/errors (errdex bundle).
wheel: setup
	$(BIN)/errdex bundle
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir dist .

# The README's screenshots (docs/screenshots/), from the built site in headless Chromium.
screenshots: build
	$(BIN)/python scripts/screenshots.py --site site

bench: setup
	$(BIN)/python -m bench.validate

# The catalog: every release listed in data/catalog/projects.yaml (PROJECTS="vllm sglang" for some), downloads
# and extraction cached in ~/.cache/errdex; TGI and Ollama are read from bare clones at TGI_GIT and OLLAMA_GIT
# (made when missing).
TGI_GIT ?= $(HOME)/.cache/errdex/git/text-generation-inference.git
OLLAMA_GIT ?= $(HOME)/.cache/errdex/git/ollama.git
PROJECTS ?=
harvest: setup
	test -d "$(TGI_GIT)" || git clone --quiet --bare https://github.com/huggingface/text-generation-inference "$(TGI_GIT)"
	test -d "$(OLLAMA_GIT)" || git clone --quiet --bare https://github.com/ollama/ollama "$(OLLAMA_GIT)"
	nice -n 10 $(BIN)/errdex harvest $(PROJECTS) --git "huggingface/text-generation-inference=$(TGI_GIT)" --git "ollama/ollama=$(OLLAMA_GIT)"
	nice -n 10 $(BIN)/errdex symbols $(PROJECTS)
	$(BIN)/errdex stats --links data/catalog/links.json

clean:
	rm -rf site build dist generator/data .pytest_cache
