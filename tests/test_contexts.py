"""Integration: the `contexts` experiment (Sun et al.; papermill, smoke profile) on a small running-text file — Origin,
the baselines, a Surrogate and the supervised step — and its bad inputs, which fail before anything is loaded or trained."""
import random
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
    assert {'Origin on the evaluation sets', 'Surrogate training'} <= set(prov['timings']) and (out/'sts.png').exists()
    assert m['origin_model'] != 'sentence-transformers/all-MiniLM-L6-v2' and "Origin's model (zero-shot)" in m['baselines']
    assert len(prov['models']) == 2                                                       # the Surrogate's start and Origin's model
    scored = sum(n for k, n in m['eval_sizes'].items() if not k.startswith('mrpc'))        # stsb-dev and the STS sets
    assert isinstance(m['origin_empty_pairs'], int) and 0 <= m['origin_empty_pairs'] <= scored   # counted, never an error

@pytest.mark.parametrize('kw, match', [
    (dict(ctx_scorer='seq2seq'), 'unknown context scorer'),
    (dict(ctx_selection='best'), 'unknown context selection'),
    (dict(ctx_corpus='wiki'), 'unknown corpus'),
    (dict(ctx_surrogate_student='tfidf'), "'minilm' or 'static'"),
    (dict(ctx_size=0), 'ctx_size must be at least 1'),
    (dict(ctx_size=8, ctx_candidates=4), '-p ctx_candidates=8'),       # two-step: one context per chunk, never fillable
    (dict(ctx_origin_model='no-such-model'), 'no-such-model'),
])
def test_bad_choices_fail_before_any_work(env, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('contexts', profile='smoke', progress=False, **kw)

@pytest.mark.parametrize('profile', ['smoke', 'cpu', 'paper'])
def test_every_profile_can_fill_its_context_sets(profile):
    from augsbert.config import get_profile
    from augsbert.methods.contexts import check_context_budget
    c = get_profile(profile)
    check_context_budget(c['ctx_size'], c['ctx_candidates'], c['ctx_selection'])

@pytest.mark.parametrize('content, match', [(b'\n \n', 'has no text'), ('caf\xe9'.encode('latin-1'), 'not UTF-8')])
def test_bad_corpus_files(env, tmp_path, content, match):
    p = tmp_path/'bad.txt'; p.write_bytes(content)
    with pytest.raises(AugsbertError, match=match):
        run_experiment('contexts', profile='smoke', progress=False, corpus_file=str(p))

def test_the_report_renders_from_the_runs(smoke_run, corpus_file):
    "reports/contexts.md from the smoke run and an Origin-only ablation (random contexts), the paper's numbers beside."
    from pathlib import Path
    from augsbert.runs import render_report
    run_experiment('contexts', profile='smoke', progress=False, corpus_file=str(corpus_file), origin_only=True, ctx_selection='random')
    md = (Path(render_report('contexts', progress=False, profile='smoke')).parent/'contexts.md').read_text()
    assert 'from 2 runs' in md and '76.93' in md and '34.45' in md                  # the paper's Origin average and random-C row
    assert 'Random contexts instead of the two-step set' in md and 'Origin, discriminative only (ours)' in md
