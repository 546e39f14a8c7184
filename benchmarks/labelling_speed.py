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


def arguments(doc:str, pairs:int, **extra):
    "The options every labelling benchmark takes (--pairs, --rounds, --out) and its own `extra` ones (name: default)."
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=pairs)
    for k, v in extra.items(): ap.add_argument(f"--{k.replace('_', '-')}", type=type(v), default=v)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--out', default='')
    return ap.parse_args()


def bm25_pairs(dataset:str, top_k:int, n:int):
    "A real silver set: the first `n` BM25 top-k pairs of the data set's training sentences."
    from augsbert.data import load_dataset
    from augsbert.sampling import sample_bm25
    return sample_bm25(load_dataset(dataset).train, top_k=top_k, progress=False).iloc[:n].reset_index(drop=True)


def chunked(predict, pairs)->np.ndarray:
    "`label_pairs` with `predict`, in resumable chunks in a temporary folder, as in an experiment."
    from augsbert.silver import label_pairs
    with tempfile.TemporaryDirectory() as d:
        return label_pairs(predict, pairs, folder=Path(d)/'parts', progress=False)['score'].to_numpy()


def interleaved(runs:dict, rounds:int)->tuple[dict, dict]:
    "Each of `runs` (name: callable) once per round, in turn: the median seconds of each and its last result."
    times, scores = {k: [] for k in runs}, {}
    for _ in range(rounds):
        for k, f in runs.items():
            t0 = time.perf_counter(); scores[k] = f(); times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}, scores


def finish(res:dict, out:str):
    "Print the results and write them (atomically) to `out` when given."
    from augsbert.config import atomic_write
    print(json.dumps(res, indent=1))
    if out:
        with atomic_write(Path(out)) as f: f.write(json.dumps(res, indent=1) + '\n')


def main():
    a = arguments(__doc__, 3000, batch_size=32)
    import torch
    from augsbert.models import DEFAULT_MODEL
    from augsbert.silver import teacher
    from augsbert.training import make_cross_encoder
    pairs = bm25_pairs('stsb', 5, a.pairs)
    ce = make_cross_encoder(DEFAULT_MODEL)
    ce.model.eval()
    runs = {('label_pairs', p): (lambda p=p: chunked(teacher(ce, p), pairs)) for p in ('fp32', 'bf16')}
    runs.update({('raw loop', p): (lambda p=p: np.clip(raw_loop(ce, pairs, a.batch_size, p), 0, 1)) for p in ('fp32', 'bf16')})
    runs[('label_pairs', 'fp32')]()                                                 # warm-up
    med, scores = interleaved(runs, a.rounds)
    finish(dict(pairs=len(pairs), batch_size=a.batch_size, rounds=a.rounds, threads=torch.get_num_threads(), machine=machine(),
                pairs_per_s={f'{m} {p}': len(pairs) / t for (m, p), t in med.items()},
                ratio_label_pairs_over_raw={p: med[('raw loop', p)] / med[('label_pairs', p)] for p in ('fp32', 'bf16')},
                bf16_speedup={m: med[(m, 'fp32')] / med[(m, 'bf16')] for m in ('label_pairs', 'raw loop')},
                max_abs_diff_fp32=float(np.abs(scores[('label_pairs', 'fp32')] - scores[('raw loop', 'fp32')]).max()),
                max_abs_diff_bf16_vs_fp32=float(np.abs(scores[('label_pairs', 'bf16')] - scores[('label_pairs', 'fp32')]).max())), a.out)


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
