"""Encoding backends for the packaged MPNet bi-encoder on CPU (issue 31, part 4): does what speeds up the cross-encoder
teacher also speed up the bi-encoder teacher and the semantic-search sampler, and at what cost in their results?

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/encode_backends.py --out benchmarks/results/encode_backends_stsb.json

Backends, on the same sentences, interleaved in `--rounds` rounds in one process (the median round counts), 2 threads:
- `torch-fp32`: `SentenceTransformer.encode` (sorted by length, padded per batch) — what the library does;
- `torch-bf16`: the same under bf16 autocast (`eval_precision = bf16`; fast only on CPUs with bf16 instructions);
- `onnx-fp32` / `onnx-int8` / `onnx-int8 per-channel`: the whole module stack (transformer, pooling, normalisation)
  exported with `torch.onnx.export` and run by ONNX Runtime in the same length-sorted batches; int8 is ONNX Runtime's
  dynamic quantisation, per-channel in a 7-bit range as `augsbert.silver.export_onnx` does for `onnx-int8`.
What each changes: the cosine between a sentence's embedding and fp32's (min and mean); the zero-shot STSb test
Spearman ×100 of cosine scores (Δρ against fp32: paired bootstrap over test pairs; one model, so no seeds); and for
semantic-search sampling, the share of each gold sentence's top-5 neighbours (among the `cpu` profile's 500 gold
pairs' sentences) that fp32 also finds.
"""
import argparse, json, os, tempfile, time
from pathlib import Path
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
import numpy as np
import torch
from bm25_speed import machine
from label_backends import isa, torch_threads


def export_encoder(model, path:Path)->Path:
    "The bi-encoder's normalised sentence embeddings as an ONNX graph (batch and length dynamic)."
    feats = model.tokenize(['a first sentence', 'and a second one'])
    names = [k for k in ('input_ids', 'attention_mask', 'token_type_ids') if k in feats]
    extra = {k: v for k, v in feats.items() if k not in names and not torch.is_tensor(v)}
    class Embed(torch.nn.Module):
        def __init__(self): super().__init__(); self.m = model
        def forward(self, *xs): return self.m({**extra, **dict(zip(names, xs))})['sentence_embedding']
    torch.onnx.export(Embed().eval(), tuple(feats[k] for k in names), str(path), input_names=names, output_names=['embedding'],
                      dynamic_axes={**{k: {0: 'batch', 1: 'length'} for k in names}, 'embedding': {0: 'batch'}}, dynamo=False, opset_version=17)
    return path


def ort_encoder(model, path:Path, threads:int, batch_size:int):
    import onnxruntime as ort
    so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), so, providers=['CPUExecutionProvider'])
    names = [i.name for i in sess.get_inputs()]
    def encode(sents):
        out, order = None, np.argsort([-len(s) for s in sents], kind='stable')
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]; f = model.tokenize([sents[j] for j in idx])
            e = sess.run(['embedding'], {k: f[k].numpy() for k in names})[0]
            if out is None: out = np.empty((len(sents), e.shape[1]), np.float32)
            out[idx] = e
        return out
    return encode


def torch_encoder(model, threads:int, batch_size:int, precision:str='fp32'):
    def encode(sents):
        with torch_threads(threads, precision):
            return np.asarray(model.encode(sents, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False), dtype=np.float32)
    return encode


