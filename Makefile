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
# torch on 2 shared cores: busy-waiting OpenMP threads made training up to 10x slower (benchmarks/ce_recipes.py)
export OMP_WAIT_POLICY ?= PASSIVE

.PHONY: install reproduce test test-slow check-export run-datasets report-datasets run-in-domain report-in-domain paper clean-venv

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

# The in-domain cells the main job runs (one papermill run each; cached, so a rerun costs seconds).
IN_DOMAIN_DATASETS ?= sts-es
IN_DOMAIN_METHODS  ?= sbert bert augsbert-rs augsbert-kde augsbert-bm25

## The main job: the data-set experiment, the in-domain cells, then the reports.
reproduce: install run-datasets report-datasets run-in-domain report-in-domain
	@echo "Reports rendered: reports/datasets.md, reports/in_domain.md (figures in reports/figures/, runs in reports/runs/)"

run-in-domain: install
	@for d in $(IN_DOMAIN_DATASETS); do for m in $(IN_DOMAIN_METHODS); do \
	  $(BIN)/augsbert run in_domain --profile $(PROFILE) -p dataset=$$d -p method=$$m || exit 1; done; done

report-in-domain: install
	$(BIN)/augsbert report in_domain -p profile=$(PROFILE)

run-datasets: install
	$(BIN)/augsbert run datasets --profile $(PROFILE) --name $(PROFILE)

report-datasets: install
	$(BIN)/augsbert report datasets -p run_name=$(PROFILE)

## The paper's protocol (GPU and hub models): every data set and method of Table 5 on the `paper` profile.
paper:
	$(MAKE) reproduce PROFILE=paper IN_DOMAIN_DATASETS="sts-es bws-cross-topic bws-in-topic quora-qp mrpc" \
	  IN_DOMAIN_METHODS="bert sbert augsbert-rs augsbert-kde augsbert-bm25 augsbert-ss augsbert-bm25-ss"

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
