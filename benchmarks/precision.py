"""Prediction (and training) in bfloat16 on the CPU: speed ratio against fp32, and what it does to the score.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/precision.py --out benchmarks/results/precision_stsb500.json

Baseline: fp32, measured in the same run on the same model. Four measurements on STSb (the first N training
pairs after a seeded shuffle, the whole dev split):

1. a bi-encoder (SBERT) trained in fp32, then the dev pairs scored in fp32 and under bf16 autocast;
2. a cross-encoder (the `cpu` profile's recipe) trained in fp32, scored both ways;
3. the same bi-encoder trained under bf16 autocast (optimiser and weights in fp32), scored in fp32.

Why the `cpu` profile predicts in bf16 but trains in fp32: prediction gets several times faster and the dev
score moves by hundredths of a point; bf16 training was about 2x faster but lost about a point of dev score.
A CPU without AVX512-BF16/AMX gets little or no speed-up (the results file records the CPU flags).
"""
import argparse, json, os, platform, time
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')   # see benchmarks/ce_recipes.py
import torch
from augsbert.config import atomic_write
from augsbert.data import load_dataset
from augsbert.models import DEFAULT_MODEL
from augsbert.training import TrainConfig, BiEncoderRun, CrossEncoderRun, precision_scope, task_score


def _timed(f):
    t = time.perf_counter(); out = f(); return out, time.perf_counter() - t

def _score_both(run, dev, task):
    "Dev score and seconds of `run`'s predictions in fp32 and in bf16."
    res = {}
    for prec in ('fp32', 'bf16'):
        run.cfg.eval_precision = prec          # the run's predict() enters precision_scope(eval_precision)
        pred, secs = _timed(lambda: run.predict(dev))
        res[prec] = dict(dev=task_score(task, pred, dev['score']), predict_seconds=secs)
    res['speedup'] = res['fp32']['predict_seconds'] / res['bf16']['predict_seconds']
    res['dev_difference'] = res['bf16']['dev'] - res['fp32']['dev']
    return res

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dataset', default='stsb'); ap.add_argument('--max-train-pairs', type=int, default=500)
    ap.add_argument('--seed', type=int, default=42); ap.add_argument('--out', required=True)
    a = ap.parse_args(argv)
    s = load_dataset(a.dataset)
    train = s.train.sample(frac=1.0, random_state=a.seed).iloc[:a.max_train_pairs].reset_index(drop=True)
    out = dict(setup=dict(dataset=a.dataset, train_pairs=len(train), dev_pairs=len(s.dev), seed=a.seed, model=DEFAULT_MODEL,
                          baseline='fp32 in the same run'),
               environment=dict(cpu=platform.processor() or platform.machine(), torch=torch.__version__,
                                threads=torch.get_num_threads(),
                                bf16_flags=sorted({f for f in open('/proc/cpuinfo').read().split() if 'bf16' in f or f.startswith('amx')})
                                if os.path.exists('/proc/cpuinfo') else []))
    be = BiEncoderRun(DEFAULT_MODEL, train, TrainConfig(lr=2e-5, seed=a.seed), progress=False)
    _, t = _timed(lambda: be.train_to(1.0))
    out['bi_encoder'] = dict(train_seconds_fp32=t, **_score_both(be, s.dev, s.task))
    ce = CrossEncoderRun(DEFAULT_MODEL, train, TrainConfig(lr=5e-5, warmup_ratio=0.1, seed=a.seed), head='mean', progress=False)
    _, t = _timed(lambda: ce.train_to(1.0))
    out['cross_encoder'] = dict(train_seconds_fp32=t, **_score_both(ce, s.dev, s.task))
    be16 = BiEncoderRun(DEFAULT_MODEL, train, TrainConfig(lr=2e-5, seed=a.seed), progress=False)
    with precision_scope('bf16'): _, t16 = _timed(lambda: be16.train_to(1.0))
    dev16 = task_score(s.task, be16.predict(s.dev), s.dev['score'])
    out['bi_encoder_bf16_training'] = dict(train_seconds=t16, train_speedup=out['bi_encoder']['train_seconds_fp32'] / t16,
                                           dev=dev16, dev_difference=dev16 - out['bi_encoder']['fp32']['dev'])
    with atomic_write(a.out) as f: json.dump(out, f, indent=1)
    for k in ('bi_encoder', 'cross_encoder'):
        r = out[k]
        print(f"{k}: predict bf16 {r['speedup']:.2f}x faster than fp32; dev {r['fp32']['dev']:.2f} -> {r['bf16']['dev']:.2f}")
    r = out['bi_encoder_bf16_training']
    print(f"bi-encoder bf16 training: {r['train_speedup']:.2f}x faster; dev {out['bi_encoder']['fp32']['dev']:.2f} -> {r['dev']:.2f}")

if __name__ == '__main__': main()
