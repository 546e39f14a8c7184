"""The same fine-tuning on one CPU, with its native kernels and held to AVX2 ones: how far a score moves with the ISA.

    AUGSBERT_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/isa_kernels.py --out benchmarks/results/isa_kernels_stsb500.json

Why: the `teachers-fig1` run of the MPNet cross-encoder on 500 STSb pairs (1 epoch, lr 5e-5, seeds 42-44) read
83.24 on test when made on an AMD EPYC with AVX2 only, and 81.69 when the same code ran on an AMD EPYC with
AVX-512 (every seed lower, by 1.36-1.73 points). This measures whether the kernels alone do that: each setting trains
and scores in a fresh process (PyTorch, oneDNN and MKL choose their kernels once, at import) through the library's
own path (`method_protocol` + `run_method('bert', ...)`, the `cpu` profile, a scratch cache), predictions in fp32 so
that bf16 autocast (only possible on the AVX-512 side) plays no part. Baseline: the native kernels, in the same run.

`avx2` sets ATEN_CPU_CAPABILITY=avx2 (PyTorch's vectorised kernels), ONEDNN_MAX_CPU_ISA=AVX2 and
MKL_ENABLE_INSTRUCTIONS=AVX2 (matrix products): the kernels a CPU without AVX-512 would run. On a CPU without AVX-512
both settings run the same kernels, so the difference is 0 by construction; the results file records the CPU flags.
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path
from bm25_speed import machine   # cpu, its instruction sets (cpu_isa), cores, memory, commit, time

SETTINGS = {'native': {}, 'avx2': dict(ATEN_CPU_CAPABILITY='avx2', ONEDNN_MAX_CPU_ISA='AVX2', DNNL_MAX_CPU_ISA='AVX2',
                                       MKL_ENABLE_INSTRUCTIONS='AVX2')}

def child(a):
    "One setting, in this process: the in-domain experiment's 'bert' method (the cross-encoder alone), its per-seed scores."
    import torch
    from augsbert.config import get_profile
    from augsbert.data import load_dataset, PairSplits, SPLIT_SEED
    from augsbert.methods.in_domain import method_protocol, run_method
    cfg = get_profile('cpu', seeds=a.seeds, max_train_pairs=a.max_train_pairs, eval_precision='fp32')
    proto = method_protocol(cfg, a.dataset, 'bert', cross_encoder=a.model, explicit={'seeds', 'max_train_pairs', 'eval_precision', 'cross_encoder'})
    s = load_dataset(a.dataset)
    train = s.train.sample(frac=1.0, random_state=SPLIT_SEED).iloc[:a.max_train_pairs].reset_index(drop=True)
    cap = lambda df: df.iloc[:a.max_eval_pairs].reset_index(drop=True) if a.max_eval_pairs else df
    data = PairSplits(name=s.name, task=s.task, train=train, dev=cap(s.dev), test=cap(s.test), info=s.info)
    t = time.perf_counter()
    metrics, _ = run_method('bert', data, proto, progress=False, speed=False)
    print(json.dumps(dict(per_seed=[{k: r[k] for k in ('seed', 'dev', 'test')} for r in metrics['per_seed']],
                          seconds=time.perf_counter() - t, cpu_capability=torch.backends.cpu.get_cpu_capability())))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dataset', default='stsb'); ap.add_argument('--max-train-pairs', type=int, default=500)
    ap.add_argument('--model', default='sentence-transformers/all-mpnet-base-v2')
    ap.add_argument('--max-eval-pairs', type=int, default=0, help='score the first N dev and test pairs (0: all; a trial run)')
    ap.add_argument('--seeds', type=int, default=1, help='seeds 42, 43, ... per setting (each about 10 min on one core for MPNet)')
    ap.add_argument('--child', action='store_true', help=argparse.SUPPRESS); ap.add_argument('--out')
    a = ap.parse_args(argv)
    if a.child: return child(a)
    if not a.out: ap.error('--out is required')
    if a.seeds < 1: ap.error('--seeds must be at least 1')
    if a.max_train_pairs < 2 or a.max_eval_pairs < 0: ap.error('--max-train-pairs must be at least 2 and --max-eval-pairs at least 0')
    try:   # the results are written after an hour or more of training: a folder that cannot take them fails now
        Path(a.out).parent.mkdir(parents=True, exist_ok=True); tempfile.TemporaryFile(dir=Path(a.out).parent).close()
    except OSError as e: ap.error(f"--out {a.out}: cannot write there ({e.strerror}); pick a writable folder")
    out = dict(setup=dict(dataset=a.dataset, train_pairs=a.max_train_pairs, eval_pairs=a.max_eval_pairs or 'all', model=a.model, method='bert (cpu profile)', seeds=a.seeds,
                          eval_precision='fp32', baseline='native kernels in the same run', settings=SETTINGS),
               machine=dict(machine(), torch_threads=os.environ.get('OMP_NUM_THREADS')))
    args = [sys.executable, __file__, '--child', '--dataset', a.dataset, '--max-train-pairs', str(a.max_train_pairs),
            '--model', a.model, '--seeds', str(a.seeds), '--max-eval-pairs', str(a.max_eval_pairs)]
    for name, env in SETTINGS.items():
        with tempfile.TemporaryDirectory(prefix=f'augsbert-isa-{name}-') as cache:   # nothing shared: each setting trains its own
            r = subprocess.run(args, env={**os.environ, **env, 'AUGSBERT_CACHE': cache}, capture_output=True, text=True)
        if r.returncode: sys.exit(f"setting {name!r} failed:\n{r.stderr[-3000:]}")
        out[name] = json.loads(r.stdout.strip().splitlines()[-1])
    for split in ('dev', 'test'):
        d = [b[split] - n[split] for n, b in zip(out['native']['per_seed'], out['avx2']['per_seed'])]
        out[f'{split}_difference_avx2_minus_native'] = dict(per_seed=d, mean=sum(d) / len(d))
    from augsbert.config import atomic_write
    with atomic_write(a.out) as f: f.write(json.dumps(out, indent=1) + '\n')
    print(json.dumps({k: v for k, v in out.items() if 'difference' in k}, indent=1))

if __name__ == '__main__': main()
