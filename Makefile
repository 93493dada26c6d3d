# Everything a fresh machine needs comes from this file, pyproject.toml and package.json.
# `make audit` runs the main job (sample_logs/ audited into loo.duckdb, HTML reports in
# reports/); `make test` runs every check (CI calls it), needing nothing outside the repository;
# `make conformance` checks the package against the specification in ../shared (CI runs it too).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Biome (npm) lints the pages' CSS and JavaScript, at the version package-lock.json pins.
NODE_STAMP := node_modules/.installed-stamp

CHROMIUM := /usr/bin/chromium

.PHONY: audit test lint conformance bench clean

# The editable install also compiles setup.py's COMPILED modules in place (Cython, gcc), then
# scripts/pgo.py compiles them with a profile; it runs again when one of them (or a .pxd of
# their C types) changes: a build older than its source is not used.
COMPILED_SOURCES := $(shell sed -n 's/^    "\(loo_replay\/.*\.py\)",$$/\1/p' setup.py)

$(STAMP): pyproject.toml setup.py scripts/pgo.py $(COMPILED_SOURCES) $(wildcard loo_replay/*/*.pxd)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# The compiled part again, guided by a profile of a simulated training run (a third
	@# faster; docs/performance.md); where that fails, the build above stays.
	$(BIN)/python scripts/pgo.py
	@# Bytecode now, as pip writes it for a regular install: where Python may not write it
	@# (PYTHONDONTWRITEBYTECODE), an editable install's modules are compiled at every start.
	$(BIN)/python -m compileall -q loo_replay
	touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# Browser tests drive Debian's Chromium (no browser download: the network is closed).
$(CHROMIUM):
	sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium chromium-driver

audit: $(STAMP)
	$(BIN)/loo-replay audit sample_logs --db loo.duckdb --out reports; status=$$?; [ $$status -le 1 ]

lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	node_modules/.bin/biome lint --error-on-warnings

# Both builds: the tests compare the compiled modules with their pure-Python source.
test: lint $(CHROMIUM)
	$(BIN)/loo-replay --version | grep -q compiled || { echo "make test: the compiled part did not build"; exit 1; }
	$(BIN)/python -m pytest -n 2 -q

# Without ../shared there is nothing to compare with: said and skipped, except in CI
# (CI=true), where the checks fail loudly.
conformance: $(STAMP)
	@if [ -d ../shared/spec ] || [ -n "$$LOO_SHARED" ] || [ "$$CI" = true ]; then \
		$(BIN)/python -m pytest tests_conformance -q; \
	else \
		echo "make conformance: ../shared/spec not found, nothing to check against"; \
	fi

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
