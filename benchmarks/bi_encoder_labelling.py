"""Silver labelling with a bi-encoder teacher: `augsbert.silver.teacher` (each distinct sentence encoded once over all
chunks, `bi_encoder_scores` with a memo) against the same chunked labelling that encodes every chunk's sentences afresh
(`augsbert.training.bi_encoder_scores` per chunk, what the teacher did before), interleaved in rounds in one process;
the median round counts.

    .venv/bin/python benchmarks/bi_encoder_labelling.py --out benchmarks/results/bi_encoder_labelling_mrpc.json

The pairs are a real silver set of the final recipe's kind: BM25 top-3 neighbours among MRPC's training sentences
(the first `--pairs`), labelled in the experiments' chunks (`LABEL_CHUNK`) with the packaged MiniLM as the bi-encoder
(the experiments use MPNet, about five times slower per sentence; the ratio is what carries over).
"""
import os
import numpy as np
from bm25_speed import machine
from labelling_speed import arguments, bm25_pairs, chunked, interleaved, finish


def main():
    a = arguments(__doc__, 12288)
    import torch
    from augsbert.models import load_bi_encoder, DEFAULT_MODEL
    from augsbert.silver import teacher, LABEL_CHUNK
    from augsbert.training import bi_encoder_scores
    pairs, model = bm25_pairs('mrpc', 3, a.pairs), load_bi_encoder(DEFAULT_MODEL)
    runs = {'memo (teacher)': lambda: chunked(teacher(model), pairs),
            'per chunk': lambda: chunked(lambda df: np.clip(bi_encoder_scores(model, df), 0, 1), pairs)}
    model.encode(pairs['sentence1'].iloc[:64].tolist())                            # warm-up
    med, scores = interleaved(runs, a.rounds)
    chunks = [pairs.iloc[i:i + LABEL_CHUNK] for i in range(0, len(pairs), LABEL_CHUNK)]
    finish(dict(pairs=len(pairs), chunk=LABEL_CHUNK, distinct_sentences=len(set(pairs['sentence1']) | set(pairs['sentence2'])),
                sentences_encoded_per_chunk=int(sum(len(set(c['sentence1']) | set(c['sentence2'])) for c in chunks)),
                rounds=a.rounds, threads=torch.get_num_threads(), machine=machine(), seconds=med,
                pairs_per_s={k: len(pairs) / t for k, t in med.items()}, speedup=med['per chunk'] / med['memo (teacher)'],
                max_abs_diff=float(np.abs(scores['memo (teacher)'] - scores['per chunk']).max())), a.out)


if __name__ == '__main__':
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    main()
