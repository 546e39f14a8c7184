"""A cached rerun of a finished experiment against its first run: `augsbert run` twice with the same parameters and
a fresh cache (`AUGSBERT_CACHE` and `AUGSBERT_REPORTS` in a temporary folder), each a new process, wall time of each.
The second run reuses every stage the first one cached (silver pairs, teacher, labels, trained models) and must
give the same metrics.

    .venv/bin/python benchmarks/cached_rerun.py --out benchmarks/results/cached_rerun.json
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path
from bm25_speed import machine


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--experiment', default='in_domain')
    ap.add_argument('--profile', default='cpu')
    ap.add_argument('-p', dest='params', action='append', default=['dataset=sts-es', 'method=augsbert-bm25'])
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    exe = str(Path(sys.executable).parent/'augsbert')
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, AUGSBERT_CACHE=str(Path(tmp)/'cache'), AUGSBERT_REPORTS=str(Path(tmp)/'reports'))
        walls, metrics = [], []
        for name in ('first', 'rerun'):
            cmd = [exe, 'run', a.experiment, '--profile', a.profile, '--name', name] + sum((['-p', p] for p in a.params), [])
            t0 = time.perf_counter(); subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL); walls.append(time.perf_counter() - t0)
            m = json.loads((Path(tmp)/'reports'/'runs'/a.experiment/name/'metrics.json').read_text())
            metrics.append({k: v for k, v in m.items() if 'second' not in k and 'throughput' not in k and 'time' not in k})
            print(name, round(walls[-1], 1), 's', flush=True)
    res = dict(experiment=a.experiment, profile=a.profile, params=a.params, first_s=walls[0], rerun_s=walls[1],
               rerun_share=walls[1] / walls[0], same_metrics=metrics[0] == metrics[1], machine=machine())
    print(json.dumps(res, indent=1))
    if a.out:
        from augsbert.config import atomic_write
        with atomic_write(Path(a.out)) as f: f.write(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    main()
