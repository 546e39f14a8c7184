"""Integration: the `augcse` experiment (papermill, smoke profile, a tiny random BERT) on a user's sentences file, the
`ablations` report rendered from its run, and the bad inputs, which fail before any data is loaded or model trained."""
import re
from pathlib import Path
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data


@pytest.fixture(scope='module')
def sentences(tmp_path_factory):
    f = tmp_path_factory.mktemp('corpus')/'sentences.txt'
    lines = [f"He doesn't think the {c} car number {i} is ready." for i, c in enumerate(['red', 'blue', 'green', 'old'] * 10)]
    # a duplicate, an empty line and an STSb test sentence: removed and counted
    f.write_text('\n'.join(lines + [lines[0], '', 'A girl is styling her hair.']) + '\n', encoding='utf-8')
    return str(f)

@pytest.fixture(scope='module')
def run(env, tiny, sentences):
    return run_experiment('augcse', profile='smoke', progress=False, bi_encoder=tiny, corpus_file=sentences, augcse_batch=8,
                          seeds=2)

def test_a_smoke_run(run):
    m, prov = read_json(run/'metrics.json'), read_json(run/'provenance.json')
    assert m['corpus'] == dict(given=43, empty=1, duplicates=1, evaluation=1, clean=40, used=40)
    # 8 of the 40 sentences are held out to score the discriminator: 32 train, 4 steps of 8
    assert m['steps'] == 4 and len(m['per_seed']) == 2 and m['n_labels'] == len(m['augmenters']) + 1
    assert sum(a['drawn'] for a in m['augmentation']) == 40
    for k in ('stsb-dev', 'sts12', 'sick-r', 'sts-avg', 'mrpc'):
        assert -100 <= m['mean'][k] <= 100 and k in m['zero_shot'] and m['best'][k] >= m['mean'][k]
    assert all(0 <= a <= 1 for a in m['disc_accuracy'])
    assert [g['n'] for g in m['disc_heldout']] == [8, 8] and m['disc_learned'] in (True, False)
    assert all(0 <= g['majority'] <= 1 and g['ci'][0] <= g['accuracy'] <= g['ci'][1] for g in m['disc_heldout'])
    assert (run/'discriminator.png').exists()
    assert {'training', 'evaluation'} <= set(prov['timings']) and 'corpus_file' in prov['data'] and (run/'seeds.png').exists()

def test_each_seed_leaves_a_loadable_encoder(run, tmp_path):
    "Each seed's trained encoder: a sentence-transformers folder listed in provenance, with its card, exported by `augsbert export`."
    from sentence_transformers import SentenceTransformer
    from augsbert.cli import main
    saved = read_json(run/'provenance.json')['saved_models']
    assert [s['role'] for s in saved] == ['encoder (seed 42)', 'encoder (seed 43)']
    assert main(['export', f'augcse/{run.name}', str(tmp_path/'models')]) == 0
    enc = tmp_path/'models'/'encoder-seed-43'
    assert SentenceTransformer(str(enc)).encode(['a cat']).shape[0] == 1
    card = read_json(enc/'augsbert.json')
    assert card['run'] == f'augcse/{run.name}' and card['seed'] == 43 and card['kind'] == 'augcse encoder'

def test_the_report_renders_from_the_run(run):
    md = (Path(render_report('ablations', progress=False, profile='smoke')).parent/'ablations.md').read_text()
    assert '1 runs in `reports/runs/augcse/`' in md and 'AugCSE (α = −1) (ours, 2 seeds)' in md and 'AugCSE-BERT (paper' in md
    assert '60.47' in md and 'STS-B dev (paper)' in md                              # the paper's Table 7 beside ours
    gate = md.split('## The gate: did the discriminator learn?')[1].split('## ')[0]
    assert ('| – (α < 0; at chance)' in gate or '| – (α < 0; learned)' in gate) and 'not measured' not in gate   # measured; at α < 0 no gate is read
    assert 'α = -1, discriminator lr' in gate and ('never significantly above the largest class' in gate or 'from step' in gate)   # its curve, described
    assert "## The paper's claims, checked" in md
    assert 'evaluation sets of 32 pairs' in gate and 'sets of the core runs: a fixed sample (mrpc-dev 32, ' in md   # the smoke caps, per run

