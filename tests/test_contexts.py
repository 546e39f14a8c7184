"""Integration: the `contexts` experiment (Sun et al.; papermill, smoke profile) on a small running-text file — Origin,
the baselines, a Surrogate and the supervised step — and its bad inputs, which fail before anything is loaded or trained."""
import itertools, random
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.runs import run_experiment, read_json

pytestmark = needs_data

TOPICS = {'market': ['Stocks fell sharply on {d}.', 'Investors sold their shares.', 'The market closed lower.', 'Analysts expect a rebound.',
                     'Bond yields rose again.', 'The central bank kept rates steady.'],
          'sport': ['The team won the final on {d}.', 'Fans celebrated in the streets.', 'The coach praised the players.',
                    'A man is playing a guitar.', 'The striker scored twice.', 'The crowd cheered loudly.'],
          'home': ['The cat sat on the mat on {d}.', 'It purred softly in the sun.', 'A woman is slicing an onion.', 'The dog barked outside.',
                   'A man is cooking dinner.', 'The children played in the garden.']}

@pytest.fixture(scope='module')
def corpus_file(tmp_path_factory):
    "30 documents of 6 sentences on three topics, one sentence per line, a blank line between documents."
    rng, docs = random.Random(0), []
    for _ in range(30):
        s = TOPICS[rng.choice(sorted(TOPICS))][:]; rng.shuffle(s)
        docs.append([x.format(d=rng.choice(['Monday', 'Friday'])) for x in s])
    p = tmp_path_factory.mktemp('corpus')/'corpus.txt'
    p.write_text('\n\n'.join('\n'.join(d) for d in docs) + '\n', encoding='utf-8')
    return p

@pytest.fixture(scope='module')
def smoke_run(env, tiny, corpus_file):
    "The smoke-profile run on the corpus above, made once per module (the report test reads it too); Origin reads another model than the Surrogate's start."
    return run_experiment('contexts', profile='smoke', progress=False, corpus_file=str(corpus_file), ctx_origin_model=tiny)

def test_smoke_run(smoke_run):
    out = smoke_run
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert m['corpus']['documents'] == 30 and m['corpus']['contexts'] == 30 * 4           # chunks of 6 < 8: 4 gaps each
    assert set(m['origin']) >= {'stsb', 'sick-r', 'sts-avg'} and all(-100 <= v <= 100 for v in m['origin'].values())
    assert 0 <= m['coherence_accuracy']['held-out'] <= 1 and m['surrogate_pairs'] == 32 and len(m['surrogate']) == 1
    assert m['cost']['origin_seconds_per_pair'] > 0 and m['cost']['surrogate_seconds_per_pair'] > 0
    assert set(m['supervised']) == {'Surrogate + gold', 'static + gold'}
    assert [x['seed'] for x in m['cosine_control']] == [x['seed'] for x in m['surrogate']]   # the control: same seeds, cosine labels
    assert 0 <= m['cosine_silver_mean'] <= 1 and 'control (cosine labels)' in prov['timings']
    assert {'Origin on the evaluation sets', 'Surrogate training'} <= set(prov['timings']) and (out/'sts.png').exists()
    assert m['origin_model'] != 'sentence-transformers/all-MiniLM-L6-v2' and "Origin's model (zero-shot)" in m['baselines']
    assert len(prov['models']) == 2                                                       # the Surrogate's start and Origin's model
    import numpy as np
    with np.load(out/'origin_predictions.npz') as z:                                      # per-pair: two runs compare by a paired bootstrap
        assert z['stsb_origin'].shape == z['stsb_gold'].shape == (m['eval_sizes']['stsb'],)
    scored = sum(n for k, n in m['eval_sizes'].items() if not k.startswith('mrpc'))        # stsb-dev and the STS sets
    assert isinstance(m['origin_empty_pairs'], int) and 0 <= m['origin_empty_pairs'] <= scored   # counted, never an error

