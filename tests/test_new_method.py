"""A new method is one module under `augsbert/methods/` + its settings family + one grid entry: this test adds a trivial
one (word overlap to a power) and removes nothing else, runs it through the generic `method` experiment, and plans it
from one grid entry."""
import textwrap
from pathlib import Path
import pytest
from conftest import needs_data
import augsbert.methods
from augsbert.config import AugsbertError, PROFILE_KEYS, BOUNDS, DEFAULTS, SETTINGS
from augsbert.runs import run_experiment, read_json

pytestmark = needs_data

TRIVIAL = textwrap.dedent('''
    """A trivial method (a test of the house's contract): a pair's score is its shared words to a power."""
    from augsbert.config import register_settings
    from augsbert.metrics import spearman

    SETTINGS = register_settings('trivial', dict(trivial_power=float), bounds=dict(trivial_power='(0,)'),
                                 defaults=dict(trivial_power=1.0))

    def run(cfg, data, run_dir, progress=True):
        "Spearman of the overlap score on dev and test (nothing is trained)."
        score = lambda df: [len(set(a.split()) & set(b.split())) ** cfg['trivial_power'] for a, b in zip(df.sentence1, df.sentence2)]
        return dict(per_seed=[dict(seed=cfg['seed'], dev=spearman(score(data.dev), data.dev.score),
                                   test=spearman(score(data.test), data.test.score))])
''')

@pytest.fixture
def trivial():
    "The module written into the package (the kernel papermill starts imports it too), removed afterwards."
    path = Path(augsbert.methods.__file__).parent/'trivial.py'
    assert not path.exists()
    path.write_text(TRIVIAL, encoding='utf-8')
    try: yield path
    finally:
        path.unlink(missing_ok=True)
        for pyc in (path.parent/'__pycache__').glob('trivial.*.pyc'): pyc.unlink()
        for k in ('trivial_power',): PROFILE_KEYS.pop(k, None); BOUNDS.pop(k, None); DEFAULTS.pop(k, None)
        SETTINGS.pop('trivial', None)

def test_a_new_method_is_one_module(env, trivial, monkeypatch):
    out = run_experiment('method', profile='smoke', progress=False, method='trivial', dataset='sts-es', settings={'trivial_power': 2.0})
    m, p = read_json(out/'metrics.json'), read_json(out/'params.json')
    assert m['method'] == 'trivial' and len(m['per_seed']) == 1 and -100 <= m['test_mean'] <= 100
    assert p['settings'] == {'trivial_power': 2.0} and read_json(out/'provenance.json')['method_module'] == 'augsbert.methods.trivial'
    # its settings are checked like any other: a bad value or an unknown method fails before any data loads
    with pytest.raises(AugsbertError, match='trivial_power must be above 0'):
        run_experiment('method', profile='smoke', progress=False, method='trivial', dataset='sts-es', settings={'trivial_power': 0})
    with pytest.raises(AugsbertError, match="unknown method module.*did you mean 'trivial'"):
        run_experiment('method', profile='smoke', progress=False, method='trivia', dataset='sts-es')

def test_one_grid_entry_plans_it(trivial):
    from augsbert import grid
    spec = {'runs': [{'params': {'method': 'trivial', 'dataset': 'sts-es', 'settings': {'trivial_power': 2.0}}}]}
    runs = grid.build_runs('method', spec, 'smoke')
    (name, r), = runs.items()
    assert 'method-trivial' in name and "settings={'trivial_power': 2.0}" in ' '.join(r['args']), (name, r)
    from augsbert.runs import check_run_name
    assert check_run_name(name) == name and all(isinstance(a, str) for a in r['args'])   # what Snakemake passes to `augsbert run`