@pytest.fixture(scope='module')
def core(run, env, tiny, sentences):
    "The core comparison at the smoke budget: the α = −1 run above, SimCSE and α = +1 (the gate's setting), the same seeds."
    kw = dict(profile='smoke', progress=False, bi_encoder=tiny, corpus_file=sentences, augcse_batch=8, seeds=2)
    return [run, run_experiment('augcse', augcse_variant='simcse', **kw), run_experiment('augcse', augcse_alpha=1.0, **kw)]

def test_the_core_comparison_gets_a_verdict_per_claim(core):
    # what augcse-core's three runs give the report: each claim a paired CI over the seeds and one of the three verdicts
    md = (Path(render_report('ablations', progress=False, profile='smoke')).parent/'ablations.md').read_text()
    claims = md.split("## The paper's claims, checked")[1].split('\n## ')[0]
    for claim in ('AugCSE − SimCSE, STS test average', 'α = −1 − α = +1, STS-B dev'):
        line = next(l for l in claims.splitlines() if claim in l)
        assert re.search(r'[-+]?\d+\.\d\d \[[-+]\d+\.\d\d, [-+]\d+\.\d\d\] over 2 seeds', line), line
        assert re.search(r'Verdict: \*\*(holds|does not hold|underpowered)\*\*', line), line
    # the described difference reads with the claim's own interval (not a 2σ rule that can disagree with it)
    ci = re.search(r'AugCSE − SimCSE, STS test average[^*]*\*\*: [-+]?\d+\.\d\d (\[[-+]\d+\.\d\d, [-+]\d+\.\d\d\])', claims).group(1)
    described = md.split('## Differences, described')[1].split('\n## ')[0]
    assert 'AugCSE − SimCSE on the STS test average' in described and f'95 % CI {ci}: ' in described, (ci, described)
    assert 'seed spread' not in described
    # one learning curve per run, named with its seeds: two runs at one α are never pooled into one line
    assert re.search(r'\n- α = 1, discriminator lr [\d.e-]+ \(2 seeds\): held-out accuracy', md), md
    gate = [l for l in claims.splitlines() if "The discriminator's gate at α = +1" in l]   # a line only when it did not pass
    if gate:                                        # measured, and a gate that failed leaves no verdict but *underpowered*
        assert 'not measured' not in gate[0] and 'it did not learn' in gate[0], gate
        assert claims.count('Verdict: **underpowered**') == 2, claims

# (in this process, `conftest.execute_in_process`: the notebook's first cells, as a kernel would run them)
BAD = [
    (dict(augcse_augs='pig-latin'), 'unknown augmenter'),
    (dict(augcse_augs='DiverseParaphrase'), 'cannot run offline'),
    (dict(student='static'), 'needs a transformer student'),
    (dict(augcse_alpha=0.0), 'non-zero'),
    (dict(augcse_lambda=50.0), 'λ must be in'),
    (dict(augcse_variant='gan'), 'unknown AugCSE variant'),
    (dict(augcse_pooling='max'), 'unknown pooling'),
    (dict(augcse_alpha='x'), 'augcse_alpha'),
    (dict(augcse_temprature=0.1), 'unknown parameter'),
    (dict(augcse_heldout=-1), 'augcse_heldout'),
    (dict(augcse_heldout=40), 'fewer than half'),
    (dict(augcse_disc_lr=2.0), 'augcse_disc_lr'),
    (dict(augcse_curve=0), 'augcse_curve'),
]

@pytest.mark.parametrize('kw, match', BAD)
def test_bad_input_fails_before_any_work(env, tiny, sentences, monkeypatch, kw, match):
    # the smoke run's sentences: their augmentations are cached, so the one case that fails after augmenting (too many
    # held out, of its 40 sentences) augments nothing again
    with pytest.raises(AugsbertError, match=match):
        run_experiment('augcse', profile='smoke', progress=False, bi_encoder=tiny, corpus_file=sentences, **kw)
