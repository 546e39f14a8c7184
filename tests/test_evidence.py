"""Integration: the `evidence` experiment (papermill, smoke profile, a tiny random BERT as teacher and student): seed i
re-makes teacher i, the saved predictions give back the recorded statistics, bad parameters stop before any data loads,
and the evidence report renders from the run."""
import json, shutil
from contextlib import contextmanager
import numpy as np
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.runs import run_experiment, render_report, read_json, load_runs

pytestmark = needs_data


def _ev(tiny, **kw):
    args = dict(profile='smoke', progress=False, dataset='sts-es', teacher_model=tiny, student='minilm', student_model=tiny,
                max_train_pairs=32, seeds=2, search_epochs=1, search_lrs=[1e-4], search_dev_pairs=0, n_boot=200)
    return run_experiment('evidence', **{**args, **kw})

@pytest.fixture(scope='module')
def cell(env, tiny): return _ev(tiny)

@contextmanager
def edited_copy(cell, name):
    "A copy of run `cell` named `name` beside it, removed afterwards; `write(file, value)` replaces one of its JSON files."
    copy = cell.parent/name
    shutil.copytree(cell, copy)
    try: yield copy, lambda file, value: (copy/file).write_text(json.dumps(value))
    finally: shutil.rmtree(copy)

def rendered(cell):
    "Render the evidence report (smoke profile) and return its markdown."
    render_report('evidence', progress=False, profile='smoke')
    return (cell.parents[2]/'evidence.md').read_text()

def test_seed_i_remakes_teacher_i(cell):
    m = read_json(cell/'metrics.json')
    assert m['seeds'] == 2 and [r['seed'] for r in m['per_seed']] == [42, 43]
    teachers = [r['teacher']['key'] for r in m['per_seed']]
    assert len(set(teachers)) == 2                                    # two teachers, one per seed
    assert m['teacher']['search']['candidates'] and m['teacher']['recipe']['epochs'] == 1
    prov = read_json(cell/'provenance.json')
    assert [s['role'] for s in prov['saved_models'][:2]] == ['teacher (seed 42)', 'teacher (seed 43)']
    assert {'sbert (seed 42)', 'augsbert-bm25 (seed 43)', 'augsbert-bm25:shuffled (seed 43)'} <= {s['role'] for s in prov['saved_models']}
    v = m['per_seed'][0]['variants']                                  # the controls train on as many pairs as AugSBERT
    assert v['augsbert-bm25']['pairs'] == v['augsbert-bm25:steps']['pairs'] == v['augsbert-bm25:shuffled']['pairs'] > 32
    assert (cell/'differences.png').exists()

def test_statistics_follow_from_the_saved_predictions(cell):
    "The run's predictions.npz reproduces its recorded statistics (the report could recompute every CI)."
    from augsbert.methods.in_domain import evidence_statistics
    m, z = read_json(cell/'metrics.json'), np.load(cell/'predictions.npz')
    assert z['sbert'].shape == (2, m['sizes']['test'])
    again = evidence_statistics(dict(m, predictions={k: z[k] for k in z.files if k != 'test_gold'}), z['test_gold'], n_boot=200)
    for f, rows in m['statistics']['families'].items():
        for a, b in zip(rows, again['families'][f]):
            assert a['verdict'] == b['verdict'] and abs(a['diff'] - b['diff']) < 1e-3 and abs(a['lo'] - b['lo']) < 1e-3
    assert m['statistics']['verdicts'] == again['verdicts']
    # a failed gate draws no conclusion, and only a failed gate gives that conclusion
    conclusions = {v['conclusion'] for v in m['statistics']['verdicts'].values()}
    assert (conclusions == {'gate failed: no conclusion'}) == (not m['gate']['passes'])

