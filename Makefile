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

.PHONY: audit test lint conformance bench bench-quick clean pgo check-install screenshots

# Each setup step prints one line saying what it does, then its progress, counted: each
# dependency pip collects, each module Cython translates and gcc compiles
# (scripts/setup_step.py); the tools' own output goes to $(LOG), shown when a step fails.
# The editable install compiles setup.py's COMPILED modules in place (Cython, gcc, every
# core); it runs again when one of them, or a .pxd of their C types, changes.  The
# profile-guided build (`make pgo`) is opt-in.
COMPILED_SOURCES := $(shell sed -n 's/^    "\(loo_replay\/.*\.py\)",$$/\1/p' setup.py)
LOG := $(VENV)/setup.log
step = $(BIN)/python scripts/setup_step.py $(LOG) --

$(STAMP): pyproject.toml setup.py $(COMPILED_SOURCES) $(wildcard loo_replay/*/*.pxd)
	@echo "setup: creating .venv and installing the dependencies named in pyproject.toml (1 to 4 minutes)"
	@$(PYTHON) -m venv $(VENV) && : > $(LOG)
	@$(BIN)/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))' > $(VENV)/build-requirements.txt
	@$(step) $(BIN)/python -m pip install --upgrade pip -r $(VENV)/build-requirements.txt
	@$(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
		print("\n".join(p["dependencies"] + p["optional-dependencies"]["dev"]))' > $(VENV)/requirements.txt
	@$(step) $(BIN)/python -m pip install -r $(VENV)/requirements.txt
	@echo "setup: compiling $(words $(COMPILED_SOURCES)) modules with Cython and gcc on every core (1 to 7 minutes)"
	@$(step) $(BIN)/python -m pip install -v --no-build-isolation --no-deps -e .
	@# Bytecode now, as pip writes it for a regular install: where Python may not write it
	@# (PYTHONDONTWRITEBYTECODE), an editable install's modules are compiled at every start.
	@$(BIN)/python -m compileall -q loo_replay
	@touch $(STAMP)
	@$(BIN)/loo-replay --version | sed "s/ (.*//; s/^/setup: done, /"

# Opt-in: the compiled part again, guided by a profile of a simulated training run kept in
# profiles/ (several minutes on two cores; docs/performance.md, "Profile-guided build").
pgo: $(STAMP)
	$(BIN)/python scripts/pgo.py

$(NODE_STAMP): package.json package-lock.json
	@echo "setup: installing Biome, the pages' CSS and JavaScript linter, from package-lock.json"
	@npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $(NODE_STAMP)

# Browser tests drive Debian's Chromium (no browser download: the network is closed).
$(CHROMIUM):
	@echo "setup: installing Debian's chromium for the browser tests (once; a few minutes)"
	@sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium chromium-driver >/dev/null

# Findings in the samples (exit status 1) are what the audit is for: only 2 fails.
audit: $(STAMP)
	@echo "audit: loo-replay audit sample_logs --db loo.duckdb --out reports"
	@$(BIN)/loo-replay audit sample_logs --db loo.duckdb --out reports || [ $$? -le 1 ]

lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	node_modules/.bin/biome lint --error-on-warnings

# Both builds: the tests compare the compiled modules with their pure-Python source.  Each
# test file runs whole on one worker (--dist loadfile), so a module's fixture (an audit of the
# samples, a browser) is set up once, not once a worker: 14% less CPU on the report tests.
# The files start in tests/conftest.py's order, longest first (--no-loadscope-reorder).
test: lint $(CHROMIUM)
	@$(BIN)/loo-replay --version | grep -q ', compiled (' || { $(BIN)/loo-replay --version; echo "make test: the compiled part is not in use"; exit 1; }
	@# PYTHONDONTWRITEBYTECODE emptied: pytest then keeps the tests with their asserts rewritten
	@# (tests/__pycache__), and a later run reads them: 13 CPU s of collecting a worker, 5 after.
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -q

# Without ../shared there is nothing to compare with: said and skipped, except in CI
# (CI=true), where the checks fail loudly.
conformance: $(STAMP)
	@if [ -d ../shared/spec ] || [ -n "$$LOO_SHARED" ] || [ "$$CI" = true ]; then \
		$(BIN)/python -m pytest tests_conformance -q; \
	else \
		echo "make conformance: ../shared/spec not found, nothing to check against"; \
	fi

# The install as users make it: the wheel and `pip install .` in fresh environments outside
# the checkout, compiled and giving the checkout's answers (several minutes).
check-install: $(STAMP)
	$(BIN)/python scripts/check_install.py

# One table of every command at each size (benchmarks/results/latest.md, docs/performance.md):
# the 40-deal log's start-up rows, then validate and ingest (run.py) and every command that
# reads a database (commands.py) at BENCH_SIZES deals (`make bench BENCH_SIZES=2000` tries
# it small), put together by table.py; then the benchmarks of the page's other sections.
# About an hour on two quiet cores once benchmarks/data holds its logs and databases.
BENCH_SIZES ?= 40000,100000,1000000
bench: $(STAMP)
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/run.py --sizes $(BENCH_SIZES) --rulesets three-card \
		--analysis-up-to 40000 --callgrind-deals 2000
	$(BIN)/python benchmarks/commands.py --sizes 40,$(BENCH_SIZES)
	$(BIN)/python benchmarks/table.py
	$(BIN)/python benchmarks/analysis.py
	$(BIN)/python benchmarks/collusion.py --db-deals 100000
	$(BIN)/python benchmarks/collusion_calibration.py --seeds 2 --fair 4 --jobs 2
	$(BIN)/python benchmarks/explorer.py
	$(BIN)/python benchmarks/decisions.py
	$(BIN)/python benchmarks/seat_views.py
	$(BIN)/python benchmarks/small_files.py

# The start-up rows and the 40,000-deal rows of `make bench`, in under 3 minutes once
# benchmarks/data holds their logs and database (docs/performance.md):
# benchmarks/results/startup-quick.*, quick.*, commands-quick.*, and their table latest-quick.*.
# The start-up rows are medians of 5 runs, not 10 (20 CPU s less), no instructions counted.
bench-quick: $(STAMP)
	$(BIN)/python benchmarks/startup.py --runs 5 --no-instructions --results startup-quick
	$(BIN)/python benchmarks/run.py --sizes 40000 --rulesets three-card --single-core-up-to 0 \
		--analysis-up-to 40000 --callgrind-deals 0 --results quick
	$(BIN)/python benchmarks/commands.py --sizes 40000 --no-instructions --results commands-quick
	$(BIN)/python benchmarks/table.py --startup startup-quick --throughput quick \
		--commands commands-quick --results latest-quick

# The explorer's screenshots in docs/images/, from the sample logs served (docs/explorer.md).
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
