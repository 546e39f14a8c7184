"""The ladder report (issue 33) renders from `static-ladder` runs: each rung against the one it builds on, paired and
Holm-corrected; the best static student chosen on dev; with no run yet it says how to make them."""
from conftest import needs_data
from augsbert.config import reports_dir
from augsbert.runs import run_experiment, render_report

pytestmark = needs_data


def test_ladder_report_from_two_rungs(env, tiny):
    render_report('ladder', progress=False, profile='smoke')
    assert 'No ladder run is committed for this profile yet' in (reports_dir()/'ladder.md').read_text()
    kw = dict(profile='smoke', progress=False, dataset='sts-es', teacher_model=tiny, student='static', static_init='tokens',
              max_train_pairs=32, seeds=2, teacher_search=False, strategies='bm25', controls='', n_boot=200)
    run_experiment('evidence', run_name='smoke_stsb_static-ladder_1-minilm-cross-encoder', **kw)
    run_experiment('evidence', run_name='smoke_stsb_static-ladder_1-mpnet-cross-encoder', student_loss='cosent', **kw)
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()
    assert '`1-mpnet-cross-encoder` − `1-minilm-cross-encoder`:' in md and 'The best static student on dev is rung' in md
    assert (reports_dir()/'figures'/'ladder_speed_quality.png').exists()