def test_evidence_report_renders(cell):
    render_report('evidence', progress=False, profile='smoke')
    md = (cell.parents[2]/'evidence.md').read_text()
    assert 'The gate per cell' in md and 'Holm' in md and len(load_runs('evidence')) == 1
    claims = md.split("## The paper's claims")[1].split('## The cells')[0]
    ce = [l for l in claims.split('**CE > BE at small n (teacher − student alone, test)**')[1].split('\n\n')[0].splitlines() if l.startswith('- ')]
    assert len(ce) == 1, ce                                         # the tiny teacher is a cross-encoder: one CE > BE line
    assert len(ce) == 1 and f'(`{cell.name}`)' in ce[0] and ce[0].endswith('**')   # naming its run, ending in its verdict
    assert '| CE > BE at small n (teacher − student alone, test) |       1 | 1 ' in claims   # the tally counts it
    # the gate failures that helped anyway (above SBERT and both controls) are named in one generated sentence, apart from the verdicts
    m = read_json(cell/'metrics.json'); v = m['statistics']['verdicts']
    failed = 0 if m['gate']['passes'] else len(v)
    anyway = 0 if m['gate']['passes'] else sum(x['vs_sbert'] == 'helps' and set(x['controls'].values()) == {'helps'} for x in v.values())
    assert f'**Gate failures (generated).** {anyway} of the {failed} strategy comparisons whose teacher failed the gate' in md

def test_a_rerun_that_reproduces_a_cell_is_counted_once(cell):
    "A later run of the same cell that re-made every stage and got every number again is shown as a reproduction, not a second cell."
    with edited_copy(cell, 'smoke_reproduced') as (again, write):
        prov = read_json(again/'provenance.json')
        assert prov['timings']                                        # it trained (not a run that took its stages from the cache)
        write('provenance.json', dict(prov, finished='2999-01-01T00:00:00+00:00'))
        md = rendered(cell)
        assert '**Summary (generated).** 1 cell(s)' in md and f'reproduced the numbers of `{cell.name}`' in md
        m = read_json(again/'metrics.json')                           # a later run with one more seed reproduces nothing:
        write('metrics.json', dict(m, per_seed=m['per_seed'] + m['per_seed'][:1]))   # its first seeds match
        md = rendered(cell)
        assert 'reproduced the numbers of' not in md and '**Summary (generated).** 2 cell(s)' in md
        # the two cells share their teachers' statistics: one CE > BE line names both runs
        assert any(f'`{cell.name}`' in l and '`smoke_reproduced`' in l for l in md.splitlines() if l.startswith('- '))

def test_a_run_of_fewer_strategies_with_the_same_numbers_is_counted_once_whatever_finished_first(cell):
    "A cell re-made later with more strategies, whose shared numbers are the earlier run's, counts once: the earlier, smaller run is the duplicate."
    with edited_copy(cell, 'smoke_more') as (more, write):
        m = read_json(more/'metrics.json')                           # the same seeds and numbers, plus an R.S. variant
        per_seed = [dict(s, variants={**s['variants'], 'augsbert-rs': s['variants']['augsbert-bm25']}) for s in m['per_seed']]
        write('metrics.json', dict(m, per_seed=per_seed))
        write('provenance.json', dict(read_json(more/'provenance.json'), finished='2999-01-01T00:00:00+00:00'))
        md = rendered(cell)
        assert '**Summary (generated).** 1 cell(s)' in md
        assert f"(`{cell.name}`): re-made every stage (teachers, silver sets, students) and reproduced the numbers of `smoke_more`" in md

def test_the_same_teachers_measured_again_give_one_ce_line(cell):
    "A cell measured earlier (other code: other teachers of the same recipe, other numbers) is named on the latest run's CE > BE line, not counted again."
    def ce_lines():
        claims = rendered(cell).split("## The paper's claims")[1].split('## The cells')[0]
        return claims, claims.split('**CE > BE at small n (teacher − student alone, test)**')[1].split('\n\n')[0].strip().splitlines()
    with edited_copy(cell, 'smoke_older') as (older, write):
        m = read_json(older/'metrics.json'); st = m['statistics']
        per_seed = [dict(s, variants={v: dict(x, test=x['test'] + 0.5) for v, x in s['variants'].items()}) for s in m['per_seed']]
        fam = dict(st['families'], **{'teacher-vs-sbert': [dict(r, diff=r['diff'] + 0.37) for r in st['families']['teacher-vs-sbert']]})
        write('metrics.json', dict(m, per_seed=per_seed, statistics=dict(st, families=fam)))
        write('provenance.json', dict(read_json(older/'provenance.json'), finished='2000-01-01T00:00:00+00:00'))
        claims, ce = ce_lines()
        tv = read_json(cell/'metrics.json')['statistics']['families']['teacher-vs-sbert'][0]
        assert len(ce) == 1 and f"(`{cell.name}`): {tv['diff']:+.2f}" in ce[0]                     # the latest run's numbers
        assert f"not counted: `smoke_older`: {tv['diff'] + 0.37:+.2f}" in ce[0]                  # the earlier one named
        assert '| CE > BE at small n (teacher − student alone, test) |       1 | 1 ' in claims
        # another recipe is another measurement: two lines
        write('metrics.json', dict(m, per_seed=per_seed, statistics=dict(st, families=fam),
                                   teacher=dict(m['teacher'], ce=dict(m['teacher']['ce'], lr=9e-9))))
        claims, _ = ce_lines()
        assert '| CE > BE at small n (teacher − student alone, test) |       2 | ' in claims and 'not counted: `smoke_older`' not in claims

