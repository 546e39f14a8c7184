"""BM25 top-k of every sentence of a corpus: `augsbert.bm25` (exact: rank_bm25's scores and ties) against rank_bm25's
own `get_scores` loop and bm25s, in one run, each method in a fresh process (its peak memory is its own).

    .venv/bin/python benchmarks/bm25_speed.py --corpus stsb  --out benchmarks/results/bm25_stsb.json
    .venv/bin/python benchmarks/bm25_speed.py --corpus quora --baseline-queries 20000 --rank-bm25-queries 200 \\
        --out benchmarks/results/bm25_quora.json

Corpora: `stsb` (the 10,566 unique STSb training sentences), `quora` (the 537,056 unique questions of the Quora
Question Pairs file), or any registered data set's unique training sentences; `--n` keeps the first N (the
scaling curve). Every sentence is a query and its own top-k excludes itself. augsbert.bm25 answers every query;
the baselines answer the first `--baseline-queries` (rank_bm25: `--rank-bm25-queries`), and their time for all
queries is their index time plus their per-query time × the number of queries (marked `extrapolated`). The
neighbours and scores of augsbert.bm25 must equal rank_bm25's on the queries both answer (the run fails if not).
bm25s (Lucene's BM25 variant, so other scores) uses its numba backend on all cores, its fastest.
"""
import argparse, json, os, platform, resource, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np


def corpus(name:str, n:int=0)->list[str]:
    "Unique sentences of `name` (see the module docstring), the first `n` (0: all)."
    from augsbert.data import load_dataset, fetch_file
    if name == 'quora':
        import pandas as pd
        f = fetch_file(load_dataset('quora-qp').info.files[0])
        df = pd.read_csv(f, sep='\t', keep_default_na=False, dtype={'question1': object, 'question2': object})
        s = [x for x in dict.fromkeys(list(df['question1']) + list(df['question2'])) if x.strip()]
    else:
        from augsbert.sampling import unique_sentences
        s = unique_sentences(load_dataset(name).train)
    return s[:n] if n else s