def unit(e): return e / np.linalg.norm(e, axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sentences', type=int, default=1000, help='sentences timed per round')
    ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--model', default='all-mpnet-base-v2', help='the bi-encoder (a packaged name or a folder)')
    ap.add_argument('--gold-pairs', type=int, default=0, help="gold pairs whose sentences are searched (0: the cpu profile's cap)")
    ap.add_argument('--test-pairs', type=int, default=0, help='STSb test pairs scored (0: all)')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    if a.gold_pairs < 0 or a.test_pairs < 0: ap.error("--gold-pairs and --test-pairs must be 0 (the default) or more.")
    for name in ('sentences', 'batch_size', 'rounds'):
        if getattr(a, name) < 1: ap.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}.")
    from onnxruntime.quantization import quantize_dynamic, QuantType
    from augsbert.config import atomic_write, get_profile
    from augsbert.data import load_dataset
    from augsbert.methods.domain_adaptation import cap_pairs
    from scipy.stats import spearmanr
    from augsbert.models import load_bi_encoder
    from augsbert.statistics import paired_bootstrap
    torch.set_num_threads(2)
    sp = load_dataset('stsb')
    if a.test_pairs: sp.test = sp.test.iloc[:a.test_pairs].reset_index(drop=True)
    gold = cap_pairs(sp.train, a.gold_pairs or get_profile('cpu')['max_train_pairs'])
    gold_sents = list(dict.fromkeys(gold['sentence1'].tolist() + gold['sentence2'].tolist()))
    test_sents = list(dict.fromkeys(sp.test['sentence1'].tolist() + sp.test['sentence2'].tolist()))
    timed = (gold_sents + test_sents)[:a.sentences]
    model = load_bi_encoder(a.model); model.eval()
    work = Path(tempfile.mkdtemp())
    t0 = time.time(); onnx32 = export_encoder(model, work/'enc.onnx'); export_s = time.time() - t0
    onnx8 = work/'enc-int8.onnx'; quantize_dynamic(str(onnx32), str(onnx8), weight_type=QuantType.QInt8)
    onnx8pc = work/'enc-int8-pc.onnx'; quantize_dynamic(str(onnx32), str(onnx8pc), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
    bs = a.batch_size
    backends = {'torch-fp32': torch_encoder(model, 2, bs), 'torch-bf16': torch_encoder(model, 2, bs, 'bf16'), 'onnx-fp32': ort_encoder(model, onnx32, 2, bs),
                'onnx-int8': ort_encoder(model, onnx8, 2, bs), 'onnx-int8 per-channel': ort_encoder(model, onnx8pc, 2, bs)}
    for f in backends.values(): f(timed[:64])                                                   # warm-up
    times = {k: [] for k in backends}
    for r in range(a.rounds):
        for k, f in backends.items():
            t0 = time.perf_counter(); f(timed); times[k].append(time.perf_counter() - t0)
            print(f'round {r} {k}: {len(timed) / times[k][-1]:.1f} sentences/s', flush=True)
    med = {k: float(np.median(v)) for k, v in times.items()}
    # what each backend changes: embeddings, zero-shot STSb test, semantic-search neighbours of the gold sentences
    idx = {s: i for i, s in enumerate(test_sents)}
    emb = {k: unit(f(gold_sents + test_sents)) for k, f in backends.items()}
    ref = emb['torch-fp32']
    def test_scores(e):
        t = e[len(gold_sents):]
        return np.array([float(t[idx[x]] @ t[idx[y]]) for x, y in zip(sp.test['sentence1'], sp.test['sentence2'])])
    def top5(e):
        g = e[:len(gold_sents)]; s = g @ g.T; np.fill_diagonal(s, -np.inf)
        return np.argsort(-s, axis=1)[:, :5]
    ref_top, ref_scores = top5(ref), test_scores(ref)
    res = dict(model=a.model, sentences=len(timed), batch_size=bs, rounds=a.rounds, machine=machine(),
               torch=torch.__version__, export_seconds=export_s, isa=isa(), backends={})
    for k, e in emb.items():
        cos = np.sum(e * ref, axis=1); sc = test_scores(e)
        pb = paired_bootstrap('regression', sc[None, :], ref_scores[None, :], sp.test['score'])
        overlap = float(np.mean([len(set(a_) & set(b_)) / 5 for a_, b_ in zip(top5(e), ref_top)]))
        res['backends'][k] = dict(sentences_per_s=len(timed) / med[k], speedup=med['torch-fp32'] / med[k], min_cosine_to_fp32=float(cos.min()),
                                  mean_cosine_to_fp32=float(cos.mean()), stsb_test=100 * float(spearmanr(sc, sp.test['score']).statistic),
                                  delta_rho=dict(diff=pb['diff'], lo=pb['lo'], hi=pb['hi']), top5_overlap_with_fp32=overlap)
        print(k, json.dumps(res['backends'][k]), flush=True)
    res['setup'] = dict(gold_sentences=len(gold_sents), test_pairs=len(sp.test), neighbours='top-5 by cosine among the gold sentences')
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1, default=str) + '\n')


if __name__ == '__main__':
    main()