def test_a_gate_failure_above_sbert_and_both_controls_is_named_not_counted(cell):
    "A cell whose teacher failed the gate but whose strategy beat SBERT and both controls is named in the gate-failures sentence, never as a verdict."
    with edited_copy(cell, 'smoke_gate_failed') as (odd, write):
        m = read_json(odd/'metrics.json'); st = m['statistics']
        per_seed = [dict(s, sbert=dict(s['sbert'], test=s['sbert']['test'] + 1.0)) for s in m['per_seed']]   # other numbers: not a reproduction
        verdicts = {v: dict(x, vs_sbert='helps', controls={c: 'helps' for c in x['controls']}, from_teacher=True,
                            conclusion='gate failed: no conclusion') for v, x in st['verdicts'].items()}
        gate = dict(m['gate'], passes=False, fails=['student'])
        write('metrics.json', dict(m, per_seed=per_seed, gate=gate, statistics=dict(st, verdicts=verdicts)))
        md = rendered(cell)
        w = read_json(cell/'metrics.json')
        failed = len(verdicts) + (0 if w['gate']['passes'] else len(w['statistics']['verdicts']))
        anyway = len(verdicts) + (0 if w['gate']['passes'] else sum(x['from_teacher'] is True for x in w['statistics']['verdicts'].values()))
        sentence = md.split('**Gate failures (generated).** ')[1].split('\n')[0]
        assert sentence.startswith(f'{anyway} of the {failed} strategy comparisons whose teacher failed the gate')
        assert '(`smoke_gate_failed`)' in sentence and 'Shown, not counted' in sentence
        claims = md.split("## The paper's claims")[1].split('## The cells')[0]
        assert not any('`smoke_gate_failed`' in l and 'helps, from the teacher' in l for l in claims.splitlines())
        bm25 = claims.split('**AugSBERT-BM25 > SBERT**')[1].split('\n\n')[0].splitlines()
        listed = [l for l in bm25 if '(`smoke_gate_failed`)' in l]     # listed with its numbers, no verdict
        assert listed and all(l.endswith('**gate failed: no conclusion**') for l in listed), listed
        assert f"{failed} gate failed: no conclusion" in claims.split("**")[0], claims.split("**")[0]   # the tally counts them as that

def test_the_gap_gain_figure_draws_the_most_compared_strategy_and_names_the_rest(cell):
    "The premise figure has a panel for the most compared strategy; a strategy compared in fewer than FEW cells is named under it with its numbers."
    md = rendered(cell)
    assert (cell.parents[2]/'figures'/'evidence_gap_gain.png').exists() and 'not drawn' not in md   # one cell, one strategy: drawn
    with edited_copy(cell, 'smoke_rs') as (rs, write):                 # a second cell that compares R.S. instead of BM25
        m = json.loads((rs/'metrics.json').read_text().replace('"augsbert-bm25', '"augsbert-rs'))
        per_seed = [dict(s, sbert=dict(s['sbert'], test=s['sbert']['test'] + 1.0)) for s in m['per_seed']]   # other numbers: not a reproduction
        write('metrics.json', dict(m, per_seed=per_seed))
        md = rendered(cell)
        note = md.split('![teacher − student gap vs AugSBERT gain](figures/evidence_gap_gain.png)')[1].strip().split('\n')[0]
        gain = next(r for r in m['statistics']['families']['vs-sbert'] if r['variant'] == 'augsbert-rs')['diff']
        assert note.startswith('AugSBERT-R.S. is compared in 1 cell(s), not drawn: ') and '(`smoke_rs`)' in note
        assert f"{gain:+.2f} [" in note and 'BM25' not in note        # ties go by name: BM25 has the panel