def test_a_second_run_takes_origin_from_the_cache(smoke_run, corpus_file, tiny, tmp_path):
    "Origin's similarities are cached per chunk of pairs: the same settings again score nothing (an interrupted run resumes there)."
    from augsbert.config import cache_dir
    entries = sorted(cache_dir('artefacts', 'origin-similarity').glob('*/result.json'))
    assert entries                                                                        # the first run filled them
    again = run_experiment('contexts', profile='smoke', run_name='smoke_again', out_dir=tmp_path, progress=False, corpus_file=str(corpus_file), ctx_origin_model=tiny)
    m1, m2 = read_json(smoke_run/'metrics.json'), read_json(again/'metrics.json')
    assert m2['origin'] == m1['origin'] and m2['origin_empty_pairs'] == m1['origin_empty_pairs']
    assert m2['cost']['origin_seconds_per_pair'] == m1['cost']['origin_seconds_per_pair']   # the time it took when computed, not ~0
    assert sorted(cache_dir('artefacts', 'origin-similarity').glob('*/result.json')) == entries   # nothing new was scored
    p1, p2 = read_json(smoke_run/'provenance.json'), read_json(again/'provenance.json')
    assert p2['embeddings']['texts_from_disk'] == p1['embeddings']['texts'] > 0                   # and nothing new was encoded

# (in this process, `conftest.execute_in_process`: the notebook's first cells, as a kernel would run them)
BAD = [
    (dict(ctx_scorer='seq2seq'), 'unknown context scorer'),
    (dict(ctx_selection='best'), 'unknown context selection'),
    (dict(ctx_corpus='wiki'), 'unknown corpus'),
    (dict(ctx_surrogate_student='tfidf'), "'minilm' or 'static'"),
    (dict(ctx_size=0), 'ctx_size must be at least 1'),
    (dict(ctx_size=8, ctx_candidates=4), '-p ctx_candidates=8'),       # two-step: one context per chunk, never fillable
    (dict(ctx_origin_model='no-such-model'), 'no-such-model'),
    (dict(origin_only='false'), 'origin_only=.false.: must be True or False'),      # a string is truthy: never read as True
    (dict(cosine_control='no'), 'cosine_control=.no.: must be True or False'),
]

@pytest.mark.parametrize('kw, match', BAD)
def test_bad_choices_fail_before_any_work(env, monkeypatch, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('contexts', profile='smoke', progress=False, **kw)

@pytest.mark.parametrize('profile', ['smoke', 'cpu', 'paper'])
def test_every_profile_can_fill_its_context_sets(profile):
    from augsbert.config import get_profile
    from augsbert.methods.contexts import check_context_budget
    c = get_profile(profile)
    check_context_budget(c['ctx_size'], c['ctx_candidates'], c['ctx_selection'])

@pytest.mark.parametrize('content, match', [(b'\n \n', 'has no text'), ('caf\xe9'.encode('latin-1'), 'not UTF-8')])
def test_bad_corpus_files(env, tmp_path, monkeypatch, content, match):
    p = tmp_path/'bad.txt'; p.write_bytes(content)
    with pytest.raises(AugsbertError, match=match):
        run_experiment('contexts', profile='smoke', progress=False, corpus_file=str(p))

def md_table(md:str, heading:str)->list[dict]:
    "The first table under `heading` in a rendered report, one dict per row (cells stripped)."
    lines = md.split(heading, 1)[1].splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('|'))
    rows = [l for l in itertools.takewhile(lambda l: l.startswith('|'), lines[start:])]
    cells = lambda l: [c.strip() for c in l.strip().strip('|').split('|')]
    return [dict(zip(cells(rows[0]), cells(l))) for l in rows[2:]]

