"""Which static student: MiniLM's input token embeddings or a model2vec distillation, and at which learning rate.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/static_student.py \\
        --out benchmarks/results/static_student_stsb500.json

Both inits are built by `augsbert.students.make_student` from the packaged all-MiniLM-L6-v2 and trained with
`augsbert.training.bi_encoder_run` on the first N STSb training pairs after the seeded shuffle the experiments
use (500: the `cpu` profile's gold cap), 4 epochs, batch 16, for several seeds. Each is scored zero-shot and
after training (Spearman ×100 on dev and test). The choice is made on **dev** (mean over seeds); test is
reported beside it. The results file is rewritten atomically after each (init, lr, seed), so an interrupted
sweep resumes when run again with the same arguments. The encode throughput of each init (sentences/s,
batch 64, STSb test sentences) is measured in the same run.
"""
import argparse, json, os, platform, time
from pathlib import Path
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
import numpy as np
import torch
from augsbert.config import atomic_write
from augsbert.data import load_dataset, SPLIT_SEED
from augsbert.models import DEFAULT_MODEL
from augsbert.students import make_student, throughput
from augsbert.training import TrainConfig, bi_encoder_run, bi_encoder_scores, task_score


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dataset', default='stsb')
    ap.add_argument('--max-train-pairs', type=int, default=500)
    ap.add_argument('--inits', default='tokens,model2vec')
    ap.add_argument('--lrs', default='1e-3,3e-3,1e-2,3e-2')
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--epochs', type=int, default=4)
    ap.add_argument('--out', default='benchmarks/results/static_student_stsb500.json')
    a = ap.parse_args()
    sp = load_dataset(a.dataset)
    train = sp.train.sample(frac=1.0, random_state=SPLIT_SEED).iloc[:a.max_train_pairs].reset_index(drop=True)
    out_path = Path(a.out)
    res = json.loads(out_path.read_text()) if out_path.exists() else {}
    res.setdefault('setup', dict(dataset=a.dataset, gold_pairs=len(train), epochs=a.epochs, batch_size=16, model=DEFAULT_MODEL,
                                 machine=platform.processor() or platform.machine(), threads=torch.get_num_threads(),
                                 torch=torch.__version__, metric='Spearman x100'))
    runs = res.setdefault('runs', {})
    sents = list(dict.fromkeys(list(sp.test['sentence1']) + list(sp.test['sentence2'])))[:1000]
    def save():
        with atomic_write(out_path) as f: json.dump(res, f, indent=1)
    for init in a.inits.split(','):
        opts = dict(static_init=init, static_lr=float(a.lrs.split(',')[0]), static_epochs=a.epochs, static_dims=256, static_distill='', distill_pool='gold', distill_epochs=1, distill_lr=0.05)  # make_student reads every setting
        base = make_student('static', DEFAULT_MODEL, opts)
        zs = {k: task_score(sp.task, bi_encoder_scores(base, df), df['score']) for k, df in (('dev', sp.dev), ('test', sp.test))}
        res.setdefault('zero_shot', {})[init] = zs
        res.setdefault('throughput', {})[init] = throughput(base, sents)
        save()
        for lr in map(float, a.lrs.split(',')):
            for seed in range(42, 42 + a.seeds):
                key = f'{init} lr={lr:g} seed={seed}'
                if key in runs: continue
                t0 = time.time()
                run = bi_encoder_run(make_student('static', DEFAULT_MODEL, opts), train,
                                     TrainConfig(epochs=a.epochs, lr=lr, batch_size=16, seed=seed), sp.dev, sp.task, progress=False).train_to(1.0)
                runs[key] = dict(init=init, lr=lr, seed=seed, dev=run.evaluate(), test=run.evaluate(sp.test), seconds=round(time.time() - t0, 1))
                print(key, runs[key], flush=True); save()
    table = {}
    for r in runs.values():
        table.setdefault(f"{r['init']} lr={r['lr']:g}", []).append(r)
    res['summary'] = {k: dict(dev_mean=float(np.mean([r['dev'] for r in v])), dev_std=float(np.std([r['dev'] for r in v], ddof=1)) if len(v) > 1 else 0.0,
                              test_mean=float(np.mean([r['test'] for r in v])), test_std=float(np.std([r['test'] for r in v], ddof=1)) if len(v) > 1 else 0.0,
                              seeds=len(v)) for k, v in sorted(table.items())}
    best = max(res['summary'], key=lambda k: res['summary'][k]['dev_mean'])
    res['best_on_dev'] = best
    save()
    for k, v in res['summary'].items(): print(f"{k:24s} dev {v['dev_mean']:.2f} ± {v['dev_std']:.2f}  test {v['test_mean']:.2f} ± {v['test_std']:.2f}")
    print('best on dev:', best)

if __name__ == '__main__':
    main()
