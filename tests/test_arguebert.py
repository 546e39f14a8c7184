"""Integration: the `arguebert_pretrain` experiment (papermill, smoke profile: BERT-mini, 4 steps) for the objectives
whose pairs come from the data mirror, and the bad inputs, which fail before anything is loaded or trained."""
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from pathlib import Path
from augsbert.runs import run_experiment, render_report, read_json
from augsbert.methods.arguebert.finetune import learning_gate, objective_claims

@needs_data
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
    assert m['curve'] is None                                                    # no curve asked for

@needs_data
def test_a_learning_curve(env, tmp_path):
    "`-p ab_curve=2`: held-out accuracies at steps 2 and 4 of 4, the last one the encoder's 'after', and a figure (a run kept apart: the report test counts the module's runs)."
    out = run_experiment('arguebert_pretrain', profile='smoke', progress=False, ab_objective='sp', ab_curve=2, seed=7, out_dir=tmp_path)
    m = read_json(out/'metrics.json')
    assert [p['steps'] for p in m['curve']] == [2, 4] and (out/'curve.png').exists()
    assert {k: m['curve'][-1][k] for k in m['after']} == m['after']

# (in this process, `conftest.execute_in_process`: the notebook's first cells, as a kernel would run them)
BAD_PRETRAINING = [
    (dict(ab_objective='mlm'), 'unknown pre-training objective'),
    (dict(ab_setting='warm'), 'unknown pre-training setting'),
    (dict(ab_size='huge'), 'unknown model size'),
    (dict(ab_edge_data='stsb'), 'need argument topics'),
    (dict(ab_corpus='wiki'), 'unknown corpus'),
    (dict(ab_steps=0), 'ab_steps must be at least 1'),
    (dict(ab_curve=-1), 'ab_curve must be at least 0'),
    (dict(ab_objectve='sp'), 'unknown parameter'),
]