def child(method:str, corpus_name:str, n:int, k:int, queries:int, out:str):
    "One method in this process: index, answer `queries` queries (0: all), save idx/scores and timings."
    from augsbert.metrics import tokenize
    sents = corpus(corpus_name, n)
    toks = [tokenize(s) for s in sents]
    nq = len(toks) if not queries else min(queries, len(toks))
    t0 = time.perf_counter()
    if method == 'augsbert':
        from augsbert.bm25 import bm25_index, bm25_search
        bm25_search(bm25_index(toks[:50]), toks[:5], k, progress=False)            # compile (numba's cache) outside the clock
        t0 = time.perf_counter()
        ix = bm25_index(toks); t1 = time.perf_counter()
        idx, sc = bm25_search(ix, toks[:nq], k, self_ids=np.arange(nq), progress=False)
    elif method == 'rank_bm25':
        from rank_bm25 import BM25Okapi
        from augsbert.sampling import _top_rows
        bm = BM25Okapi(toks); t1 = time.perf_counter()
        rows = [_top_rows(np.asarray(bm.get_scores(q), dtype=float)[None], i, k) for i, q in enumerate(toks[:nq])]
        idx, sc = np.concatenate([r[0] for r in rows]), np.concatenate([r[1] for r in rows])
    elif method == 'bm25s':
        import bm25s
        w = bm25s.BM25(backend='numba'); w.index(toks[:50], show_progress=False)         # compile outside the clock
        w.retrieve(toks[:5], k=2, show_progress=False, n_threads=os.cpu_count())
        t0 = time.perf_counter()
        r = bm25s.BM25(backend='numba'); r.index(toks, show_progress=False); t1 = time.perf_counter()
        docs, scores = r.retrieve(toks[:nq], k=min(k + 1, len(toks)), show_progress=False, n_threads=os.cpu_count())
        keep = docs != np.arange(nq)[:, None]                                        # drop the query itself
        idx = np.array([d[m][:k] for d, m in zip(docs, keep)]); sc = np.array([s[m][:k] for s, m in zip(scores, keep)])
    else:
        raise SystemExit(f"unknown method {method!r}")
    t2 = time.perf_counter()
    np.savez(out, idx=idx, scores=sc)
    from importlib.metadata import version
    lib = {'augsbert': 'augsbert', 'rank_bm25': 'rank-bm25', 'bm25s': 'bm25s'}[method]
    Path(out + '.json').write_text(json.dumps(dict(method=method, version=version(lib), sentences=len(toks), queries=nq, index_s=t1 - t0,
                                                   search_s=t2 - t1, peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))


def machine()->dict:
    "The machine the numbers come from."
    cpu = next((ln.split(':', 1)[1].strip() for ln in open('/proc/cpuinfo') if ln.startswith('model name')), platform.processor())
    mem = next((int(ln.split()[1]) / 2**20 for ln in open('/proc/meminfo') if ln.startswith('MemTotal')), None)
    import datetime, numba
    commit = subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True, cwd=Path(__file__).parent).stdout.strip()
    from augsbert.runs import cpu_isa   # 'AMD EPYC' names machines with and without AVX-512: the instruction sets tell them apart
    return dict(cpu=cpu, cpu_isa=cpu_isa(), cores=os.cpu_count(), memory_gib=round(mem, 1) if mem else None, python=platform.python_version(),
                numba=numba.__version__, numba_threads=numba.config.NUMBA_NUM_THREADS, git_commit=commit or None,
                recorded=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--corpus', default='stsb')
    ap.add_argument('--n', type=int, default=0, help='the first N unique sentences (0: all)')
    ap.add_argument('--k', type=int, default=5, help='neighbours per sentence')
    ap.add_argument('--methods', default='augsbert,rank_bm25,bm25s')
    ap.add_argument('--baseline-queries', type=int, default=0, help='queries bm25s answers (0: all)')
    ap.add_argument('--rank-bm25-queries', type=int, default=0, help='queries rank_bm25 answers (0: all)')
    ap.add_argument('--out', default='')
    ap.add_argument('--child', nargs=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        m, c, n, k, q, out = a.child
        return child(m, c, int(n), int(k), int(q), out)
    res = dict(corpus=a.corpus, k=a.k, machine=machine(), methods={})
    with tempfile.TemporaryDirectory() as tmp:
        got = {}
        for m in a.methods.split(','):
            q = 0 if m == 'augsbert' else (a.rank_bm25_queries if m == 'rank_bm25' else a.baseline_queries)
            out = str(Path(tmp)/m)
            subprocess.run([sys.executable, __file__, '--child', m, a.corpus, str(a.n), str(a.k), str(q), out], check=True)
            r = json.loads(Path(out + '.json').read_text()); z = np.load(out + '.npz'); got[m] = (z['idx'], z['scores'])
            r['per_query_ms'] = 1000 * r['search_s'] / r['queries']
            r['total_s'] = r['index_s'] + r['search_s'] * r['sentences'] / r['queries']
            r['extrapolated'] = r['queries'] < r['sentences']
            res['methods'][m] = r
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}), flush=True)
        if 'augsbert' in got and 'rank_bm25' in got:
            (ia, sa), (ir, sr) = got['augsbert'], got['rank_bm25']
            nq = len(ir)
            res['parity'] = dict(queries=nq, same_neighbours=bool(np.array_equal(ia[:nq], ir)),
                                 same_scores=bool(np.array_equal(sa[:nq], sr, equal_nan=True)))
        base = res['methods'].get('augsbert')
        if base:
            res['ratios'] = {f'{m} / augsbert': dict(per_query=r['per_query_ms'] / base['per_query_ms'], total=r['total_s'] / base['total_s'])
                             for m, r in res['methods'].items() if m != 'augsbert'}
    print(json.dumps(dict(parity=res.get('parity'), ratios=res.get('ratios')), indent=1))
    if a.out:
        from augsbert.config import atomic_write
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')
    if res.get('parity') and not (res['parity']['same_neighbours'] and res['parity']['same_scores']):
        raise SystemExit("augsbert.bm25 disagrees with rank_bm25")


if __name__ == '__main__':
    main()
