# mimic — quick start: `make demo` runs the main job, `make test` runs the tests.
# Both create .venv and install the package with its extras first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUNFISH_VENV := .venv-sunfish

.PHONY: demo test warm lint typecheck pytest engines sunfish bench-engine wheel clean help

help:
	@echo "make demo          label 2,000 positions with the built-in mentor, evolve, write results/demo/"
	@echo "make test          lint, typecheck and pytest (installs .venv, and Debian's engines when root)"
	@echo "make lint          ruff check on the packages, tests, benchmarks and tools"
	@echo "make typecheck     mypy on the four packages"
	@echo "make pytest        pytest alone (with the Debian engines installed first)"
	@echo "make warm          compile the numba core into the cache (once a machine; a second when it is there)"
	@echo "make engines       install Debian's stockfish, phalanx, toga2, glaurung, ethereal-chess when missing (root only)"
	@echo "make sunfish       sunfish's UCI engine in its own venv (.venv-sunfish), for benchmarks"
	@echo "make bench-engine  benchmarks/engine.py: nodes/s and WAC against sunfish"
	@echo "make wheel         build dist/mimic_chess-*.whl, the package for worker machines (docs/cluster.md)"
	@echo "make clean         remove the venvs and the tool caches"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch (the optional extra 'nets', for mimic train-net) goes in first, by its exact version (the CPU build);
# where it cannot be installed the package goes in without it and the net training tests skip. The extra
# 'cluster' (dask[distributed], for --backend dask) goes in with the dev extras so its tests run.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check torch==2.13.0 \
	  || echo "warning: could not install torch==2.13.0; mimic train-net and its tests need it (they will skip)"
	@if $(BIN)/python -c "import torch" >/dev/null 2>&1; then extras=dev,cluster,nets; else extras=dev,cluster; fi; \
	  echo "$(BIN)/python -m pip install -e '.[$$extras]'"; \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[$$extras]"
	@touch $@

# The compiled core (search/core/, numba): compiled once a machine into the cache (about 60 s on 2 cores), loaded in
# about a second by every later process; after an edit of the core it compiles that state once.
warm: $(STAMP)
	$(BIN)/python -m search.core.warm

# Debian's stockfish (a real mentor), phalanx (an XBoard engine), toga2, glaurung and ethereal-chess (replay's
# deterministic engines) for the tests that need them;
# those tests skip, with a note, when they cannot be installed (not root, no apt-get).
engines:
	@missing=""; \
	[ -x /usr/games/stockfish ] || command -v stockfish >/dev/null 2>&1 || missing="$$missing stockfish"; \
	for e in phalanx toga2 glaurung ethereal-chess; do \
	  [ -x /usr/games/$$e ] || command -v $$e >/dev/null 2>&1 || missing="$$missing $$e"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's$$missing"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1 \
	  || (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1) \
	  || echo "warning: could not install$$missing; the tests that need them will skip"; \
	else echo "note:$$missing missing and we are not root; the tests that need them will skip"; fi

# sunfish pins an old python-chess for its GUI; its UCI engine needs nothing, so it lives apart.
sunfish: $(SUNFISH_VENV)/bin/sunfish-uci
$(SUNFISH_VENV)/bin/sunfish-uci:
	$(PYTHON) -m venv $(SUNFISH_VENV)
	$(SUNFISH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps sunfish

demo: warm
	$(BIN)/mimic demo

lint: $(STAMP)
	$(BIN)/ruff check search organisms mentor evolve tests benchmarks tools

typecheck: $(STAMP)
	$(BIN)/mypy

# Two worker processes (pytest-xdist), each taking whole test files, so module fixtures are built once; the files
# in the order tests/conftest.py gives them (the heaviest first, HEAVY_FIRST), not xdist's (the most tests first).
pytest: warm engines
	$(BIN)/pytest -q -n 2 --dist loadfile --no-loadscope-reorder

# The core compiles (one CPU) while lint and mypy run (the other); then the tests, on both.
test:
	@$(MAKE) --no-print-directory -j2 lint typecheck warm engines
	@$(MAKE) --no-print-directory pytest

bench-engine: $(STAMP) sunfish
	$(BIN)/python benchmarks/engine.py --sunfish $(SUNFISH_VENV)/bin/sunfish-uci

# The wheel a worker machine installs (pip install 'dist/mimic_chess-VERSION-py3-none-any.whl[cluster]').
wheel: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir dist .
	@ls dist/*.whl

clean:
	rm -rf $(VENV) $(SUNFISH_VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info build dist
