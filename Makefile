# Two set-up commands: `make app` installs the runtime and serves the app (on sample_corpus/, or
# CORPUS=folder), `make test` adds the test and dev tools and runs every test. Both create a
# virtual environment in .venv on first use and reinstall when the requirements change; the
# project is installed into it, so .venv/bin/chunk-inspector is the command line.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
CORPUS ?=

$(BIN)/.runtime: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -r requirements.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

$(BIN)/.dev: $(BIN)/.runtime requirements-dev.txt
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

.PHONY: app test lint bench docs install-check
app: $(BIN)/.runtime
	$(BIN)/chunk-inspector app $(CORPUS)

# Bytecode is written even where the environment says not to: pytest caches its rewrite of each
# test module there, and without it every worker and every pytest a test starts rewrites all of them.
test: $(BIN)/.dev
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadgroup --durations=25

# Style and import order (ruff), and the layering contracts of pyproject.toml (import-linter).
lint: $(BIN)/.dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

bench: $(BIN)/.dev
	$(BIN)/python bench/run_all.py

# The documentation site (site/): strict, so a broken link or anchor fails; then every link of
# the built site checked. The app's screenshots come from the browser tests (make test).
docs: $(BIN)/.dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@# LinkChecker run as root reads as nobody: it checks a world-readable copy of the site.
	@copy=$$(mktemp -d) && chmod 755 $$copy && cp -r site $$copy/site && chmod -R a+rX $$copy && \
	  $(BIN)/linkchecker --no-status --no-warnings --quiet $$copy/site/index.html; status=$$?; rm -rf $$copy; exit $$status

# What a user's `pip install` gets: a wheel of this checkout installed with its dependencies from
# the package index in a fresh environment outside the checkout, its report and its app run.
install-check: $(BIN)/.runtime
	$(BIN)/python scripts/check_install.py
