"""Silver labelling with a bi-encoder teacher: `augsbert.silver.teacher` (each distinct sentence encoded once over all
chunks, `memo_cosines`) against the same chunked labelling that encodes every chunk's sentences afresh
(`augsbert.training.bi_encoder_scores` per chunk, what the teacher did before), interleaved in rounds in one process;
the median round counts.

    .venv/bin/python benchmarks/bi_encoder_labelling.py --out benchmarks/results/bi_encoder_labelling_mrpc.json

The pairs are a real silver set of the final recipe's kind: BM25 top-3 neighbours among MRPC's training sentences
(the first `--pairs`), labelled in the experiments' chunks (`LABEL_CHUNK`) with the packaged MiniLM as the bi-encoder
(the experiments use MPNet, about five times slower per sentence; the ratio is what carries over).
"""
import argparse, json, os, tempfile, time
from pathlib import Path
import numpy as np
from bm25_speed import machine


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=12288)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    import torch
    from augsbert.config import atomic_write
    from augsbert.data import load_dataset
    from augsbert.models import load_bi_encoder, DEFAULT_MODEL
    from augsbert.sampling import sample_bm25
    from augsbert.silver import label_pairs, teacher, LABEL_CHUNK
    from augsbert.training import bi_encoder_scores
    pairs = sample_bm25(load_dataset('mrpc').train, top_k=3, progress=False).iloc[:a.pairs].reset_index(drop=True)
    model = load_bi_encoder(DEFAULT_MODEL)
    def labelled(predict):
        with tempfile.TemporaryDirectory() as d:                                 # resumable chunks, as in an experiment
            return label_pairs(predict, pairs, folder=Path(d)/'parts', chunk=LABEL_CHUNK, progress=False)['score'].to_numpy()
    runs = {'memo (teacher)': lambda: labelled(teacher(model)),
            'per chunk': lambda: labelled(lambda df: np.clip(bi_encoder_scores(model, df), 0, 1))}
    model.encode(pairs['sentence1'].iloc[:64].tolist())                            # warm-up
    times, scores = {k: [] for k in runs}, {}
    for _ in range(a.rounds):
        for k, f in runs.items():
            t0 = time.perf_counter(); scores[k] = f(); times[k].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    sents = len(set(pairs['sentence1']) | set(pairs['sentence2']))
    chunks = [pairs.iloc[i:i + LABEL_CHUNK] for i in range(0, len(pairs), LABEL_CHUNK)]
    res = dict(pairs=len(pairs), chunk=LABEL_CHUNK, distinct_sentences=sents,
               sentences_encoded_per_chunk=int(sum(len(set(c['sentence1']) | set(c['sentence2'])) for c in chunks)),
               rounds=a.rounds, threads=torch.get_num_threads(), machine=machine(), seconds=med,
               pairs_per_s={k: len(pairs) / t for k, t in med.items()}, speedup=med['per chunk'] / med['memo (teacher)'],
               max_abs_diff=float(np.abs(scores['memo (teacher)'] - scores['per chunk']).max()))
    print(json.dumps(res, indent=1))
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
