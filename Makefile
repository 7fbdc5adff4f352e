# `make test` and `make demo` work on a fresh machine: they create .venv and install first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo bench lexicons glyphs clean install

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,ocr]'
	touch $(STAMP)

# The checks before the tests: ruff, then the layers (import-linter's contracts in
# pyproject.toml: a wrong-way import or an import cycle fails the build).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/companion demo

# Speed and accuracy figures, written as JSON under bench/.
bench: $(STAMP)
	$(BIN)/python -m bench

# Regenerate the shipped word lists from Debian's scowl and wngerman packages.
lexicons: $(STAMP)
	$(BIN)/python scripts/build_lexicons.py

# Regenerate the glyph atlas from Debian's fonts (fonts-urw-base35, fonts-dejavu-core, ...).
glyphs: $(STAMP)
	$(BIN)/python scripts/build_glyphs.py

# On a Raspberry Pi: the systemd service (systemd/install.sh refuses anywhere else, or without root).
install:
	sh systemd/install.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
