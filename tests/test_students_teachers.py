"""Integration: every student, both teachers and both silver pools through the `in_domain` papermill experiment on a
tiny random BERT (smoke profile), and the bad inputs of each, which fail before any model is trained."""
import os
from pathlib import Path
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.methods.in_domain import SILVER_POOLS
from augsbert.teachers import TEACHERS
from augsbert.runs import run_experiment, read_json
from augsbert.students import STUDENTS
import augsbert.methods.arguebert.finetune  # noqa: F401  (registers the arguebert student)

pytestmark = needs_data


_DONE = {}   # (reports folder, method, params) -> the finished run: a run another test of this module made is read, not re-run

def _run(tiny, method, **kw):
    kw = {'cut_layers': 1, 'static_init': 'tokens', **kw}
    kw = {k: v for k, v in kw.items() if not (k == 'cut_layers' and kw.get('student') != 'minilm-cut')
          and not (k == 'static_init' and kw.get('student') != 'static')}
    if kw.get('student') == 'arguebert': kw = {'ab_objective': 'sp', 'ab_setting': 'continued', **kw}   # SP pairs from the mirror; the tiny BERT continued
    if kw.get('student') == 'mpnet': kw = {'student_model': tiny, **kw}     # never MPNet's weights in a test: its family on the tiny BERT
    key = (os.environ.get('AUGSBERT_REPORTS'), method, tuple(sorted((k, str(v)) for k, v in kw.items())))
    if key not in _DONE or not (_DONE[key]/'metrics.json').exists():
        _DONE[key] = run_experiment('in_domain', profile='smoke', progress=False, dataset='sts-es', method=method,
                                    bi_encoder=tiny, cross_encoder=tiny, max_train_pairs=32, **kw)
    return _DONE[key]

@pytest.mark.parametrize('student', list(STUDENTS))
def test_every_student_trains(env, tiny, student):
    m = read_json(_run(tiny, 'sbert', student=student)/'metrics.json')
    assert m['student'] == student and -100 <= m['test_mean'] <= 100
    assert m['throughput']['unit'] == 'sentences/s' and m['throughput']['per_second'] > 0 and m['throughput']['batch_size'] == 64

@pytest.mark.parametrize('teacher', TEACHERS)
def test_both_teachers_label_the_silver_pairs(env, tiny, teacher):
    out = _run(tiny, 'augsbert-rs', student='static', teacher=teacher)
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert m['teacher'] == teacher and m['silver']['pairs'] > 0 and m['student'] == 'static'
    assert ('cross-encoder training' in prov['timings']) == (teacher == 'cross-encoder')
    roles = [m['role'] for m in prov['models']]
    assert roles[0].startswith('student: static') and roles[0].endswith('(built from this model)') and roles[1:] == [f'teacher ({teacher})']

def test_teacher_and_student_models_are_chosen_apart_and_left_loadable(env, tiny, tmp_path):
    "A teacher of another model than the student's; every trained model a plain sentence-transformers folder with a card."
    import json, shutil
    from sentence_transformers import CrossEncoder, SentenceTransformer
    from augsbert.cli import main
    other = tmp_path/'teacher-bert'; shutil.copytree(tiny, other)          # the same weights under another name: another model
    out = _run(tiny, 'augsbert-bm25', student='static', teacher='cross-encoder', teacher_model=str(other))
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert m['teacher_model']['model'] == str(other) and m['student_model'] == tiny and m['model'] == tiny
    assert [x['name'] for x in prov['models']] == [tiny, str(other)]
    saved = prov['saved_models']
    assert [s['role'] for s in saved] == ['student (seed 42)', 'teacher (cross-encoder)']
    student, teacher = (Path(s['path']) for s in saved)
    assert SentenceTransformer(str(student)).encode(['a cat']).shape[0] == 1
    assert CrossEncoder(str(teacher)).predict([('a cat', 'a dog')]).shape == (1,)
    card = json.loads((teacher/'augsbert.json').read_text())
    assert card['base_model'] == str(other) and card['run'] == f'in_domain/{out.name}' and '## augsbert' in (teacher/'README.md').read_text()
    assert main(['export', f'in_domain/{out.name}', str(tmp_path/'models')]) == 0
    assert SentenceTransformer(str(tmp_path/'models'/'student-seed-42')).encode(['a cat']).shape[0] == 1
    assert main(['export', f'in_domain/{out.name}', str(tmp_path/'models')]) == 2      # never overwrites

