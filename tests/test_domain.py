"""Integration: the `domain_adaptation` experiment (papermill, smoke profile, a tiny random BERT): every row type, each
target pair set and label mode, a Shah et al. target read from a fixture, and the bad inputs, which fail before any model
is trained."""
import re
from pathlib import Path
import numpy as np
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.methods.domain_adaptation import ROWS, TARGET_PAIRS, LABEL_MODES
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data


def _run(tiny, source='stsb', target='mrpc', **kw):
    return run_experiment('domain_adaptation', profile='smoke', progress=False, source=source, target=target,
                          bi_encoder=tiny, cross_encoder=tiny, max_train_pairs=32, max_target_pairs=32, **kw)

@pytest.fixture(scope='module')
def cell(env, tiny):
    """The default cell, stsb → mrpc, every row: made once, read by the first test and by the report (its bootstrap CIs over
    MRPC's 1,725 test pairs take minutes on 2 cores, and a re-run recomputes them even with every model cached)."""
    return _run(tiny)

def test_every_row_on_a_duplicate_target(cell):
    out = cell
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert set(m['rows']) == set(ROWS) == {'zero-shot', 'teacher', 'lower', 'augsbert', 'upper', 'shuffled'}
    assert m['metric'] == 'auc05' and m['silver']['pairs'] == 32 == m['sizes']['target']['train']
    for row in m['rows'].values():
        assert all(0 <= r['test'] <= 1 and 0 <= r['f1_test'] <= 100 for r in row['per_seed'])
    assert 'AugSBERT training' in prov['timings'] and (out/'rows.png').exists()
    assert 'similarity score' in m['score_mapping']                               # a regression source labels a duplicate target
    st = m['statistics']                                                          # the gate on dev, the paired comparisons
    assert set(st['gate']['bars']) == {'student', 'jaccard', 'constant'} and st['metric'] == 'auc05'
    assert set(st['families']) == {'augsbert-vs-lower', 'teacher-vs-lower', 'augsbert-vs-upper', 'augsbert-vs-shuffled'}
    assert 'shuffled control training' in prov['timings'] and 'from_teacher' in st
    with np.load(out/'predictions.npz') as z:                                     # the statistics are recomputable from the run
        assert set(z.files) == {'test_gold', *ROWS} and z['augsbert'].shape == (len(m['rows']['augsbert']['per_seed']), len(z['test_gold']))

def test_every_trained_model_is_left_loadable(cell, tmp_path):
    "Each row's student and each seed's teacher: a sentence-transformers folder listed in provenance, exported by `augsbert export`."
    from sentence_transformers import CrossEncoder, SentenceTransformer
    from augsbert.cli import main
    m, saved = read_json(cell/'metrics.json'), read_json(cell/'provenance.json')['saved_models']
    seeds = [r['seed'] for r in m['rows']['lower']['per_seed']]
    rows = [r for r in m['rows'] if r != 'zero-shot']
    assert len(saved) == len(rows) * len(seeds) and saved[0]['role'] == f'teacher (seed {seeds[0]})'
    assert {s['role'] for s in saved} >= {f'augsbert student (seed {s})' for s in seeds}
    assert main(['export', f'domain_adaptation/{cell.name}', str(tmp_path/'models')]) == 0
    student = tmp_path/'models'/f'augsbert-student-seed-{seeds[0]}'
    assert SentenceTransformer(str(student)).encode(['a cat']).shape[0] == 1
    assert read_json(student/'augsbert.json')['run'] == f'domain_adaptation/{cell.name}'
    assert CrossEncoder(str(tmp_path/'models'/f'teacher-seed-{seeds[0]}')).predict([('a cat', 'a dog')]).shape == (1,)

def test_a_regression_target_is_scored_by_spearman(env, tiny):
    m = read_json(_run(tiny, source='mrpc', target='stsb', rows='augsbert,lower')/'metrics.json')
    assert m['metric'] == 'spearman' and set(m['rows']) == {'lower', 'augsbert'}
    assert 'not a graded similarity' in m['score_mapping']                        # how a duplicate probability is read

# Every pair set and every label mode runs by default (paper with soft labels, the default, also in the `cell` above); the
# other three combinations are slow (`make test-slow`): the label mode is applied to the pairs after they are chosen.
DEFAULT_COMBOS = {('paper', 'threshold'), ('mined', 'soft'), ('user', 'threshold')}
assert {p for p, _ in DEFAULT_COMBOS} == set(TARGET_PAIRS) and {m for _, m in DEFAULT_COMBOS} == set(LABEL_MODES)

@pytest.mark.parametrize('target_pairs, label_mode', [
    pytest.param(p, m, marks=() if (p, m) in DEFAULT_COMBOS else pytest.mark.slow) for m in LABEL_MODES for p in TARGET_PAIRS])
def test_pair_sets_and_label_modes(env, tiny, tmp_path, target_pairs, label_mode):
    kw = {}
    if target_pairs == 'user':
        f = tmp_path/'pairs.tsv'
        f.write_text('sentence1\tsentence2\n' + ''.join(f'question number {i} ?\tis this question {i} ?\n' for i in range(12)))
        kw['target_file'] = str(f)
    m = read_json(_run(tiny, target_pairs=target_pairs, label_mode=label_mode, rows='augsbert', **kw)/'metrics.json')
    assert m['config']['target_pairs'] == target_pairs and m['silver']['pairs'] > 0
    if target_pairs != 'mined': assert m['silver']['pairs'] == (12 if target_pairs == 'user' else 32)   # the file / the capped train pairs
    assert (m['silver']['threshold'] is None) == (label_mode == 'soft')

