"""Semantic-search sampling at Quora scale: every question's top-k nearest questions under a bi-encoder, exact
(Faiss `IndexFlatIP`) against the HNSW index `augsbert.sampling.knn_search` uses above `exact_below`, with the
HNSW index's recall@k measured against exact search, for the static student and for MiniLM, in one run.

    .venv/bin/python benchmarks/semantic_speed.py --out benchmarks/results/semantic_quora.json

Per encoder: the encoding time (all sentences, batch 64), the HNSW build and search time (all sentences as queries), its
recall@k on `--recall-sample` queries, and the exact search's time — measured on `--exact-queries` queries and
scaled to all of them (marked `extrapolated`: exact search over 537k questions takes about an hour on 2 cores).
"""
import argparse, json, os, time
from pathlib import Path
import numpy as np
from bm25_speed import corpus, machine


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--corpus', default='quora')
    ap.add_argument('--n', type=int, default=0)
    ap.add_argument('--k', type=int, default=5)
    ap.add_argument('--encoders', default='static,minilm')
    ap.add_argument('--ef-search', type=int, default=128)
    ap.add_argument('--exact-queries', type=int, default=10_000)
    ap.add_argument('--recall-sample', type=int, default=2_000)
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    import faiss
    from augsbert.config import atomic_write, get_profile
    from augsbert.models import DEFAULT_MODEL
    from augsbert.sampling import knn_search, knn_recall, _normalised, _exact_rows
    from augsbert.students import make_student, student_base, student_options
    sents = corpus(a.corpus, a.n)
    res = dict(corpus=a.corpus, sentences=len(sents), k=a.k, ef_search=a.ef_search, machine=machine(), faiss_threads=faiss.omp_get_max_threads(),
               encoders={})
    cfg = get_profile('cpu')
    for name in a.encoders.split(','):
        model = make_student(name, student_base(name, DEFAULT_MODEL), student_options(cfg, name))
        model.encode(sents[:256], batch_size=64)                                     # warm-up
        t0 = time.perf_counter(); emb = model.encode(sents, batch_size=64, convert_to_numpy=True, show_progress_bar=True)
        t_enc = time.perf_counter() - t0
        t0 = time.perf_counter(); idx, _ = knn_search(emb, a.k, exact_below=0, ef_search=a.ef_search, progress=True); t_ann = time.perf_counter() - t0
        recall = knn_recall(emb, idx, a.recall_sample)
        e = _normalised(emb); q = np.arange(min(a.exact_queries, len(e)))
        t0 = time.perf_counter(); _exact_rows(e, q, a.k); t_ex = (time.perf_counter() - t0) * len(e) / len(q)
        r = dict(dim=int(emb.shape[1]), encode_s=t_enc, sentences_per_s=len(sents) / t_enc, ann_search_s=t_ann,
                 recall_at_k=recall, recall_sample=a.recall_sample, exact_search_s=t_ex, exact_queries=int(len(q)),
                 exact_extrapolated=len(q) < len(e), speedup_ann_over_exact=t_ex / t_ann)
        res['encoders'][name] = r
        print(name, json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}), flush=True)
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
