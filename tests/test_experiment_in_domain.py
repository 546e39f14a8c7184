"""Integration: the `in_domain` experiment (papermill, smoke profile) with a tiny random BERT, caching,
an interrupted silver labelling that resumes to the same metrics, and the in-domain report."""
import json, os
from pathlib import Path
import pytest
from conftest import needs_data, in_kernel
from augsbert.config import AugsbertError, get_profile
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data


def _run(tiny, method, **kw):
    return run_experiment('in_domain', profile='smoke', progress=False, dataset='sts-es', method=method,
                          bi_encoder=tiny, cross_encoder=tiny, max_train_pairs=32, **kw)

_MADE = {}   # method -> the run `test_method_runs` made in this module's folders (read again by later tests, not re-run)

def _made(tiny, method):
    "The run of `method` with the module's defaults: `test_method_runs`'s, or made now (a test run on its own)."
    key = (os.environ.get('AUGSBERT_REPORTS'), method)
    if key not in _MADE or not (_MADE[key]/'metrics.json').exists(): _MADE[key] = _run(tiny, method)
    return _MADE[key]

from augsbert.methods.in_domain import METHODS
TESTED_METHODS = ['bert', 'sbert', 'sbert-nlpaug', 'augsbert-rs', 'augsbert-kde', 'augsbert-bm25', 'augsbert-ss', 'augsbert-bm25-ss']

def test_every_method_is_in_the_papermill_test():
    assert TESTED_METHODS == list(METHODS)

@pytest.mark.parametrize('method', TESTED_METHODS)
def test_method_runs(env, tiny, method):
    out = _made(tiny, method)
    m = read_json(out/'metrics.json')
    assert m['method'] == method and m['gold_pairs'] == 32 and len(m['per_seed']) == 1
    assert m['sizes'] == {'train': 32, 'dev': 220, 'test': 250}
    assert -100 <= m['test_mean'] <= 100
    assert m['paper_test'] == json.loads(json.dumps(__import__('augsbert.paper', fromlist=['x']).TABLE5[method]['sts-es']))
    if METHODS[method].sampler: assert m['silver']['pairs'] > 0 and (out/'density.png').exists()
    if method == 'sbert-nlpaug': assert m['augmented']['pairs'] == 32 and 0 <= m['augmented']['changed_share'] <= 1
    prov = read_json(out/'provenance.json')
    assert prov['models'][0]['source'] == 'local' and 'protocol' in prov
    if method != 'bert':                                            # the student: a sentence-transformers folder with a card
        card = read_json(Path(m['per_seed'][0]['model']['path'])/'augsbert.json')
        assert card['run'] == f'in_domain/{out.name}' and card['scores']['test'] == m['per_seed'][0]['test']
        if METHODS[method].sampler: assert card['teacher']['key'] == m['teacher_model']['key'] and card['silver'] == m['silver']

def test_rerun_is_cached_and_identical(env, tiny):
    first = read_json(_made(tiny, 'augsbert-bm25')/'metrics.json')    # test_method_runs' run; the run below is a real re-run
    out = _run(tiny, 'augsbert-bm25')
    assert read_json(out/'metrics.json') == first                 # the speed measurement too (cached per machine type)
    assert read_json(out/'provenance.json')['timings'] == {}      # nothing was trained or labelled again

def test_unknown_method_fails_before_data_loads(env, tiny, monkeypatch):
    "A bad -p value fails in the notebook's first cells, before load_dataset runs (offline with no mirror: loading would fail)."
    monkeypatch.setenv('AUGSBERT_DATA_MIRROR', '/nonexistent')
    with monkeypatch.context() as mp:
        in_kernel(mp)                                # in a kernel, as `augsbert run` starts it
        with pytest.raises(AugsbertError, match="unknown method 'augsbert-bm52'") as e:
            _run(tiny, 'augsbert-bm52')
    assert 'data file' not in str(e.value)
    with pytest.raises(AugsbertError, match=r"-p seeds=three"):
        _run(tiny, 'sbert', seeds='three')
    with pytest.raises(AugsbertError, match="-p fold"):
        _run(tiny, 'sbert', fold=2)                  # sts-es takes no fold

