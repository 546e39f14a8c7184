"""What scoring on the full evaluation sets costs an AugCSE run, against the 500-pair caps it replaces (issue 30, item 4).

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/eval_size.py --out benchmarks/results/eval_size_minilm.json

Baseline: the capped sets (`--cap`, default 500 pairs per set and `--mrpc-train` 1000 MRPC training pairs for the
transfer classifier, the `cpu` profile's AugCSE caps until issue 30), measured in the same run on the same model as the
full sets (every pair: STS12-16, STSb test, SICK-R, STS-B dev, MRPC). One `evaluate_embedder` call each, as an AugCSE
run makes once for the untrained student and once per seed, so a run's extra cost is (seeds + 1) x the difference.
Each configuration is scored `--rounds` times, alternating, so that load on the other core hits both alike; the
seconds are the median round. The scores tell what the caps moved: the same model, so any difference is the sample.
"""
import argparse, json, os, statistics, time
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')   # see benchmarks/ce_recipes.py
import torch
from augsbert.config import atomic_write
from augsbert.evaluation import evaluation_sets, evaluate_embedder, STS_SETS
from augsbert.models import DEFAULT_MODEL, load_bi_encoder
from bm25_speed import machine


def measure(model, sets:dict)->tuple[float, dict]:
    "Seconds of one scoring of `sets` and its scores (the same every time: scoring has no randomness)."
    t = time.perf_counter(); scores = evaluate_embedder(model, sets)
    return time.perf_counter() - t, scores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cap', type=int, default=500, help='pairs per evaluation set in the baseline (augcse_eval_pairs)')
    ap.add_argument('--mrpc-train', type=int, default=1000, help="MRPC training pairs in the baseline (augcse_mrpc_train)")
    ap.add_argument('--full', type=int, default=0, help='pairs per set in the compared sizing (0: every pair, the point; a cap only to try the script)')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--seeds', type=int, default=5, help='seeds per AugCSE run, for the per-run cost')
    ap.add_argument('--out', default='')
    a = ap.parse_args(argv)
    if min(a.cap, a.mrpc_train, a.rounds, a.seeds) < 1 or a.full < 0: ap.error('--cap, --mrpc-train, --rounds and --seeds must be ≥ 1, --full ≥ 0')
    model = load_bi_encoder(DEFAULT_MODEL)
    capped, full = evaluation_sets(a.cap, a.mrpc_train, 42), evaluation_sets(a.full, a.full, 42)
    evaluate_embedder(model, capped)                          # warm-up: tokenizer and kernels, not counted
    res = {name: dict(pairs={k: len(v) for k, v in sets.items()}, seconds_all=[]) for name, sets in (('capped', capped), ('full', full))}
    for _ in range(a.rounds):                                 # alternate, so that the other core's load hits both alike
        for name, sets in (('capped', capped), ('full', full)):
            secs, res[name]['scores'] = measure(model, sets)
            res[name]['seconds_all'].append(secs)
    for r in res.values(): r['seconds'] = statistics.median(r['seconds_all'])
    out = dict(model=DEFAULT_MODEL, cap=a.cap, mrpc_train=a.mrpc_train, full_cap=a.full, rounds=a.rounds, **res,
               ratio=res['full']['seconds'] / res['capped']['seconds'],
               extra_seconds_per_run=(a.seeds + 1) * (res['full']['seconds'] - res['capped']['seconds']), seeds=a.seeds,
               score_difference={k: res['full']['scores'][k] - res['capped']['scores'][k] for k in ('stsb-dev', *STS_SETS, 'sts-avg', 'mrpc')},
               machine=dict(machine(), torch=torch.__version__, torch_threads=torch.get_num_threads()))
    print(json.dumps({k: out[k] for k in ('ratio', 'extra_seconds_per_run', 'score_difference')}, indent=1))
    if a.out:
        with atomic_write(a.out) as f: json.dump(out, f, indent=1)


if __name__ == '__main__':
    main()