@needs_data
@pytest.mark.parametrize('kw, match', BAD_PRETRAINING)
def test_bad_input_fails_before_any_work(env, monkeypatch, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('arguebert_pretrain', profile='smoke', progress=False, **kw)


@needs_data
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

@needs_data
def test_c_smoke_baselines(env):
    "The average-word-embedding baseline is scored as it is (no seeds); the random BERT is fine-tuned."
    m = read_json(run_experiment('arguebert', profile='smoke', progress=False, encoder='avg-tokens', abft_tasks='bws')/'metrics.json')
    assert m['seeds'] == [] and [c['seed'] for c in m['cells']] == [None] and m['pretrain'] is None
    assert set(m['summary']) == {'bws|as is'}

@needs_data
def test_d_the_report_renders_from_the_runs(env):
    "reports/arguebert.md from the runs above: the pre-training, the fine-tuned encoder beside the paper, SAM, the baseline."
    md = (Path(render_report('arguebert', progress=False, profile='smoke')).parent/'arguebert.md').read_text()
    assert '1 pre-training runs' in md and '2\nfine-tuning runs' in md.replace(' fine-tuning', '\nfine-tuning')
    assert '| scratch   | sp ' in md                                       # the pre-training table
    assert '64.09 / 69.80' in md and '8.98 / 3.46' in md                    # the paper's SP (Table 4) and word2vec (Table 2) rows
    assert 'ArgueBERT sim. pred., mini from scratch' in md and 'average word embeddings (MiniLM tokens)' in md
    assert '(no runs yet)' in md                                             # no AugSBERT run with the arguebert student here
    # the learning gate comes first: 4 steps learn no pair task and there is no random-init run, so the encoder fails it
    assert md.index('## The learning gate') < md.index("## The paper's claims") < md.index('## Table 2')
    row = next(l for l in md.splitlines() if '| scratch:sp ' in l)
    assert row.split('|')[-2].strip() == 'fail' and '(none run)' in row
    assert any(l.startswith('| ArgueBERT sim. pred., mini from scratch') and '‡' in l for l in md.splitlines())   # (and † from a dirty tree)
    assert 'No two encoders of one setting to compare yet' in md
    assert '(no learning-curve runs of this profile yet)' in md

@needs_data
def test_e_a_longer_pretraining_is_a_learning_curve_not_a_second_encoder(env):
    "A pre-training at another budget than the profile's (here 6 steps, curve every 2) is drawn as a learning curve with (a)\
 read at each point; the pre-training table, the gate and the comparisons keep the profile's 4-step encoder."
    run_experiment('arguebert_pretrain', profile='smoke', progress=False, ab_objective='sp', ab_steps=6, ab_curve=3)
    md = (Path(render_report('arguebert', progress=False, profile='smoke')).parent/'arguebert.md').read_text()
    assert '2 pre-training runs' in md and '![held-out pair accuracy against pre-training steps](figures/arguebert_curves.png)' in md
    line = next(l for l in md.splitlines() if l.startswith('- From scratch, sp (6 steps): held-out pair accuracy'))
    assert "at the profile's 4 steps" in line and 'after 6' in line and '(a) never met within 6 steps' in line   # 6 steps teach nothing
    pre_table = md[md.index('## Pre-training (held-out accuracy'):md.index('## Table 2')]
    assert sum(l.startswith('| scratch   | sp') for l in pre_table.splitlines()) == 1 and '|       4 |' in pre_table
    assert 'runs at the profile\'s budget and' in md and 'at other budgets' in md                     # the time section counts it apart

# (in this process, `conftest.execute_in_process`: the notebook's first cells, as a kernel would run them)
BAD_FINETUNING = [
    (dict(encoder='sbert'), 'unknown encoder'),
    (dict(abft_tasks='bws,afs'), 'unknown task'),
    (dict(encoder='arguebert', ab_objective='mlm'), 'unknown pre-training objective'),
    (dict(abft_epochs=0), 'abft_epochs must be at least 1'),
    (dict(abft_max_test_pairs=-1), 'abft_max_test_pairs must be at least 0'),
]

@needs_data
@pytest.mark.parametrize('kw, match', BAD_FINETUNING)
def test_finetuning_bad_input_fails_before_any_work(env, monkeypatch, kw, match):
    with pytest.raises(AugsbertError, match=match):
        run_experiment('arguebert', profile='smoke', progress=False, **kw)


# The learning gate and the claims on hand-made runs (no data, no model: milliseconds)
def _run(acc, scores, jitter=(0.0, 0.1, -0.1), seeds=(42, 43, 44)):
    "A fine-tuning run's metrics: held-out pair accuracy `acc` on 512 pairs (None: no pre-training) and {task: score} per seed."
    return dict(pretrain=None if acc is None else dict(after=dict(pair_accuracy=acc, pairs=512)),
                cells=[dict(task=t, fold=None, seed=s, cosine_spearman=v + j) for t, v in scores.items() for s, j in zip(seeds, jitter)])

RANDOM = _run(None, dict(bws=20, ukp=20, mrpc=30))

def test_comparison_with_an_objective_that_did_not_learn_is_underpowered():
    runs = {'continued:sp': _run(0.98, dict(bws=60, ukp=55, mrpc=45), (0.0, 0.3, -0.2)),
            'continued:nsp': _run(0.55, dict(bws=50, ukp=50, mrpc=40))}            # above random downstream, pair task not learned
    gates = {k: learning_gate(m, RANDOM) for k, m in runs.items()}
    assert gates['continued:sp']['passes'] and gates['continued:nsp']['beats_random']
    assert not gates['continued:nsp']['learned'] and not gates['continued:nsp']['passes']
    c = objective_claims(runs, gates)
    assert list(c['measure']) == ['bws', 'ukp', 'msrp'] and set(c['verdict']) == {'underpowered'}
    assert c['p'].isna().all() and all('continued:nsp' in w and '55.0 % < 75 %' in w for w in c['why'])   # never tested

def test_two_learned_objectives_with_a_clear_difference_hold():
    runs = {'continued:sp': _run(0.98, dict(bws=60, ukp=50, mrpc=40), (0.0, 0.3, -0.2)),
            'continued:nsp': _run(0.90, dict(bws=50, ukp=52, mrpc=40))}
    gates = {k: learning_gate(m, RANDOM) for k, m in runs.items()}
    assert all(g['passes'] for g in gates.values())
    c = objective_claims(runs, gates).set_index('measure')
    assert c.at['bws', 'verdict'] == 'holds' and c.at['bws', 'lo'] > 9 and c.at['bws', 'p_holm'] < 0.05   # +10, the paper +5.04
    assert c.at['ukp', 'verdict'] == 'does not hold'                                                       # −2, the paper +3.88

def test_an_encoder_below_random_init_fails_the_gate():
    g = learning_gate(_run(0.95, dict(bws=15, ukp=25, mrpc=35)), RANDOM)
    assert g['learned'] and not g['beats_random'] and not g['passes'] and g['why'] == 'not above random init on BWS'
    assert learning_gate(_run(0.95, dict(bws=30)), None)['why'] == 'no random-init run'
