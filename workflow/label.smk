# Silver labelling in shards (issue 31): split the pairs -> label every shard (one job each) -> gather the labels.
#
#   make label PAIRS=pairs.tsv TEACHER=<a saved cross-encoder> OUT=silver.tsv [SHARDS=8] [BACKEND=auto|torch|onnx|onnx-int8]
#   snakemake --snakefile workflow/label.smk --profile workflow/profiles/local --cores 2 \
#             --config pairs=pairs.tsv teacher=<folder> out=silver.tsv shards=8 backend=onnx-int8
#   snakemake --snakefile workflow/label.smk --profile workflow/profiles/slurm --config … shards=64   (one sbatch job per shard)
#
# pairs: a file with columns sentence1 and sentence2 (.tsv, .csv, .parquet or .jsonl; augsbert.silver.read_pairs);
# teacher: a folder written by CrossEncoder.save (e.g. one a run made: `augsbert export RUN DEST`); out: the labelled
# pairs (sentence1, sentence2, score) in the format of its suffix, with a record out.json (sha256 of the file, of every
# shard and its labels, the teacher's digest, the backend). backend: auto (default: as the `cpu` profile, PyTorch in bf16
# on a CPU with bf16 instructions, else ONNX Runtime fp32; augsbert.config.resolve_label_backend), torch, onnx or
# onnx-int8 (augsbert.silver.export_onnx; exported once, by its own job, before the shards); precision: the torch
# backend's, fp32 or bf16 (default auto: bf16 where the CPU has bf16 instructions). threads: per shard job (default 1,
# so that --cores N labels N shards at once; ONNX Runtime and torch follow it). mem_mb, runtime: per shard job.
#
# The work folder is $AUGSBERT_CACHE/labels/<key>, the key naming the pairs' sha256, the teacher's digest, the backend,
# the number of shards and the version of augsbert.silver: another teacher, backend, code or set of pairs labels
# afresh; the same ones resume. A shard whose labels are finished is not labelled again; one interrupted half-way resumes
# from its last finished chunk (augsbert.silver.label_pairs); one whose labels no longer match their recorded sha256
# (or whose shard changed) is moved aside as *.damaged when the workflow starts, and labelled again.

import os, shlex, shutil, sys
from pathlib import Path

ROOT = Path(workflow.basedir).resolve().parent
_defaults = dict(AUGSBERT_CACHE=str(ROOT/"data"/"cache"), PYTHONHASHSEED="0", TOKENIZERS_PARALLELISM="false",
                 HF_HUB_DISABLE_TELEMETRY="1", OMP_WAIT_POLICY="PASSIVE")
for _k, _v in _defaults.items(): os.environ.setdefault(_k, _v)

from augsbert.cache import stage_key
from augsbert.config import sha256_file, LABEL_BACKENDS, cache_dir, resolve_precision, resolve_label_backend, AugsbertError
from augsbert.silver import teacher_digest, shard_ok, shard_layout

def _need(key, what):
    if key not in config: raise ValueError(f"workflow/label.smk: --config {key}=… is missing ({what}).")
    return config[key]

PAIRS = Path(_need("pairs", "the pairs to label")).expanduser().resolve()
TEACHER = Path(_need("teacher", "a saved cross-encoder folder")).expanduser().resolve()
OUT = Path(_need("out", "the labelled pairs file")).expanduser().resolve()
try:
    PRECISION = resolve_precision(str(config.get("precision", "auto")))
    BACKEND = resolve_label_backend(str(config.get("backend", "auto")), PRECISION)
except AugsbertError as e: raise ValueError(f"workflow/label.smk: {e}") from None
if BACKEND != "torch": PRECISION = "fp32"                  # ONNX Runtime runs the graph in its own precision
try: SHARDS, THREADS = int(config.get("shards", 2)), int(config.get("threads", 1))
except ValueError: raise ValueError("workflow/label.smk: shards and threads must be whole numbers.") from None
if not PAIRS.is_file(): raise ValueError(f"workflow/label.smk: pairs={PAIRS}: no such file.")
if not (TEACHER/"config.json").is_file():
    raise ValueError(f"workflow/label.smk: teacher={TEACHER}: not a saved cross-encoder folder (no config.json).")
