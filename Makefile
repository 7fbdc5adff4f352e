# `make test` and `make demo` work on a fresh machine: they create .venv and install first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo bench lexicons glyphs model model-alike confidence clean install

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

# Train the learned square reader and write companion/vision/data/squares.onnx and .json
# (docs/vision-model.md): renders cut into squares (seeds 70000 on; validation 90000 on; never
# the stranger benchmark's 50000-50199), then PyTorch on one thread. Installs the [train] extra.
SQUARES := build/squares
model: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,ocr,train]'
	$(BIN)/python scripts/make_squares.py --seed0 70000 --scenes 800 --out $(SQUARES)/train_a.npz
	$(BIN)/python scripts/make_squares.py --seed0 70800 --scenes 800 --out $(SQUARES)/train_b.npz
	$(BIN)/python scripts/make_squares.py --seed0 90000 --scenes 120 --out $(SQUARES)/val.npz
	$(BIN)/python scripts/train_squares.py --train $(SQUARES)/train_a.npz $(SQUARES)/train_b.npz \
		--val $(SQUARES)/val.npz --out companion/vision/data --epochs 5
	$(MAKE) confidence

# The shipped network fine-tuned on look-alikes (docs/vision-model.md, "Look-alikes"): backs of
# the board's own colours and tokens of the faces' (make_squares.py --look-alikes, seeds 72000 on,
# validation 90200 on), the base's first 800 scenes mixed in, 3 epochs at a tenth of the base's
# learning rate. Written to build/squares/alike, not shipped: on the development strangers it
# read better without a profile and worse with the table's.
model-alike: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,ocr,train]'
	$(BIN)/python scripts/make_squares.py --seed0 70000 --scenes 800 --out $(SQUARES)/train_a.npz
	$(BIN)/python scripts/make_squares.py --seed0 90000 --scenes 120 --out $(SQUARES)/val.npz
	$(BIN)/python scripts/make_squares.py --seed0 72000 --scenes 200 --look-alikes --out $(SQUARES)/alike_a.npz
	$(BIN)/python scripts/make_squares.py --seed0 72200 --scenes 160 --look-alikes --out $(SQUARES)/alike_b.npz
	$(BIN)/python scripts/make_squares.py --seed0 72360 --scenes 440 --look-alikes --out $(SQUARES)/alike_c.npz
	$(BIN)/python scripts/make_squares.py --seed0 90200 --scenes 60 --look-alikes --out $(SQUARES)/alike_val.npz
	$(BIN)/python scripts/train_squares.py --init companion/vision/data --train $(SQUARES)/alike_a.npz \
		$(SQUARES)/alike_b.npz $(SQUARES)/alike_c.npz $(SQUARES)/train_a.npz \
		--val $(SQUARES)/val.npz $(SQUARES)/alike_val.npz --out $(SQUARES)/alike --epochs 3 --lr 5e-4

# The confidence calibrator (companion/vision/confidence.py) on development renders the network
# and the benchmarks never see (trainscene seeds 91000-91299), each read without a profile and with
# the profile its table's calibration photos make: companion/vision/data/confidence.json (two
# processes, about 30 minutes here). It depends on the square model: `make model` refits it.
confidence: $(STAMP)
	$(BIN)/python scripts/fit_confidence.py --seed0 91000 --scenes 300 --processes 2

# On a Raspberry Pi: the systemd service (systemd/install.sh refuses anywhere else, or without root).
install:
	sh systemd/install.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
