"""Encoding throughput of the teachers and every student, interleaved in one process (ratios against MiniLM-L6).

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/throughput.py --out benchmarks/results/throughput_stsb.json

Every experiment run measures its own model's throughput (`augsbert.methods.measure_throughput`), but a run's
number depends on what else the machine did at the time. Here all models are timed in rounds, one after the
other in each round, on the same STSb test sentences (1,000; the cross-encoder: 500 pairs, in pairs/s), batch 64,
with the threads torch has and the tokenizer on all of them, each over whole passes filling at least a second
(`--min-seconds`); the median round counts, and each model's speed is also given as a ratio to
MiniLM-L6's in the same rounds, which cancels most of a shared slowdown. Mind the units: a bi-encoder's cost is
per sentence and reused by every pair the sentence is in; a cross-encoder's is per pair (n sentences compared
all-against-all: n encodings vs n(n-1)/2 pair scores). On 2 CPU cores with short STS sentences a pair (about
twice the tokens) costs only about 1.3x a sentence, so per item the cross-encoder is not the slower one.
The runs (and every `make` target) encode with TOKENIZERS_PARALLELISM=false, which keeps forked data loaders safe: that
costs a static model, whose work is mostly tokenizing, about 30 % of its speed and a transformer nothing measurable,
so each static student is timed both ways in the same rounds ('…, tokenizer on 1 thread': as the runs encode).
Every student is built from its own base: MPNet-base is all-mpnet-base-v2 (110M parameters, the bi-encoder teacher of
the static ladder; about 40 s a round on 2 cores; `--no-mpnet` skips it), which the ladder report places in its
speed-quality figure by its ratio to MiniLM-L6.
`--batch-sizes 32,64,256,1024` also times every student but MPNet-base (its ratio only places it in the figure; 40 s a
pass) at each of those batch sizes in the same rounds, and gives each its best batch size and the ratio of its fastest
rate to MiniLM-L6's fastest in each round ('best'): a static model's pass is mostly per-batch overhead, so it wants
far larger batches than a transformer (model2vec's own `encode` batches 1,024 sentences; sentence-transformers' 32).
"""
import argparse, json, os
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
import numpy as np
import torch
from augsbert.config import atomic_write, get_profile
from augsbert.data import load_dataset
from augsbert.models import DEFAULT_MODEL
from augsbert.students import STUDENTS, make_student, student_base, student_options, student_title, throughput
from augsbert.training import make_cross_encoder
from bm25_speed import machine


