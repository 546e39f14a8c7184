# augsbert — one command to set up and rebuild, one to test.
#
#   make reproduce   create .venv, install everything (CPU torch), run the main job, render the reports
#   make test        same install, then the notebook tests (nbdev-test), the export check and pytest
#
# Data: the loaders look in $AUGSBERT_DATA_MIRROR first (set here to ../shared/data when it exists),
# then in $AUGSBERT_CACHE, then download from the real upstream URLs.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROFILE ?= cpu
# torch 2.13.0 is the CPU wheel here; an unpinned torch pulls GBs of CUDA packages.
TORCH  ?= torch==2.13.0

ifneq ($(wildcard ../shared/data/MANIFEST.md),)
export AUGSBERT_DATA_MIRROR ?= $(abspath ../shared/data)
endif
export AUGSBERT_CACHE ?= $(CURDIR)/data/cache
export PYTHONHASHSEED := 0
export TOKENIZERS_PARALLELISM := false
export HF_HUB_DISABLE_TELEMETRY := 1
export MPLBACKEND := Agg

.PHONY: install reproduce test test-slow check-export run-datasets report-datasets paper clean-venv

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

## The main job: the data-set experiment on the offline default profile, then its report.
reproduce: install run-datasets report-datasets
	@echo "Reports rendered: reports/datasets.md (figures in reports/figures/, runs in reports/runs/)"

run-datasets: install
	$(BIN)/augsbert run datasets --profile $(PROFILE) --name $(PROFILE)

report-datasets: install
	$(BIN)/augsbert report datasets -p run_name=$(PROFILE)

## The paper's protocol (GPU and hub models): the same jobs on the `paper` profile.
paper:
	$(MAKE) reproduce PROFILE=paper

## Tests: notebooks (nbdev-test), the notebooks/library sync check, pytest (slow tests excluded).
test: install check-export
	AUGSBERT_OFFLINE=1 $(BIN)/nbdev-test
	AUGSBERT_OFFLINE=1 $(BIN)/python -m pytest -q tests

test-slow: install
	AUGSBERT_OFFLINE=1 $(BIN)/python -m pytest -q -m slow tests

## nbdev-export and nbdev-clean must leave the tree unchanged: augsbert/ is generated from nbs/.
check-export: install
	@before=$$(git status --porcelain -- augsbert nbs | md5sum; git diff -- augsbert nbs | md5sum); \
	$(BIN)/nbdev-export && $(BIN)/nbdev-clean; \
	after=$$(git status --porcelain -- augsbert nbs | md5sum; git diff -- augsbert nbs | md5sum); \
	if [ "$$before" != "$$after" ]; then \
	  echo "nbdev-export/nbdev-clean changed augsbert/ or nbs/: the library is out of sync with the notebooks."; \
	  echo "Run 'make check-export' and commit the result."; git status --short -- augsbert nbs; exit 1; \
	fi; echo "nbdev export/clean: in sync"

clean-venv:
	rm -rf $(VENV)