def test_interrupted_labelling_resumes_to_same_metrics(tmp_path, tiny, monkeypatch):
    "Kill the silver labelling after its first chunk; the rerun resumes from the saved chunk and ends with the same metrics."
    from augsbert.methods import in_domain as pipeline
    from augsbert.config import get_profile
    from augsbert.data import load_dataset, PairSplits
    full = load_dataset('sts-es')
    data = PairSplits(name='sts-es', task='regression', train=full.train.iloc[:24], dev=full.dev.iloc[:40],
                      test=full.test.iloc[:40], info=full.info)
    proto = pipeline.method_protocol(get_profile('smoke'), 'sts-es', 'augsbert-bm25', tiny, tiny)
    monkeypatch.setattr(pipeline, 'LABEL_CHUNK', 16)
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'clean'))
    clean, _ = pipeline.run_method('augsbert-bm25', data, proto, progress=False)

    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'killed'))
    from augsbert import teachers
    real, calls = teachers.predict_pairs, []
    def dying(scorer, df, *a, **kw):
        calls.append(len(df))
        if len(calls) == 2: raise KeyboardInterrupt('killed mid-labelling')
        return real(scorer, df, *a, **kw)
    monkeypatch.setattr(teachers, 'predict_pairs', dying)
    with pytest.raises(KeyboardInterrupt): pipeline.run_method('augsbert-bm25', data, proto, progress=False)
    parts = list((tmp_path/'killed').rglob('part-*.npy'))
    assert len(parts) == 1                                   # one finished chunk survived
    monkeypatch.setattr(teachers, 'predict_pairs', real)
    resumed, timings = pipeline.run_method('augsbert-bm25', data, proto, progress=False)
    assert 'cross-encoder training' not in timings           # the cross-encoder came from the cache
    def no_speed(m):   # the speed is timed in each cache, and the models sit in each cache's own folder
        out = {k: v for k, v in m.items() if k not in ('throughput', 'teacher_model')}
        out['per_seed'] = [{k: v for k, v in r.items() if k != 'model'} for r in m['per_seed']]
        return dict(out, teacher_key=m['teacher_model']['key'])
    assert no_speed(resumed) == no_speed(clean)

def test_top_k_sweep_in_the_report(env, tiny, tmp_path, monkeypatch):
    "Two k of one cell make Tables 9/10: our row beside the paper's, a finding judged against the seed spread, a figure."
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path))            # only this sweep's runs (the cache stays the module's)
    for k in (3, 5): _run(tiny, 'augsbert-bm25', top_k=k, seeds=2)
    md = (Path(render_report('in_domain', progress=False, profile='smoke')).parent/'in_domain.md').read_text()
    sweep = md.split('## Tables 9 / 10')[1].split('## Figure 1')[0]
    paper_row = next(l for l in sweep.splitlines() if 'paper (bert-base)' in l)
    cells = [c.strip() for c in paper_row.split('|')[1:-1]]
    assert cells == ['sts-es', 'augsbert-bm25', 'paper (bert-base)', '73.67', '75.08', '74.83', '74.71', '73.89', '72.82']  # Table 9
    assert '![Top-k](figures/in_domain_topk_smoke.png)' in sweep and (tmp_path/'figures'/'in_domain_topk_smoke.png').exists()
    assert '**Top-k** (sts-es, augsbert-bm25,' in md and 'over k = 3, 5, best vs worst' in md
    assert "**The paper's top-k**: 10 of its 10 Table 5 BM25 / S.S. cells" in md

def test_silver_only_run_labels_but_trains_no_bi_encoder(env, tiny, monkeypatch):
    out = _run(tiny, 'augsbert-rs', silver_only=True)
    m = read_json(out/'metrics.json')
    assert m['silver_only'] and m['silver']['pairs'] > 0 and m['per_seed'] == [] and 'test_mean' not in m
    assert m['density']['silver'] is not None and (out/'density.png').exists()
    assert 'bi-encoder training' not in read_json(out/'provenance.json')['timings']
    with pytest.raises(AugsbertError, match='silver_only=True needs an AugSBERT method'):
        _run(tiny, 'sbert', silver_only=True)

