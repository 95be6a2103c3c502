# Two commands: `make run` (demo on SQLite + in-process clock) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast bench lint format venv dev-venv migrate demo clean

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed requirements-dev.txt
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed
dev-venv: $(VENV)/.dev-installed

migrate: venv
	$(PY) manage.py migrate --noinput

run: venv migrate
	$(PY) manage.py seed_demo
	@echo "Serving on http://$(HOST):$(PORT)/ — admin at http://$(HOST):$(PORT)/admin/ (Ctrl-C stops)"
	$(PY) manage.py serve_with_clock --host $(HOST) --port $(PORT)

# Typed and checked by mypy (django-stubs); grows as modules are made clean.
MYPY_PATHS := scoring pairing play simulation movements teams vugraph rating club bluechip tournaments/services tournaments/push tournaments/sql.py \
	tournaments/permissions.py tournaments/errors.py tournaments/validators.py tournaments/round_rules.py

test: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy $(MYPY_PATHS)
	bash scripts/test.sh

# The pure cores (scoring, pairing, play, movements, teams, vugraph, rating, club) need no database: no
# PostgreSQL, no Django, a tenth of the random examples. A quick answer while working; `make test` runs everything.
test-fast: dev-venv
	TESTS_FAST=1 $(VENV)/bin/python -m pytest -p no:django --noconftest -q tests/scoring tests/pairing tests/play tests/movements tests/teams tests/vugraph tests/rating tests/club tests/bluechip

bench: dev-venv
	bash scripts/bench.sh

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy $(MYPY_PATHS)

format: dev-venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .hypothesis