def rate(model, items:list, batch_size:int, min_seconds:float)->float:
    """Items per second over as many whole timed passes as fill `min_seconds` (at least one): a static model's pass over
    1,000 sentences takes about 0.03 s, short enough for one scheduler hiccup to halve or double a single pass's rate."""
    n, t = 0, 0.0
    while n == 0 or t < min_seconds:
        t += throughput(model, items, batch_size, repeats=1)['seconds']; n += 1
    return n * len(items) / t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--out', default='benchmarks/results/throughput_stsb.json')
    ap.add_argument('--sentences', type=int, default=1000, help='distinct STSb test sentences to encode (the cross-encoder: half as many pairs)')
    ap.add_argument('--batch-size', type=int, default=64, help='the encoding batch size of every model')
    ap.add_argument('--min-seconds', type=float, default=1.0, help='each model is timed over whole passes filling at least this long, per round')
    ap.add_argument('--no-mpnet', action='store_true', help='skip all-mpnet-base-v2 (110M parameters, the slowest model here)')
    ap.add_argument('--batch-sizes', default='', help='comma-separated batch sizes at which every student but MPNet-base is also timed, e.g. 32,64,256,1024')
    a = ap.parse_args()
    if a.rounds < 1: ap.error('--rounds must be at least 1')
    try: sweep = sorted({int(b) for b in a.batch_sizes.split(',') if b.strip()} | ({a.batch_size} if a.batch_sizes.strip() else set()))
    except ValueError: ap.error(f'--batch-sizes takes comma-separated whole numbers, e.g. 32,64,256; got {a.batch_sizes!r}')
    if sweep and sweep[0] < 1: ap.error('every --batch-sizes value must be at least 1')
    if min(a.batch_size, a.sentences) < 1 or a.min_seconds < 0: ap.error('--batch-size and --sentences must be at least 1, --min-seconds not negative')
    sp = load_dataset('stsb')
    sents = list(dict.fromkeys(list(sp.test['sentence1']) + list(sp.test['sentence2'])))[:a.sentences]
    pairs = list(zip(sp.test['sentence1'], sp.test['sentence2']))[:max(1, a.sentences // 2)]
    cfg = get_profile('cpu')
    models = {'cross-encoder (MiniLM-L6)': (make_cross_encoder(DEFAULT_MODEL, head=cfg['ce_head']), pairs, 1, 'true')}
    swept = set()   # the students timed at every batch size of the sweep
    for name, student in STUDENTS.items():
        if name == 'mpnet' and a.no_mpnet: continue
        if student.build.__module__ != 'augsbert.students': continue   # a method's own student (ArgueBERT's: after its pre-training)
        inits = ['model2vec', 'tokens'] if name == 'static' else [None]
        for init in inits:
            opts = student_options(dict(cfg, student=name, **({'static_init': init} if init else {})), name)
            model = make_student(name, student_base(name, DEFAULT_MODEL), opts)
            models[student_title(name, opts)] = (model, sents, 1, 'true')
            if student.kind == 'static': models[student_title(name, opts) + ', tokenizer on 1 thread'] = (model, sents, 1, 'false')
            if name != 'mpnet': swept |= {m for m in models if m.startswith(student_title(name, opts))}
    per, env = {m: [] for m in models}, os.environ.get('TOKENIZERS_PARALLELISM')
    by_batch = {m: {b: [] for b in sweep} for m in swept}              # rate per batch size and round
    try:
        for r in range(a.rounds):
            for m, (model, items, per_item, parallel) in models.items():
                os.environ['TOKENIZERS_PARALLELISM'] = parallel          # read by the tokenizer at every call
                per[m].append(per_item * rate(model, items, a.batch_size, a.min_seconds))
                for b in sweep if m in swept else ():
                    by_batch[m][b].append(per[m][-1] if b == a.batch_size else per_item * rate(model, items, b, a.min_seconds))
            print(f"round {r + 1}: " + ', '.join(f"{m} {v[-1]:,.0f}" for m, v in per.items()), flush=True)
    finally:                                                            # the caller's setting back, even after an error
        if env is None: os.environ.pop('TOKENIZERS_PARALLELISM', None)
        else: os.environ['TOKENIZERS_PARALLELISM'] = env
    ref = np.array(per['MiniLM-L6'])
    res = dict(setup=dict(sentences=len(sents), pairs=len(pairs), batch_size=a.batch_size, rounds=a.rounds, min_seconds=a.min_seconds, threads=torch.get_num_threads(),
                          tokenizer='all threads (TOKENIZERS_PARALLELISM=true) unless the name says 1 thread',
                          batch_sizes=sweep, machine=machine(), torch=torch.__version__,
                          unit='sentences/s (bi-encoders), pairs/s (cross-encoder)'),
               models={m: dict(median=float(np.median(v)), min=float(np.min(v)), max=float(np.max(v)),
                               ratio_to_minilm=float(np.median(np.array(v) / ref))) for m, v in per.items()})
    if sweep and 'MiniLM-L6' in by_batch:
        fastest = {m: np.max([by_batch[m][b] for b in sweep], axis=0) for m in by_batch}   # per round, over the batch sizes
        for m, bb in by_batch.items():
            med = {b: float(np.median(v)) for b, v in bb.items()}
            res['models'][m].update(batches={str(b): v for b, v in med.items()}, best=dict(
                batch_size=max(med, key=med.get), median=float(np.median(fastest[m])),
                ratio_to_minilm=float(np.median(fastest[m] / fastest['MiniLM-L6']))))
    with atomic_write(a.out) as f: json.dump(res, f, indent=1)
    for m, v in res['models'].items():
        best = f"; at its best batch size, {v['best']['batch_size']}: {v['best']['ratio_to_minilm']:.2f}x" if 'best' in v else ''
        print(f"{m:48s} {v['median']:10,.0f} /s  ({v['ratio_to_minilm']:.2f}x MiniLM-L6{best})")

if __name__ == '__main__':
    main()
