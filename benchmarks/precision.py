"""Prediction (and training) in bfloat16 on the CPU: speed ratio against fp32, and what it does to the score.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/precision.py --out benchmarks/results/precision_stsb500.json

Baseline: fp32, measured in the same run on the same model. Four measurements on STSb (the first N training
pairs after a seeded shuffle, the whole dev split unless `--max-dev-pairs`):

1. a bi-encoder (SBERT) trained in fp32, then the dev pairs scored in fp32 and under bf16 autocast;
2. a cross-encoder (the `cpu` profile's recipe) trained in fp32, scored both ways;
3. the same bi-encoder trained with `bf16=True` in its `TrainingArguments` (accelerate autocasts the forward pass
   to bfloat16; weights and optimiser stay fp32), scored in fp32.

Why the `cpu` profile predicts in bf16 (on a CPU with bf16 instructions: eval_precision = auto) but trains in fp32: prediction gets several times faster and the dev
score moves by hundredths of a point; bf16 training was 1.84x faster but lost 0.93 dev points (500 STSb pairs,
benchmarks/results/precision_stsb500.json), which is why `augsbert.training` does not offer it: measurement 3
switches it on here, in the benchmark only. A CPU without AVX512-BF16/AMX gets little or no speed-up (the results
file records the CPU flags).
"""
import argparse, dataclasses, json, os, platform, time
from unittest import mock
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')   # see benchmarks/ce_recipes.py
import torch
import augsbert.training
from augsbert.config import atomic_write
from augsbert.data import load_dataset
from augsbert.models import DEFAULT_MODEL
from augsbert.training import TrainConfig, bi_encoder_run, cross_encoder_run, task_score


def _timed(f):
    t = time.perf_counter(); out = f(); return out, time.perf_counter() - t

def _score_both(run, dev, task):
    "Dev score and seconds of `run`'s predictions in fp32 and in bf16."
    res = {}
    for prec in ('fp32', 'bf16'):
        run.cfg.eval_precision = prec          # the run's predict() enters precision_scope(eval_precision)
        pred, secs = _timed(lambda: run.predict(dev))
        res[prec] = dict(dev=task_score(task, pred, dev['score']), predict_seconds=secs)
    run.cfg.eval_precision = 'fp32'
    res['speedup'] = res['fp32']['predict_seconds'] / res['bf16']['predict_seconds']
    res['dev_difference'] = res['bf16']['dev'] - res['fp32']['dev']
    return res

def bf16_bi_encoder_run(train, cfg:TrainConfig):
    "`bi_encoder_run` whose trainer gets `bf16=True` in its `TrainingArguments` (everything else as the library builds it)."
    make_args = augsbert.training.training_arguments
    with mock.patch.object(augsbert.training, 'training_arguments',
                           lambda *a, **kw: dataclasses.replace(make_args(*a, **kw), bf16=True)):
        run = bi_encoder_run(DEFAULT_MODEL, train, cfg, progress=False)
    assert run.trainer.args.bf16 and run.trainer.args.mixed_precision == 'bf16'
    return run

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dataset', default='stsb'); ap.add_argument('--max-train-pairs', type=int, default=500)
    ap.add_argument('--max-dev-pairs', type=int, default=0, help='score the first N dev pairs (0: all)')
    ap.add_argument('--seed', type=int, default=42); ap.add_argument('--out', required=True)
    a = ap.parse_args(argv)
    s = load_dataset(a.dataset)
    train = s.train.sample(frac=1.0, random_state=a.seed).iloc[:a.max_train_pairs].reset_index(drop=True)
    dev = s.dev.iloc[:a.max_dev_pairs].reset_index(drop=True) if a.max_dev_pairs else s.dev
    out = dict(setup=dict(dataset=a.dataset, train_pairs=len(train), dev_pairs=len(dev), seed=a.seed, model=DEFAULT_MODEL,
                          baseline='fp32 in the same run'),
               environment=dict(cpu=platform.processor() or platform.machine(), torch=torch.__version__,
                                threads=torch.get_num_threads(),
                                bf16_flags=sorted({f for f in open('/proc/cpuinfo').read().split() if 'bf16' in f or f.startswith('amx')})
                                if os.path.exists('/proc/cpuinfo') else []))
    be = bi_encoder_run(DEFAULT_MODEL, train, TrainConfig(lr=2e-5, seed=a.seed), progress=False)
    _, t = _timed(lambda: be.train_to(1.0))
    out['bi_encoder'] = dict(train_seconds_fp32=t, **_score_both(be, dev, s.task))
    ce = cross_encoder_run(DEFAULT_MODEL, train, TrainConfig(lr=5e-5, warmup_ratio=0.1, seed=a.seed), head='mean', progress=False)
    _, t = _timed(lambda: ce.train_to(1.0))
    out['cross_encoder'] = dict(train_seconds_fp32=t, **_score_both(ce, dev, s.task))
    be16 = bf16_bi_encoder_run(train, TrainConfig(lr=2e-5, seed=a.seed))
    _, t16 = _timed(lambda: be16.train_to(1.0))
    # accelerate left the model's forward wrapped in its bf16 autocast: unwrap it, so the scores below are fp32 ones
    be16.trainer.accelerator.unwrap_model(be16.model, keep_fp32_wrapper=False)
    dev16 = task_score(s.task, be16.predict(dev), dev['score'])
    out['bi_encoder_bf16_training'] = dict(train_seconds=t16, train_speedup=out['bi_encoder']['train_seconds_fp32'] / t16,
                                           dev=dev16, dev_difference=dev16 - out['bi_encoder']['fp32']['dev'])
    with atomic_write(a.out) as f: json.dump(out, f, indent=1)
    for k in ('bi_encoder', 'cross_encoder'):
        r = out[k]
        print(f"{k}: predict bf16 {r['speedup']:.2f}x faster than fp32; dev {r['fp32']['dev']:.2f} -> {r['bf16']['dev']:.2f}")
    r = out['bi_encoder_bf16_training']
    print(f"bi-encoder bf16 training: {r['train_speedup']:.2f}x faster; dev {out['bi_encoder']['fp32']['dev']:.2f} -> {r['dev']:.2f}")

if __name__ == '__main__': main()
