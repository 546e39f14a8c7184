"""`make bench` in miniature: every benchmark script runs on a small slice of real data, writes its JSON, and the
performance report renders a row per target from them (the numbers here are meaningless; the pipeline is not)."""
import importlib.util, json, os, runpy, sys
import numpy as np
import pytest
from conftest import needs_data, ROOT

pytestmark = needs_data
BENCH = ROOT/'benchmarks'

def _run(script, *args, check=True)->int:
    """`python benchmarks/SCRIPT ARGS` from the project folder, in this process: the script's imports (torch and
    sentence-transformers, seconds of CPU in a new process) are this process's. Returns its exit code (`check`: fails the
    test unless it is 0)."""
    argv, cwd, path = sys.argv, os.getcwd(), list(sys.path)
    sys.argv, sys.path[:0] = [str(BENCH/script), *args], [str(BENCH)]
    os.chdir(ROOT)
    try: runpy.run_path(str(BENCH/script), run_name='__main__')
    except SystemExit as e: rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    else: rc = 0
    finally: sys.argv, sys.path[:] = argv, path; os.chdir(cwd)
    assert rc == 0 or not check, f"benchmarks/{script} {' '.join(args)} exited with {rc}"
    return rc

@pytest.fixture(scope='module')
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp('bench')
    methods = 'augsbert,rank_bm25' + (',bm25s' if importlib.util.find_spec('bm25s') else '')
    _run('bm25_speed.py', '--corpus', 'sts-es', '--n', '400', '--methods', methods, '--out', str(out/'bm25_stsb.json'))
    _run('sampling_growth.py', '--corpus', 'sts-es', '--sizes', '300,600,1200', '--methods', 'bm25' + (',bm25s' if importlib.util.find_spec('bm25s') else ''),
         '--bm25s-queries', '500', '--out', str(out/'sampling_growth_quora.json'))
    # the static student (MiniLM's token embeddings): the same encode → HNSW → recall → exact path as MiniLM, a quarter of its time
    _run('semantic_speed.py', '--corpus', 'sts-es', '--n', '400', '--encoders', 'static', '--exact-queries', '100', '--recall-sample', '100',
         '--out', str(out/'semantic_quora.json'))
    _run('labelling_speed.py', '--pairs', '40', '--rounds', '1', '--out', str(out/'labelling_stsb.json'))
    _run('bi_encoder_labelling.py', '--pairs', '60', '--rounds', '1', '--out', str(out/'bi_encoder_labelling_mrpc.json'))
    from augsbert.models import DEFAULT_MODEL
    from augsbert.training import make_cross_encoder
    make_cross_encoder(DEFAULT_MODEL).save(str(out/'teacher'))      # an untrained MiniLM cross-encoder: backends, not quality
    _run('label_backends.py', '--teacher', str(out/'teacher'), '--pairs', '24', '--rounds', '1', '--seeds', '0',
         '--out', str(out/'label_backends_stsb.json'))
    _run('encode_backends.py', '--model', DEFAULT_MODEL, '--sentences', '32', '--rounds', '1', '--gold-pairs', '20', '--test-pairs', '30',
         '--out', str(out/'encode_backends_stsb.json'))
    _run('eval_size.py', '--cap', '12', '--mrpc-train', '16', '--full', '24', '--rounds', '1', '--out', str(out/'eval_size_minilm.json'))
    # the kernel comparison's pipeline (two processes, the library's 'bert' path) on MiniLM, 8 pairs, 20 scored: not its numbers
    _run('isa_kernels.py', '--model', DEFAULT_MODEL, '--max-train-pairs', '8', '--max-eval-pairs', '20', '--out', str(out/'isa_kernels_stsb500.json'))
    import augsbert.methods.arguebert.finetune  # noqa: F401  (registers its student, which needs a pre-training: the benchmark skips it)
    _run('throughput.py', '--sentences', '48', '--rounds', '1', '--min-seconds', '0', '--no-mpnet', '--batch-sizes', '16,48',
         '--out', str(out/'throughput_stsb.json'))
    return out

def test_bm25_benchmark_checks_parity(results):
    r = json.loads((results/'bm25_stsb.json').read_text())
    assert r['parity'] == dict(queries=400, same_neighbours=True, same_scores=True)
    assert r['methods']['augsbert']['queries'] == 400 and r['ratios']['rank_bm25 / augsbert']['total'] > 1
    assert r['machine']['cores'] >= 1 and r['machine']['git_commit']

