"""Silver labelling speed: `augsbert.silver.label_pairs` with the cross-encoder teacher (both orders averaged,
resumable chunks, sentence-transformers' length-sorted `CrossEncoder.predict`) against a raw forward loop over the
same pairs (the model's own tokenise and forward per batch, sigmoid; pairs in their given order), in fp32 and bf16, interleaved
in rounds in one process; the median round counts.

    .venv/bin/python benchmarks/labelling_speed.py --out benchmarks/results/labelling_stsb.json

The pairs are a real silver set: BM25 top-5 neighbours of the STSb training sentences (the first `--pairs`).
Target (performance issue): label_pairs' pairs/s >= 0.9 x the raw loop's.
"""
import argparse, json, os, tempfile, time
from pathlib import Path
import numpy as np
from bm25_speed import machine


def raw_loop(model, pairs, batch_size:int, precision:str)->np.ndarray:
    "The baseline: batches in the given order, tokenised and scored, both orders averaged (as the teacher does)."
    import torch
    from augsbert.training import precision_scope
    a, b = pairs['sentence1'].tolist(), pairs['sentence2'].tolist()
    both = list(zip(a, b)) + list(zip(b, a))
    out = []
    with torch.inference_mode(), precision_scope(precision, 'cpu'):
        for i in range(0, len(both), batch_size):
            features = model.preprocess(both[i:i + batch_size])                      # the model's own tokenisation
            out.append(torch.sigmoid(model(features)['scores'].float()).reshape(-1).numpy())
    s = np.concatenate(out)
    return (s[:len(a)] + s[len(a):]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=3000)
    ap.add_argument('--batch-size', type=int, default=32)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    import torch
    from augsbert.config import atomic_write
    from augsbert.data import load_dataset
    from augsbert.models import DEFAULT_MODEL
    from augsbert.sampling import sample_bm25
    from augsbert.silver import label_pairs, teacher
    from augsbert.training import make_cross_encoder
    pairs = sample_bm25(load_dataset('stsb').train, top_k=5, progress=False).iloc[:a.pairs].reset_index(drop=True)
    ce = make_cross_encoder(DEFAULT_MODEL)
    ce.model.eval()
    def ours(precision):
        with tempfile.TemporaryDirectory() as d:                                 # resumable chunks, as in an experiment
            return label_pairs(teacher(ce, precision), pairs, folder=Path(d)/'parts', progress=False)['score'].to_numpy()
    runs = {('label_pairs', p): (lambda p=p: ours(p)) for p in ('fp32', 'bf16')}
    runs.update({('raw loop', p): (lambda p=p: np.clip(raw_loop(ce, pairs, a.batch_size, p), 0, 1)) for p in ('fp32', 'bf16')})
    runs[('label_pairs', 'fp32')]()                                                 # warm-up
    times, scores = {k: [] for k in runs}, {}
    for _ in range(a.rounds):
        for k, f in runs.items():
            t0 = time.perf_counter(); scores[k] = f(); times[k].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    res = dict(pairs=len(pairs), batch_size=a.batch_size, rounds=a.rounds, threads=torch.get_num_threads(), machine=machine(),
               pairs_per_s={f'{m} {p}': len(pairs) / t for (m, p), t in med.items()},
               ratio_label_pairs_over_raw={p: med[('raw loop', p)] / med[('label_pairs', p)] for p in ('fp32', 'bf16')},
               bf16_speedup={m: med[(m, 'fp32')] / med[(m, 'bf16')] for m in ('label_pairs', 'raw loop')},
               max_abs_diff_fp32=float(np.abs(scores[('label_pairs', 'fp32')] - scores[('raw loop', 'fp32')]).max()),
               max_abs_diff_bf16_vs_fp32=float(np.abs(scores[('label_pairs', 'bf16')] - scores[('label_pairs', 'fp32')]).max()))
    print(json.dumps(res, indent=1))
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
