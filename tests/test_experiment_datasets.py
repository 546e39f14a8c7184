"Integration: the `datasets` experiment run by papermill on the smoke profile, its report, and the CLI."
import subprocess, sys
from pathlib import Path
import pytest
from conftest import needs_data
from augsbert.config import AugsbertError
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data
AUGSBERT = str(Path(sys.executable).parent/'augsbert')   # the console script of this environment

@pytest.fixture(scope='module')
def smoke_run(tmp_path_factory):
    reports = tmp_path_factory.mktemp('reports')
    mp = pytest.MonkeyPatch(); mp.setenv('AUGSBERT_REPORTS', str(reports))
    out = run_experiment('datasets', profile='smoke', run_name='smoke', progress=False, evaluation_sets=['sts12'])
    yield reports, out
    mp.undo()

def test_run_writes_all_artefacts(smoke_run):
    _, out = smoke_run
    for f in ('executed.ipynb', 'params.json', 'metrics.json', 'provenance.json', 'fig5_density.png'):
        assert (out/f).exists(), f
    params, metrics, prov = (read_json(out/f) for f in ('params.json', 'metrics.json', 'provenance.json'))
    assert params['profile'] == 'smoke' and params['evaluation_sets'] == ['sts12']
    assert metrics['sizes']['sts-es'] == {'train': 1400, 'dev': 220, 'test': 250}
    assert metrics['sizes']['bws-cross-topic'] == {'train': 2125, 'dev': 425, 'test': 850}
    assert metrics['sizes']['sts12']['test'] == 3108
    assert set(prov['data']) == {'sts-es', 'bws-cross-topic', 'mrpc', 'sts12'}
    assert all(len(h) == 64 for files in prov['data'].values() for h in files.values())
    assert prov['environment']['packages']['torch']

def test_baselines(smoke_run):
    """Baselines are pinned to the values measured on the real files (test splits are fixed by the paper's protocol).
    They are far from the paper's Jaccard row (30.27 / 5.53): reports/datasets.md shows why."""
    _, out = smoke_run
    m = read_json(out/'metrics.json')
    b = m['baselines']
    assert round(b['sts-es']['test'], 2) == 72.39
    assert round(b['bws-cross-topic']['test'], 2) == 45.94
    # majority (paper's reading): every pair positive, F1 = 2p/(1+p) with p the test share of positives
    from augsbert.data import load_dataset
    p = load_dataset('mrpc').test['score'].mean()
    assert abs(b['mrpc']['test'] - 100 * 2 * p / (1 + p)) < 1e-9
    assert set(m['jaccard_readings']) == {'sts-es', 'bws-cross-topic'}

def test_same_profile_same_metrics(smoke_run, tmp_path, monkeypatch):
    "Determinism: a second run of the same profile writes an identical metrics.json."
    _, out = smoke_run
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path))
    again = run_experiment('datasets', profile='smoke', run_name='smoke', progress=False, evaluation_sets=['sts12'])
    assert (again/'metrics.json').read_bytes() == (out/'metrics.json').read_bytes()

def test_report_renders(smoke_run, monkeypatch):
    reports, _ = smoke_run
    monkeypatch.setenv('AUGSBERT_REPORTS', str(reports))
    nb = render_report('datasets', progress=False, run_name='smoke')
    md = (reports/'datasets.md').read_text()
    assert nb.exists() and '30.27' in md and 'Table 1' in md and 'Figure 5' in md
    assert 'does not reproduce' in md
    assert (reports/'figures'/'datasets_fig5_density_smoke.png').exists()

def test_unknown_parameter_fails_before_running(reports):
    with pytest.raises(AugsbertError, match="unknown parameter 'evaluation_set'"):
        run_experiment('datasets', profile='smoke', evaluation_set=[])
    assert not (reports/'runs'/'datasets').exists() or not any((reports/'runs'/'datasets').iterdir())

def test_unknown_profile_fails(reports):
    with pytest.raises(AugsbertError, match="unknown profile 'gpu'"):
        run_experiment('datasets', profile='gpu')

def test_cli_data_info_prints_sizes():
    r = subprocess.run([AUGSBERT, 'data', 'info', 'sts-es', 'bws-in-topic'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    for n in ('1,400', '220', '250', '2,471', '478', '451'): assert n in r.stdout

def test_cli_bad_name_is_one_line_error():
    r = subprocess.run([AUGSBERT, 'data', 'info', 'quora'], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and 'unknown data set' in r.stderr and 'Traceback' not in r.stderr
