"""Silver labelling backends for a cross-encoder teacher on CPU: speed, memory, label agreement with fp32 PyTorch, the
downstream effect on the student, and the share of the machine's peak.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/label_backends.py \\
        [--teacher <a cross-encoder folder>] --out benchmarks/results/label_backends_stsb.json

Without --teacher, the teacher is the main job's: the packaged MPNet fine-tuned as a cross-encoder on the `cpu`
profile's 500 STSb gold pairs with the recipe of workflow/config.yaml's main cell (seed 43), from the cache when it
is there (`augsbert.teachers.get_cross_encoder`; about 5 minutes to train on 2 cores).

Backends, all on the same pairs, interleaved in rounds in one process (the median round counts):
- `torch-fp32`: today's labeller, `augsbert.training.predict_pairs` (sentence-transformers' `CrossEncoder.predict`,
  which sorts pairs by length and pads each batch to its longest pair);
- `torch-bf16`: the same under bf16 autocast (`augsbert.training.precision_scope`; fast only on CPUs with bf16 instructions);
- `torch-int8`: the same after PyTorch's dynamic int8 quantisation of every `nn.Linear` (weights int8, activations
  quantised on the fly);
- `onnx-fp32` / `onnx-int8`: the model exported to ONNX (`torch.onnx.export`) and run by ONNX Runtime, with the same
  length-sorted batches; `onnx-int8` is ONNX Runtime's dynamic int8 quantisation of that export, `onnx-int8 per-channel` the same with
  per-channel weights in a 7-bit range (ONNX Runtime's advice for CPUs without VNNI). (sentence-transformers'
  own ONNX backend goes through `optimum`, whose releases require transformers < 4.58; this project runs 5.x.)
Each backend runs with 2 threads and, for the fastest, 1. Labels are compared with `torch-fp32`'s (max and mean
|Δ|); the downstream effect is the static student (the `cpu` profile's, 3 seeds) trained on gold + BM25 silver
labelled by each backend, scored on STSb test: Δρ against fp32 labels, paired bootstrap 95 % CI over seeds and test
pairs. The share of peak puts each backend's FLOP/s (from the teacher's config and the pairs' token counts) beside a
measured fp32 matmul rate of the same cores.
"""
import argparse, json, os, resource, tempfile, time
from contextlib import contextmanager
from pathlib import Path
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
import numpy as np
import pandas as pd
import torch
from bm25_speed import machine


def sorted_batches(pairs, batch_size):
    "Indices of `pairs` in batches of similar length (longest first), as CrossEncoder.predict orders them."
    order = np.argsort([-len(a) - len(b) for a, b in pairs], kind='stable')
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


def input_names(ce):
    return [k for k in ('input_ids', 'attention_mask', 'token_type_ids') if k in ce.preprocess([('a', 'b')])]


def export_onnx(ce, path:Path)->Path:
    "The cross-encoder's logits as an ONNX graph (batch and length dynamic)."
    names = input_names(ce)
    class Logits(torch.nn.Module):
        def __init__(self): super().__init__(); self.m = ce
        def forward(self, *xs): return self.m(dict(zip(names, xs)))['scores']
    feats = ce.preprocess([('a first sentence', 'and a second one')])
    torch.onnx.export(Logits().eval(), tuple(feats[k] for k in names), str(path), input_names=names, output_names=['scores'],
                      dynamic_axes={**{k: {0: 'batch', 1: 'length'} for k in names}, 'scores': {0: 'batch'}}, dynamo=False,
                      opset_version=17)
    return path


def ort_predictor(ce, path:Path, threads:int, batch_size:int):
    "predict(pairs) -> activated scores, with an ONNX Runtime session over `path`."
    import onnxruntime as ort
    so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.inter_op_num_threads = 1
    sess, names = ort.InferenceSession(str(path), so, providers=['CPUExecutionProvider']), input_names(ce)
    def predict(pairs):
        out = np.empty(len(pairs), dtype=np.float32)
        for idx in sorted_batches(pairs, batch_size):
            f = ce.preprocess([pairs[i] for i in idx])
            out[idx] = sess.run(['scores'], {k: f[k].numpy() for k in names})[0].reshape(-1)
        return torch.sigmoid(torch.from_numpy(out)).numpy()
    return predict


@contextmanager
def torch_threads(threads:int, precision:str='fp32'):
    "Run torch on `threads` threads at `precision` (bf16: autocast), then restore the thread count."
    from augsbert.training import precision_scope
    before = torch.get_num_threads(); torch.set_num_threads(threads)
    try:
        with precision_scope(precision, 'cpu'): yield
    finally: torch.set_num_threads(before)


def torch_predictor(model, threads:int, batch_size:int, precision:str='fp32'):
    def predict(pairs):
        with torch_threads(threads, precision):
            return np.asarray(model.predict(pairs, batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True), dtype=np.float32).reshape(-1)
    return predict


