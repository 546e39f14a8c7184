"""Integration: the `arguebert_pretrain` experiment (papermill, smoke profile: BERT-mini, 4 steps) for the objectives
whose pairs come from the data mirror, and the bad inputs, which fail before anything is loaded or trained."""
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from pathlib import Path
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data

@pytest.mark.parametrize('objective', ['sp'])          # edge pairs: tested in nbs/13_arguebert; nsp / order need the corpus download
def test_a_smoke_pretraining(env, objective):
    out = run_experiment('arguebert_pretrain', profile='smoke', progress=False, ab_objective=objective)
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert m['objective'] == objective and m['steps'] == 4 and m['setting'] == 'scratch' and m['size'] == 'mini'
    for w in ('before', 'after'):
        assert 0 <= m[w]['mlm_accuracy'] <= 1 and 0 <= m[w]['pair_accuracy'] <= 1 and m[w]['pairs'] == 512
    assert prov['timings']['pre-training'] > 0 and (out/'accuracy.png').exists()
    again = read_json(run_experiment('arguebert_pretrain', profile='smoke', progress=False, ab_objective=objective)/'provenance.json')
    assert again['encoder'] == prov['encoder']                                   # the encoder is cached by its recipe

@pytest.mark.parametrize('kw, match', [
    (dict(ab_objective='mlm'), 'unknown pre-training objective'),
    (dict(ab_setting='warm'), 'unknown pre-training setting'),
    (dict(ab_size='huge'), 'unknown model size'),
    (dict(ab_edge_data='stsb'), 'need argument topics'),
    (dict(ab_corpus='wiki'), 'unknown corpus'),
    (dict(ab_steps=0), 'ab_steps must be at least 1'),
    (dict(ab_objectve='sp'), 'unknown parameter'),
])
def test_bad_input_fails_before_any_work(env, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('arguebert_pretrain', profile='smoke', progress=False, **kw)


def test_b_smoke_finetuning_of_the_pretrained_encoder(env):
    "The `arguebert` experiment on the encoder `test_a` pre-trained (cached by its recipe): fine-tune on MSRP, SAM."
    out = run_experiment('arguebert', profile='smoke', progress=False, encoder='arguebert', ab_objective='sp', abft_tasks='mrpc')
    m, prov = read_json(out/'metrics.json'), read_json(out/'provenance.json')
    assert m['pretrain']['steps'] == 4 and m['seeds'] == [42] and len(m['cells']) == 2         # as is + one seed
    tuned = [c for c in m['cells'] if c['seed'] == 42][0]
    assert tuned['steps'] == 2 and tuned['train_pairs'] == 16
    assert [s['threshold'] for s in m['sam08']] == [0.8, 0.8] and all(0 <= s['accuracy'] <= 100 for s in m['sam08'])
    assert 'mrpc|fine-tuned' in m['summary'] and (out/'sam.png').exists()
    assert prov['timings']['pre-training (or the cache)'] < 60                                  # reused, not pre-trained again

def test_c_smoke_baselines(env):
    "The average-word-embedding baseline is scored as it is (no seeds); the random BERT is fine-tuned."
    m = read_json(run_experiment('arguebert', profile='smoke', progress=False, encoder='avg-tokens', abft_tasks='bws')/'metrics.json')
    assert m['seeds'] == [] and [c['seed'] for c in m['cells']] == [None] and m['pretrain'] is None
    assert set(m['summary']) == {'bws|as is'}

def test_d_the_report_renders_from_the_runs(env):
    "reports/arguebert.md from the runs above: the pre-training, the fine-tuned encoder beside the paper, SAM, the baseline."
    md = (Path(render_report('arguebert', progress=False, profile='smoke')).parent/'arguebert.md').read_text()
    assert '1 pre-training runs' in md and '2\nfine-tuning runs' in md.replace(' fine-tuning', '\nfine-tuning')
    assert '| scratch   | sp ' in md                                       # the pre-training table
    assert '64.09 / 69.80' in md and '8.98 / 3.46' in md                    # the paper's SP (Table 4) and word2vec (Table 2) rows
    assert 'ArgueBERT sim. pred., mini from scratch' in md and 'average word embeddings (MiniLM tokens)' in md
    assert '(no runs yet)' in md                                             # no AugSBERT run with the arguebert student here

@pytest.mark.parametrize('kw, match', [
    (dict(encoder='sbert'), 'unknown encoder'),
    (dict(abft_tasks='bws,afs'), 'unknown task'),
    (dict(encoder='arguebert', ab_objective='mlm'), 'unknown pre-training objective'),
    (dict(abft_epochs=0), 'abft_epochs must be at least 1'),
    (dict(abft_max_test_pairs=-1), 'abft_max_test_pairs must be at least 0'),
])
def test_finetuning_bad_input_fails_before_any_work(env, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('arguebert', profile='smoke', progress=False, **kw)