def test_silver_pools(env, tiny):
    # silver labels only, one BM25 neighbour: the pools decide the silver set, not the student (the train pool's ~2,300
    # sentences at k = 3 made 5,000 silver pairs, and a static student on them trained for minutes)
    got = {pool: read_json(_run(tiny, 'augsbert-bm25', student='static', silver_pool=pool, silver_only=True, top_k=1)/'metrics.json')
           for pool in SILVER_POOLS}
    assert [got[p]['silver_pool'] for p in SILVER_POOLS] == list(SILVER_POOLS)
    assert got['gold']['unlabelled_sentences'] == 0 < got['train']['unlabelled_sentences']
    assert got['train']['silver']['pairs'] > got['gold']['silver']['pairs']          # more text, more BM25 neighbours

# every message is pinned in nbs/07b_students and nbs/10_methods; here: that the experiment checks before loading data
# (in this process, `conftest.execute_in_process`)
BAD_CHOICES = [
    (dict(student='statik'), "unknown student.*did you mean 'static'"),
    (dict(student='static', lr=1e-3), 'static_lr'),                                  # a transformer-only setting
    (dict(method='augsbert-rs', teacher='bi-encoder'), 'cannot teach itself'),       # default student: minilm
    (dict(student='arguebert', ab_objective='mlm'), 'unknown pre-training objective'),
    (dict(ab_setting='warm'), 'not a setting of student'),                          # an arguebert setting for minilm
    (dict(method='augsbert-rs', teacher='bi-encoder', student_model='all-MiniLM-L6-v2', teacher_model='minilm'),
     "student 'minilm' is 'all-MiniLM-L6-v2'.*cannot teach itself"),                # aliases resolved: the same model
    (dict(teacher_model='x'), "method 'sbert' has none"),                            # no silver pairs, no teacher
    (dict(method='augsbert-rs', student='static', teacher_model='no-such/model'),
     "model 'no-such/model' is not in the local Hugging Face cache and the machine is offline"),   # found before data loads
]

@pytest.mark.parametrize('kw, match', BAD_CHOICES)
def test_bad_choices_fail_before_data_loads(env, tiny, monkeypatch, kw, match):
    monkeypatch.setenv('AUGSBERT_DATA_MIRROR', '/nonexistent')      # loading would fail: the check comes first
    kw = {'method': 'sbert', **kw}
    with pytest.raises(AugsbertError, match=match):
        run_experiment('in_domain', profile='smoke', progress=False, dataset='sts-es', bi_encoder=tiny, cross_encoder=tiny, **kw)

def test_a_silver_set_too_large_for_memory_fails_before_training(env, tiny, monkeypatch):
    before = sorted(Path(env/'cache').rglob('_done.json')) if (env/'cache').exists() else []
    with pytest.raises(AugsbertError, match='more than half of the .* GiB available'):
        _run(tiny, 'augsbert-bm25', student='static', silver_pool='train', top_k=10**9)
    assert sorted(Path(env/'cache').rglob('_done.json')) == before        # nothing trained, sampled or labelled

def test_report_shows_where_the_premise_holds(env, tiny):
    "The in-domain report's student sections, rendered from the runs above plus the teacher rows (smoke profile)."
    from augsbert.runs import render_report
    _run(tiny, 'bert'); _run(tiny, 'sbert', student='minilm'); _run(tiny, 'sbert', student='static')   # sbert, augsbert-rs: the runs above, read
    for teacher in TEACHERS: _run(tiny, 'augsbert-rs', student='static', teacher=teacher)
    nb = render_report('in_domain', progress=False, profile='smoke')
    md = (Path(nb).parent/'in_domain.md').read_text()
    assert '## Where the premise holds' in md and '## Table 5 with a weaker student' in md
    assert 'static (MiniLM tokens) (from tiny-bert) student, cross-encoder teacher' in md and 'bi-encoder teacher' in md
    assert '**Overall**: where the teacher leads the student' in md
