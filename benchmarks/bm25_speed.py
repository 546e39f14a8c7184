"""BM25 top-k of `augsbert.sampling.bm25_top_k`: the vectorised scorer (fast=True) against rank_bm25's own
`get_scores` loop (fast=False), timed in the same run on the unique sentences of a training set.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/bm25_speed.py [--dataset sts-es] [--n 0] [--top-k 3]

Prints both timings, their ratio, and whether the two give the same neighbours and scores (they must).
"""
import argparse, json, platform, time
import numpy as np
from augsbert.data import load_dataset
from augsbert.sampling import bm25_top_k, unique_sentences


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--dataset', default='sts-es', help='data set whose training sentences form the corpus')
    ap.add_argument('--n', type=int, default=0, help='use the first N unique sentences (0: all)')
    ap.add_argument('--top-k', type=int, default=3, help='neighbours per sentence')
    ap.add_argument('--repeats', type=int, default=3, help='timings of the fast scorer (the best is kept)')
    a = ap.parse_args()
    sents = unique_sentences(load_dataset(a.dataset).train)
    if a.n: sents = sents[:a.n]
    t0 = time.perf_counter(); i_ref, s_ref = bm25_top_k(sents, a.top_k, fast=False, progress=False); t_ref = time.perf_counter() - t0
    t_fast = float('inf')
    for _ in range(a.repeats):
        t0 = time.perf_counter(); i_fast, s_fast = bm25_top_k(sents, a.top_k, fast=True, progress=False)
        t_fast = min(t_fast, time.perf_counter() - t0)
    same_idx = bool(np.array_equal(i_ref, i_fast))
    diff = float(np.nanmax(np.abs(s_ref - s_fast))) if np.isfinite(s_ref).any() else 0.0
    res = dict(dataset=a.dataset, sentences=len(sents), top_k=a.top_k, rank_bm25_s=round(t_ref, 3), fast_s=round(t_fast, 3),
               speedup=round(t_ref / t_fast, 1), same_neighbours=same_idx, max_score_diff=diff,
               python=platform.python_version(), machine=platform.machine())
    print(json.dumps(res))
    if not same_idx or diff > 1e-9: raise SystemExit("the fast scorer disagrees with rank_bm25")


if __name__ == '__main__':
    main()
