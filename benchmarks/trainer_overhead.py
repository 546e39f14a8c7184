"""What sentence-transformers' trainers cost over a bare PyTorch loop, on the CPU, measured in one run.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/trainer_overhead.py --out benchmarks/results/trainer_overhead_stsb.json

Baseline: a minimal loop written here (AdamW, the same loss, the same batch size, one epoch, no clipping, no
callbacks), timed in the same process on the same pairs. Measured: `augsbert.training.bi_encoder_run` and
`cross_encoder_run` (the library's trainers with its callbacks: the divergence guard, the pause callback) on
the first N STSb training pairs, MiniLM, batch size 16. Reported: seconds per optimiser step of each, and their
ratio (trainer / bare loop), best of `--repeats`. The library moved to the trainers in the foundation-v2 issue;
this is what that move costs in speed.
"""
import argparse, json, os, platform, time
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')   # see benchmarks/ce_recipes.py
import torch
import torch.nn.functional as F
from augsbert.config import atomic_write
from augsbert.data import load_dataset
from augsbert.models import DEFAULT_MODEL, load_bi_encoder
from augsbert.training import TrainConfig, bi_encoder_run, cross_encoder_run, make_cross_encoder


def bare_bi_encoder(train, bs):
    "One epoch of cosine-MSE on a SentenceTransformer with a hand-written loop; seconds."
    m = load_bi_encoder(DEFAULT_MODEL); m.train()
    opt = torch.optim.AdamW(m.parameters(), lr=2e-5)
    a, b, y = train['sentence1'].tolist(), train['sentence2'].tolist(), torch.tensor(train['score'].to_numpy(), dtype=torch.float32)
    t = time.perf_counter()
    for i in range(0, len(a), bs):
        u = m(m.preprocess(a[i:i + bs]))['sentence_embedding']; v = m(m.preprocess(b[i:i + bs]))['sentence_embedding']
        loss = F.mse_loss(torch.cosine_similarity(u, v), y[i:i + bs]); loss.backward(); opt.step(); opt.zero_grad()
    return time.perf_counter() - t

def bare_cross_encoder(train, bs):
    "One epoch of BCE on both orders of the pairs, the library's cross-encoder module chain, a hand-written loop; seconds."
    ce = make_cross_encoder(DEFAULT_MODEL, head='mean'); ce.train()
    opt = torch.optim.AdamW(ce.parameters(), lr=5e-5)
    a, b = train['sentence1'].tolist(), train['sentence2'].tolist()
    a, b, y = a + b, b + a, torch.tensor(list(train['score']) * 2, dtype=torch.float32)
    t = time.perf_counter()
    for i in range(0, len(a), bs):
        f = ce.preprocess(list(zip(a[i:i + bs], b[i:i + bs])))
        logits = ce(f)['scores'].view(-1)
        loss = F.binary_cross_entropy_with_logits(logits, y[i:i + bs]); loss.backward(); opt.step(); opt.zero_grad()
    return time.perf_counter() - t

def timed_run(make):
    run = make(); t = time.perf_counter(); run.train_to(1.0); return time.perf_counter() - t, run.total_steps

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max-train-pairs', type=int, default=256); ap.add_argument('--repeats', type=int, default=2)
    ap.add_argument('--out', required=True)
    a = ap.parse_args(argv)
    train = load_dataset('stsb').train.sample(frac=1.0, random_state=0).iloc[:a.max_train_pairs].reset_index(drop=True)
    bs = 16
    out = dict(pairs=len(train), batch_size=bs, repeats=a.repeats, torch_threads=torch.get_num_threads(),
               cpu=platform.processor() or platform.machine())
    be_cfg, ce_cfg = TrainConfig(batch_size=bs, lr=2e-5), TrainConfig(batch_size=bs, lr=5e-5)
    for kind, bare, make in (('bi-encoder', bare_bi_encoder, lambda: bi_encoder_run(DEFAULT_MODEL, train, be_cfg, progress=False)),
                             ('cross-encoder', bare_cross_encoder, lambda: cross_encoder_run(DEFAULT_MODEL, train, ce_cfg, head='mean', progress=False))):
        base = min(bare(train, bs) for _ in range(a.repeats))
        trainer, steps = min(timed_run(make) for _ in range(a.repeats))
        out[kind] = dict(steps=steps, bare_seconds_per_step=base / steps, trainer_seconds_per_step=trainer / steps, ratio=trainer / base)
        print(f"{kind}: {steps} steps; bare loop {base / steps:.3f} s/step, trainer {trainer / steps:.3f} s/step, ratio {trainer / base:.2f}")
    with atomic_write(a.out) as f: json.dump(out, f, indent=1); f.write('\n')

if __name__ == '__main__': main()
