# Two commands set everything up on a fresh machine:
#   make run    install into .venv and serve the app on SQLite at http://127.0.0.1:8000 (development)
#   make test   install into .venv, check lint and types (ruff, mypy), run the whole test suite
#   make test-repeat N=10 [BUSY=1]   the suite N times from a clean clone of HEAD (see scripts/test_repeat.sh)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test test-fast test-repeat check bench findings vendor lint typecheck clean i18n

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Development: with SECRET_KEY unset, the app keeps a random one in .secret_key (made once).
run: install
	ENVIRONMENT=development $(VENV)/bin/gurka serve

# The suite on WORKERS processes (pytest-xdist; 2: this project's machines have two cores, and a
# browser test's server and Chromium wait on each other). WORKERS=0: one process, in file order.
WORKERS ?= 2
test: check
	$(PY) -m pytest -q -n $(WORKERS)

# Lint and types first: a type error fails `make test` (and so CI) before any test runs.
check: lint typecheck

test-fast: install
	$(PY) -m pytest -q -m "not e2e"

N ?= 10
test-repeat:
	BUSY=$(BUSY) FRESH=$(FRESH) ./scripts/test_repeat.sh $(N)

bench: install
	$(PY) bench/rules_bench.py

# Issue 10's findings rerun against a live server (~1 min each): on SQLite, and on Postgres too
# when TEST_DATABASE_URL is set (a fresh database is made on that server and dropped after).
findings: install
	$(PY) bench/findings_rerun.py
	if [ -n "$$TEST_DATABASE_URL" ]; then $(PY) bench/findings_rerun.py --database-url "$$TEST_DATABASE_URL"; fi

# Bring every language's catalog (locales/<lang>/LC_MESSAGES/<domain>.po) up to date with the
# code and templates, and list what is still untranslated.
i18n: install
	$(PY) -m app.i18n.catalogs

# Fetch the pinned htmx (served) and axe-core (for the browser tests) again, checked.
vendor:
	./scripts/vendor_htmx.sh
	./scripts/vendor_axe.sh

lint: install
	$(PY) -m ruff check app tests bench

typecheck: install
	$(PY) -m mypy

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