def test_label_modes_are_compared_seed_by_seed_on_dev(cell):
    "Cells that differ only in `silver_labels` are compared on dev seed by seed: a gap inside the seeds' noise is a tie, a steady one is named."
    m, p = read_json(cell/'metrics.json'), read_json(cell/'params.json')
    def as_mode(write, mode, shift):
        per_seed = [dict(s, variants={v: dict(x, dev=x['dev'] + d, silver=dict(x.get('silver') or {}, positive_share=0.5))
                                      for v, x in s['variants'].items()}) for s, d in zip(m['per_seed'], shift)]
        write('metrics.json', dict(m, task='classification', per_seed=per_seed))
        write('params.json', dict(p, silver_labels=mode))
    def finding(): return rendered(cell).split('## Classification silver labels')[1].split('\n\n')[1]
    with edited_copy(cell, 'smoke_labels-rate') as (_, rate), edited_copy(cell, 'smoke_labels-soft') as (_, soft):
        as_mode(rate, 'rate', [0.0, 0.0]); as_mode(soft, 'soft', [0.5, -0.3])         # the higher mean, inside the noise
        line = finding()
        assert '`soft` (the highest mean) ties with `rate`' in line and 'soft − rate +0.10 [' in line and '(95 % t, 2 seeds)' in line
        as_mode(soft, 'soft', [2.0, 2.1])                                               # a steady gap
        line = finding()
        assert line.startswith(f"- **sts-es** ({m['teacher']['model'].rstrip('/').split('/')[-1]} {m['teacher']['kind']} teacher")
        assert '`soft` labels are best' in line and 'ties' not in line and 'soft − rate +2.05 [' in line
        assert ('fails the gate' in line) is (not m['gate']['passes'])
        with edited_copy(cell, 'smoke_labels-be') as (_, be):                           # another kind of teacher: never in this group
            as_mode(be, 'dev-f1', [9.0, 9.0]); be('metrics.json', dict(read_json(cell.parent/'smoke_labels-be'/'metrics.json'),
                                                                        teacher=dict(m['teacher'], kind='bi-encoder')))
            assert finding() == line
        with edited_copy(cell, 'smoke_labels-rate-old') as (old, write):                 # rate measured before: the latest speaks
            as_mode(write, 'rate', [5.0, 5.0]); write('provenance.json', dict(read_json(old/'provenance.json'), finished='2000-01-01T00:00:00+00:00'))
            again = finding()
            assert again.startswith(line.split(' Its teacher fails')[0].rstrip('.') + '.') and '`soft` labels are best' in again
            assert 'Measured earlier with the same mode, not compared: `smoke_labels-rate-old`.' in again

