# Two set-up commands: `make app` runs the app on sample_corpus/, `make test` runs every test.
# Both create a virtual environment in .venv on first use and reinstall when requirements change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

.PHONY: app test lint bench
app: $(BIN)/.installed
	$(BIN)/python -m streamlit run app.py --browser.gatherUsageStats=false

test: $(BIN)/.installed
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadgroup

# Style and import order (ruff), and the layering contracts of pyproject.toml (import-linter).
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

bench: $(BIN)/.installed
	$(BIN)/python bench/run_all.py