def test_the_report_renders_from_the_runs(smoke_run, corpus_file, tiny):
    "reports/contexts.md from the smoke run and an Origin-only ablation (random contexts): the teacher gate first, then the claims, the paper beside."
    from pathlib import Path
    from augsbert.runs import render_report
    run_experiment('contexts', profile='smoke', progress=False, corpus_file=str(corpus_file), origin_only=True, ctx_selection='random', ctx_origin_model=tiny)
    md = (Path(render_report('contexts', progress=False, profile='smoke')).parent/'contexts.md').read_text()
    assert 'from 2 runs' in md and '76.93' in md and '34.45' in md                  # the paper's Origin average and random-C row
    assert md.index('## The teacher gate') < md.index("## The paper's claims, checked") < md.index('## Differences, described') < md.index('## Table 1')
    # the gate: the smoke run's Origin reads the tiny BERT, another model than the Surrogate's start (MiniLM); pass or fail from its numbers
    m = read_json(smoke_run/'metrics.json')
    row = next(r for r in md_table(md, '## The teacher gate') if r['run'].split(' ')[0] == smoke_run.name)
    beats = m['origin']['stsb-dev'] > m['baselines']['averaged tokens (zero-shot)']['stsb-dev']   # the smoke Surrogate is static
    assert row['Origin reads'] == Path(tiny).name and row["Surrogate's start"].startswith('all-MiniLM-L6-v2') and row['another model'] == 'yes'
    assert row['Origin, STS-B dev'] == f"{m['origin']['stsb-dev']:.2f}" and row['beats the start'] == ('yes' if beats else 'no')
    assert row['gate'] == ('passes' if beats else 'fails')
    other = next(r for r in md_table(md, '## The teacher gate') if r['run'].split(' ')[0] != smoke_run.name)
    assert other['Origin reads'] == Path(tiny).name and other['another model'] == 'yes'      # the ablation reads the same Origin model
    # the claims: one Surrogate seed gives no interval; the random-contexts claim compares the two runs' per-pair scores (paired bootstrap)
    claims = {r['claim']: r for r in md_table(md, "## The paper's claims, checked")}
    assert set(claims) == {'the Surrogate approaches Origin', 'contexts beat random contexts'}
    assert claims['the Surrogate approaches Origin']['verdict'] == 'underpowered' and claims['the Surrogate approaches Origin']['95 % CI'] == '–'
    assert '1 seed: no interval' in md or 'the teacher gate failed' in md
    rnd = claims['contexts beat random contexts']
    assert rnd['95 % CI'] != '–' and rnd['seeds'] == 'one run each, paired pairs' and rnd['detectable'] != '–'
    lo, hi = (float(x) for x in rnd['95 % CI'].strip('[]').split(','))
    assert lo <= float(rnd['ours']) <= hi and rnd['verdict'] in ('holds', 'does not hold', 'underpowered')
    assert 'paired bootstrap' in md and 'no per-pair scores kept' not in md
    assert f'Origin, discriminative only, on {Path(tiny).name} (ours)' in md

def hand_made(origin_model=None, gaps=(-0.5, -0.6, -0.4), origin_dev=84.0):
    "A contexts run's metrics.json, by hand: Origin 70.0 on the STS average, the minilm Surrogate `gaps` from it over three seeds."
    m = dict(config=dict(ctx_surrogate_student='minilm', ctx_train_contexts=5000), coherence_accuracy={'held-out': 0.68},
             origin={'stsb-dev': origin_dev, 'stsb': 74.0, 'sts-avg': 70.0}, surrogate=[{'seed': s, 'sts-avg': 70.0 + g} for s, g in zip((42, 43, 44), gaps)],
             baselines={'MiniLM (zero-shot)': {'stsb-dev': 87.0}})
    if origin_model: m.update(origin_model=origin_model, baselines=dict(m['baselines'], **{"Origin's model (zero-shot)": {'stsb-dev': 89.0}}))
    return m

