# VEYLTAK: `make run` serves the whole site, `make test` runs the whole suite. Nothing else needed.
#
# Two virtualenvs, so that what serves the site holds nothing it does not run:
#   .venv      `make run`: requirements.lock, the runtime dependencies only
#   .venv-dev  `make test`, `make lint`, `make bench`, the rival's offline tools:
#              requirements-dev.lock (the same runtime pins plus the tests', linters' and tools')
# Both locks pin every package with its hashes; `make lock` rebuilds both from pyproject.toml.
SHELL := /bin/bash
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
DEV_VENV := .venv-dev
PY := $(VENV)/bin/python
DEV_PY := $(DEV_VENV)/bin/python
LOCK := requirements.lock
DEV_LOCK := requirements-dev.lock
COMPILE = $(DEV_VENV)/bin/pip-compile --quiet --strip-extras --no-header --allow-unsafe \
  --generate-hashes --no-emit-index-url --no-emit-find-links

.PHONY: run test install install-dev lint format lock bench clean

$(VENV)/.installed: $(LOCK)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK)
	@touch $@

$(DEV_VENV)/.installed: $(DEV_LOCK)
	@test -x $(DEV_PY) || $(PYTHON) -m venv $(DEV_VENV)
	$(DEV_PY) -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	@touch $@

install: $(VENV)/.installed

install-dev: $(DEV_VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_catalogue
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo
	@echo "  VEYLTAK is served at http://127.0.0.1:$${VEYLTAK_PORT:-8000}  (web, the rival's and the debrief worker, beat; Ctrl-C stops all four)"
	@echo
	$(PY) scripts/runner.py --procfile Procfile

# The ten slowest tests are printed at the end; PYTEST_ARGS="tests/site -q" passes arguments on.
test: install-dev
	$(DEV_PY) scripts/testenv.py --durations=10 $(PYTEST_ARGS)

lint: install-dev
	$(DEV_VENV)/bin/ruff check .
	$(DEV_VENV)/bin/ruff format --check .
	$(DEV_VENV)/bin/lint-imports --no-logo --no-cache
	$(DEV_PY) scripts/check_module_size.py
	$(DEV_PY) scripts/check_test_imports.py

format: install-dev
	$(DEV_VENV)/bin/ruff check --fix .
	$(DEV_VENV)/bin/ruff format .

# The runtime lock first; the dev lock is held to its pins (-c), so a package both use is the
# same version in both venvs.
lock: install-dev
	$(COMPILE) --output-file $(LOCK) pyproject.toml
	$(COMPILE) --extra dev --constraint $(LOCK) --output-file $(DEV_LOCK) pyproject.toml

bench: install-dev
	$(DEV_PY) bench/engine.py

clean:
	rm -rf $(VENV) $(DEV_VENV) var
