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

.PHONY: install reproduce test test-slow check-export run-datasets report-datasets run-in-domain run-learning-curve \
        run-seed-curves run-silver-es run-topk report-in-domain paper clean-venv

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

# The in-domain cells of the main job (one papermill run each; every stage is cached, so a rerun costs seconds).
# Table 5: the five core rows on STSb (short sentences: the cheapest data set to train on 2 cores).
IN_DOMAIN_DATASETS ?= stsb
IN_DOMAIN_METHODS  ?= sbert bert augsbert-rs augsbert-kde augsbert-bm25
# Figure 1: SBERT and the cross-encoder at more gold-set sizes (the profile's own size comes from Table 5's cells).
CURVE_DATASET ?= stsb
CURVE_SIZES   ?= 250 1000
# Figure 6: every seed of one SBERT cell scored on dev during training.
FIG6_ARGS ?= -p dataset=stsb -p method=sbert -p seeds=8 -p max_train_pairs=250 -p curve_points=0.1,0.2,0.3,0.5,0.7
# Figure 4: the silver labels of each strategy on Spanish-STS (stages 1-3 only, no bi-encoder).
FIG4_METHODS ?= augsbert-rs augsbert-kde augsbert-bm25
# Tables 9/10: top-k sweeps (only `make paper` runs them).
TOPK_DATASETS ?=
TOPK_VALUES   ?= 3 5 7 9 12 18
RUN := $(BIN)/augsbert run in_domain --profile $(PROFILE)

## The main job: the data-set experiment, the in-domain cells, then the reports.
reproduce: install run-datasets report-datasets run-in-domain run-learning-curve run-seed-curves run-silver-es run-topk report-in-domain
	@echo "Reports rendered: reports/datasets.md, reports/in_domain.md (figures in reports/figures/, runs in reports/runs/)"

run-in-domain: install
	@for d in $(IN_DOMAIN_DATASETS); do for m in $(IN_DOMAIN_METHODS); do \
	  $(RUN) -p dataset=$$d -p method=$$m || exit 1; done; done

run-learning-curve: install
	@for n in $(CURVE_SIZES); do for m in sbert bert; do \
	  $(RUN) -p dataset=$(CURVE_DATASET) -p method=$$m -p max_train_pairs=$$n || exit 1; done; done

run-seed-curves: install
	$(RUN) --name $(PROFILE)_fig6_seed-curves $(FIG6_ARGS)

run-silver-es: install
	@for m in $(FIG4_METHODS); do $(RUN) -p dataset=sts-es -p method=$$m -p silver_only=True || exit 1; done

run-topk: install
	@for d in $(TOPK_DATASETS); do for m in augsbert-bm25 augsbert-ss; do for k in $(TOPK_VALUES); do \
	  $(RUN) -p dataset=$$d -p method=$$m -p top_k=$$k || exit 1; done; done; done

report-in-domain: install
	$(BIN)/augsbert report in_domain -p profile=$(PROFILE)

run-datasets: install
	$(BIN)/augsbert run datasets --profile $(PROFILE) --name $(PROFILE)

report-datasets: install
	$(BIN)/augsbert report datasets -p run_name=$(PROFILE)

## The paper's protocol (GPU and hub models): every data set and method of Table 5, the learning curve on
## the full STSb range, the top-k sweeps, on the `paper` profile.
paper:
	$(MAKE) reproduce PROFILE=paper \
	  IN_DOMAIN_DATASETS="stsb sts-es bws-cross-topic bws-in-topic quora-qp mrpc" \
	  IN_DOMAIN_METHODS="bert sbert augsbert-rs augsbert-kde augsbert-bm25 augsbert-ss augsbert-bm25-ss sbert-nlpaug" \
	  CURVE_SIZES="100 250 500 1000 2000 5749" TOPK_DATASETS="sts-es bws-cross-topic bws-in-topic quora-qp" \
	  FIG6_ARGS="-p dataset=sts-es -p method=sbert -p seeds=10 -p curve_points=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"

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