def test_teacher_gate_and_verdicts_on_hand_made_runs():
    "Origin reading the Surrogate's own start fails the gate, and the claim is underpowered however close the seeds; another, better model passes it, and the seeds decide."
    from augsbert.methods.contexts import teacher_gate, context_claims
    own = hand_made(origin_dev=90.0)                                    # an old run (no origin_model): Origin read the bi-encoder, even above it
    g = teacher_gate(own, 'sentence-transformers/all-MiniLM-L6-v2')
    assert (g['other_model'], g['beats_start'], g['passes']) == (False, True, False) and 'the model the Surrogate starts from' in g['why']
    assert not teacher_gate(hand_made('minilm', origin_dev=90.0), 'sentence-transformers/all-MiniLM-L6-v2')['passes']   # its alias is the same model
    c = context_claims(own, g)
    assert c['verdict'].tolist() == ['underpowered'] and c['why'][0].startswith('the teacher gate failed')
    assert c['lo'][0] < c['diff'][0] < c['hi'][0]                       # the numbers are still shown
    below = teacher_gate(hand_made('mpnet'), 'sentence-transformers/all-MiniLM-L6-v2')        # another model, but below the start (84 < 87)
    assert below['other_model'] and not below['passes'] and context_claims(hand_made('mpnet'), below)['verdict'][0] == 'underpowered'
    mp = hand_made('sentence-transformers/all-mpnet-base-v2', origin_dev=90.0)
    g = teacher_gate(mp, 'sentence-transformers/all-MiniLM-L6-v2')
    assert g['passes'] and g['origin_model_dev'] == 89.0
    assert context_claims(mp, g)['verdict'].tolist() == ['holds']       # half a point below Origin: within a few points
    assert context_claims(hand_made('mpnet', gaps=(-9.5, -10.5, -10.0), origin_dev=90.0), g)['verdict'].tolist() == ['does not hold']
    rnd = context_claims(None, None, mp, dict(mp, origin={'stsb': 30.0}))  # even 44 points lower: no per-pair scores, no interval
    assert rnd['verdict'].tolist() == ['underpowered'] and rnd['why'][0] == 'no per-pair scores kept: no interval'

def test_the_claim_is_checked_on_a_surrogate_whose_teacher_passes_the_gate(tmp_path, monkeypatch):
    "The committed runs, copied, with the static Surrogate's Origin made another model: its gate passes, so it is the run the claims check."
    import json, shutil
    from pathlib import Path
    from augsbert.runs import render_report
    src = Path(__file__).parents[1]/'reports'/'runs'/'contexts'
    if not (src/'cpu'/'metrics.json').exists() or not (src/'cpu_ctx_surrogate_student-static'/'metrics.json').exists():
        pytest.skip('needs the committed contexts runs cpu and cpu_ctx_surrogate_student-static')
    dst = tmp_path/'reports'/'runs'/'contexts'
    for name in ('cpu', 'cpu_ctx_surrogate_student-static'): shutil.copytree(src/name, dst/name)
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    def edit(name, change):
        f = dst/name/'metrics.json'; m = json.loads(f.read_text()); change(m); f.write_text(json.dumps(m))
    def reads_the_start(m): m.pop('origin_model', None)          # MiniLM's Surrogate: Origin reads its own start, so its gate fails
    def reads_mpnet(m):                                           # the static Surrogate: Origin reads MPNet and beats the start
        m['origin_model'] = 'sentence-transformers/all-mpnet-base-v2'
        m['baselines']["Origin's model (zero-shot)"] = dict(m['baselines']['MiniLM (zero-shot)'])
        m['baselines']['averaged tokens (zero-shot)']['stsb-dev'] = m['origin']['stsb-dev'] - 10
    edit('cpu', reads_the_start); edit('cpu_ctx_surrogate_student-static', reads_mpnet)
    md = (Path(render_report('contexts', progress=False, profile='cpu')).parent/'contexts.md').read_text()
    assert '**1 of 2 runs pass the gate.**' in md
    assert 'The run whose Surrogate the claims check, `cpu_ctx_surrogate_student-static`, **passes**' in md

def test_random_contexts_are_compared_with_a_two_step_run_of_the_same_origin_model(tmp_path, monkeypatch):
    "The core run's Origin reads MiniLM, the static run's and the random run's read MPNet: the random run is compared with the static one."
    import json, shutil
    from pathlib import Path
    from augsbert.runs import render_report
    src = Path(__file__).parents[1]/'reports'/'runs'/'contexts'
    names = ('cpu', 'cpu_ctx_surrogate_student-static', 'cpu_ctx_selection-random_origin_only-True')
    if not all((src/n/'metrics.json').exists() for n in names) or not all((src/n/'origin_predictions.npz').exists() for n in names[1:]):
        pytest.skip('needs the committed contexts runs ' + ', '.join(names))
    dst = tmp_path/'reports'/'runs'/'contexts'
    for n in names: shutil.copytree(src/n, dst/n)
    f = dst/'cpu'/'metrics.json'; m = json.loads(f.read_text()); m['origin_model'] = 'sentence-transformers/all-MiniLM-L6-v2'; f.write_text(json.dumps(m))
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    md = (Path(render_report('contexts', progress=False, profile='cpu')).parent/'contexts.md').read_text()
    line = next(l for l in md.splitlines() if l.startswith('- **Contexts beat random contexts**'))
    assert 'Origin on all-mpnet-base-v2, the same' in line and 'paired bootstrap' in line and 'not compared' not in line