if SHARDS < 1 or THREADS < 1: raise ValueError("workflow/label.smk: shards and threads must be at least 1.")

KEY = stage_key("labels", code=("augsbert.silver",), pairs=sha256_file(PAIRS), teacher=teacher_digest(TEACHER), backend=BACKEND,
                precision=PRECISION, shards=SHARDS)
WORK = cache_dir("labels", KEY)
LAYOUT = shard_layout(WORK, SHARDS)
_bin = Path(sys.executable).parent/"augsbert"
AUGSBERT = str(_bin) if _bin.exists() else (shutil.which("augsbert") or "augsbert")
BASE = [AUGSBERT, "label"]
COMMON = ["--dir", str(WORK), "--shards", str(SHARDS)]

# labels that no longer match their record (or their shard) are moved aside: their job runs again
for _shard, _labels in zip(LAYOUT["shards"], LAYOUT["labels"]):
    if _labels.exists() and not shard_ok(_labels, _shard if _shard.exists() else None):
        for _f in (_labels, _labels.with_suffix(".json")):
            if _f.exists(): _f.replace(_f.with_name(_f.name + ".damaged"))
        print(f"workflow/label.smk: {_labels.name} does not match its record: moved aside, labelling that shard again", file=sys.stderr)
print(f"workflow/label.smk: {SHARDS} shards of {PAIRS.name}, backend {BACKEND} ({PRECISION}), work folder {WORK}", file=sys.stderr)

localrules: all, split, gather

rule all:
    # the shards' labels too: one moved aside is labelled again (and the labels gathered again) even though OUT exists
    input: str(OUT), [str(l) for l in LAYOUT["labels"]]

rule split:
    "The pairs as SHARDS contiguous Parquet shards."
    input: str(PAIRS)
    output: [str(s) for s in LAYOUT["shards"]]
    params: cmd=shlex.join(BASE + ["split"] + COMMON + ["--pairs", str(PAIRS)])
    shell: "{params.cmd}"

rule export:
    "The teacher as an ONNX graph for ONNX Runtime (once, before the shards)."
    input: str(TEACHER/"config.json")
    output: str(LAYOUT["onnx"])
    threads: THREADS
    resources: mem_mb=int(config.get("mem_mb", 8000)), runtime=30
    params: cmd=shlex.join(BASE + ["export"] + COMMON + ["--teacher", str(TEACHER), "--backend", BACKEND])
    shell: "OMP_NUM_THREADS={threads} {params.cmd}"

def _label_cmd(wildcards):
    return shlex.join(BASE + ["shard"] + COMMON + ["--shard", str(int(wildcards.i)), "--teacher", str(TEACHER), "--backend", BACKEND,
                                                   "--precision", PRECISION])

ONNX_INPUT = [str(LAYOUT["onnx"])] if BACKEND != "torch" else []

rule label:
    "One shard's labels and their record."
    input:
        shard=str(WORK/"shards"/"shard-{i}.parquet"),
        onnx=ONNX_INPUT
    output:
        labels=str(WORK/"labels"/"labels-{i}.npy"),
        record=str(WORK/"labels"/"labels-{i}.json")
    wildcard_constraints:
        i="[0-9]{4}"
    log:
        str(WORK/"logs"/"label-{i}.log")
    threads: THREADS
    resources:
        mem_mb=int(config.get("mem_mb", 8000)),
        runtime=int(config.get("runtime", 240))
    params:
        cmd=_label_cmd
    shell:
        "OMP_NUM_THREADS={threads} MKL_NUM_THREADS={threads} {params.cmd} > {log:q} 2>&1"

rule gather:
    "The labelled pairs in their original order, checked against every shard's record."
    input: [str(l) for l in LAYOUT["labels"]]
    output: str(OUT), str(OUT.with_suffix(".json"))
    params: cmd=shlex.join(BASE + ["gather"] + COMMON + ["--out", str(OUT)])
    shell: "{params.cmd}"