def test_label_backend_onnx_labels_like_torch(env, tiny):
    "-p label_backend=onnx: the teacher's silver labels from its ONNX export, the same as PyTorch's, and the run records the backend."
    ref = read_json(_run(tiny, 'augsbert-rs', silver_only=True)/'metrics.json')
    out = _run(tiny, 'augsbert-rs', silver_only=True, label_backend='onnx')
    m = read_json(out/'metrics.json')
    assert read_json(out/'params.json')['label_backend'] == 'onnx' and ref['silver']['pairs'] == m['silver']['pairs'] > 0
    assert abs(m['silver']['mean_score'] - ref['silver']['mean_score']) < 1e-5
    with pytest.raises(AugsbertError, match="unknown label_backend 'tensorrt'"):
        _run(tiny, 'augsbert-rs', silver_only=True, label_backend='tensorrt')

def test_dev_curves_and_figure6(env, tiny, monkeypatch):
    out = _run(tiny, 'sbert', seeds=3, curve_points='0.25,0.5')
    m = read_json(out/'metrics.json')
    assert [[p for p, _ in s['curve']] for s in m['per_seed']] == [[0.25, 0.5, 1.0]] * 3
    assert all(s['curve'][-1][1] == s['dev'] for s in m['per_seed'])     # the curve ends at the final dev score
    plain = read_json(_run(tiny, 'sbert', seeds=3)/'metrics.json')
    assert [s['test'] for s in plain['per_seed']] == pytest.approx([s['test'] for s in m['per_seed']], abs=1e-9)
    with pytest.raises(AugsbertError, match='curve_points must be fractions'):
        _run(tiny, 'sbert', curve_points='0.5,2')
    _made(tiny, 'sbert'); _made(tiny, 'bert')                                # Table 5 beside the paper (one render for both)
    nb = render_report('in_domain', progress=False, profile='smoke')
    md = (Path(nb).parent/'in_domain.md').read_text()
    assert 'in_domain_fig6_smoke.png' in md
    assert 'Table 5' in md and 'paper 68.36 ± 5.28' in md and 'cross-encoder' in md


def test_custom_data_through_the_experiment(env, tiny, tmp_path, monkeypatch):
    "A user's own TSV (0-5 scores, other column names) through `augsbert run in_domain -p dataset=custom -p data_path=...`."
    rows = ['question_a\tquestion_b\trating'] + [f'a man plays guitar number {i}\ta person plays music {i % 7}\t{i % 6}' for i in range(60)]
    f = tmp_path/'my_pairs.tsv'; f.write_text('\n'.join(rows) + '\n')
    kw = dict(dataset='custom', data_path=str(f), sentence1_column='question_a', sentence2_column='question_b',
              score_column='rating', score_range='0,5')
    out = run_experiment('in_domain', profile='smoke', progress=False, method='sbert', bi_encoder=tiny, cross_encoder=tiny, **kw)
    m = read_json(out/'metrics.json')
    assert m['sizes'] == {'train': 48, 'dev': 6, 'test': 6} and m['dataset'] == 'custom'
    assert 'custom:my_pairs' in read_json(out/'provenance.json')['data']
    assert m['metric']['title'] == 'Spearman ρ×100' and set(m['baselines']) == {'jaccard', 'constant'}   # the number named, its floor beside it
    prov = read_json(out/'provenance.json')
    assert prov['train_cap'] == dict(max_train_pairs=get_profile('smoke')['max_train_pairs'], used=48, available=48)
    assert prov['models'][0]['role'].startswith('student: ') and 'User data: one file split' in prov['data_notes']
    assert out.parent.parent == env/'workspace'/'runs' and not (env/'reports'/'runs'/'in_domain'/out.name).exists()   # your runs: never in reports/runs
    with pytest.raises(AugsbertError, match='never goes into reports/runs'):
        run_experiment('in_domain', profile='smoke', progress=False, method='sbert', out_dir=env/'reports'/'runs', **kw)
    bad = tmp_path/'bad.tsv'; bad.write_text('sentence1\tsentence2\tscore\nx\ty\t7\n')
    with pytest.raises(AugsbertError, match='outside score_range'):
        run_experiment('in_domain', profile='smoke', progress=False, method='sbert', dataset='custom', data_path=str(bad))
    with pytest.raises(AugsbertError, match="missing column 'rating'.*-p score_column"):      # the file's own header names
        run_experiment('in_domain', profile='smoke', progress=False, method='sbert', dataset='custom', data_path=str(bad), score_column='rating')
    with pytest.raises(AugsbertError, match='-p data_path'):
        run_experiment('in_domain', profile='smoke', progress=False, method='sbert', dataset='custom', data_path=str(tmp_path/'missing.tsv'))