def test_a_shah_target_from_a_fixture(env, tiny, tmp_path):
    from augsbert.loaders.shah import write_fixture
    fx = write_fixture(tmp_path/'sprint', 'shah')
    m = read_json(_run(tiny, source='mrpc', target='shah-sprint', data_dir=str(fx), rows='augsbert,upper')/'metrics.json')
    assert m['target'] == 'shah-sprint' and m['sizes']['target'] == {'train': 20, 'dev': 6, 'test': 6}

# these and the bad files below run the notebook's cells in this process (`conftest.execute_in_process`), as every test does
BAD_INPUTS = [
    (dict(target='stsb'), 'two different domains'),
    (dict(target='sts12'), 'no labelled dev pairs'),                              # an evaluation-only set
    (dict(target_pairs='user'), 'needs your unlabelled pairs'),
    (dict(rows='upper,lowr'), 'unknown row'),
    (dict(target_pairs='pape'), "did you mean 'paper'"),
    (dict(target='shah-sprint'), 'needs the data'),                               # not in the mirror
]

@pytest.mark.parametrize('kw, match', BAD_INPUTS)
def test_bad_inputs_fail_before_training(env, tiny, monkeypatch, kw, match):
    before = sorted(Path(env/'cache').rglob('_done.json')) if (env/'cache').exists() else []
    with pytest.raises(AugsbertError, match=match):
        _run(tiny, **kw)
    assert sorted(Path(env/'cache').rglob('_done.json')) == before              # nothing trained

@pytest.mark.parametrize('content, match', [('', 'the file is empty'), ('one sentence\nanother one\n', 'one column'),
                                            (None, 'no such file')])
def test_bad_user_files(env, tiny, tmp_path, monkeypatch, content, match):
    f = tmp_path/'mine.tsv'
    if content is not None: f.write_text(content)
    before = sorted(Path(env/'cache').rglob('_done.json')) if (env/'cache').exists() else []
    with pytest.raises(AugsbertError, match=match):
        _run(tiny, target_pairs='user', target_file=str(f))
    assert sorted(Path(env/'cache').rglob('_done.json')) == before              # refused before the teacher trained

def test_an_empty_target_pair_set(env, tiny, tmp_path, monkeypatch):
    from augsbert.data import load_dataset
    t = load_dataset('mrpc').test
    f = tmp_path/'leak.tsv'; f.write_text(''.join(f'{b}\t{a}\n' for a, b in zip(t['sentence1'][:20], t['sentence2'][:20])))
    with pytest.raises(AugsbertError, match='empty after excluding'):
        _run(tiny, target_pairs='user', target_file=str(f), rows='augsbert')

def test_report_renders_table6_and_the_checks(env, cell):
    "The domain-adaptation report from this module's runs (smoke profile): our table, the paper's cells, the checks, findings."
    nb = render_report('domain_adaptation', progress=False, profile='smoke')
    md = (Path(nb).parent/'domain_adaptation.md').read_text()
    assert '## Table 6 — ours' in md and '| stsb → mrpc' in md and 'needs the data' in md and '| Quora → Sprint' in md
    assert 'teacher − lower' in md and (Path(nb).parent/'figures'/'domain_gain.png').exists()
    assert 'The paper (Table 6): AugSBERT beats the lower bound in 9 of 12 cells, by +37.0 points at most (Quora → Sprint)' in md
    assert '## Ablations' in md and 'paper, threshold' in md                    # the pair sets and label modes above
    # the evidence-standard section: the run's own gate and paired CIs (one render serves both checks)
    sec = md.split('## At the evidence standard')[1].split('\n## ')[0]
    assert 'stsb → mrpc' in sec and 'AugSBERT − lower' in sec and '(no run yet' not in sec
    assert ('passes' in sec) or ('✗ fails' in sec)                                # the run's own gate, with its verdict
    assert 'At the evidence standard (per-seed teachers, paired 95 % CIs): stsb → mrpc' in md   # a generated finding citing CIs
    # and the question over every such cell, answered from them: the gate count, then what AugSBERT did where it passed
    q = re.search(r'Does a teacher that passes the gate make AugSBERT beat the lower bound\? Of (\d+) cells? at the evidence standard, '
                  r'the teacher passes the gate in (\d+)', md)
    cells = [l for l in md.splitlines() if l.startswith('- At the evidence standard (per-seed teachers, paired 95 % CIs): ')]
    assert q and int(q.group(1)) == len(cells) >= 1, md                                         # every cell counted once
    assert int(q.group(2)) == sum('): the teacher passes the gate' in l for l in cells), md       # and its gate as the cell says
    # the time per stage names each run's student and teacher, and a stage taken from the cache reads –, never nan
    times = md.split('## Time per stage (minutes)')[1].split('\n## ')[0]
    assert '| student' in times and '| teacher' in times and 'nan' not in times, times
    rows = md.split('## All rows')[1].split('\n## ')[0]
    assert '| teacher' in rows and 'nan' not in rows, rows
