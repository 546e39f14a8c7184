"""Cross-encoder recipe search: which recipe makes a cross-encoder on all-MiniLM-L6-v2 learn, next to the SBERT baseline.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/ce_recipes.py \\
        --dataset stsb --max-train-pairs 1000 --recipes priority --out benchmarks/results/ce_recipes_stsb1000.json

Every recipe trains on the same training pairs (the first N after a seeded shuffle of the training split)
and is scored on the whole dev split (Spearman ×100 for regression, F1 ×100 at the best dev threshold for
classification). After each recipe the results file is rewritten atomically, so an interrupted sweep picks
up where it stopped when run again with the same arguments. `--list` shows the recipes and groups.
"""
import argparse, json, os, platform, sys, time
from pathlib import Path
# Other processes share this machine's cores: OpenMP threads that spin while waiting for a descheduled peer made
# training up to 10x slower in our measurements. A passive wait policy avoids it (it must be set before torch loads).
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
import numpy as np
import torch
from augsbert.config import AugsbertError, atomic_write
from augsbert.data import load_dataset
from augsbert.models import DEFAULT_MODEL, load_bi_encoder
from augsbert.training import TrainConfig, bi_encoder_run, cross_encoder_run, bi_encoder_scores, task_score


def _ce(head, lr, epochs, warmup=0.1, hidden=None, loss='bce', schedule='constant', both_orders=True, batch_size=16):
    return dict(kind='cross-encoder', head=head, lr=lr, epochs=epochs, warmup_ratio=warmup, hidden=hidden, loss=loss,
                schedule=schedule, both_orders=both_orders, batch_size=batch_size)

def _name(r):
    if r['kind'] != 'cross-encoder': return r['name']
    n = f"ce-{r['head']}-lr{r['lr']:g}-ep{r['epochs']}-wu{r['warmup_ratio']:g}"
    if r['hidden']: n += f"-h{r['hidden']}"
    if r['loss'] != 'bce': n += f"-{r['loss']}"
    if r['schedule'] != 'constant': n += f"-{r['schedule']}"
    if not r['both_orders']: n += '-oneorder'
    if r['batch_size'] != 16: n += f"-bs{r['batch_size']}"
    return n

RECIPES = {}
def _add(r, name=None):
    r = dict(r, name=name) if name else r
    RECIPES[_name(r)] = dict(r, name=_name(r))
    return _name(r)

ZERO = _add(dict(kind='zero-shot'), 'sbert-zero-shot')
SBERT = _add(dict(kind='bi-encoder', lr=2e-5, epochs=1, warmup_ratio=0.0, batch_size=16), 'sbert-lr2e-05-ep1')
PAPER = _add(_ce('cls', 1e-5, 1, warmup=0.0))                        # the paper's settings (§5, App. C), no hidden layer
GRID = [_add(_ce(h, lr, ep)) for ep in (3, 1) for lr in (5e-5, 1e-4, 2e-5) for h in ('cls', 'mean')]
# (the old 'pooler' head, the encoder's pretrained pooler output, is gone: augsbert.training.HEADS is ('cls', 'mean'))
EXTRA = [_add(_ce('mean', 1e-4, 3, loss='mse')), _add(_ce('mean', 1e-4, 3, hidden=400)), _add(_ce('mean', 1e-4, 3, schedule='linear'))]
GROUPS = {
    # head comparison at the higher learning rates first, then the paper's own setting and the low rate
    'priority': [ZERO, SBERT, *[_name(_ce(h, lr, 3)) for lr in (5e-5, 1e-4) for h in ('cls', 'mean')],
                 PAPER, *[_name(_ce(h, 2e-5, 1)) for h in ('mean', 'cls')]],
    'grid': [ZERO, SBERT, *GRID],
    'extra': EXTRA,
    'all': list(RECIPES),
}


def _recipes(spec:str)->list[str]:
    out = []
    for part in [p.strip() for p in spec.split(',') if p.strip()]:
        names = GROUPS.get(part, [part])
        for n in names:
            if n not in RECIPES: raise AugsbertError(f"unknown recipe {n!r}; run with --list to see them.")
            if n not in out: out.append(n)
    return out