def both_orders(predict, df):
    a, b = df['sentence1'].astype(str).tolist(), df['sentence2'].astype(str).tolist()
    s = predict(list(zip(a, b)) + list(zip(b, a)))
    return (s[:len(a)] + s[len(a):]) / 2


def matmul_peak(n:int=1024, reps:int=20)->float:
    "fp32 GFLOP/s of a square matmul loop on the threads torch uses (the best of three tries)."
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = 0.0
    for _ in range(3):
        torch.matmul(a, b); t0 = time.perf_counter()
        for _ in range(reps): torch.matmul(a, b)
        best = max(best, 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9)
    return best


def flops_per_forward(config, tokens:float)->float:
    "FLOPs of one encoder forward over `tokens` tokens: per layer 8Td² (attention projections) + 4Tdi (feed-forward) + 4T²d (scores)."
    d, i, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    return L * (8 * tokens * d * d + 4 * tokens * d * i + 4 * tokens * tokens * d)


def isa()->list:
    "The CPU's int8 / bf16 / vector instruction sets that decide what int8 and bf16 inference can gain (/proc/cpuinfo)."
    from augsbert.config import cpu_flags
    return sorted(f for f in cpu_flags() if f in ('avx2', 'avx512f', 'avx512_vnni', 'avx_vnni', 'avx512_bf16', 'amx_bf16', 'amx_int8'))


