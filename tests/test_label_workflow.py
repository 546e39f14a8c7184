"""Silver labelling in shards (workflow/label.smk, `make label`; issue 31).

A real local run on a tiny random cross-encoder and 30 toy pairs in 3 shards: the gathered labels are the unsharded
ones; a damaged shard is labelled again (and only it); the SLURM profile's dry run shows one job per shard (skipped
without its plugin); bad configuration is refused before anything runs. Everything lives in a temp folder (its own
AUGSBERT_CACHE and --directory).
"""
import importlib.util, json, os, re, subprocess, sys
from pathlib import Path
import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent/'snakemake')


def snakemake(tmp:Path, *args, profile='local', config=None, timeout=600)->subprocess.CompletedProcess:
    env = dict(os.environ, AUGSBERT_CACHE=str(tmp/'cache'))
    conf = [f'{k}={v}' for k, v in (config or {}).items()]
    cmd = [SNAKEMAKE, '--snakefile', str(ROOT/'workflow'/'label.smk'), '--profile', str(ROOT/'workflow'/'profiles'/profile),
           '--directory', str(tmp/'wd'), *args, '--config', *conf]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope='module')
def toy(tmp_path_factory):
    "A saved tiny cross-encoder, 30 toy pairs in a TSV, and the labels one unsharded labelling gives them."
    from sentence_transformers import CrossEncoder
    from augsbert.silver import label_pairs, teacher, write_pairs
    from augsbert.testing import make_tiny_bert, toy_pairs
    from augsbert.training import make_cross_encoder
    tmp = tmp_path_factory.mktemp('label')
    make_cross_encoder(str(make_tiny_bert(tmp/'tiny'))).save(str(tmp/'ce'))
    pairs = toy_pairs(30)[['sentence1', 'sentence2']]
    write_pairs(pairs, tmp/'pairs.tsv')
    whole = label_pairs(teacher(CrossEncoder(str(tmp/'ce'), device='cpu')), pairs, progress=False)
    return tmp, whole, dict(pairs=tmp/'pairs.tsv', teacher=tmp/'ce', out=tmp/'silver.tsv', shards=3, backend='torch', precision='fp32')


def test_sharded_equals_unsharded_and_a_damaged_shard_is_relabelled(toy):
    tmp, whole, config = toy
    r = snakemake(tmp, '--cores', '2', config=config)
    assert r.returncode == 0, r.stdout + r.stderr
    got = pd.read_csv(tmp/'silver.tsv', sep='\t')
    pd.testing.assert_frame_equal(got[['sentence1', 'sentence2']], whole[['sentence1', 'sentence2']])
    np.testing.assert_allclose(got['score'], whole['score'], atol=1e-6, rtol=0)
    record = json.loads((tmp/'silver.json').read_text())
    assert record['pairs'] == 30 and len(record['shards']) == 3 and (record['backend'], record['precision']) == ('torch', 'fp32')
    labels = sorted((tmp/'cache'/'labels').glob('*/labels/labels-*.npy'))
    assert [p.name for p in labels] == ['labels-0000.npy', 'labels-0001.npy', 'labels-0002.npy']
    before = {p.name: p.stat().st_mtime_ns for p in labels}
    # finished: nothing to do
    r = snakemake(tmp, '--cores', '2', '--dry-run', config=config)
    assert r.returncode == 0 and 'Nothing to be done' in r.stdout + r.stderr, r.stdout + r.stderr
    # a damaged shard: moved aside and labelled again, the others untouched, the same labels gathered
    labels[1].write_bytes(b'\x93NUMPY damaged')
    r = snakemake(tmp, '--cores', '2', config=config)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'labels-0001.npy does not match its record' in r.stderr
    assert re.search(r'label\s+1\b', r.stdout + r.stderr), r.stdout + r.stderr      # one label job ran
    assert labels[1].with_name('labels-0001.npy.damaged').exists()
    assert {p.name: p.stat().st_mtime_ns for p in labels if p.name != 'labels-0001.npy'} == \
           {k: v for k, v in before.items() if k != 'labels-0001.npy'}
    again = pd.read_csv(tmp/'silver.tsv', sep='\t')
    pd.testing.assert_frame_equal(again, got)


def test_onnx_backend_exports_once_before_the_shards(toy, tmp_path):
    _, whole, config = toy
    r = snakemake(tmp_path, '--cores', '2', config=dict(config, out=tmp_path/'silver.parquet', backend='onnx'))
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r'export\s+1\b', r.stdout + r.stderr)
    got = pd.read_parquet(tmp_path/'silver.parquet')
    np.testing.assert_allclose(got['score'], whole['score'], atol=1e-4, rtol=0)


@pytest.mark.skipif(importlib.util.find_spec('snakemake_executor_plugin_slurm') is None,
                    reason="snakemake-executor-plugin-slurm is not installed (pip install -e '.[cluster]')")
def test_slurm_dry_run_shows_one_job_per_shard(toy, tmp_path):
    _, _, config = toy
    r = snakemake(tmp_path, '--dry-run', profile='slurm', config=dict(config, out=tmp_path/'s.tsv', shards=5, backend='onnx-int8'))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    stats = dict(re.findall(r'^(\w+)\s+(\d+)$', out, re.M))
    assert (stats['label'], stats['export'], stats['split'], stats['gather']) == ('5', '1', '1', '1'), out


@pytest.mark.parametrize('change, message', [
    (dict(teacher='nowhere'), 'not a saved cross-encoder folder'),
    (dict(backend='openvino'), "unknown label_backend 'openvino'"),
    (dict(precision='fp16'), "unknown eval_precision 'fp16'"),
    (dict(shards=0), 'at least 1'),
])
def test_bad_config_is_refused_before_anything_runs(toy, tmp_path, change, message):
    _, _, config = toy
    r = snakemake(tmp_path, '--dry-run', config={**config, 'out': tmp_path/'s.tsv', **change})
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
    assert not (tmp_path/'cache'/'labels').exists()


def test_the_default_backend_is_the_cpu_profiles(toy, tmp_path):
    "backend=auto (the default): what the `cpu` profile's label_backend = auto resolves to on this machine."
    from augsbert.config import resolve_precision, resolve_label_backend
    _, _, config = toy
    config = {k: v for k, v in config.items() if k not in ('backend', 'precision')}
    r = snakemake(tmp_path, '--dry-run', config=dict(config, out=tmp_path/'s.tsv'))
    prec = resolve_precision('auto'); backend = resolve_label_backend('auto', prec)
    assert r.returncode == 0 and f"backend {backend} ({prec if backend == 'torch' else 'fp32'})" in r.stderr, r.stdout + r.stderr

def test_too_many_shards_fail_in_split_with_a_clear_message(toy, tmp_path):
    _, _, config = toy
    r = snakemake(tmp_path, '--cores', '1', config=dict(config, out=tmp_path/'s.tsv', shards=31))
    assert r.returncode != 0 and 'from 1 to the number of pairs (30), got 31' in r.stdout + r.stderr
