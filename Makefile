# VEYLTAK: `make run` serves the whole site, `make test` runs the whole suite. Nothing else needed.
SHELL := /bin/bash
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test install lint format lock bench clean

$(STAMP): requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	@touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_catalogue
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo
	@echo "  VEYLTAK is served at http://127.0.0.1:$${VEYLTAK_PORT:-8000}  (web, worker and beat; Ctrl-C stops all three)"
	@echo
	$(PY) scripts/runner.py --procfile Procfile

test: install
	$(PY) scripts/testenv.py $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo --no-cache
	$(PY) scripts/check_module_size.py

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

lock: install
	$(VENV)/bin/pip-compile --quiet --extra dev --strip-extras --no-header \
	  --no-emit-index-url --no-emit-find-links --output-file requirements.lock pyproject.toml

bench: install
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) var
