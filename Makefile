# HalfPoint: `make run` serves the site, `make test` runs everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long lint browser deploy-tools catalogs messages bench bench-nodes clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Reinstall when the dependency list changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# HALFPOINT_PORT: the web server's port (Procfile), 8000 unless set.
run: $(STAMP) catalogs
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py seed_demo
	@echo "HalfPoint on http://127.0.0.1:$${HALFPOINT_PORT:-8000}  (Ctrl-C stops the web server, worker and beat)"
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/honcho start

# Debian's chromium for the end-to-end tests; never a downloaded browser. Noto CJK: the Chinese pages'
# screenshots show characters, not boxes.
browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	@[ -d /usr/share/fonts/opentype/noto ] && fc-list | grep -q "Noto Sans CJK" || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null)

# The translations (locale/*/LC_MESSAGES/*.po) compiled for gettext; the .mo files are not in git. Debian's
# gettext provides msgfmt, installed only when missing.
catalogs: $(STAMP)
	@command -v msgfmt >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq gettext >/dev/null)
	@$(BIN)/python manage.py compilemessages --ignore=.venv --ignore=.bench -v 0

# The catalogs brought up to date with the code's strings (then translate what is new: docs/glossary.md).
MESSAGES_IGNORE := --ignore=.venv --ignore=.bench --ignore=tests --ignore=staticfiles --ignore=build --ignore=deploy
messages: $(STAMP)
	$(BIN)/python manage.py makemessages --all --no-obsolete $(MESSAGES_IGNORE)
	$(BIN)/python manage.py makemessages -d djangojs --all --no-obsolete $(MESSAGES_IGNORE)

# Debian's nginx and openssl for the production-stack test (tests/deploy/), installed only when missing.
deploy-tools:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || (apt-get update -qq && apt-get install -y -qq nginx >/dev/null)
	@command -v openssl >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq openssl >/dev/null)

# lint-imports checks the architecture contracts in pyproject.toml (no cache: the graph takes a second).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

# PYTEST_ARGS: more arguments for pytest, e.g. .ci/run's marker expressions (its parts without and with the browser)
# and `-n 2` (pytest-xdist's two workers, for the defaults' tests without a browser: docs/testing.md).
test: $(STAMP) browser deploy-tools catalogs lint
	$(BIN)/pytest $(PYTEST_ARGS)

# The long runs, left out of `make test` to keep CI under 30 minutes: `make run` on a fresh clone started twenty
# times with every process checked (tests/test_embedded_stack.py, about 10 minutes), and with DATABASE_URL and
# REDIS_URL set the soak of ten thousand hands (tests/games/test_soak.py, about 5 minutes).
test-long: $(STAMP) browser catalogs
	$(BIN)/pytest -m "stack or soak"

# The production-like stack on this machine (PostgreSQL, Redis, 2 daphne, Celery), measured under load;
# writes docs/bench-latest.md. 45 to 55 minutes (50 to 1000 tables; 2000 first logins take 4 of them);
# the machine should be otherwise quiet.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	@# stress-ng: the neighbour's load of `bench.py --stress` and `ab.py --stress`
	@command -v stress-ng >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null)
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

# The deployment's topology as separate nodes on this machine (network namespaces, nginx routing each room to one
# node, PostgreSQL and Redis shared), measured with 1 and 2 nodes and a node killed mid-hand: docs/scaling.md.
# As root. NODES_ARGS: e.g. --short (a smoke run of a few minutes), --nodes 1,2,3. About 25 minutes; quiet machine.
bench-nodes: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/nodes.py $(NODES_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .celery-broker.sqlite3
