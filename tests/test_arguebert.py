"""Integration: the `arguebert_pretrain` experiment (papermill, smoke profile: BERT-mini, 4 steps) for the objectives
whose pairs come from the data mirror, and the bad inputs, which fail before anything is loaded or trained."""
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.runs import run_experiment, read_json

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
    (dict(ab_steps=0), 'positive integer'),
    (dict(ab_objectve='sp'), 'unknown parameter'),
])
def test_bad_input_fails_before_any_work(env, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('arguebert_pretrain', profile='smoke', progress=False, **kw)
