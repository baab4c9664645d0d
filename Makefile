# HalfPoint: `make run` serves the site, `make test` runs everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint browser deploy-tools bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Reinstall when the dependency list changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# HALFPOINT_PORT: the web server's port (Procfile), 8000 unless set.
run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py seed_demo
	@echo "HalfPoint on http://127.0.0.1:$${HALFPOINT_PORT:-8000}  (Ctrl-C stops the web server, worker and beat)"
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/honcho start

# Debian's chromium for the end-to-end tests; never a downloaded browser.
browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

# Debian's nginx and openssl for the production-stack test (tests/deploy/), installed only when missing.
deploy-tools:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || (apt-get update -qq && apt-get install -y -qq nginx >/dev/null)
	@command -v openssl >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq openssl >/dev/null)

# lint-imports checks the architecture contracts in pyproject.toml (no cache: the graph takes a second).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

test: $(STAMP) browser deploy-tools lint
	$(BIN)/pytest

# The production-like stack on this machine (PostgreSQL, Redis, 2 daphne, Celery), measured under load;
# writes docs/bench-latest.md. About 30 minutes; the machine should be otherwise quiet.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .celery-broker.sqlite3