def test_a_cell_made_in_shards_is_the_whole_cell(cell, tiny):
    "-p shard makes some seeds (no statistics); -p from_shards merges the shards into the cell, seed for seed, trains nothing."
    a, b = _ev(tiny, shard=1, run_name='smoke_shard-1'), _ev(tiny, shard=0, run_name='smoke_shard-0')
    ma = read_json(a/'metrics.json')
    assert ma['shard'] == {'seed_ids': [1], 'of': 2} and ma['statistics'] is None and [r['seed'] for r in ma['per_seed']] == [43]
    assert not (a/'differences.png').exists() and np.load(a/'predictions.npz')['sbert'].shape == (1, ma['sizes']['test'])
    render_report('evidence', progress=False, profile='smoke')           # before the merge the report names them as pending
    md = (cell.parents[2]/'evidence.md').read_text()
    assert "`smoke`: 2 of 2 seeds (42, 43; shards 0, 1)" in md.split('Cells not yet merged')[1]
    d = _ev(tiny, from_shards='smoke_shard-1,smoke_shard-0', run_name='smoke_merged')
    m, whole, prov = read_json(d/'metrics.json'), read_json(cell/'metrics.json'), read_json(d/'provenance.json')
    assert m['per_seed'] == whole['per_seed'] and m['statistics'] == whole['statistics']
    canon = lambda g: dict(g, fails=sorted(g['fails']))                 # the bars come back from JSON in key order
    assert canon(m['gate']) == canon(whole['gate'])
    assert [r['name'] for r in m['from_shards']] == ['smoke_shard-1', 'smoke_shard-0'] and 'shard' not in m
    assert [r['name'] for r in prov['shards']] == ['smoke_shard-1', 'smoke_shard-0'] and (d/'differences.png').exists()
    z, zw = np.load(d/'predictions.npz'), np.load(cell/'predictions.npz')
    assert all((z[k] == zw[k]).all() for k in zw.files)
    # the report counts the merged cell, never a shard as a cell of its own
    render_report('evidence', progress=False, profile='smoke')
    md = (cell.parents[2]/'evidence.md').read_text()
    assert '`smoke_merged`' in md and '`smoke_shard-0`' not in md.split('## The gate per cell')[1].split('##')[0]
    # its compute row is its shards' time plus the merge's own (the merge trains nothing: seconds); shards of 10 min each here
    mm = read_json(d/'metrics.json')
    (d/'metrics.json').write_text(json.dumps(dict(mm, from_shards=[dict(s, wall_seconds=600.0) for s in mm['from_shards']])))
    try: render_report('evidence', progress=False, profile='smoke')
    finally: (d/'metrics.json').write_text(json.dumps(mm))
    md = (cell.parents[2]/'evidence.md').read_text()
    row = next(l for l in md.split('## Compute')[1].splitlines() if l.startswith('| smoke_merged '))
    assert abs(float(row.split('|')[2]) - (1200 + prov['wall_seconds']) / 60) <= 0.051
    # refused before anything trains: a missing seed, a shard of other settings, a shard made by other code, both at once
    with pytest.raises(AugsbertError, match='exactly once'): _ev(tiny, from_shards='smoke_shard-1', run_name='smoke_bad')
    with pytest.raises(AugsbertError, match='other settings \\(controls\\)'):
        _ev(tiny, from_shards='smoke_shard-1,smoke_shard-0', controls='steps', run_name='smoke_bad')
    with pytest.raises(AugsbertError, match='-p shard and -p from_shards'): _ev(tiny, shard=0, from_shards='smoke_shard-1', run_name='smoke_bad')
    with pytest.raises(AugsbertError, match='between 0 and 1'): _ev(tiny, shard=2, run_name='smoke_bad')
    prov_b = read_json(b/'provenance.json')
    (b/'provenance.json').write_text(json.dumps(dict(prov_b, code=dict(prov_b['code'], digest='0' * 16))))
    try:
        with pytest.raises(AugsbertError, match="shard 'smoke_shard-0' was made by other code"):
            _ev(tiny, from_shards='smoke_shard-1,smoke_shard-0', run_name='smoke_bad')
    finally: (b/'provenance.json').write_text(json.dumps(prov_b))
    assert not (cell.parent/'smoke_bad').exists()
    for x in (a, b, d): shutil.rmtree(x)

# (in this process, `conftest.execute_in_process`: the notebook's first cells, as a kernel would run them)
BAD = [(dict(strategies='bm52'), '-p strategies'), (dict(seeds=1), 'at least 2 seeds'),
       (dict(controls='more'), '-p controls'), (dict(silver_labels='hard'), 'unknown silver label mode'),
       (dict(teacher_model='no-such-model'), 'no-such-model'),
       (dict(search_lrs='fast'), 'as numbers'), (dict(search_heads='max'), 'unknown head'),
       (dict(student_loss='triplet'), 'student_loss'), (dict(silver_pool='wiki'), 'silver_pool'),
       (dict(silver_pool_size=-1), 'silver_pool_size'), (dict(student='static', static_dims=-2), 'static_dims')]

@pytest.mark.parametrize('kw, msg', BAD)
def test_bad_parameters_stop_before_data_loads(env, tiny, monkeypatch, kw, msg):
    monkeypatch.setenv('AUGSBERT_DATA_MIRROR', '/nonexistent')
    with pytest.raises(AugsbertError, match=msg) as e:
        _ev(tiny, **kw)
    assert 'data file' not in str(e.value)

def test_a_bi_encoder_teacher_gets_its_own_recipe(env, tiny):
    "The gold-tuned bi-encoder teacher: its recipe searched on dev (no head) and given to the teacher alone, one teacher per seed."
    m = read_json(_ev(tiny, teacher='bi-encoder', student='static', static_init='tokens', strategies='bm25', controls='steps')/'metrics.json')
    t = m['teacher']
    assert t['kind'] == 'bi-encoder' and t['search']['kind'] == 'bi-encoder' and {c['head'] for c in t['search']['candidates']} == {'-'}
    assert t['be'] == {'lr': t['recipe']['lr'], 'epochs': t['recipe']['epochs'], 'warmup_ratio': t['be']['warmup_ratio']}
    assert len({r['teacher']['key'] for r in m['per_seed']}) == 2 and 'teacher-vs-sbert' in m['statistics']['families']

