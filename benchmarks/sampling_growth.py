"""How the cost of drawing a silver set grows with the corpus: BM25 top-k (`augsbert.sampling.bm25_top_k`) and
semantic-search top-k with the static student (`semantic_top_k`: exact search up to 50k sentences, HNSW above)
over the first N Quora questions, N from 10k to all 537k, in one run; the fitted exponent b of time ≈ a·N^b. The
baseline, in the same run: bm25s (numba backend; its search timed on `--bm25s-queries` random sentences per size and
scaled to all, marked `extrapolated`).

    .venv/bin/python benchmarks/sampling_growth.py --out benchmarks/results/sampling_growth_quora.json
"""
import argparse, json, os, time
from pathlib import Path
import numpy as np
from bm25_speed import corpus, machine


def fit_exponent(n, t)->float:
    "Least-squares slope of log(t) on log(n)."
    return float(np.polyfit(np.log(np.asarray(n, float)), np.log(np.asarray(t, float)), 1)[0])


def bm25s_cost(sents:list, k:int, queries:int)->float:
    """Seconds bm25s (numba backend, all cores) takes to tokenise (as augsbert does), index and answer every sentence's top-k,
    the search timed on `queries` random sentences and scaled to all of them."""
    import bm25s
    from augsbert.metrics import tokenize
    t0 = time.perf_counter()
    toks = [tokenize(s) for s in sents]
    r = bm25s.BM25(backend='numba'); r.index(toks, show_progress=False)
    t_index = time.perf_counter() - t0
    q = np.random.default_rng(0).choice(len(toks), min(queries, len(toks)), replace=False)
    t0 = time.perf_counter(); r.retrieve([toks[i] for i in q], k=min(k + 1, len(toks)), show_progress=False, n_threads=os.cpu_count())
    return t_index + (time.perf_counter() - t0) * len(toks) / len(q)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--corpus', default='quora')
    ap.add_argument('--sizes', default='10000,30000,100000,300000,0', help='first N sentences (0: all)')
    ap.add_argument('--k', type=int, default=5)
    ap.add_argument('--methods', default='bm25,semantic-static,bm25s', help='bm25 (augsbert), semantic-static, bm25s (the baseline)')
    ap.add_argument('--bm25s-queries', type=int, default=20_000, help='bm25s: time this many random queries per size, scaled to all')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    known = ('bm25', 'semantic-static', 'bm25s')
    methods = [m.strip() for m in a.methods.split(',') if m.strip()]
    unknown = [m for m in methods if m not in known]
    if unknown or not methods:
        ap.error(f"--methods: unknown method(s) {unknown or a.methods!r}; choose from {', '.join(known)}")
    from augsbert.config import atomic_write, get_profile
    from augsbert.models import DEFAULT_MODEL
    from augsbert.sampling import bm25_top_k, semantic_top_k
    from augsbert.students import make_student, student_options
    allsents = corpus(a.corpus)
    sizes = [int(s) or len(allsents) for s in a.sizes.split(',')]
    static = make_student('static', DEFAULT_MODEL, student_options(get_profile('cpu'), 'static'))
    run = {'bm25': lambda s: bm25_top_k(s, a.k, progress=False),
           'semantic-static': lambda s: semantic_top_k(s, static, a.k, progress=False),
           'bm25s': lambda s: bm25s_cost(s, a.k, a.bm25s_queries)}
    for m in methods: run[m](allsents[:2000])                                        # compile / warm up
    res = dict(corpus=a.corpus, k=a.k, machine=machine(), methods={}, bm25s_queries=a.bm25s_queries)
    for m in methods:
        rows = []
        for n in sizes:
            t0 = time.perf_counter(); out = run[m](allsents[:n]); t = time.perf_counter() - t0
            row = dict(n=n, seconds=out if m == 'bm25s' else t)                  # bm25s reports its own (scaled) cost
            if m == 'bm25s' and n > a.bm25s_queries: row['extrapolated'] = True
            rows.append(row)
            print(m, rows[-1], flush=True)
        res['methods'][m] = dict(points=rows, exponent=fit_exponent([r['n'] for r in rows], [r['seconds'] for r in rows]))
        print(m, 'exponent', round(res['methods'][m]['exponent'], 3), flush=True)
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