def test_growth_fits_an_exponent(results):
    g = json.loads((results/'sampling_growth_quora.json').read_text())['methods']['bm25']
    assert [p['n'] for p in g['points']] == [300, 600, 1200] and all(p['seconds'] > 0 for p in g['points'])
    # the exponent is the fit of its own points (a range on it would time the machine: 0.25 at these sizes under load)
    n, t = [p['n'] for p in g['points']], [p['seconds'] for p in g['points']]
    assert g['exponent'] == pytest.approx(float(np.polyfit(np.log(n), np.log(t), 1)[0]))
    if importlib.util.find_spec('bm25s'):                          # the baseline: its search timed on 500 queries, scaled
        b = json.loads((results/'sampling_growth_quora.json').read_text())['methods']['bm25s']['points']
        assert [p.get('extrapolated', False) for p in b] == [False, True, True] and all(p['seconds'] > 0 for p in b)

def test_unknown_growth_method_is_a_clear_error(capsys):
    assert _run('sampling_growth.py', '--methods', 'bm25,bm52', check=False) == 2
    err = capsys.readouterr().err
    assert "unknown method(s) ['bm52']" in err and 'bm25, semantic-static, bm25s' in err

def test_labelling_is_the_raw_loop_s_numbers(results):
    r = json.loads((results/'labelling_stsb.json').read_text())
    assert r['pairs'] == 40 and r['max_abs_diff_fp32'] < 1e-5                  # the same scores as the raw forward loop
    assert set(r['pairs_per_s']) == {'label_pairs fp32', 'label_pairs bf16', 'raw loop fp32', 'raw loop bf16'}

def test_bi_encoder_labelling_keeps_the_scores(results):
    r = json.loads((results/'bi_encoder_labelling_mrpc.json').read_text())
    assert r['pairs'] == 60 and r['max_abs_diff'] < 1e-5 and r['distinct_sentences'] <= r['sentences_encoded_per_chunk']   # each sentence once, same scores
    assert set(r['pairs_per_s']) == {'memo (teacher)', 'per chunk'} and r['speedup'] > 0

def test_label_backends_agree_with_fp32(results):
    r = json.loads((results/'label_backends_stsb.json').read_text())
    assert r['pairs'] == 24 and {'torch-fp32', 'torch-bf16', 'torch-int8', 'onnx-fp32', 'onnx-int8', 'onnx-int8 per-channel'} <= set(r['backends'])
    assert isinstance(r['isa'], list) and set(r['matmul_peak_tries']) == {'before', 'after'}
    b = r['backends']
    assert b['torch-fp32']['max_abs_diff'] == 0 and b['onnx-fp32']['max_abs_diff'] < 1e-4      # the same model in another engine
    assert all(v['pairs_per_s'] > 0 and v['share_of_peak'] > 0 for v in b.values()) and r['matmul_peak_gflops'] > 0
    assert 0 < b['torch-int8']['max_abs_diff'] < 0.5                                          # int8 changes the labels, a little

def test_encode_backends_agree_with_fp32(results):
    r = json.loads((results/'encode_backends_stsb.json').read_text())
    b = r['backends']
    assert {'torch-fp32', 'torch-bf16', 'onnx-fp32', 'onnx-int8', 'onnx-int8 per-channel'} == set(b) and r['setup']['test_pairs'] == 30
    assert b['torch-fp32']['min_cosine_to_fp32'] > 0.9999 and b['torch-fp32']['top5_overlap_with_fp32'] == 1.0
    assert b['onnx-fp32']['min_cosine_to_fp32'] > 0.9999 and abs(b['onnx-fp32']['delta_rho']['diff']) < 0.01   # the same model in another engine
    assert 0.5 < b['onnx-int8 per-channel']['mean_cosine_to_fp32'] <= 1.0 + 1e-6

def test_label_backends_refuses_a_folder_that_is_no_teacher(tmp_path, capsys):
    assert _run('label_backends.py', '--teacher', str(tmp_path), check=False) == 2
    assert 'not a saved cross-encoder folder' in capsys.readouterr().err
    assert _run('label_backends.py', '--teacher', str(tmp_path), '--rounds', '0', check=False) == 2
    assert '--rounds must be at least 1' in capsys.readouterr().err

def test_eval_size_compares_two_sizings_of_the_same_sets(results, capsys):
    # the full sets take minutes on MiniLM: the fixture runs the pipeline on 12 against 24 pairs per set (--full 0 is every pair)
    res = json.loads((results/'eval_size_minilm.json').read_text())
    assert res['capped']['pairs']['sts12'] == 12 and res['capped']['pairs']['mrpc-train'] == 16 and res['full']['pairs']['sts12'] == 24
    assert res['ratio'] > 0 and len(res['full']['seconds_all']) == 1 and res['machine']['cores'] >= 1 and res['full_cap'] == 24
    assert res['score_difference']['sts-avg'] == pytest.approx(res['full']['scores']['sts-avg'] - res['capped']['scores']['sts-avg'])
    assert _run('eval_size.py', '--cap', '0', check=False) == 2 and '--cap' in capsys.readouterr().err
    assert _run('eval_size.py', '--seeds', '-1', check=False) == 2 and '--seeds' in capsys.readouterr().err
    assert res['machine']['torch_threads'] >= 1 and 'numba' in res['machine']          # bm25_speed.machine(), plus torch