def test_a_larger_silver_pool_and_another_loss(env, tiny):
    "-p silver_pool=train pairs a seeded sample of the training text beside the gold sentences; -p student_loss changes the student's loss; the student's speed is recorded."
    d = _ev(tiny, silver_pool='train', silver_pool_size=40, student_loss='cosent', strategies='bm25', controls='')
    m, prm = read_json(d/'metrics.json'), read_json(d/'params.json')
    assert m['silver_pool'] == {'pool': 'train', 'sentences': 40}
    assert m['statistics']['verdicts']['augsbert-bm25']['from_teacher'] is None   # no controls: whether from the teacher is unknown
    assert prm['student_loss'] == 'cosent' and read_json(d/'provenance.json')['protocol']['student_loss'] == 'cosent'
    assert m['throughput']['per_second'] > 0 and m['throughput']['unit'] == 'sentences/s'
    gold = read_json(_ev(tiny, strategies='bm25', controls='')/'metrics.json')
    assert all(a['variants']['augsbert-bm25']['pairs'] > b['variants']['augsbert-bm25']['pairs']     # more sentences, more BM25 pairs
               for a, b in zip(m['per_seed'], gold['per_seed']))

def test_an_ensemble_teacher_searches_both_parts(env, tiny):
    "-p teacher=ensemble: the cross-encoder and the gold-tuned bi-encoder, each with its recipe chosen on dev, label by their mean; both are saved."
    d = _ev(tiny, teacher='ensemble', student='static', static_init='tokens', strategies='bm25', controls='')
    t = read_json(d/'metrics.json')['teacher']
    assert t['kind'] == 'ensemble' and (t['search']['kind'], t['search_be']['kind']) == ('cross-encoder', 'bi-encoder')
    assert t['be']['lr'] == t['search_be']['best']['lr'] and t['recipe'] == t['search']['best']
    parts = [r['teacher']['parts'] for r in read_json(d/'metrics.json')['per_seed']]
    assert all(len(p) == 2 for p in parts) and parts[0] != parts[1]           # two models per seed, re-made per seed

def test_a_static_student_fitted_to_a_teacher_first(env, tiny):
    "-p static_distill: every bi-encoder of the run starts from the static student fitted to that model's embeddings (one cached start)."
    kw = dict(student='static', static_init='tokens', strategies='bm25', controls='steps', teacher_search=False)   # as the margin test's
    d = _ev(tiny, static_distill=tiny, distill_pool='gold', distill_epochs=2, distill_lr=0.5, **kw)
    plain = read_json(_ev(tiny, **kw)/'metrics.json')
    m, prov = read_json(d/'metrics.json'), read_json(d/'provenance.json')
    assert all(abs(a['sbert']['test'] - b['sbert']['test']) > 1e-6 for a, b in zip(m['per_seed'], plain['per_seed']))
    assert 'fitted to' in m['student_title'] and 'fitted to' in prov['student_model']['built']
    assert any(s['role'] == 'static student fitted to' for s in prov['models'])

def test_margin_mse_trains_the_augsbert_student_on_rescored_triples(env, tiny):
    "-p student_loss=margin-mse: the AugSBERT student learns the teacher's margins on mined triples; SBERT keeps the pair loss."
    kw = dict(student='static', static_init='tokens', strategies='bm25', controls='steps', teacher_search=False)
    m = read_json(_ev(tiny, student_loss='margin-mse', **kw)/'metrics.json')
    plain = read_json(_ev(tiny, **kw)/'metrics.json')
    assert m['student_loss'] == 'margin-mse'
    for a, b in zip(m['per_seed'], plain['per_seed']):
        assert a['sbert']['test'] == b['sbert']['test']                                   # SBERT: the same pairs, the same loss
        assert a['variants']['augsbert-bm25:steps']['test'] == b['variants']['augsbert-bm25:steps']['test']
        assert a['variants']['augsbert-bm25']['test'] != b['variants']['augsbert-bm25']['test']