def main_teacher(gold)->str:
    "The main job's MPNet cross-encoder (its recipe in workflow/config.yaml, seed 43) trained on `gold`: its cache folder."
    import yaml
    from augsbert.cache import artefact_dir
    from augsbert.config import get_profile
    from augsbert.methods.in_domain import method_protocol
    from augsbert.teachers import get_cross_encoder
    grid = yaml.safe_load((Path(__file__).resolve().parents[1]/'workflow'/'config.yaml').read_text())
    p = grid['grids']['main']['experiments']['evidence']['runs'][0]['params']
    cfg = get_profile('cpu', student='static', teacher_model=p['teacher_model'], ce_head=p['ce_head'], ce_lr=float(p['ce_lr']),
                      ce_epochs=p['ce_epochs'], ce_warmup_ratio=p['ce_warmup_ratio'])
    proto = method_protocol(cfg, 'stsb', 'augsbert-bm25')
    _, key = get_cross_encoder(gold, proto, seed=proto.seed + 1, model=proto.teacher_base)
    return str(artefact_dir('cross-encoder', key))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--teacher', default=None, help="a cross-encoder folder (default: the main job's MPNet teacher, trained or cached)")
    ap.add_argument('--pairs', type=int, default=600, help='silver pairs timed per round')
    ap.add_argument('--batch-size', type=int, default=32)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--seeds', type=int, default=3, help='student seeds for the downstream effect (0: skip it)')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    for name in ('pairs', 'batch_size', 'rounds'):
        if getattr(a, name) < 1: ap.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}.")
    if a.seeds < 0: ap.error(f"--seeds must be 0 (skip the student) or more, got {a.seeds}.")
    if a.teacher is not None and not (Path(a.teacher)/'config.json').is_file():
        ap.error(f"--teacher {a.teacher}: not a saved cross-encoder folder (no config.json). Pass a folder written by "
                 "CrossEncoder.save, e.g. a cached teacher under $AUGSBERT_CACHE/artefacts/cross-encoder/<key>.")
    from sentence_transformers import CrossEncoder
    from augsbert.config import atomic_write, get_profile
    from augsbert.data import load_dataset
    from augsbert.methods.domain_adaptation import cap_pairs
    from augsbert.sampling import sample_bm25
    torch.set_num_threads(2)
    cfg = get_profile('cpu', student='static')
    sp = load_dataset('stsb')
    gold = cap_pairs(sp.train, cfg['max_train_pairs'])
    silver_pairs = sample_bm25(gold, top_k=cfg['top_k'], progress=False)
    timed = silver_pairs.iloc[:a.pairs].reset_index(drop=True)
    if a.teacher is None: a.teacher = main_teacher(gold)
    ce = CrossEncoder(a.teacher, device='cpu'); ce.eval()
    card = json.loads((Path(a.teacher)/'augsbert.json').read_text()) if (Path(a.teacher)/'augsbert.json').exists() else {}
    work = Path(tempfile.mkdtemp())
    t0 = time.time(); onnx32 = export_onnx(ce, work/'model.onnx'); export_s = time.time() - t0
    from onnxruntime.quantization import quantize_dynamic, QuantType
    onnx8 = work/'model-int8.onnx'; quantize_dynamic(str(onnx32), str(onnx8), weight_type=QuantType.QInt8)
    # per-channel weights, 7-bit range: ONNX Runtime's advice for CPUs without VNNI (AVX2 int8 products can saturate)
    onnx8pc = work/'model-int8-pc.onnx'; quantize_dynamic(str(onnx32), str(onnx8pc), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
    q8 = torch.ao.quantization.quantize_dynamic(ce, {torch.nn.Linear}, dtype=torch.qint8)
    bs = a.batch_size
    backends = {'torch-fp32': torch_predictor(ce, 2, bs), 'torch-bf16': torch_predictor(ce, 2, bs, 'bf16'), 'torch-int8': torch_predictor(q8, 2, bs),
                'onnx-fp32': ort_predictor(ce, onnx32, 2, bs), 'onnx-int8': ort_predictor(ce, onnx8, 2, bs),
                'onnx-int8 per-channel': ort_predictor(ce, onnx8pc, 2, bs)}
    backends.update({'torch-fp32 1 thread': torch_predictor(ce, 1, bs), 'onnx-int8 1 thread': ort_predictor(ce, onnx8, 1, bs)})
    for f in backends.values(): both_orders(f, timed.iloc[:64])                           # warm-up
    peak_before = matmul_peak()                                                            # the peak, before and after the rounds (the higher counts)
    times, labels = {k: [] for k in backends}, {}
    for r in range(a.rounds):
        for k, f in backends.items():
            t0 = time.perf_counter(); labels[k] = both_orders(f, timed); times[k].append(time.perf_counter() - t0)
            print(f'round {r} {k}: {len(timed) / times[k][-1]:.1f} pairs/s', flush=True)
    med = {k: float(np.median(v)) for k, v in times.items()}
    ref = labels['torch-fp32']
    tok = np.array([len(ce.tokenizer(s1, s2, truncation=True, max_length=ce.max_length or 512)['input_ids'])
                    for s1, s2 in zip(timed['sentence1'], timed['sentence2'])])
    peak_after = matmul_peak(); peak = max(peak_before, peak_after)
    fpp = 2 * flops_per_forward(ce[0].auto_model.config, tok.mean())   # both orders
    res = dict(teacher=dict(path=a.teacher, card=card), pairs=len(timed), batch_size=bs, rounds=a.rounds, machine=machine(),
               torch=torch.__version__, export_seconds=export_s, isa=isa(),
               sizes_mb={'torch-fp32': sum(p.numel() * p.element_size() for p in ce.parameters()) / 2**20,
                         'onnx-fp32': onnx32.stat().st_size / 2**20, 'onnx-int8': onnx8.stat().st_size / 2**20,
                         'onnx-int8 per-channel': onnx8pc.stat().st_size / 2**20},
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               mean_tokens_per_pair=float(tok.mean()), gflop_per_pair=fpp / 1e9, matmul_peak_gflops=peak,
               matmul_peak_tries=dict(before=peak_before, after=peak_after),
               backends={k: dict(pairs_per_s=len(timed) / t, speedup=med['torch-fp32'] / t,
                                 max_abs_diff=float(np.abs(labels[k] - ref).max()), mean_abs_diff=float(np.abs(labels[k] - ref).mean()),
                                 share_of_peak=len(timed) / t * fpp / 1e9 / peak) for k, t in med.items()})
    print(json.dumps(res['backends'], indent=1), flush=True)
    if a.seeds:
        from augsbert.methods.in_domain import method_protocol, seed_results
        from augsbert.statistics import paired_bootstrap
        proto = method_protocol(dict(cfg, seeds=a.seeds), 'stsb', 'augsbert-bm25')
        full = {k: both_orders(backends[k], silver_pairs) for k in ('torch-fp32', 'torch-bf16', 'torch-int8', 'onnx-fp32', 'onnx-int8', 'onnx-int8 per-channel')}
        preds = {}
        for k, s in full.items():
            train = pd.concat([gold, silver_pairs.assign(score=s)], ignore_index=True)
            rs = seed_results('bi-encoder', train, sp, proto, progress=False)
            preds[k] = np.array([r['test_pred'] for r in rs])
            res['backends'][k]['student_test'] = [r['test'] for r in rs]
        for k in full:
            if k == 'torch-fp32': continue
            pb = paired_bootstrap('regression', preds[k], preds['torch-fp32'], sp.test['score'])
            res['backends'][k]['downstream'] = dict(delta_rho=pb['diff'], lo=pb['lo'], hi=pb['hi'], per_seed=pb['per_seed'])
        res['downstream_setup'] = dict(student='static', silver_pairs=len(silver_pairs), gold_pairs=len(gold), seeds=a.seeds,
                                       metric='Spearman x100 on STSb test')
    print(json.dumps(res, indent=1, default=str))
    if a.out:
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1, default=str) + '\n')


if __name__ == '__main__':
    main()