def test_isa_kernels_compares_native_with_avx2_kernels(results, capsys):
    r = json.loads((results/'isa_kernels_stsb500.json').read_text())
    assert r['setup']['train_pairs'] == 8 and r['setup']['eval_pairs'] == 20 and r['machine']['cores'] >= 1 and r['machine']['git_commit']
    assert r['avx2']['cpu_capability'] in ('AVX2', 'DEFAULT')          # held to AVX2 (DEFAULT: a CPU without AVX2 falls back further)
    assert [x['seed'] for x in r['native']['per_seed']] == [x['seed'] for x in r['avx2']['per_seed']] == [42]
    for split in ('dev', 'test'):
        d = [b[split] - a[split] for a, b in zip(r['native']['per_seed'], r['avx2']['per_seed'])]
        assert r[f'{split}_difference_avx2_minus_native']['per_seed'] == pytest.approx(d)
    assert _run('isa_kernels.py', '--seeds', '0', '--out', 'x.json', check=False) == 2 and '--seeds' in capsys.readouterr().err
    assert _run('isa_kernels.py', '--max-eval-pairs', '-1', '--out', 'x.json', check=False) == 2 and '--max-eval-pairs' in capsys.readouterr().err

def test_isa_kernels_refuses_an_unwritable_out_before_training(tmp_path, capsys):
    (tmp_path/'a-file').write_text('')
    assert _run('isa_kernels.py', '--out', str(tmp_path/'a-file'/'r.json'), check=False) == 2
    assert 'cannot write there' in capsys.readouterr().err

def test_throughput_times_every_student_against_minilm(results):
    res = json.loads((results/'throughput_stsb.json').read_text())
    assert res['models']['MiniLM-L6']['ratio_to_minilm'] == 1.0 and 'MPNet-base' not in res['models']     # --no-mpnet
    assert {'static (model2vec)', 'static (model2vec), tokenizer on 1 thread', 'MiniLM-L2 (first 2 layers)', 'cross-encoder (MiniLM-L6)'} <= set(res['models'])
    assert len(res['models']) == 7, sorted(res['models'])      # no ArgueBERT student: it would pre-train first
    assert res['setup']['sentences'] == 48 and res['setup']['machine']['cores'] >= 1 and all(m['median'] > 0 for m in res['models'].values())
    # the batch-size sweep (with the --batch-size, 64): every student but MPNet at each size, its best size and ratio
    assert res['setup']['batch_sizes'] == [16, 48, 64] and 'best' not in res['models']['cross-encoder (MiniLM-L6)']
    for m, v in res['models'].items():
        if m.startswith(('static', 'MiniLM')):
            assert set(v['batches']) == {'16', '48', '64'} and v['batches']['64'] == v['median']
            fastest = max(v['batches'].values())          # one round: its best is the fastest batch size's rate
            assert v['best']['median'] == pytest.approx(fastest) and v['batches'][str(v['best']['batch_size'])] == fastest
    assert res['models']['MiniLM-L6']['best']['ratio_to_minilm'] == 1.0
    for bad in ('16,x', '0,16'): assert _run('throughput.py', '--batch-sizes', bad, check=False) == 2
    assert _run('throughput.py', '--sentences', '0', check=False) == 2

def test_the_report_has_a_row_per_target(results, reports):
    from augsbert.runs import render_report
    render_report('performance', progress=False, results_dir=str(results))
    md = (reports/'performance.md').read_text()
    assert 'BM25 top-5 of every sts-es training sentence (400)' in md and 'recall@5' in md and 'raw forward loop' in md
    assert 'each sentence encoded once' in md
    assert 'exponent ≤ 1.3' in md and 'Missing results: bm25_quora.json, cached_rerun.json' in md
    assert '## Labelling backends' in md and '| onnx-int8 per-channel |' in md and 'Δρ not measured (--seeds 0)' in md
    assert '## Encoding backends' in md and 'top-5 neighbours shared with fp32' in md
    assert "## Evaluation-set size (AugCSE's scoring)" in md and 'at most 24 pairs per set (a trial run' in md and '| sick-r ' in md
    assert '## CPU kernels' in md and 'held to AVX2 ones' in md and 'on 20 dev and test pairs' in md and 'test: AVX2 − native' in md
    assert (reports/'figures'/'performance_growth.png').exists()
    for line in md.splitlines():                                   # every target not met says by how much and why
        if '| **no** |' in line: assert line.split('|')[5].strip(), line