def _run(r:dict, train_df, dev_df, task:str, seed:int, curve:bool)->dict:
    t0 = time.perf_counter()
    if r['kind'] == 'zero-shot':
        ev0 = time.perf_counter()
        score = task_score(task, bi_encoder_scores(load_bi_encoder(DEFAULT_MODEL), dev_df), dev_df['score'])
        return dict(dev=score, train_seconds=0.0, eval_seconds=time.perf_counter() - ev0, steps=0, curve=[])
    cfg = TrainConfig(epochs=r['epochs'], batch_size=r['batch_size'], lr=r['lr'], warmup_ratio=r['warmup_ratio'],
                      schedule=r.get('schedule', 'constant'), seed=seed)
    if r['kind'] == 'bi-encoder':
        run = bi_encoder_run(DEFAULT_MODEL, train_df, cfg, dev_df, task, progress=False)
    else:
        run = cross_encoder_run(DEFAULT_MODEL, train_df, cfg, dev_df, task, progress=False, head=r['head'], hidden=r['hidden'],
                                both_orders=r['both_orders'], loss=r['loss'])
    losses = []    # the training loss of every optimiser step (the trainer itself logs none)
    run.trainer.loss.register_forward_hook(lambda module, inputs, loss: losses.append(float(loss.detach())))
    setup = time.perf_counter() - t0
    pts, train_s, eval_s = [], 0.0, 0.0
    fractions = [k / r['epochs'] for k in range(1, r['epochs'] + 1)] if curve else [1.0]
    for f in fractions:
        t = time.perf_counter(); run.train_to(f); train_s += time.perf_counter() - t
        t = time.perf_counter(); s = run.evaluate(); eval_s += time.perf_counter() - t
        pts.append((round(run.fraction_done, 4), s))
    return dict(dev=pts[-1][1], train_seconds=train_s, eval_seconds=eval_s, setup_seconds=setup, steps=run.total_steps,
                curve=pts, final_train_loss=float(np.mean(losses[-20:])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--dataset', default='stsb', help='data set (augsbert.data.DATASETS)')
    ap.add_argument('--max-train-pairs', type=int, default=1000, help='train on the first N pairs after a seeded shuffle (0: all)')
    ap.add_argument('--max-dev-pairs', type=int, default=0, help='score on the first N dev pairs (0: all)')
    ap.add_argument('--recipes', default='priority', help='comma-separated recipe names or groups (priority, grid, extra, all)')
    ap.add_argument('--seed', type=int, default=42, help='seed of the subset shuffle and of every run (App. C uses 42)')
    ap.add_argument('--no-curve', action='store_true', help='evaluate only at the end (default: after every epoch)')
    ap.add_argument('--out', default='benchmarks/results/ce_recipes.json', help='results JSON (resumed if it exists)')
    ap.add_argument('--threads', type=int, default=0, help='torch intra-op threads (0: torch default)')
    ap.add_argument('--list', action='store_true', help='list the recipes and groups and exit')
    a = ap.parse_args(argv)
    if a.list:
        for g, ns in GROUPS.items(): print(f"{g}: {', '.join(ns)}")
        return
    names = _recipes(a.recipes)
    if a.threads: torch.set_num_threads(a.threads)
    splits = load_dataset(a.dataset)
    train_df = splits.train.sample(frac=1, random_state=a.seed).reset_index(drop=True)
    if a.max_train_pairs: train_df = train_df.iloc[:a.max_train_pairs]
    dev_df = splits.dev.iloc[:a.max_dev_pairs] if a.max_dev_pairs else splits.dev
    setup = dict(dataset=a.dataset, task=splits.task, model=DEFAULT_MODEL, train_pairs=len(train_df), dev_pairs=len(dev_df),
                 seed=a.seed, subset='first N training pairs after DataFrame.sample(frac=1, random_state=seed)')
    out = Path(a.out)
    doc = json.loads(out.read_text()) if out.exists() else dict(setup=setup, results=[])
    if doc['setup'] != setup:
        raise AugsbertError(f"{out} holds results of another setup ({doc['setup']}); pass a different --out.")
    doc['environment'] = dict(python=platform.python_version(), torch=torch.__version__, threads=torch.get_num_threads(),
                              omp_wait_policy=os.environ.get('OMP_WAIT_POLICY'),
                              cpus=os.cpu_count(), machine=platform.machine())
    done = {r['recipe'] for r in doc['results']}
    for n in names:
        if n in done: print(f"{n}: done already ({next(r['dev'] for r in doc['results'] if r['recipe'] == n):.2f})"); continue
        r = RECIPES[n]
        load0 = os.getloadavg()[0]
        res = _run(r, train_df, dev_df, splits.task, a.seed, curve=not a.no_curve)
        doc['results'].append(dict(recipe=n, **{k: v for k, v in r.items() if k != 'name'}, **res,
                                   load_avg_start=round(load0, 2), load_avg_end=round(os.getloadavg()[0], 2)))
        with atomic_write(out) as f: json.dump(doc, f, indent=1)
        print(f"{n}: dev {res['dev']:.2f}  train {res['train_seconds']:.0f} s  eval {res['eval_seconds']:.0f} s  "
              f"curve {[(f, round(s, 2)) for f, s in res['curve']]}", flush=True)


if __name__ == '__main__':
    sys.exit(main())
