# One entry point for a fresh machine. `make report` and `make test` each do all of
# their own set-up: a virtual environment in .venv with torch pinned to the CPU build
# (constraints.txt), and for the tests Debian's chromium for the browser checks.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt

.PHONY: report report-full report-status test test-fast notebooks bench setup browser docs clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) torch==2.13.0
	$(PIP) -e '.[test,jupyter,bench,docs]'
	$(BIN)/python -m topics.clustering.precompile
	touch $(STAMP)

setup: $(STAMP)

## The main job: the HTML trend report for the bundled ICLR 2024 and 2025 files,
## with four further seeds to show which topics and changes hold; the analysis is saved
## in reports/model (the notebooks load it; `topics assign reports/model ...` uses it).
report: $(STAMP)
	$(BIN)/topics report --stability-seeds 4 --tables reports/tables --save-model reports/model

## The same on the full accepted-paper lists (4,364 abstracts; embedding takes minutes once, then is cached),
## with two further consensus fits.
report-full: $(STAMP)
	$(BIN)/topics report --dataset full --stability-seeds 2 -o reports/iclr-2024-vs-2025-full.html --tables reports/tables-full

## The full lists compared between orals, spotlights and posters (years pooled).
report-status: $(STAMP)
	$(BIN)/topics report --dataset full --by status -o reports/iclr-by-status.html --tables reports/tables-status

## Headless Chromium for the browser tests (Debian package; needs root or sudo).
browser:
	@if [ -x /usr/bin/chromium ]; then echo "chromium: $$(/usr/bin/chromium --version 2>/dev/null)"; \
	else SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; fi

## The documentation site (docs/, mkdocs.yml) into site/, warnings as errors: a broken link, a
## missing reference or an incomplete public docstring fails. Open site/index.html offline.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

## All tests, the real-model and browser ones included, after building the docs; one
## pytest-xdist worker per core (TEST_WORKERS=1 runs them in one process), each idle worker
## taking tests from a busy one (worksteal), since their times range from milliseconds to a minute.
TEST_WORKERS ?= auto
test: $(STAMP) browser docs
	$(BIN)/python -m pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal

## Quick loop while developing: skip the real model, the browser and the notebooks.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal -m "not slow and not browser and not notebook"

## The notebooks as .ipynb files beside their jupytext sources (notebooks/*.py), so that
## Jupyter and `jupyter nbconvert --execute notebooks/01_explore_topics.ipynb` open them; they
## read ../reports/model, so they stay in notebooks/. The .py files are the source: rerun after editing one.
notebooks: $(STAMP)
	$(BIN)/jupytext --to ipynb --quiet notebooks/0*.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) reports/*.html reports/tables* reports/model site