def test_the_control_separates_origins_labels_from_the_recipe(tmp_path, monkeypatch):
    "The committed static run, copied, given a cosine-labelled control 20 points above its Surrogate: Table 1 shows it and the claims read it."
    import json, shutil
    from pathlib import Path
    from augsbert.runs import render_report
    src = Path(__file__).parents[1]/'reports'/'runs'/'contexts'
    if not (src/'cpu_ctx_surrogate_student-static'/'metrics.json').exists(): pytest.skip('needs the committed contexts run cpu_ctx_surrogate_student-static')
    dst = tmp_path/'reports'/'runs'/'contexts'
    shutil.copytree(src/'cpu_ctx_surrogate_student-static', dst/'cpu_ctx_surrogate_student-static')
    f = dst/'cpu_ctx_surrogate_student-static'/'metrics.json'; m = json.loads(f.read_text())
    m['cosine_control'] = [{**x, **{k: v + 20 + 0.1 * i for k, v in x.items() if k != 'seed'}} for i, x in enumerate(m['surrogate'])]
    f.write_text(json.dumps(m))
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    md = (Path(render_report('contexts', progress=False, profile='cpu')).parent/'contexts.md').read_text()
    line = next(l for l in md.splitlines() if "**The control: Origin's labels or the recipe?**" in l)
    sur = sum(x['sts-avg'] for x in m['surrogate']) / len(m['surrogate'])
    assert f"{sur + 20.2:.2f} on the STS average" in line and 'Surrogate − control -20.20 [' in line
    assert line.rstrip().endswith('the labels, not the training, hold the Surrogate back.')
    assert "control, static: the same pairs labelled by all-mpnet-base-v2's cosine (ours, 5 seeds)" in md

def test_only_origins_of_one_model_are_compared_in_the_ablations(tmp_path, monkeypatch):
    "The committed core run (Origin on MPNet) and the 1,000-pair run (Origin on MiniLM): no 1,000 → 3,000 sentence; with one model, there is."
    import json, shutil
    from pathlib import Path
    from augsbert.runs import render_report
    src = Path(__file__).parents[1]/'reports'/'runs'/'contexts'
    sizes = [f'cpu_ctx_candidates-100_ctx_size-{n}_origin_only-True' for n in (20, 50, 100)]
    names = ('cpu', 'cpu_ctx_surrogate_pairs-1000', *sizes)
    if not all((src/n/'metrics.json').exists() for n in names): pytest.skip('needs the committed contexts runs ' + ', '.join(names))
    dst = tmp_path/'reports'/'runs'/'contexts'
    for n in names: shutil.copytree(src/n, dst/n)
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    models = [json.loads((dst/n/'metrics.json').read_text()).get('origin_model', 'sentence-transformers/all-MiniLM-L6-v2') for n in names]
    def render(): return (Path(render_report('contexts', progress=False, profile='cpu')).parent/'contexts.md').read_text()
    md = render()
    assert models[0] != models[1] and 'The minilm Surrogate (Origin on' not in md          # two Origin models: not one series
    rho = {n: json.loads((dst/n/'metrics.json').read_text())['origin']['stsb'] for n in sizes}
    f = dst/sizes[1]/'metrics.json'; m = json.loads(f.read_text()); m['origin_model'] = 'sentence-transformers/all-mpnet-base-v2'; f.write_text(json.dumps(m))
    line = next(l for l in render().splitlines() if l.startswith('- |C| from'))                  # |C| = 50 reads another model: left out
    assert line.startswith('- |C| from 20 to 100') and f"STSb {rho[sizes[0]]:.2f} → {rho[sizes[2]]:.2f} (" in line
    f = dst/'cpu'/'metrics.json'; m = json.loads(f.read_text()); m['origin_model'] = models[1]; f.write_text(json.dumps(m))
    assert 'The minilm Surrogate (Origin on all-MiniLM-L6-v2) on 1,000 → 3,000' in render()
